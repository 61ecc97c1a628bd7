"""A message made plain once, before any reader sees it: Slack's markup off, the lexicon's
rewrites on (``dialogue/understand/lexicon.py``).

Why one step at the entry: Slack delivers what a person sees as 'Model: Llama 3.1 8B' as
``*Model:* Llama 3.1 8B``, a Hugging Face id in backticks, a link as ``<url|label>``, a
mention as ``<@U123>``, an emoji as ``:pray:``; a phone glues '100users', spells 'fifty',
misspells 'infrence'. Every reader would otherwise have to know all of it; here it is done
once, and the readers keep one spelling of each word. Case and accents are kept (the language
is detected from them, a Hub id is case-sensitive). Slack's three entities (``&gt; &lt;
&amp;``) are decoded here once, after its links and mentions are read (a decoded ``<`` is
never taken for one): the Slack face decodes them too, but a rep pasting Slack's text into
another face (the JSON one) brings them along, and a quoted line ``&gt; Model: ...`` must
read as the quote it is.
"""

from __future__ import annotations

import re

from dialogue.understand.lexicon import compiled, key, slipped
from dialogue.understand.numbers import numbers_typed
from dialogue.understand.text import fold

__all__ = ["as_typed", "spelled_number", "tidy"]

#: ``<@U123>``, ``<@U123|ann>``, ``<!here>``, ``(in) <#C123|sales>``: who and where, never an
#: answer
_MENTION = re.compile(r"(?:\b(?:in|on|dans|sur)\s+)?<#[^<>\s]*>|<[@!][^<>\s]*>", re.I)
#: ``<https://host/path|label>`` -> the label; ``<https://host/path>`` -> the address
_LINK = re.compile(r"<((?:https?|mailto):[^<>|\s]+)(?:\|([^<>]*))?>")
_HUB_LINK = re.compile(r"https?://(?:www\.)?huggingface\.co/[\w.-]+/[\w.-]+/?$", re.I)
#: ``:pray:``, ``:+1:``, ``:flag-fr:``: a name between colons, no space inside
_EMOJI = re.compile(r"(?<![\w:/]):[a-z0-9][a-z0-9_+\-]*:(?![\w/])", re.I)
#: Slack's entities, decoded in one pass (so '&amp;gt;' stays the '&gt;' that was typed)
_ENTITY = re.compile(r"&(gt|lt|amp);")
_ENTITIES = {"gt": ">", "lt": "<", "amp": "&"}
#: a plural or possessive written with an apostrophe after a name ending in a digit or a
#: letter after one ('on L40S's', 'H100's'): the name
_NAME_S = re.compile(r"(?<=\d)([a-z]?)['’]s\b", re.I)
#: hours glued to their count ('deadline 48h'): apart, as the other units are
_HOURS = re.compile(r"(?<![\w.,])(\d+)h\b", re.I)
#: a code block's fences (its content is kept), an inline code's backticks
_FENCE = re.compile(r"```[a-z]*\n?|```", re.I)
_TICK = re.compile(r"`([^`\n]*)`")
#: ``*Model:*``, ``_Users:_``: a form's label in emphasis starts a new line (a field)
_LABEL = re.compile(r"(?:(?<=\s)|^)[*_]+([^*_\n]{1,30}?:)\s*[*_]+(?=\s|$)", re.M)
#: emphasis markers at a word's edge (``*40*``, ``_fast_``), not inside an id (``gpt_oss``)
_EMPHASIS = re.compile(r"(?:(?<=\s)|^)[*_]+(?=\S)|(?<=\S)[*_]+(?=\s|$|[,.;:!?])", re.M)
#: struck-out text (``~64 users~``) is what the person took back
_STRUCK = re.compile(r"(?:(?<=\s)|^)~[^~\n]+~(?=\s|$|[,.;:!?])", re.M)
#: a quote's or a list's mark at a line's start
#: a word (letters, maybe hyphenated) standing alone: never part of a name with digits or a
#: path ('qwen3', 'meta-llama/Llama', 'config.json'), where a slip is not read; a full stop
#: that ends a sentence ('8k tokkens.') leaves it alone
_WORD = re.compile(r"(?<![\w/.-])[^\W\d_]+(?:-[^\W\d_]+)*(?![\w/-]|\.\w)")
_BULLET = re.compile(r"^[ \t]*(?:>|[•◦▪‣·]|[-*](?=\s))[ \t]*", re.M)
#: a numbered list's mark ('1. Model: ...', '2) Users: ...'): before a word, never a value
_NUMBERED = re.compile(r"^[ \t]*\d{1,2}[.)][ \t]+(?=[^\W\d_])", re.M)
#: a config's key at a line's start ('concurrent_users: 120', 'max-context = 16k'): its words
_KEY = re.compile(r"^([ \t]*)([a-z]+(?:[_-][a-z]+)+)(?=[ \t]*[:=])", re.M | re.I)


def tidy(text: str) -> str:
    """``text`` without Slack's markup, its spelled numbers in digits, its counts apart from
    the words they count, its typos and phrases in the readers' words."""
    t = text
    if "<" in t:
        t = _MENTION.sub(" ", t)
        t = _LINK.sub(_linked, t)
    if "&" in t:
        t = _ENTITY.sub(lambda m: _ENTITIES[m[1]], t)
    if "`" in t:
        t = _TICK.sub(r"\1", _FENCE.sub("\n", t))
    if ":" in t:
        t = _EMOJI.sub(" ", t)
    if "'" in t or "’" in t:
        t = _NAME_S.sub(r"\1", t)
    if "*" in t or "_" in t or "~" in t:
        t = _LABEL.sub(r"\n\1", t)
        t = _STRUCK.sub(" ", t)
        t = _EMPHASIS.sub("", t)
    if ">" in t or "•" in t or "-" in t or "*" in t:
        t = _BULLET.sub("", t)
    if "\n" in t:  # a list's numbers and a config's keys mark lines, never an answer
        t = _NUMBERED.sub("", t)
        t = _KEY.sub(lambda m: m[1] + re.sub(r"[_-]", " ", m[2]), t)
    if "\n" in t:  # several lines are one message, each line a part of it, as a comma makes
        t = ", ".join(line.strip().rstrip(",;") for line in t.splitlines() if line.strip())
    lex = compiled()
    t = t.replace("×", "x")  # '40 000 exemples × 1 000 tokens', '8×H100': the x people type
    t = _HOURS.sub(r"\1 h", t)
    t = lex.glued.sub(r"\1 ", t)
    t = lex.glued_after.sub(r"\1 ", t)
    t = _WORD.sub(lambda m: slipped(m[0]) or m[0], t)
    t = lex.apart.sub(r"\1\2", t)
    t = lex.rewrite.sub(_rewritten, t)
    t = lex.scaled.sub(_scaled, t)
    t = lex.spelled.sub(lambda m: spelled_number(m[0]), t)
    return t.strip()


def as_typed(chunks: list[str], typed: str) -> list[str]:
    """The words no reader used, in the words the person typed: a word :func:`tidy` wrote in
    place of another ('ctx client' left 'context') is said as typed ('ctx'), and so is a
    number the readers joined or scaled ('450 000' read as '450000', '2 lakh' as '200000'):
    what is said back as unused must be something the person recognises as theirs. A word
    no typed word gave is kept as it is."""
    if not chunks:
        return chunks
    lex = compiled()
    folded = fold(typed)
    said = [w.strip(".,;:!?()*_~") for w in re.split(r"[\s,;!?()]+", folded)]
    typed_words = set(said)
    gave: dict[str, str] = {}  # a word tidy wrote -> the typed word it wrote it for
    for t in dict.fromkeys(w for w in said if w):
        for w in fold(lex.rewrites.get(key(t)) or slipped(t) or "").split():
            gave.setdefault(w, t)
        # a word elided before it ("d'usagers" written "d'utilisateurs"): the same, with it
        head, _, tail = t.rpartition("'")
        if head and tail:
            for w in fold(lex.rewrites.get(key(tail)) or slipped(tail) or "").split()[:1]:
                gave.setdefault(f"{head}'{w}", t)
    if any(w.isdigit() and w not in typed_words for c in chunks for w in c.split()):
        gave |= {k: v for k, v in numbers_typed(folded).items() if k not in gave}
    out = []
    for chunk in chunks:
        kept: list[str] = []
        for w in chunk.split():
            source = None if w in typed_words else gave.get(w)
            if source is None:
                kept.append(w)
            elif source not in kept:
                kept.append(source)
        out.append(" ".join(kept))
    return out


def _rewritten(m: re.Match[str]) -> str:
    """A typo or phrase in the readers' words; a percent's words ('pour cent') only after
    a number ('20 pour cent', 'vingt pour cent'): elsewhere 'pour cent utilisateurs' is
    for a hundred users, and 'pour cent cinquante' for a hundred and fifty."""
    lex = compiled()
    out = lex.rewrites.get(key(m[0]), m[0])
    if out == "%":
        before = m.string[: m.start()].split()
        last = fold(before[-1]) if before else ""
        if not (last[-1:].isdigit() or (last and all(
                w in lex.units or w in lex.scales for w in last.split("-")))):
            return m[0]
    return out


def _scaled(m: re.Match[str]) -> str:
    """Digits and a scale word as one number ('2 lakh' -> '200000', '1,5 thousand')."""
    value = float(m[1].replace(",", ".")) * compiled().scales[fold(m[2])]
    return str(int(value)) if value == int(value) else m[0]


def _linked(m: re.Match[str]) -> str:
    """A link as the words it shows, but a Hugging Face model's link as its address: the
    label may be any words ('ce modèle'), the address names the model."""
    address, label = m[1], m[2]
    if not label or _HUB_LINK.match(address):
        return address
    return label


def spelled_number(run: str) -> str:
    """A run of number words as digits: 'two hundred and fifty' -> '250', 'quatre-vingt-dix'
    -> '90'. A run the lexicon cannot add up is left as typed."""
    lex = compiled()
    total, current = 0, 0
    for w in re.split(r"[\s-]+", fold(run)):
        if w in lex.joiners or (w in lex.articles and w not in lex.units):
            continue  # 'and', 'et'; 'a' of 'a hundred' (the scale counts it once)
        if w in lex.scales:
            current = max(current, 1) * lex.scales[w]
            if lex.scales[w] >= 1000:
                total, current = total + current, 0
        elif w in lex.multiplied and 0 < current < 10:
            current *= lex.units[w]
        elif w in lex.units:
            current += lex.units[w]
        else:
            return run
    return str(total + current)
