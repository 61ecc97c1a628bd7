"""The internal summary of a quote request, for ``QUOTE_CHANNEL_ID`` only.

It names the requester, their team, whether they are external, where the sizing ran, the
conversation key, every answer and number, the contact details the requester typed in the
form, and the audit record: internal details that must never be posted in a shared channel
(the flow checks the target first, ``bot/slack/access.py``). The quote brief (PDF and
Markdown, ``bot/brief/``) is uploaded in this message's thread; the summary says so.

What the requester typed is shown as text: every value goes through :meth:`Words.md`, so a
typed ``<!channel>`` or ``*bold*`` is inert, and a mention is only ever one the bot made.
"""

from __future__ import annotations

from typing import Any

from bot.brief.content import Contact, budget_words
from bot.slack.cards import parts
from bot.slack.cards.numbers import config_line, fields
from bot.slack.cards.shared import SOURCE_WORDS, WORKLOAD_WORDS, named
from bot.slack.cards.words import Words
from bot.slack.keys import ConversationKey
from dialogue.reply import AnswerView
from engine.result import Recommendation, verdict_name
from engine.wording import Message, msg, text

Payload = parts.Payload


def contact_blocks(contact: Contact, w: Words) -> list[Payload]:
    """The contact details as two-column fields, the notes below them."""

    def given(value: str) -> Message:
        return text(value) if value else msg("brief.contact.not_given")

    items = [
        w.md(msg("slack.quote.contact.name", v=text(contact.name))),
        w.md(msg("slack.quote.contact.email", v=text(contact.email))),
        w.md(msg("slack.quote.contact.company", v=given(contact.company))),
        w.md(msg("slack.quote.contact.timeline", v=given(contact.timeline))),
        w.md(msg("slack.quote.contact.budget",
                 v=budget_words(contact.budget) if contact.budget
                 else msg("brief.contact.not_given"))),
        w.md(msg("slack.quote.contact.copy",
                 v=msg("brief.yes") if contact.copy_requested else msg("brief.no"))),
    ]
    blocks = parts.fields(items)
    if contact.notes:
        blocks.append(parts.section(w.md(msg("slack.quote.contact.notes",
                                             v=text(contact.notes)))))
    return blocks


def quote_summary(record: dict[str, Any], *, requester: str, requester_team: str | None,
                  internal: bool, channel: str, shared: bool, key: ConversationKey,
                  rec: Recommendation, answers: list[AnswerView], w: Words,
                  contact: Contact | None = None) -> Payload:
    team = text(requester_team or "?")
    who = (msg("slack.quote.requested_internal", team=team) if internal
           else msg("slack.quote.requested_external", team=team))
    where = msg("slack.quote.in_shared") if shared else msg("slack.quote.in")
    blocks: list[Payload] = [
        parts.header(w.plain(msg("slack.quote.header"))),
        parts.section(f"{w.md(who, who=w.user(requester))}\n"
                      f"{w.md(where, channel=w.channel(channel))}"),
    ]
    if contact is not None:
        blocks.extend(contact_blocks(contact, w))
    name = verdict_name(rec.verdict, rec.gpus_per_node)
    blocks.append(parts.section(w.md(msg("slack.quote.verdict", verdict=name,
                                         model=rec.model.name,
                                         workload=named(WORKLOAD_WORDS, rec.workload)))
                                + f"\n{w.md(rec.headline)}\n{config_line(rec, w)}"))
    blocks.extend(parts.fields(fields(rec, w))[:1])
    if answers:
        blocks.append(parts.section("\n".join(
            [f"*{w.md(msg('slack.quote.inputs'))}*"]
            + [f"• {w.md(msg('slack.answers.said', label=a.label, shown=a.shown))}"
               f" ({w.md(SOURCE_WORDS[a.source])})" for a in answers])))
    audit = record.get("id")
    context = w.md(msg("slack.quote.record", key=key.format(), audit=str(audit)) if audit
                   else msg("slack.quote.key", key=key.format()))
    if contact is not None:
        context += f" · {w.md(msg('slack.quote.contact.brief'))}"
    blocks.append(parts.context(context))
    return parts.message(w.md(msg("slack.quote.fallback", model=rec.model.name)), blocks)
