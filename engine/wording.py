"""Wording as data: a message is an id and its parameters; catalogs say it in each language.

Why: layers must never read each other's prose (a card that keeps notices not starting with
"Step ", a console that splits a formatted bar). So what crosses a layer is a
:class:`Message` (``id`` + typed ``params``), and only a face turns it into words, in the
conversation's language, with :func:`render`. Tests assert ids and numbers, not sentences.

Catalogs are TOML files per language in each layer's message folder: ``en.toml`` and
``fr.toml``, or several named ``<part>.en.toml`` / ``<part>.fr.toml`` (``engine/data/messages``,
``dialogue/messages``, ``bot/messages``). Tables nest ids: ``[step1] fits = "..."`` is the id
``step1.fits``. Each layer builds a :class:`Catalog` of its own files plus the layers below it
(the bot renders engine and dialogue messages too); an id defined twice is an error at load.

Templates use ``str.format`` fields whose format spec names a unit formatter from
:data:`engine.units.FORMATS`: ``"{weights:size} = {share:pct} of {vram:size}"``. Other specs:

* ``{n:plural(node|nodes)}``: the word for ``n`` (French counts 0 and 1 as singular);
* ``{n:de:tokens}``: in French, 'de' after a figure ending in a scale word ('10 M de
  documents', but '5 000 documents'); in English the figure alone;
* ``{items:list}``: a list of messages or strings joined as "a, b and c" / "a, b et c";
* a parameter that is itself a :class:`Message` is rendered in the same language;
* a plain string is inserted as it is (names of models and GPUs are not translated).

Completeness is a test: every id has a template in every language, with the same fields.
"""

from __future__ import annotations

import re
import string
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, TypeAlias, Union

from pydantic import BaseModel, ConfigDict, Field

from engine.units import FORMATS, LANGS, Lang

__all__ = ["LANGS", "Catalog", "Lang", "Message", "Param", "WordingError", "engine_catalog", "msg",
           "render", "render_all", "text", "with_text"]

class WordingError(LookupError):
    """A catalog is broken, or a message id / field is missing from it."""


class Message(BaseModel):
    """Something to say, without saying it: an id in a catalog and the values it mentions."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="catalog id, e.g. 'step1.fits'")
    params: dict[str, Param] = Field(default_factory=dict)

    def __hash__(self) -> int:  # params hold lists; hash by id and repr of the values
        return hash((self.id, repr(sorted(self.params.items(), key=lambda kv: kv[0]))))


#: What a message may mention: numbers (formatted by the template), names, other messages.
Param: TypeAlias = Union[str, int, float, bool, Message, list[Message], list[str], None]  # noqa: UP007
Message.model_rebuild()


_FIELDS_SET = frozenset({"id", "params"})


def msg(id: str, /, **params: Param) -> Message:
    """``msg(id, weights=141e9)``: the short way to build a :class:`Message`.

    The parameters are typed (:data:`Param`, checked by mypy), so they are not validated
    again at run time: an answer builds hundreds of messages, so this sets the instance's
    state the way ``Message.model_construct`` does, without its per-call field walk. A
    message read from outside (JSON) is validated as usual with ``Message.model_validate``.
    """
    m = object.__new__(Message)
    object.__setattr__(m, "__dict__", {"id": id, "params": params})
    object.__setattr__(m, "__pydantic_fields_set__", set(_FIELDS_SET))
    object.__setattr__(m, "__pydantic_extra__", None)
    object.__setattr__(m, "__pydantic_private__", None)
    return m


def text(value: str) -> Message:
    """A verbatim string as a message (a model or GPU name used where a message is expected)."""
    return Message(id="text", params={"text": value})


_PLURAL = re.compile(r"^plural\((?P<one>[^|]*)\|(?P<many>[^)]*)\)$")
_AND = {"en": " and ", "fr": " et "}


def _flatten(prefix: str, table: Mapping[str, Any], out: dict[str, str], where: str) -> None:
    for key, value in table.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            _flatten(name, value, out, where)
        elif isinstance(value, str):
            out[name] = value
        else:
            raise WordingError(f"{where}: '{name}' must be a string or a table")


def fields(template: str) -> frozenset[str]:
    """The parameter names a template uses (for the completeness test)."""
    return frozenset(
        name.split(".")[0].split("[")[0]
        for _, name, _, _ in string.Formatter().parse(template)
        if name
    )


class Catalog:
    """The templates of one or more layers, in every language, merged and checked at load."""

    def __init__(self, dirs: Sequence[Path]) -> None:
        self.dirs = tuple(dirs)
        self.templates: dict[Lang, dict[str, str]] = {lang: {} for lang in LANGS}
        self.origins: dict[Lang, dict[str, Path]] = {lang: {} for lang in LANGS}
        for d in self.dirs:
            for lang in LANGS:
                paths = sorted({*d.glob(f"{lang}.toml"), *d.glob(f"*.{lang}.toml")})
                if not paths:
                    raise WordingError(f"{d}: no {lang} catalog ({lang}.toml or *.{lang}.toml)")
                for path in paths:
                    self._load(path, lang)
        self.templates["en"].setdefault("text", "{text}")
        self.templates["fr"].setdefault("text", "{text}")

    def _load(self, path: Path, lang: Lang) -> None:
        try:
            with path.open("rb") as fh:
                data = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise WordingError(f"{path}: not valid TOML: {exc}") from None
        flat: dict[str, str] = {}
        _flatten("", data, flat, str(path))
        origin = self.origins[lang]
        for key, template in flat.items():
            if key in self.templates[lang]:
                raise WordingError(f"{path}: '{key}' is already defined in {origin[key]}")
            self.templates[lang][key] = template
            origin[key] = path

    def template(self, id: str, lang: Lang) -> str:
        try:
            return self.templates[lang][id]
        except KeyError:
            raise WordingError(f"no message '{id}' in the {lang} catalogs of "
                               f"{', '.join(str(d) for d in self.dirs)}") from None

    def ids(self) -> frozenset[str]:
        return frozenset(self.templates[LANGS[0]])

    def problems(self) -> list[str]:
        """Every id missing from a language, or whose fields differ between languages."""
        out: list[str] = []
        base = self.templates[LANGS[0]]
        for lang in LANGS[1:]:
            other = self.templates[lang]
            for key in sorted(set(base) - set(other)):
                out.append(f"'{key}' has no {lang} text")
            for key in sorted(set(other) - set(base)):
                out.append(f"'{key}' exists in {lang} only")
            for key in sorted(set(base) & set(other)):
                if fields(base[key]) != fields(other[key]):
                    out.append(f"'{key}': fields {sorted(fields(base[key]))} in {LANGS[0]} "
                               f"but {sorted(fields(other[key]))} in {lang}")
        return out

    def render(self, message: Message | str, lang: Lang = "en") -> str:
        """The message in words. A plain ``str`` is returned as it is."""
        if isinstance(message, str):
            return message
        return _Formatter(self, lang).format(self.template(message.id, lang), **message.params)


class _Formatter(string.Formatter):
    """``str.format`` with the product's unit formats, plurals, lists and nested messages."""

    def __init__(self, catalog: Catalog, lang: Lang) -> None:
        self.catalog = catalog
        self.lang = lang

    def format_field(self, value: Any, format_spec: str) -> str:
        if isinstance(value, Message):
            return self.catalog.render(value, self.lang)
        if format_spec == "list":
            items = [self.format_field(v, "") for v in (value or [])]
            if len(items) <= 1:
                return "".join(items)
            return ", ".join(items[:-1]) + _AND[self.lang] + items[-1]
        if format_spec[:2] in ("a:", "A:"):  # English article before a figure: 'an 8T model'
            said = self.format_field(value, format_spec[2:])
            if self.lang != "en":
                return said
            article = _article(said)
            return f"{article.capitalize() if format_spec[0] == 'A' else article} {said}"
        if format_spec.startswith("de:"):  # French 'de' after a scale word only
            said = self.format_field(value, format_spec[3:])
            return f"{said} de" if self.lang == "fr" and said[-1:].isalpha() else said
        plural = _PLURAL.match(format_spec)
        if plural is not None:
            n = float(value)
            one = n < 2 if self.lang == "fr" else n == 1
            return plural["one"] if one else plural["many"]
        if format_spec in FORMATS:
            if value is None:
                return "-"
            formatted: str = FORMATS[format_spec](float(value), self.lang)
            return formatted
        if isinstance(value, list):
            return self.format_field(value, "list")
        return str(super().format_field(value, format_spec))


def _article(figure: str) -> str:
    """'a' or 'an' before a figure as it is read aloud: an 8T, an 11B, an 18B, an 80B, a 70B,
    a 110B (the leading group of digits decides: eight..., eleven, eighteen)."""
    lead = re.match(r"\d+", figure)
    group = lead.group(0) if lead is not None else ""
    return "an" if group.startswith("8") or group in ("11", "18") else "a"


@cache
def engine_catalog() -> Catalog:
    """The engine's own messages (step questions, evidence, caveats, headlines, the math)."""
    return Catalog([Path(__file__).parent / "data" / "messages"])


def render(message: Message | str, lang: Lang = "en", catalog: Catalog | None = None) -> str:
    """Render with ``catalog`` (default: the engine's). Faces pass their own layered catalog."""
    return (catalog or engine_catalog()).render(message, lang)


def render_all(messages: Iterable[Message | str], lang: Lang = "en",
               catalog: Catalog | None = None) -> list[str]:
    return [render(m, lang, catalog) for m in messages]


_MESSAGE_KEYS = frozenset({"id", "params"})


def with_text(data: Any, lang: Lang = "en", catalog: Catalog | None = None) -> Any:
    """A JSON-ready dump (``model_dump(mode="json")``) with every message object in it, nested
    ones included, carrying its ``text`` in ``lang`` beside its ``id`` and ``params``.

    Why: a script, a web page or another bot shows the answer without this project's
    catalogs, and a program that translates still has the ids. One walk over the dump, so
    every face that prints JSON says the same words (the engine CLI, the JSON console)."""
    if isinstance(data, list):
        return [with_text(v, lang, catalog) for v in data]
    if not isinstance(data, dict):
        return data
    if _MESSAGE_KEYS <= data.keys() <= _MESSAGE_KEYS | {"text"} and isinstance(data["id"], str):
        said = render(Message.model_validate({"id": data["id"], "params": data["params"]}),
                      lang, catalog)
        return {"id": data["id"], "params": with_text(data["params"], lang, catalog),
                "text": said}
    return {k: with_text(v, lang, catalog) for k, v in data.items()}
