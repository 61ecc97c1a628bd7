"""A GPU the customer refuses ('not on L40S', 'pas sur des H100') is never what the answer
offers: not an alternative, not a button, not the default taken on Enter."""

from __future__ import annotations

from bot import jsonface
from dialogue import Dialogue, MemoryStore, Reply
from engine.catalog import catalog

FIXED = 1764590400.0


def _converse(*lines: str) -> list[Reply]:
    d = Dialogue(MemoryStore(), clock=lambda: FIXED)
    return list(jsonface.converse(d, lines[0], list(lines[1:])))


def test_a_refused_gpu_is_no_alternative() -> None:
    said = _converse("llama 3.1 70b inference, 32 users, 8k, 20 tok/s per user")[-1]
    assert said.recommendation is not None
    offered = sorted(a.gpu for a in said.recommendation.alternatives if a.kind == "gpu")
    assert offered, "the card offers other GPUs"
    name = catalog().gpus[offered[0]].name.removeprefix("NVIDIA ")  # as a person names it
    again = _converse(f"llama 3.1 70b inference, 32 users, 8k, 20 tok/s per user, "
                      f"not on {name}")[-1]
    assert again.recommendation is not None
    assert offered[0] not in {a.gpu for a in again.recommendation.alternatives}
    assert again.request["avoid_gpus"] == [offered[0]]


def test_the_default_gpu_refused_is_asked_without_it() -> None:
    r = _converse("llama 3.1 70b inference, 64 users, 8k, pas sur des RTX PRO 6000 Server")[-1]
    assert r.asking == "gpu"
    assert "rtx-pro-6000-server" not in [c.value for c in r.choices]
    empty = _converse("llama 3.1 70b inference, 64 users, 8k, not on RTX PRO 6000 Server",
                      "")[-1]
    assert empty.asking == "gpu" and empty.error is not None  # Enter takes no refused default
