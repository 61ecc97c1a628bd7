"""The App Home tab: **New sizing** and the person's recent sizings (``views.publish``).

A Home tab click has no channel to answer in, so what went wrong with **New sizing** (the DM
could not be opened, the store is down) is said on the tab itself (``problem``). Each recent
sizing is shown in the language it was held in; its headline is the engine's message as the
dialogue recorded it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from bot.slack import blockkit
from bot.slack.cards import ids, parts
from bot.slack.cards.shared import WORKLOAD_WORDS, named
from bot.slack.cards.words import Words
from bot.slack.escape import clip_md
from engine.request import SizingRequest
from engine.result import verdict_name
from engine.units import LANGS, Lang
from engine.wording import Message, msg, text

Payload = parts.Payload
MAX_RECENT = 20


def _verdict(item: Mapping[str, Any]) -> Message:
    """A past sizing's verdict as its card said it (a record without its node's GPU count,
    from before the count was kept, is read at the request's default)."""
    gpus = item.get("gpus_per_node")
    if not isinstance(gpus, int) or isinstance(gpus, bool):
        gpus = SizingRequest.model_fields["gpus_per_node"].default
    return verdict_name(str(item.get("verdict") or "-"), gpus)


def _message(value: Any) -> Message | None:
    """A message the dialogue recorded (its JSON), or a plain string as text."""
    if isinstance(value, Mapping):
        try:
            return Message.model_validate(value)
        except ValidationError:
            return None
    return text(value) if isinstance(value, str) and value else None


def _lang(value: Any, default: Lang) -> Lang:
    for lang in LANGS:
        if value == lang:
            return lang
    return default


def _stamp(when: Any) -> str:
    """Slack's own date formatting (each reader's time zone and locale)."""
    if isinstance(when, bool) or not isinstance(when, int | float):
        return ""
    ts = int(when)
    return f" · <!date^{ts}^{{date_short_pretty}} {{time}}|{ts}>"


def home_view(recent: Sequence[Mapping[str, Any]], w: Words, *, store_ok: bool = True,
              problem: str | None = None) -> Payload:
    """``problem``: our own words (escaped mrkdwn), shown under the button."""
    blocks: list[Payload] = [
        parts.header(w.plain(msg("slack.home.title"))),
        parts.section(w.md(msg("slack.home.intro"))),
        parts.actions([parts.button(w.plain(msg("slack.home.new")), ids.A_HOME_NEW, "new",
                                    "primary")]),
    ]
    if problem:
        blocks.append(parts.section(f":warning: {problem}"))
    blocks.append(parts.divider())
    if not store_ok:
        blocks.append(parts.section(f"_{w.md(msg('slack.home.store_down'))}_"))
    elif not recent:
        blocks.append(parts.section(f"_{w.md(msg('slack.home.none'))}_"))
    else:
        blocks.append(parts.section(f"*{w.md(msg('slack.home.recent'))}*"))
        for item in list(recent)[:MAX_RECENT]:
            words = Words(_lang(item.get("language"), w.lang))
            line = words.md(msg("slack.home.item",
                                model=_message(item.get("model")) or text("?"),
                                workload=named(WORKLOAD_WORDS, str(item.get("workload") or "")),
                                verdict=_verdict(item)))
            headline = _message(item.get("headline"))
            body = clip_md(words.md(headline), 400) if headline is not None else ""
            blocks.append(parts.section(f"{line}{_stamp(item.get('finished_at'))}\n{body}"))
    return {"type": "home", "blocks": blockkit.fit(blocks, blockkit.MAX_BLOCKS_VIEW)}
