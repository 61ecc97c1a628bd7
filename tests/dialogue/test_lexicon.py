"""The words people type are data (``dialogue/data/lexicon.<lang>.toml``): every list of
words is read by a reader, and a list's entries match as whole phrases, whatever was typed
after them."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dialogue.understand import lexicon, phrases
from dialogue.understand.opening import extract


def test_every_list_of_words_is_read_by_a_reader() -> None:
    assert phrases.RECOGNISERS  # the opening imports every reader, each names its lists
    assert lexicon.unread() == set()


def test_a_list_no_file_holds_fails_when_named() -> None:
    with pytest.raises(KeyError, match="no_such_words"):
        lexicon.terms("no_such_words")


def test_the_longest_phrase_of_a_list_is_taken_whole() -> None:
    rx = re.compile(lexicon.terms("said_at_once"))
    assert rx.match("at the same time")[0] == "at the same time"  # type: ignore[index]
    assert rx.match("actifs en meme temps")[0] == "actifs en meme temps"  # type: ignore[index]


def test_a_star_stands_for_any_letters() -> None:
    rx = re.compile(rf"{lexicon.terms('at_once')}$")
    assert all(rx.match(w) for w in ("concurrently", "connectes", "simultaneously"))
    assert not rx.match("at")


_WORDS = st.lists(st.text("abc ", min_size=1, max_size=5), min_size=1, max_size=12)


@given(words=_WORDS, text=st.text("abc ", max_size=30))
def test_a_list_as_a_prefix_tree_matches_what_its_longest_first_alternation_does(
        words: list[str], text: str) -> None:
    """The lists are compiled as prefix trees for speed: every match, at every place and
    with what must follow it, is the one the flat alternation, longest first, finds."""
    flat = "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w)))
    tree = lexicon.trie(tuple(re.escape(c) for c in w) for w in set(words))
    for after in ("", r"\b", "(?![ab])", "c"):
        a, b = re.compile(f"(?:{flat}){after}"), re.compile(f"(?:{tree}){after}")
        assert [m.span() for m in a.finditer(text)] == [m.span() for m in b.finditer(text)]


@pytest.mark.parametrize(("said", "key", "value"), [
    ("llama 3.1 8b for 200 nurses and 30 doctors", "users_total", 230),  # roles, 'and'
    ("llama 3.1 8b, 300 000 utilisateurs mensuels", "users_total", 300_000),  # after, French
    ("llama 3.1 8b, 2 million monthly active users", "users_total", 2_000_000),  # before
    ("llama 3.1 8b, 500 users, a third at once", "concurrency", 167),  # a fraction's number
    ("llama 3.1 8b, une cinquantaine d'utilisateurs", "concurrency", 50),  # about a count
    ("llama 3.1 8b, 20 tok/s apiece", "per_user_tokens_per_s", 20.0),
])
def test_a_phrasing_reads_by_the_lexicon_words(said: str, key: str, value: object) -> None:
    assert extract(said).answers.get(key) == value
