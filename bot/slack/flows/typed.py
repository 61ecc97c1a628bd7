"""A card action typed in a sizing's thread or DM instead of clicked ('show the charts',
'export the brief', 'get a quote'): done as the card's button does it.

The dialogue reads the words (``dialogue/understand/actions.py``) and answers with
``Reply.action``; the math and another GPU to compare are its own answers, and the rest are
this face's. The button's flow runs on the delivery a click on the current card would have
made: the same conversation and version, an id of its own derived from the message's (a
redelivered message does the action once, as a double click does), the same person and
team, so the same checks apply (the brief is for the vendor's own people). The quote form
is the exception: Slack opens a form only from a click (a ``trigger_id``), so the person is
told where the button is.
"""

from __future__ import annotations

from bot.slack.cards import ids
from bot.slack.flows import charts, export
from bot.slack.flows.face import Audience, Face
from bot.slack.flows.turn import Turn
from bot.slack.keys import ConversationKey
from bot.slack.payloads import ActionDelivery, MessageDelivery
from dialogue import Reply
from engine.wording import msg


def run(face: Face, t: Turn, key: ConversationKey, d: MessageDelivery, reply: Reply,
        aud: Audience) -> None:
    """Do the card action ``reply`` carries, for the person who typed it."""
    if reply.action == "quote":
        face.tell(aud, msg("slack.quote_typed"))
        return
    if reply.action not in ("charts", "export"):
        return
    click = ActionDelivery(
        id=f"{d.id}:{reply.action}" if d.id else None, team=d.team, user=d.user,
        actor_team=d.actor_team, action=reply.action, channel=key.channel,
        thread_ts=key.root, shared=d.shared, block_id=ids.block_id(reply.version, key))
    (charts.run if reply.action == "charts" else export.run)(face, t, click)
