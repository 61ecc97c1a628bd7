"""A strict parser for the small YAML subset our deploy files are written in.

Why not PyYAML: it is not a dependency of the project, and adding one only to read our own
manifests in tests is not worth it. Why not JSON-shaped manifests (YAML is a superset of JSON):
operators read and edit these files, and comments explaining each setting matter more there.

So the manifests keep to a subset, and this parser *rejects* anything outside it rather than
guessing: block mappings and sequences (two-space style, ``- key: value`` items included),
flow ``[...]`` / ``{...}`` of scalars, plain / single- / double-quoted scalars, comments and
``---`` document separators. Anchors, aliases, tags, block scalars (``|``, ``>``), multi-line
plain scalars, tabs and duplicate keys are errors. Plain ``yes``/``no``/``on``/``off`` are errors
too: YAML 1.1 parsers (Kubernetes, docker compose) read them as booleans, YAML 1.2 as strings,
so the files must quote them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["YamlError", "load_all", "load_one"]


class YamlError(ValueError):
    """The text is outside the supported subset (or not YAML at all)."""


@dataclass
class _Line:
    indent: int
    text: str
    lineno: int


_INT = re.compile(r"^[-+]?(0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"^[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$")
_AMBIGUOUS = {"yes", "no", "on", "off", "y", "n"}
_FORBIDDEN_START = set("&*!|>%@`")


def _strip_comment(text: str, lineno: int) -> str:
    """Drop a ``#`` comment that is outside quotes and starts a word."""
    quote: str | None = None
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote:
                if quote == "'" and i + 1 < len(text) and text[i + 1] == "'":
                    i += 2
                    continue
                quote = None
        elif ch in "\"'" and (i == 0 or text[i - 1] in " [{,:-"):
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i].rstrip()
        i += 1
    if quote:
        raise YamlError(f"line {lineno}: unterminated quote")
    return text.rstrip()


def _lines(doc: list[tuple[int, str]]) -> list[_Line]:
    out = []
    for lineno, raw in doc:
        body = raw.lstrip(" ")
        if body.startswith("\t") or "\t" in raw[: len(raw) - len(body) + 1]:
            raise YamlError(f"line {lineno}: tab in indentation")
        text = _strip_comment(body, lineno)
        if text:
            out.append(_Line(len(raw) - len(body), text, lineno))
    return out


def _split_key(text: str, lineno: int) -> tuple[str, str] | None:
    """``key: value`` -> (key, value); None if the line is not a mapping entry."""
    if text[0] in "\"'":
        end = _quoted_end(text, 0, lineno)
        key_text, rest = text[: end + 1], text[end + 1 :]
        if rest == ":" or rest.startswith(": "):
            return str(_scalar(key_text, lineno)), rest[1:].strip()
        return None
    m = re.match(r"^([^\s:\[\]{},#][^:#]*?)\s*:(?:\s+(.*))?$", text)
    if not m:
        return None
    return m.group(1), (m.group(2) or "").strip()


def _quoted_end(text: str, start: int, lineno: int) -> int:
    quote = text[start]
    i = start + 1
    while i < len(text):
        if quote == '"' and text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            if quote == "'" and i + 1 < len(text) and text[i + 1] == "'":
                i += 2
                continue
            return i
        i += 1
    raise YamlError(f"line {lineno}: unterminated quote")


def _scalar(text: str, lineno: int) -> Any:
    text = text.strip()
    if text == "":
        return None
    if text[0] == '"':
        if _quoted_end(text, 0, lineno) != len(text) - 1:
            raise YamlError(f"line {lineno}: text after a quoted scalar: {text!r}")
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise YamlError(f"line {lineno}: bad double-quoted scalar {text!r}") from exc
    if text[0] == "'":
        if _quoted_end(text, 0, lineno) != len(text) - 1:
            raise YamlError(f"line {lineno}: text after a quoted scalar: {text!r}")
        return text[1:-1].replace("''", "'")
    if text[0] in "[{":
        value, end = _flow(text, 0, lineno)
        if text[end:].strip():
            raise YamlError(f"line {lineno}: text after a flow collection: {text!r}")
        return value
    if text[0] in _FORBIDDEN_START:
        raise YamlError(f"line {lineno}: unsupported YAML construct {text!r}")
    if text.startswith("- ") or text == "-":
        raise YamlError(f"line {lineno}: a sequence cannot start here: {text!r}")
    if ": " in text or text.endswith(":"):
        raise YamlError(f"line {lineno}: nested mapping on one line is not supported: {text!r}")
    low = text.lower()
    if low in _AMBIGUOUS:
        raise YamlError(f"line {lineno}: quote {text!r}: YAML 1.1 reads it as a boolean")
    if low in ("true", "false"):
        return low == "true"
    if low in ("null", "~"):
        return None
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    return text


def _flow(text: str, i: int, lineno: int) -> tuple[Any, int]:
    """Parse ``[...]`` or ``{...}`` starting at ``text[i]``; return (value, index after it)."""
    opener = text[i]
    closer = "]" if opener == "[" else "}"
    items: list[Any] = []
    mapping: dict[str, Any] = {}
    i += 1
    while True:
        while i < len(text) and text[i] == " ":
            i += 1
        if i >= len(text):
            raise YamlError(f"line {lineno}: unterminated {opener}")
        if text[i] == closer:
            return (items if opener == "[" else mapping), i + 1
        if text[i] in "[{":
            value, i = _flow(text, i, lineno)
            token: Any = value
            raw = None
        else:
            start = i
            if text[i] in "\"'":
                i = _quoted_end(text, i, lineno) + 1
            else:
                while i < len(text) and text[i] not in ",]}" and not (
                    opener == "{" and text[i] == ":" and text[i + 1 : i + 2] in (" ", "")
                ):
                    i += 1
            raw = text[start:i]
            token = _scalar(raw, lineno)
        while i < len(text) and text[i] == " ":
            i += 1
        if opener == "{":
            if raw is None or i >= len(text) or text[i] != ":":
                raise YamlError(f"line {lineno}: expected key: value in {{...}}")
            i += 1
            while i < len(text) and text[i] == " ":
                i += 1
            if text[i] in "[{":
                value, i = _flow(text, i, lineno)
            else:
                start = i
                if text[i] in "\"'":
                    i = _quoted_end(text, i, lineno) + 1
                else:
                    while i < len(text) and text[i] not in ",}":
                        i += 1
                value = _scalar(text[start:i], lineno)
            key = str(token)
            if key in mapping:
                raise YamlError(f"line {lineno}: duplicate key {key!r}")
            mapping[key] = value
        else:
            items.append(token)
        while i < len(text) and text[i] == " ":
            i += 1
        if i < len(text) and text[i] == ",":
            i += 1
        elif i < len(text) and text[i] != closer:
            raise YamlError(f"line {lineno}: expected , or {closer}")


class _Parser:
    def __init__(self, lines: list[_Line]) -> None:
        self.lines = lines
        self.i = 0

    def block(self, indent: int) -> Any:
        line = self.lines[self.i]
        if line.text == "-" or line.text.startswith("- "):
            return self.sequence(line.indent)
        if _split_key(line.text, line.lineno) is not None:
            return self.mapping(line.indent)
        value = _scalar(line.text, line.lineno)
        self.i += 1
        return value

    def nested(self, parent_indent: int, allow_same_indent_seq: bool) -> Any:
        if self.i >= len(self.lines):
            return None
        nxt = self.lines[self.i]
        if nxt.indent > parent_indent:
            return self.block(nxt.indent)
        if (
            allow_same_indent_seq
            and nxt.indent == parent_indent
            and (nxt.text == "-" or nxt.text.startswith("- "))
        ):
            return self.sequence(nxt.indent)
        return None

    def mapping(self, indent: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.indent < indent:
                break
            if line.indent > indent:
                raise YamlError(f"line {line.lineno}: unexpected indentation")
            if line.text == "-" or line.text.startswith("- "):
                break
            kv = _split_key(line.text, line.lineno)
            if kv is None:
                raise YamlError(f"line {line.lineno}: expected 'key: value', got {line.text!r}")
            key, rest = kv
            if key in out:
                raise YamlError(f"line {line.lineno}: duplicate key {key!r}")
            self.i += 1
            if rest:
                out[key] = _scalar(rest, line.lineno)
                if self.i < len(self.lines) and self.lines[self.i].indent > indent:
                    raise YamlError(
                        f"line {self.lines[self.i].lineno}: multi-line scalars are not supported"
                    )
            else:
                out[key] = self.nested(indent, allow_same_indent_seq=True)
        return out

    def sequence(self, indent: int) -> list[Any]:
        out: list[Any] = []
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.indent < indent:
                break
            if line.indent > indent:
                raise YamlError(f"line {line.lineno}: unexpected indentation")
            if not (line.text == "-" or line.text.startswith("- ")):
                break
            rest = line.text[1:].lstrip(" ")
            if not rest:
                self.i += 1
                out.append(self.nested(indent, allow_same_indent_seq=False))
                continue
            # "- key: value" (or "- - x"): the item is a block starting at the item's column.
            column = indent + (len(line.text) - len(rest))
            self.lines[self.i] = _Line(column, rest, line.lineno)
            out.append(self.block(column))
        return out


def load_all(text: str) -> list[Any]:
    """Every document in ``text`` (empty documents skipped)."""
    docs: list[list[tuple[int, str]]] = [[]]
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if raw.rstrip() == "---" or raw.startswith("--- "):
            docs.append([])
            continue
        if raw.startswith("..."):
            raise YamlError(f"line {lineno}: document end markers are not supported")
        docs[-1].append((lineno, raw))
    out = []
    for doc in docs:
        lines = _lines(doc)
        if not lines:
            continue
        if lines[0].indent != 0:
            raise YamlError(f"line {lines[0].lineno}: a document must start at column 0")
        parser = _Parser(lines)
        value = parser.block(0)
        if parser.i != len(lines):
            raise YamlError(f"line {lines[parser.i].lineno}: unexpected content")
        out.append(value)
    return out


def load_one(text: str) -> Any:
    """The single document in ``text``."""
    docs = load_all(text)
    if len(docs) != 1:
        raise YamlError(f"expected one document, found {len(docs)}")
    return docs[0]
