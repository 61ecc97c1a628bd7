"""The engine's exceptions: one documented tree, so a caller catches what it means to catch.

Why one tree (as httpx does): a face needs to tell "the person typed a name we do not know"
(show the suggestions) from "the request cannot be sized" (say why, keep the answers) from
"the packaged data is broken" (an operator's problem), and to catch all three at once where
that is what it wants. Every error carries a :class:`engine.wording.Message` (``.message``):
the same sentence in English and French for a face to render; ``str(exc)`` is its English
rendering, for logs and the CLI. Nothing here carries a traceback to a person.

::

    EngineError                  base: anything the engine refuses, with .message
    ├── CatalogError             a data file is missing, unreadable or does not validate
    ├── UnknownName              a name the catalog does not hold; .text, .suggestions
    │   ├── UnknownModel         ... a model (.ambiguous: several models match)
    │   └── UnknownEntry         ... a GPU or an interconnect (.kind)
    └── UnsizableRequest         a well-formed request the engine cannot size (a context
                                 beyond the model's limit, an in-node link between nodes,
                                 a parameter count no formula can take)

``CatalogError`` and ``UnsizableRequest`` are also ``ValueError``, the two unknown-name errors
``LookupError``, so code written against the built-in kinds keeps working.
"""

from __future__ import annotations

from typing import Literal

from engine.wording import Message, msg, render

__all__ = [
    "CatalogError",
    "EngineError",
    "UnknownEntry",
    "UnknownModel",
    "UnknownName",
    "UnsizableRequest",
]

EntryKind = Literal["gpu", "link"]


class EngineError(Exception):
    """Base of every error the engine raises on purpose; ``message`` says it in any language."""

    def __init__(self, message: Message) -> None:
        self.message = message
        super().__init__(render(message, "en"))


class CatalogError(EngineError, ValueError):
    """A data file is missing, unreadable or does not validate; the text names file and field.

    Its detail comes from the loader and pydantic (an operator's message, in English)."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(msg("error.catalog", detail=detail))


class UnknownName(EngineError, LookupError):
    """A name the catalog does not hold; ``suggestions`` are the nearest catalog ids."""

    def __init__(self, message: Message, text: str, suggestions: list[str]) -> None:
        self.text = text
        self.suggestions = suggestions
        super().__init__(message)


class UnknownModel(UnknownName):
    """The text names no catalog model, or several (``ambiguous``)."""

    def __init__(self, text: str, suggestions: list[str], ambiguous: bool = False) -> None:
        self.ambiguous = ambiguous
        if ambiguous:
            message = msg("error.ambiguous_model", text=text, suggestions=suggestions)
        elif suggestions:
            message = msg("error.unknown_model_suggest", text=text, suggestions=suggestions)
        else:
            message = msg("error.unknown_model", text=text)
        super().__init__(message, text, suggestions)


class UnknownEntry(UnknownName):
    """A GPU or interconnect name the catalog does not hold."""

    def __init__(self, kind: EntryKind, text: str, suggestions: list[str]) -> None:
        self.kind = kind
        what = msg("entry.gpu") if kind == "gpu" else msg("entry.link")
        if suggestions:
            message = msg("error.unknown_entry_suggest", kind=what, text=text,
                          suggestions=suggestions)
        else:
            message = msg("error.unknown_entry", kind=what, text=text)
        super().__init__(message, text, suggestions)


class UnsizableRequest(EngineError, ValueError):
    """A well-formed request the engine cannot size; ``message`` says why and what would do."""
