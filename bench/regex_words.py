"""Count the vocabulary written in code: the regular-expression literals in
``dialogue/understand/*.py`` and the alternatives they hold, against the entries of the lexicon
files (``dialogue/data/lexicon.*.toml``) where words belong.

    .venv/bin/python bench/regex_words.py [git-revision]

A literal is a string constant (or an f-string's constant part) outside a docstring that
holds regular-expression syntax (``(?``, ``\\b``, ``\\s``, ``\\d``, ``|``, ``[``); its
alternatives are its ``|`` separators plus one. With a revision, the files are read from it
(``git show``), so a before and after can be compared. Prints numbers; passes or fails nothing.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_SYNTAX = ("(?", "\\b", "\\s", "\\d", "|", "[")


def _sources(rev: str | None) -> dict[str, str]:
    if rev is None:
        return {p.name: p.read_text(encoding="utf-8")
                for p in sorted((ROOT / "dialogue" / "understand").glob("*.py"))}
    names = subprocess.run(["git", "ls-tree", "--name-only", f"{rev}:dialogue/understand"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return {n: subprocess.run(["git", "show", f"{rev}:dialogue/understand/{n}"], cwd=ROOT,
                              capture_output=True, text=True, check=True).stdout
            for n in names if n.endswith(".py")}


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def count(source: str) -> tuple[int, int]:
    tree = ast.parse(source)
    skip = _docstrings(tree)
    literals = alternatives = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            s = node.value
            if any(x in s for x in _SYNTAX) and not s.isspace():
                literals += 1
                alternatives += s.count("|") + 1 if "|" in s else 0
    return literals, alternatives


def lexicon_entries() -> int:
    n = 0
    for path in sorted((ROOT / "dialogue" / "data").glob("lexicon.*.toml")):
        with path.open("rb") as fh:
            data = tomllib.load(fh)
        stack: list[object] = [data]
        while stack:
            x = stack.pop()
            if isinstance(x, dict):
                for k, v in x.items():
                    if isinstance(v, dict | list):
                        stack.append(v)
                    elif k != "source":
                        n += 1
            elif isinstance(x, list):
                n += len(x)
    return n


def main() -> None:
    rev = sys.argv[1] if len(sys.argv) > 1 else None
    total_l = total_a = 0
    for name, src in _sources(rev).items():
        lit, alt = count(src)
        total_l, total_a = total_l + lit, total_a + alt
        print(f"  {name:16} {lit:4} regex literals {alt:5} alternatives")
    print(f"dialogue/understand/*.py at {rev or 'the work tree'}: {total_l} regex literals, "
          f"{total_a} alternatives")
    if rev is None:
        print(f"lexicon files: {lexicon_entries()} entries")


if __name__ == "__main__":
    main()
