"""A question of the sizing (or a re-ask after an invalid answer), and an ended sizing.

The question message is updated in place turn after turn: what happened since the last turn
(notices, the decision steps already answered, why the last answer was not taken), the
question with its help, the choices as buttons (one menu when there are many: a row of 25
buttons is a wall), the answers so far with their source, the navigation, and who may
answer. Every actions block carries the key and version (``bot/slack/cards/ids.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.slack.cards import ids, parts
from bot.slack.cards.shared import answers_line, error_line, notices, step_lines
from bot.slack.cards.words import Words
from bot.slack.keys import ConversationKey
from dialogue.reply import Choice, Nav, Reply
from engine.wording import msg

Payload = parts.Payload
MAX_BUTTON_CHOICES = 8  # more choices than this become a menu


def choice_rows(choices: Sequence[Choice], version: int, key: ConversationKey,
                w: Words, default: Choice | None = None) -> list[Payload]:
    """The choices as rows of buttons, or as menus of up to 100 options when there are many;
    the ``default`` choice (what the dialogue takes when nothing is said) is the primary one."""
    if not choices:
        return []
    if default is not None and any(c.style for c in choices):
        default = None  # Slack: one primary button in a set
    short = all(len(c.value) <= parts.MAX_OPTION_VALUE for c in choices)
    if len(choices) > MAX_BUTTON_CHOICES and short:
        return [parts.actions(
            [parts.select(w.plain(msg("slack.question.pick")), f"{ids.A_ANSWER}_select_{n}",
                          [(w.plain(c.label), c.value)
                           for c in choices[start : start + parts.MAX_OPTIONS]])],
            ids.block_id(version, key, n + 1))
            for n, start in enumerate(range(0, len(choices), parts.MAX_OPTIONS))]
    return [parts.actions(
        [parts.button(w.plain(c.label), f"{ids.A_ANSWER}_{start + i}", c.value,
                      c.style or ("primary" if default is not None and c.value == default.value
                                  else None))
         for i, c in enumerate(choices[start : start + parts.MAX_ACTIONS])],
        ids.block_id(version, key, n + 1))
        for n, start in enumerate(range(0, len(choices), parts.MAX_ACTIONS))]


def nav_action_id(nav: Nav) -> str:
    """``gs_nav_<kind>`` (``gs_nav_change_<slot>``): unique in a message, named by kind."""
    return f"{ids.A_NAV}_{nav.kind}" + (f"_{nav.slot}" if nav.slot else "")


def nav_row(navs: Sequence[Nav], version: int, key: ConversationKey, w: Words) -> list[Payload]:
    if not navs:
        return []
    return [parts.actions([parts.button(w.plain(n.label), nav_action_id(n), n.value, n.style)
                           for n in navs], ids.block_id(version, key, 0))]


def question_message(reply: Reply, key: ConversationKey, w: Words) -> Payload:
    """The question (or the re-ask) of the sizing at ``key``."""
    blocks: list[Payload] = []
    said = notices(reply.notices, w)
    if said:
        blocks.append(parts.section(said))
    steps = step_lines(reply.steps, w)
    if steps:
        blocks.append(parts.section("\n".join(steps)))
    error = error_line(reply.error, w)
    if error:
        blocks.append(parts.section(error))
    blocks.append(parts.section(f"*{w.md(reply.text)}*"))
    if reply.help is not None:
        blocks.append(parts.context(w.md(reply.help)))
    blocks.extend(choice_rows(reply.choices, reply.version, key, w, reply.default))
    line = answers_line(reply.answers, w, msg("slack.question.so_far"))
    if line:
        blocks.append(parts.context(line))
    blocks.extend(nav_row(reply.nav, reply.version, key, w))
    how = msg("slack.question.how_dm") if key.is_dm else msg("slack.question.how_thread")
    only = w.md(msg("slack.question.only"), who=w.user(key.owner))
    blocks.append(parts.context(f"{w.md(how)} {only}"))
    fallback = w.md(reply.text)
    if reply.error is not None:
        fallback = f"{w.md(reply.error)} {fallback}"
    return parts.message(fallback, blocks)


def ended_message(reply: Reply, key: ConversationKey, w: Words) -> Payload:
    """A cancelled or expired sizing: say so (and why an answer changed nothing), offer anew."""
    blocks: list[Payload] = []
    error = error_line(reply.error, w)
    if error:
        blocks.append(parts.section(error))
    blocks.append(parts.section(w.md(reply.text)))
    said = notices(reply.notices, w)
    if said:
        blocks.append(parts.context(said))
    rows = choice_rows(reply.choices, reply.version, key, w)
    rows += nav_row([n for n in reply.nav if n.kind == "restart"], reply.version, key, w)
    blocks.extend(rows or [parts.actions([parts.button(
        w.plain(msg("slack.button.start_new")), ids.A_START, "", "primary")])])
    return parts.message(w.md(reply.text), blocks)
