"""The internal summary of a quote request, for ``QUOTE_CHANNEL_ID`` only.

It names the requester, their team, whether they are external, where the sizing ran, the
conversation key, every answer and number, and the audit record: internal details that must
never be posted in a shared channel (the flow checks the target first, ``bot/slack/access.py``).
"""

from __future__ import annotations

from typing import Any

from bot.slack.cards import parts
from bot.slack.cards.numbers import config_line, fields
from bot.slack.cards.shared import SOURCE_WORDS, WORKLOAD_WORDS, named, verdict
from bot.slack.cards.words import Words
from bot.slack.keys import ConversationKey
from dialogue.reply import AnswerView
from engine.result import Recommendation
from engine.wording import msg, text

Payload = parts.Payload


def quote_summary(record: dict[str, Any], *, requester: str, requester_team: str | None,
                  internal: bool, channel: str, shared: bool, key: ConversationKey,
                  rec: Recommendation, answers: list[AnswerView], w: Words) -> Payload:
    team = text(requester_team or "?")
    who = (msg("slack.quote.requested_internal", team=team) if internal
           else msg("slack.quote.requested_external", team=team))
    where = msg("slack.quote.in_shared") if shared else msg("slack.quote.in")
    blocks: list[Payload] = [
        parts.header(w.plain(msg("slack.quote.header"))),
        parts.section(f"{w.md(who, who=w.user(requester))}\n"
                      f"{w.md(where, channel=w.channel(channel))}"),
        parts.section(w.md(msg("slack.quote.verdict", verdict=verdict(rec.verdict),
                               model=rec.model.name,
                               workload=named(WORKLOAD_WORDS, rec.workload)))
                      + f"\n{w.md(rec.headline)}\n{config_line(rec, w)}"),
    ]
    blocks.extend(parts.fields(fields(rec, w))[:1])
    if answers:
        blocks.append(parts.section("\n".join(
            [f"*{w.md(msg('slack.quote.inputs'))}*"]
            + [f"• {w.md(msg('slack.answers.said', label=a.label, shown=a.shown))}"
               f" ({w.md(SOURCE_WORDS[a.source])})" for a in answers])))
    audit = record.get("id")
    blocks.append(parts.context(w.md(
        msg("slack.quote.record", key=key.format(), audit=str(audit)) if audit
        else msg("slack.quote.key", key=key.format()))))
    return parts.message(w.md(msg("slack.quote.fallback", model=rec.model.name)), blocks)
