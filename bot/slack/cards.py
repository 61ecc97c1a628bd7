"""Reply -> Block Kit: pure functions, no Slack calls, no Redis.

Why pure: every message the bot can post is produced here from plain data, so a test can build
each one (every question, every verdict's card, errors, the home view) and check it against
Block Kit's limits (``bot/slack/blockkit.py``) without a network.

Rules kept everywhere in this module:

* Anything that may contain what a person typed (questions echo answers, notices, errors, model
  names the engine could not resolve) goes through :func:`bot.slack.escape.escape` before it is
  put in ``mrkdwn`` or the top-level ``text``; labels of buttons and options are ``plain_text``, which
  Slack does not parse for mentions.
* Every text is clipped to its limit, and every message has a plain fallback ``text`` (mobile
  notifications and screen readers read only that; notes §3).
* Action blocks carry the conversation key and version in their ``block_id``
  (``gs1|<version>|<n>|<key>``): a click says which conversation and which turn it answers, so a
  stale or repeated click is recognised and changes nothing. A fresh ``block_id`` per version is
  also what Slack asks for on updated messages (notes §3, chat.update).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from bot.slack import blockkit as bk
from bot.slack.escape import clip, clip_escaped, clip_md, escape
from dialogue.reply import Choice, Reply
from engine.result import VERDICT_TEXT, Numbers, Recommendation

Block = dict[str, Any]
Message = dict[str, Any]

BLOCK_ID_PREFIX = "gs1"
# Action ids. Listeners match them by these names / prefixes (bot/slack/listeners/actions.py).
A_ANSWER = "gs_answer"  # gs_answer_<n>: a choice button; gs_answer_select: the choice menu
A_NAV = "gs_nav"  # gs_nav_<n>: back / change / restart / cancel / help
A_CHANGE = "gs_change"  # menu of answers to change (on the card)
A_COMPARE = "gs_compare"  # menu of other GPUs to compare with (on the card)
A_MATH = "gs_math"
A_QUOTE = "gs_quote"
A_START = "gs_start"  # start a new sizing (start message, "start your own", ended)
A_HOME_NEW = "gs_home_new"

MAX_BUTTON_CHOICES = 8  # more choices than this become a menu: a row of 25 buttons is a wall
BAR_WIDTH = 30
_USER_ID = re.compile(r"^[UW][A-Z0-9]{2,30}$")
_CHANNEL_ID = re.compile(r"^[CGD][A-Z0-9]{2,30}$")


# --------------------------------------------------------------------------- small builders


def plain(text: str, limit: int = bk.MAX_TEXT_OBJECT) -> dict[str, Any]:
    """A plain_text object: Slack parses no mentions or links in it."""
    return {"type": "plain_text", "text": clip(text.strip() or "-", limit), "emoji": True}


def mrkdwn_section(text: str, limit: int = bk.MAX_SECTION_TEXT) -> Block:
    """A section from already-escaped mrkdwn, clipped to the section limit."""
    return {"type": "section", "text": {"type": "mrkdwn", "text": clip_md(text or " ", limit)}}


def context(text: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": clip_md(text, 3000)}]}


def header(text: str) -> Block:
    return {"type": "header", "text": plain(text, bk.MAX_HEADER_TEXT)}


def _texts(blocks: list[Block]) -> list[dict[str, Any]]:
    """The text objects that count towards the payload's size (see ``blockkit``)."""
    out: list[dict[str, Any]] = []
    for b in blocks:
        if b.get("type") in ("section", "header") and isinstance(b.get("text"), dict):
            out.append(b["text"])
        out.extend(b.get("fields") or [])
        if b.get("type") == "context":
            out.extend(b.get("elements") or [])
    return out


def fit(blocks: list[Block], max_blocks: int = bk.MAX_BLOCKS_MESSAGE,
        budget: int = bk.MAX_BLOCKS_CHARS) -> list[Block]:
    """Keep a message under the block count and the total text budget.

    Slack rejects a payload whose blocks hold too much text (``msg_blocks_too_long``, notes
    §3) even when each block is within its own limit; the longest texts are shortened first,
    so the verdict and the buttons always survive.
    """
    if len(blocks) > max_blocks:
        actions = [b for b in blocks if b.get("type") == "actions"][-1:]
        blocks = blocks[: max_blocks - len(actions)] + actions
    texts = _texts(blocks)
    total = sum(len(t.get("text", "")) for t in texts)
    while total > budget:
        longest = max(texts, key=lambda t: len(t.get("text", "")))
        size = len(longest["text"])
        new = max(80, size - (total - budget))
        if new >= size:
            break
        longest["text"] = (clip(longest["text"], new) if longest.get("type") == "plain_text"
                           else clip_md(longest["text"], new))
        total -= size - len(longest["text"])
    return blocks


def button(
    text: str, action_id: str, value: str = "", style: str | None = None
) -> dict[str, Any]:
    el: dict[str, Any] = {
        "type": "button",
        "text": plain(text, bk.MAX_BUTTON_TEXT),
        "action_id": action_id[: bk.MAX_ID],
        "value": value[: bk.MAX_BUTTON_VALUE],
    }
    if style in bk.BUTTON_STYLES:
        el["style"] = style
    return el


def select(
    placeholder: str, action_id: str, options: Sequence[tuple[str, str]]
) -> dict[str, Any]:
    """A static_select of (label, value); values longer than Slack allows are dropped."""
    opts = [
        {"text": plain(label, bk.MAX_OPTION_TEXT), "value": value}
        for label, value in options
        if value and len(value) <= bk.MAX_OPTION_VALUE
    ][: bk.MAX_SELECT_OPTIONS]
    return {
        "type": "static_select",
        "action_id": action_id,
        "placeholder": plain(placeholder, bk.MAX_PLACEHOLDER),
        "options": opts,
    }


def user_mention(user_id: str | None) -> str:
    """``<@U…>`` only for a well-formed id from a payload, never from typed text."""
    if user_id and _USER_ID.match(user_id):
        return f"<@{user_id}>"
    return "someone"


def channel_mention(channel_id: str | None) -> str:
    if channel_id and _CHANNEL_ID.match(channel_id):
        return f"<#{channel_id}>"
    return "a channel"


# --------------------------------------------------------------------------- block ids


def block_id(version: int, key: str, n: int = 0) -> str:
    """``gs1|<version>|<n>|<key>``: which conversation and turn an action block belongs to."""
    return f"{BLOCK_ID_PREFIX}|{version}|{n}|{key}"[: bk.MAX_ID]


def parse_block_id(value: str | None) -> tuple[str, int] | None:
    """(key, version) from a block id made by :func:`block_id`, or None for anything else."""
    if not value:
        return None
    parts = value.split("|", 3)
    if len(parts) != 4 or parts[0] != BLOCK_ID_PREFIX or not parts[1].isdigit() or not parts[3]:
        return None
    return parts[3], int(parts[1])


def start_value(channel: str | None = None, root: str | None = None) -> str:
    """A start button's value: where the new sizing's thread is (empty: the clicked message)."""
    if channel and root:
        return json.dumps({"c": channel, "t": root}, separators=(",", ":"))
    return ""


def parse_start_value(value: str | None) -> tuple[str, str] | None:
    if not value:
        return None
    try:
        data = json.loads(value)
    except ValueError:
        return None
    if isinstance(data, dict) and isinstance(data.get("c"), str) and isinstance(data.get("t"), str):
        return data["c"], data["t"]
    return None


# --------------------------------------------------------------------------- questions


def _choice_rows(choices: Sequence[Choice], version: int, key: str) -> list[Block]:
    """Choices as buttons, or as one menu when there are many (notes §3: ≤25 per actions block)."""
    if not choices:
        return []
    short_values = all(len(c.value) <= bk.MAX_OPTION_VALUE for c in choices)
    if len(choices) > MAX_BUTTON_CHOICES and short_values:
        blocks: list[Block] = []
        for n, start in enumerate(range(0, len(choices), bk.MAX_SELECT_OPTIONS)):
            chunk = choices[start : start + bk.MAX_SELECT_OPTIONS]
            el = select(
                "Pick one…", f"{A_ANSWER}_select_{n}", [(c.label, c.value) for c in chunk]
            )
            blocks.append({"type": "actions", "block_id": block_id(version, key, n + 1),
                           "elements": [el]})
        return blocks
    rows: list[Block] = []
    for n, start in enumerate(range(0, len(choices), bk.MAX_ACTIONS_ELEMENTS)):
        chunk = choices[start : start + bk.MAX_ACTIONS_ELEMENTS]
        rows.append({
            "type": "actions",
            "block_id": block_id(version, key, n + 1),
            "elements": [
                button(c.label, f"{A_ANSWER}_{start + i}", c.value, c.style)
                for i, c in enumerate(chunk)
            ],
        })
    return rows


def _nav_row(nav: Sequence[Choice], version: int, key: str, n: int = 0) -> list[Block]:
    if not nav:
        return []
    return [{
        "type": "actions",
        "block_id": block_id(version, key, n),
        "elements": [
            button(c.label, f"{A_NAV}_{i}", c.value, c.style)
            for i, c in enumerate(nav[: bk.MAX_ACTIONS_ELEMENTS])
        ],
    }]


def _answers_line(answers: dict[str, str]) -> str | None:
    if not answers:
        return None
    parts = [f"{escape(k)}: *{escape(v)}*" for k, v in answers.items()]
    return "So far: " + " · ".join(parts)


def question_message(reply: Reply, key: str, owner: str | None = None, *,
                     dm: bool = False) -> Message:
    """A question (or an invalid answer's re-ask): notices, the error, the question, choices.

    ``dm``: the sizing of a direct message, answered by typing at top level, not in a thread.
    """
    blocks: list[Block] = []
    if reply.notices:
        notes = "\n".join(f"• {escape(n)}" for n in reply.notices)
        blocks.append(mrkdwn_section(notes))
    if reply.error:
        blocks.append(mrkdwn_section(f":warning: {escape(reply.error)}"))
    blocks.append(mrkdwn_section(f"*{escape(reply.text)}*"))
    if reply.help:
        blocks.append(context(escape(reply.help)))
    blocks.extend(_choice_rows(reply.choices, reply.version, key))
    line = _answers_line(reply.answers)
    if line:
        blocks.append(context(line))
    blocks.extend(_nav_row(reply.nav, reply.version, key))
    who = user_mention(owner)
    how = ("Click a button or type your answer here (`new` starts afresh)." if dm else
           "Click a button or reply in this thread.")
    blocks.append(context(f"{how} Only {who} can answer this sizing."))
    fallback = f"GPU sizing: {reply.text}"
    if reply.error:
        fallback = f"{reply.error} {fallback}"
    return {"text": clip_escaped(fallback, 3000), "blocks": fit(blocks)}


def ended_message(reply: Reply, key: str) -> Message:
    """A stopped or expired conversation: say so, and offer to start again."""
    blocks: list[Block] = []
    if reply.error:  # e.g. an answer typed to a cancelled sizing: say why nothing moved
        blocks.append(mrkdwn_section(f":warning: {escape(reply.error)}"))
    blocks.append(mrkdwn_section(escape(reply.text or "This sizing has ended.")))
    if reply.notices:
        blocks.append(context("\n".join(escape(n) for n in reply.notices)))
    rows = _choice_rows(reply.choices, reply.version, key)
    blocks.extend(rows)
    if not rows:
        blocks.append({"type": "actions", "elements": [
            button("Start a new sizing", A_START, "", "primary")]})
    return {"text": clip_escaped(reply.text or "This sizing has ended.", 3000),
            "blocks": fit(blocks)}


# --------------------------------------------------------------------------- the card


def _gb(value: float | None) -> str:
    if value is None:
        return "-"
    if value >= 100:
        return f"{value:,.0f} GB"
    return f"{value:,.1f} GB"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f} %"


def vram_scope(rec: Recommendation) -> str:
    """What ``vram_total_gb`` covers: one copy of the deployment (a node, or a cluster).

    Replicas (of a node or of a cluster) are identical, so the numbers describe one of them.
    """
    per_copy = rec.nodes // rec.replicas if rec.replicas else rec.nodes
    scope = "one node" if per_copy <= 1 else f"{per_copy:,} nodes"
    return f"{scope}, each of {rec.replicas} replicas" if rec.replicas else scope


def vram_bar(numbers: Numbers, width: int = BAR_WIDTH, scope: str = "one node") -> str | None:
    """Weights / working set / reserve / free, drawn with characters against one node.

    ``█`` weights, ``▓`` KV cache or training state and activations, ``▒`` runtime reserve,
    ``░`` free, against the VRAM of ``scope`` (one node, or the cluster the verdict needs).
    When the demand exceeds it, the bar is scaled to the demand and ``┃`` marks where the
    VRAM ends, so "does not fit" is visible at a glance.
    """
    total = numbers.vram_total_gb
    if not total or total <= 0:
        return None
    weights = max(numbers.weights_gb or 0.0, 0.0)
    if numbers.training_state_gb:
        # the training state already holds the weights and the activations
        work = max(numbers.training_state_gb - weights, 0.0)
    else:
        work = max(numbers.kv_cache_gb or 0.0, 0.0)
    reserve = max(numbers.reserve_gb or 0.0, 0.0)
    used = weights + work + reserve
    scale = width / max(total, used)
    w, k, r = round(weights * scale), round(work * scale), round(reserve * scale)
    if used <= total:
        f = max(0, width - w - k - r)
        bar = "█" * w + "▓" * k + "▒" * r + "░" * f
        tail = f"{_gb(total - used)} free of {_gb(total)}"
    else:
        bar = "█" * w + "▓" * k + "▒" * r
        cap = min(len(bar), round(total * scale))
        bar = bar[:cap] + "┃" + bar[cap:]
        tail = f"needs {_gb(used)}; {scope} {'has' if scope == 'one node' else 'have'} "
        tail += _gb(total)
    legend = [f"█ weights {_gb(weights)}"]
    if work:
        label = ("gradients, optimizer, activations" if numbers.training_state_gb
                 else "KV cache")
        legend.append(f"▓ {label} {_gb(work)}")
    if reserve:
        legend.append(f"▒ reserve {_gb(reserve)}")
    return f"`{bar}`  {tail}\n" + " · ".join(legend)


def _numbers_fields(n: Numbers, scope: str = "one node") -> list[str]:
    rows: list[tuple[str, str | None]] = [
        (f"VRAM of {scope}", _gb(n.vram_total_gb) if n.vram_total_gb else None),
        ("Weights", f"{_gb(n.weights_gb)} ({_pct(n.weights_share)} of VRAM)"
         if n.weights_gb is not None else None),
        ("KV cache", _gb(n.kv_cache_gb) if n.kv_cache_gb is not None else None),
        ("Training state", _gb(n.training_state_gb) if n.training_state_gb is not None else None),
        ("Activations", _gb(n.activations_gb) if n.activations_gb is not None else None),
        ("Free VRAM", _pct(n.free_share) if n.free_share is not None else None),
        ("Max concurrency", f"{n.max_concurrency:,}" if n.max_concurrency is not None else None),
        ("Tokens/s per node", f"{n.node_tokens_per_s:,.0f}"
         if n.node_tokens_per_s is not None else None),
        ("Scaling efficiency", _pct(n.scaling_efficiency)
         if n.scaling_efficiency is not None else None),
        ("GPU-months", f"{n.gpu_months:,.1f}" if n.gpu_months is not None else None),
        ("Days", f"{n.days:,.1f}" if n.days is not None else None),
        ("GPUs needed", f"{n.gpus_needed:,}" if n.gpus_needed is not None else None),
    ]
    return [f"*{label}*\n{value}" for label, value in rows if value is not None]


def config_line(rec: Recommendation) -> str:
    """The configuration in one line: nodes × GPUs, precision, layout, replicas, link."""
    lay = rec.layout
    parts = [
        f"{rec.nodes} node{'s' if rec.nodes != 1 else ''} × {rec.gpus_per_node}× {rec.gpu_name}",
        rec.precision.upper(),
        f"TP {lay.tp} · PP {lay.pp} · DP {lay.dp}",
    ]
    if rec.replicas:
        parts.append(f"{rec.replicas} replica{'s' if rec.replicas != 1 else ''}")
    if rec.interconnect:
        parts.append(rec.interconnect)
    return escape(" · ".join(parts))


def verdict_words(rec: Recommendation) -> str:
    return VERDICT_TEXT.get(rec.verdict, rec.verdict)


def _chunks(lines: Iterable[str], limit: int) -> list[str]:
    """Join lines into pieces of at most ``limit`` characters (a long line is clipped)."""
    out: list[str] = []
    cur = ""
    for line in lines:
        line = clip(line, limit)
        if cur and len(cur) + 1 + len(line) > limit:
            out.append(cur)
            cur = line
        else:
            cur = f"{cur}\n{line}" if cur else line
    if cur:
        out.append(cur)
    return out


def change_options(reply: Reply) -> list[tuple[str, str]]:
    """What "Change an answer" offers: the dialogue's own ``change <slot>`` commands.

    The dialogue lists them in the result's ``nav`` (value ``change model``, label ``Change
    model``); a value is what a person could type, so the click takes the typed path.
    """
    return [(c.label, c.value) for c in reply.nav
            if c.value.startswith("change ")][: bk.MAX_SELECT_OPTIONS]


def _restart_value(reply: Reply) -> str:
    for c in reply.nav:
        if c.value.strip().lower() in ("restart", "start over", "/restart"):
            return c.value
    return "restart"


def card_message(
    reply: Reply,
    key: str,
    compare_gpus: Sequence[tuple[str, str]] = (),
    owner: str | None = None,
    *,
    dm: bool = False,
) -> Message:
    """The recommendation card: verdict, steps with their numbers, the VRAM bar, the numbers,
    caveats, alternatives, and the buttons (start over, change, compare, math, quote)."""
    rec = reply.recommendation
    if rec is None:
        return question_message(reply, key, owner, dm=dm)
    words = verdict_words(rec)
    blocks: list[Block] = [header(f"{words}: {rec.model.name}")]
    if reply.error:
        blocks.append(mrkdwn_section(f":warning: {escape(reply.error)}"))
    # step outcomes are already the card's steps; keep only the other notices
    notices = [n for n in reply.notices if not n.startswith("Step ")]
    if notices:
        blocks.append(context("\n".join(escape(n) for n in notices)))
    blocks.append(mrkdwn_section(f"*{escape(rec.headline)}*\n{config_line(rec)}"))
    scope = vram_scope(rec)
    bar = vram_bar(rec.numbers, scope=scope)
    if bar:
        blocks.append(mrkdwn_section(f"*VRAM of {scope}*\n{bar}"))
    step_lines = [
        f"*Step {q.step}. {escape(q.question)}* — *{escape(q.answer)}*\n{escape(q.because)}"
        for q in rec.questions
    ]
    for piece in _chunks(step_lines, bk.MAX_SECTION_TEXT)[:6]:
        blocks.append(mrkdwn_section(piece))
    fields = _numbers_fields(rec.numbers, scope)
    for start in range(0, len(fields), bk.MAX_FIELDS):
        blocks.append({
            "type": "section",
            "fields": [{"type": "mrkdwn", "text": clip(f, bk.MAX_FIELD_TEXT)}
                       for f in fields[start : start + bk.MAX_FIELDS]],
        })
    if rec.caveats:
        lines = ["*Caveats*"] + [f"• {escape(c)}" for c in rec.caveats]
        blocks.append(mrkdwn_section("\n".join(lines)))
    if rec.alternatives:
        lines = ["*Alternatives*"] + [
            f"• *{escape(a.label)}*: {escape(a.summary)}" for a in rec.alternatives[:4]
        ]
        blocks.append(mrkdwn_section("\n".join(lines)))
    if rec.assumptions:
        blocks.append(context("Assumptions: " + " · ".join(escape(a) for a in rec.assumptions)))
    line = _answers_line(reply.answers)
    if line:
        blocks.append(context(line.replace("So far: ", "Your answers: ", 1)))
    elements: list[dict[str, Any]] = [
        button("Start over", f"{A_NAV}_restart", _restart_value(reply)),
    ]
    changes = change_options(reply)
    if changes:
        elements.append(select("Change an answer", A_CHANGE, changes))
    gpus = [(label, value) for label, value in compare_gpus if value != rec.gpu]
    if gpus:
        elements.append(select("Compare with another GPU", A_COMPARE, gpus))
    elements.append(button("Show the math", A_MATH, "math"))
    elements.append(button("Request a formal quote", A_QUOTE, "quote", "primary"))
    blocks.append({"type": "actions", "block_id": block_id(reply.version, key, 0),
                   "elements": elements})
    fallback = f"GPU sizing for {rec.model.name}: {words}. {rec.headline}"
    return {"text": clip_escaped(fallback, 3000), "blocks": fit(blocks)}


def render(
    reply: Reply,
    key: str,
    compare_gpus: Sequence[tuple[str, str]] = (),
    owner: str | None = None,
    *,
    dm: bool = False,
) -> Message:
    """The message for any reply kind (question, result, ended, error); ``dm``: the sizing of
    a direct message (see :func:`question_message`)."""
    if reply.recommendation is not None and reply.kind in ("result", "error"):
        return card_message(reply, key, compare_gpus, owner, dm=dm)
    if reply.kind == "ended":
        return ended_message(reply, key)
    return question_message(reply, key, owner, dm=dm)


# --------------------------------------------------------------------------- around the card


def math_message(rec: Recommendation) -> Message:
    """"Show the math": the formulas and constants, in code blocks, posted in the thread."""
    blocks: list[Block] = [header(f"The math behind: {verdict_words(rec)}")]
    lines = [escape(m) for m in rec.math] or ["(the engine gave no formulas for this result)"]
    pieces = _chunks(lines, bk.MAX_SECTION_TEXT - 8)
    room = bk.MAX_BLOCKS_MESSAGE - 2
    for piece in pieces[:room]:
        blocks.append(mrkdwn_section(f"```{piece}```"))
    if len(pieces) > room:
        blocks.append(context(f"{len(pieces) - room} more parts were left out."))
    text = f"The math behind the GPU sizing for {rec.model.name}"
    return {"text": clip_escaped(text, 3000), "blocks": fit(blocks)}


def start_message(poster: str | None) -> Message:
    """The "Start a sizing" message a rep posts in a (shared) channel: one button, no typing."""
    blocks: list[Block] = [
        mrkdwn_section(
            "*Size a GPU server for your LLM work*\nAnswer a few questions (model, workload, "
            "load) and get a recommendation: one 8-GPU node, replicas, or a cluster, with the "
            "numbers behind it."
        ),
        {"type": "actions", "elements": [button("Start a sizing", A_START, "", "primary")]},
        context(f"Posted by {user_mention(poster)}. Each person gets their own sizing in a "
                "thread; nobody else can change it."),
    ]
    return {"text": "Size a GPU server for your LLM work: click Start a sizing.", "blocks": blocks}


def note_message(text: str, *, start: tuple[str, str] | None = None) -> Message:
    """A short (usually ephemeral) note; optionally with a button to start one's own sizing."""
    blocks: list[Block] = [mrkdwn_section(text)]
    if start is not None:
        blocks.append({"type": "actions", "elements": [
            button("Start my own sizing", A_START, start_value(*start), "primary")]})
    return {"text": clip(text, 3000), "blocks": fit(blocks)}


def home_view(recent: Sequence[dict[str, Any]], store_ok: bool = True,
              problem: str | None = None) -> dict[str, Any]:
    """The App Home tab: "New sizing" and the person's recent sizings (views.publish).

    ``problem`` (our own words, mrkdwn) is shown under the button: why "New sizing" did
    nothing, since a Home tab click has no channel to answer in."""
    blocks: list[Block] = [
        header("GPU sizing"),
        mrkdwn_section("Size a GPU server for an LLM: one node, replicas or a cluster. "
                       "A new sizing opens in your messages with me."),
        {"type": "actions", "elements": [button("New sizing", A_HOME_NEW, "new", "primary")]},
    ]
    if problem:
        blocks.append(mrkdwn_section(f":warning: {problem}"))
    blocks.append({"type": "divider"})
    if not store_ok:
        blocks.append(mrkdwn_section(
            "_Your recent sizings cannot be shown right now: the sizing service cannot reach "
            "its store. Nothing was lost; try again in a minute._"))
    elif not recent:
        blocks.append(mrkdwn_section("_No finished sizings yet._"))
    else:
        blocks.append(mrkdwn_section("*Your recent sizings*"))
        for item in list(recent)[:20]:
            verdict = str(item.get("verdict") or "")
            words = VERDICT_TEXT.get(verdict, verdict or "-")
            model = escape(str(item.get("model") or "?"))
            workload = escape(str(item.get("workload") or ""))
            headline = escape(str(item.get("headline") or ""))
            when = item.get("finished_at")
            stamp = ""
            if isinstance(when, int | float) or (isinstance(when, str) and when.isdigit()):
                ts = int(float(when))
                stamp = f" · <!date^{ts}^{{date_short_pretty}} {{time}}|{ts}>"
            blocks.append(mrkdwn_section(
                f"*{clip_md(model, 200)}* · {clip_md(workload, 50)} → *{escape(words)}*{stamp}\n"
                f"{clip_md(headline, 400)}"))
    return {"type": "home", "blocks": fit(blocks, bk.MAX_BLOCKS_VIEW)}


def quote_summary(
    record: dict[str, Any],
    *,
    requester: str,
    requester_team: str | None,
    internal: bool,
    channel: str,
    shared: bool,
    key: str,
    rec: Recommendation | None,
    answers: dict[str, str],
) -> Message:
    """The internal summary of a quote request, for ``QUOTE_CHANNEL_ID`` only.

    It names the requester, their team, whether they are external and where the sizing ran:
    internal details that must never be posted in a shared channel.
    """
    who = f"{user_mention(requester)} (team {escape(requester_team or 'unknown')}, "
    who += "internal)" if internal else "external customer)"
    where = f"{channel_mention(channel)}" + (" (Slack Connect shared channel)" if shared else "")
    blocks: list[Block] = [header("Formal quote requested"),
                           mrkdwn_section(f"*Requested by* {who}\n*In* {where}")]
    if rec is not None:
        blocks.append(mrkdwn_section(
            f"*{escape(verdict_words(rec))}* for *{escape(rec.model.name)}* "
            f"({escape(rec.workload)})"
            f"\n{escape(rec.headline)}\n{config_line(rec)}"))
        fields = _numbers_fields(rec.numbers, vram_scope(rec))[: bk.MAX_FIELDS]
        if fields:
            blocks.append({"type": "section", "fields": [
                {"type": "mrkdwn", "text": clip(f, bk.MAX_FIELD_TEXT)} for f in fields]})
    if answers:
        lines = ["*Inputs*"] + [f"• {escape(k)}: {escape(v)}" for k, v in answers.items()]
        blocks.append(mrkdwn_section("\n".join(lines)))
    audit = record.get("id") or record.get("audit_id") or record.get("stream_id")
    ctx = f"Conversation {escape(key)}"
    if audit:
        ctx += f" · audit record {escape(str(audit))}"
    blocks.append(context(ctx))
    model = rec.model.name if rec else "a sizing"
    text = f"Formal quote requested for {model}"
    return {"text": clip_escaped(text, 3000), "blocks": fit(blocks)}


STORE_DOWN = (
    ":warning: The sizing service cannot reach its store; nothing was lost, try again in a minute."
)
