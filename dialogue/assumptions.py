"""What the dialogue assumes when a person did not say it, read from ``dialogue/data``.

Why a data file: the house keeps constants in data with their source (docs/architecture.md,
"Rules of the house"), and every one of these is shown to a person as "I assumed ..." with a
one-click change, so each must say where it comes from. Loaded once; a missing source fails
at load, not in front of a customer. What the engine also uses (the comfortable reading speed
per user) is the engine's policy, not repeated here.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

PATH = Path(__file__).parent / "data" / "assumptions.toml"


class Assumptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    chatgpt_tokens_per_s: float = Field(gt=0)
    peak_share: float = Field(gt=0, le=1)
    peak_shares: tuple[float, ...]
    bytes_per_token: float = Field(gt=0)
    context_tokens: int = Field(gt=0)
    sources: dict[str, str]

    @model_validator(mode="after")
    def _sourced(self) -> Assumptions:
        missing = [k for k in type(self).model_fields if k != "sources" and k not in self.sources]
        if missing:
            raise ValueError(f"{PATH.name}: no [sources] entry for {', '.join(missing)}")
        return self


@cache
def assumptions() -> Assumptions:
    with PATH.open("rb") as fh:
        return Assumptions.model_validate(tomllib.load(fh))
