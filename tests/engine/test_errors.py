"""The engine's exceptions are one documented tree (engine/errors.py), as httpx's are.

A face catches ``EngineError`` to refuse any request politely, or one branch to do better
(suggest names for an ``UnknownName``); every error carries a message for both languages.
"""

from __future__ import annotations

import pytest

import engine
from engine import SizingRequest, errors, recommend
from engine.units import LANGS
from engine.wording import render

TREE = {
    "EngineError": Exception,
    "CatalogError": errors.EngineError,
    "UnknownName": errors.EngineError,
    "UnknownModel": errors.UnknownName,
    "UnknownEntry": errors.UnknownName,
    "UnsizableRequest": errors.EngineError,
}


def test_the_public_surface_is_the_documented_tree() -> None:
    assert set(errors.__all__) == set(TREE)
    for name, parent in TREE.items():
        cls = getattr(errors, name)
        assert issubclass(cls, parent), name
        assert name in (errors.__doc__ or ""), f"{name} is not in the documented tree"
        assert getattr(engine, name) is cls, f"engine.{name} is not the same class"
    # the built-in kinds callers may already catch
    assert issubclass(errors.UnknownName, LookupError)
    assert issubclass(errors.UnsizableRequest, ValueError)
    assert issubclass(errors.CatalogError, ValueError)
    # the catalog package re-exports the ones the dialogue imports from it
    from engine import catalog as cat
    assert cat.UnknownModel is errors.UnknownModel and cat.UnknownEntry is errors.UnknownEntry
    assert cat.CatalogError is errors.CatalogError


@pytest.mark.parametrize(("kw", "cls", "message_id"), [
    ({"model": "lama 3.1 70"}, errors.UnknownModel, "error.unknown_model_suggest"),
    ({"model": "70b"}, errors.UnknownModel, "error.ambiguous_model"),
    ({"model": "llama-3.1-70b", "gpu": "rtx 9090"}, errors.UnknownEntry,
     "error.unknown_entry_suggest"),
    ({"model": "llama-3.1-70b", "interconnect": "pcie5"}, errors.UnsizableRequest,
     "error.in_node_link"),
    ({"model": "llama-2-70b", "context": 8192}, errors.UnsizableRequest,
     "error.context_too_long"),
])
def test_every_refusal_says_why_in_both_languages(
    kw: dict[str, object], cls: type[errors.EngineError], message_id: str
) -> None:
    with pytest.raises(cls) as exc:
        recommend(SizingRequest(**kw))
    assert isinstance(exc.value, errors.EngineError)
    assert exc.value.message.id == message_id
    for lang in LANGS:
        assert render(exc.value.message, lang)
    assert str(exc.value) == render(exc.value.message, "en")


def test_unknown_names_keep_their_suggestions() -> None:
    with pytest.raises(errors.UnknownEntry) as exc:
        recommend(SizingRequest(model="llama-3.1-70b", gpu="rtx 9090"))
    assert exc.value.kind == "gpu" and exc.value.text == "rtx 9090"
    assert "rtx-5090" in exc.value.suggestions
