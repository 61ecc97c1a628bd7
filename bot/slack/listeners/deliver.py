"""How a listener hands a delivery on: recorded in the durable turn queue *before* the ack.

Why (``docs/architecture.md``, "How one turn flows", step 2): Slack is
told "got it" only once the delivery is kept where any worker will find it, so a worker killed
right after the ack loses nothing. The listener builds the typed ``Delivery``
(``bot/slack/payloads.py``) and calls ``queue.submit(delivery.id, delivery.model_dump_json())``
(``dialogue/store/queue.py``: atomic with its dedupe marker, gives up within ~1.7 s); the turn
itself runs later in a consumer (``bot/slack/app.py``). What the submit answers decides the ack:

* **queued**: 200; after the ack, if the queue has a backlog, the person is told their answer
  waits (:data:`BACKLOG_NOTE`);
* **already queued** (Slack's redelivery, a replayed signed request, the retry of an attempt
  whose reply was lost): 200 and nothing else: the first one will be applied;
* **not recorded** (``StoreUnavailable``, ``QueueFull``): no 200 for events and clicks (503:
  Slack retries an event, a person sees the click fail and clicks again; the marker makes any
  retry of the same delivery safe), and the person gets a private note saying so (for an event,
  only on Slack's first delivery, not on each retry). A slash command is answered 200 with a
  private note saying it could not be confirmed (Slack does not retry commands, and its own
  error text says nothing useful); a form submission keeps the form open with that note on its
  first field. Notes go out on a small pool of their own (:data:`NOTE_THREADS`), never on a
  listener's thread: a listener only records and acks, so a burst is acked as fast as Redis
  answers, whatever Slack's ``response_url`` costs.

Events and clicks are recorded by a listener middleware (:func:`recorded`), which runs before
Bolt acks (events are acknowledged by Bolt before their listener runs) and can answer 503;
commands and forms record in their listener, which owns its ``ack()``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

from slack_bolt import Ack, BoltContext, BoltRequest, BoltResponse

from bot.ops import metrics
from bot.slack.cards.home import home_view
from bot.slack.cards.words import Words
from bot.slack.flows.face import Face
from bot.slack.payloads import ActionDelivery, Delivery, HomeDelivery
from bot.slack.pipeline import audience
from dialogue.errors import StoreUnavailable
from dialogue.store.queue import TurnQueue
from engine.wording import Message, msg

log = logging.getLogger(__name__)

CONTEXT_KEY = "gpu_sizing_recorder"
RECORDED_KEY = "gpu_sizing_recorded"
BACKLOG_NOTE = 24  # entries waiting beyond which a person is told their answer waits
#: Threads sending the notes said after an ack. Never the listeners' own: a listener thread held
#: by a slow ``response_url`` (Slack's takes up to a second under load) is one fewer to record
#: and ack the next request, and a burst then waits for acks beyond Slack's 3 s.
NOTE_THREADS = 8

Builder = Callable[[dict[str, Any], BoltContext], Delivery | None]
Outcome = Literal["queued", "already", "failed"]


@dataclass(frozen=True)
class Recorded:
    """What recording one delivery gave."""

    delivery: Delivery
    outcome: Outcome


class Recorder:
    """The app's queue (and its face, to tell people their answer waits)."""

    def __init__(self, queue: TurnQueue, face: Face, *, backlog_note: int = BACKLOG_NOTE) -> None:
        self.queue = queue
        self.face = face
        self.backlog_note = backlog_note
        self._notes = ThreadPoolExecutor(max_workers=NOTE_THREADS, thread_name_prefix="notes")

    def record(self, delivery: Delivery) -> Recorded:
        """Submit ``delivery`` (its id is never empty: ``bot/slack/payloads.py``)."""
        assert delivery.id, "every delivery has an id"
        try:
            submitted = self.queue.submit(delivery.id, delivery.model_dump_json())
        except StoreUnavailable as exc:  # QueueFull included
            metrics.redis_error()
            log.warning("delivery not recorded; not acknowledged", extra={"json_fields": {
                "event": "not_recorded", "kind": delivery.kind, "why": type(exc).__name__}})
            return Recorded(delivery, "failed")
        return Recorded(delivery, "queued" if submitted.fresh else "already")

    def after_ack(self, got: Recorded | None) -> None:
        """After the ack: tell the person their answer waits when many are ahead of it (on the
        notes pool: the backlog is read from Redis, the note sent to Slack)."""
        if got is not None and got.outcome == "queued":
            self._notes.submit(self._backlog_note, got)

    def _backlog_note(self, got: Recorded) -> None:
        try:
            waiting = self.queue.backlog()
        except StoreUnavailable:
            return
        if waiting >= self.backlog_note:
            self._tell(got.delivery, msg("slack.waits.backlog"))

    def not_taken(self, got: Recorded) -> None:
        """Tell the person a command could not be confirmed (after its empty ack, on the
        notes pool)."""
        self._notes.submit(self._tell, got.delivery, msg("slack.not_taken"))

    def refused(self, got: Recorded, *, first: bool) -> None:
        """An event or click answered 503: say so, off the ack path (an event: only on
        Slack's first delivery of it)."""
        d = got.delivery
        if not first or isinstance(d, HomeDelivery):
            return  # an event's retries say nothing more; the tab is redrawn when it opens
        note = msg("slack.not_taken_event" if d.kind in ("mention", "message")
                   else "slack.not_taken_click")
        self._notes.submit(self._tell, d, note)

    def _tell(self, delivery: Delivery, note: Message) -> None:
        try:
            if isinstance(delivery, ActionDelivery) and delivery.channel is None:
                # a click on the App Home tab: no channel to answer in, the tab says it
                self.face.api.publish_home(delivery.user, home_view([], Words("en"),
                                                                    store_ok=False))
            else:
                self.face.tell(audience(self.face, delivery), note)
        except Exception as exc:  # best effort: Slack may be failing too
            log.info("not-taken note not sent", extra={"json_fields": {
                "event": "note_failed", "error": type(exc).__name__}})


def attach(recorder: Recorder) -> Callable[[BoltRequest, Callable[[], BoltResponse]],
                                            BoltResponse]:
    """A global middleware putting ``recorder`` in the context of every request."""

    def attach_recorder(req: BoltRequest, next: Callable[[], BoltResponse]) -> BoltResponse:
        req.context[CONTEXT_KEY] = recorder
        return next()

    return attach_recorder


def recorder_of(context: BoltContext) -> Recorder | None:
    found = context.get(CONTEXT_KEY)
    return found if isinstance(found, Recorder) else None


def record(context: BoltContext, delivery: Delivery | None) -> Recorded | None:
    """Record ``delivery`` (None: nothing to do) from a listener that owns its ack."""
    recorder = recorder_of(context)
    if delivery is None or recorder is None:
        return None
    return recorder.record(delivery)


def recorded(build: Builder) -> Callable[..., BoltResponse | None]:
    """A listener middleware: build the delivery, record it, and answer 503 when it could not
    be recorded (Slack retries) or 200 at once when it was queued before; otherwise the
    listener runs (it only acks, then :func:`after_ack`)."""

    def record_delivery(body: dict[str, Any], context: BoltContext, request: BoltRequest,
                        next: Callable[[], None]) -> BoltResponse | None:
        try:
            delivery = build(body, context)
        except Exception as exc:  # a signed payload we cannot read: one line, no traceback
            log.warning("unreadable payload; ignored", extra={"json_fields": {
                "event": "unreadable_payload", "error": type(exc).__name__}})
            return BoltResponse(status=200, body="")
        got = record(context, delivery)
        if got is None or got.outcome == "already":
            return BoltResponse(status=200, body="")
        if got.outcome == "failed":
            retry = str((request.headers.get("x-slack-retry-num") or ["0"])[0]).strip()
            recorder = recorder_of(context)
            if recorder is not None:
                recorder.refused(got, first=retry in ("", "0"))
            return BoltResponse(status=503, body="not recorded, retry\n")
        context[RECORDED_KEY] = got
        next()
        return None

    return record_delivery


def after_ack(context: BoltContext) -> None:
    """What a listener does once Slack has its ack: the backlog note, if any."""
    recorder = recorder_of(context)
    got = context.get(RECORDED_KEY)
    if recorder is not None and isinstance(got, Recorded):
        recorder.after_ack(got)


def acked(ack: Ack, context: BoltContext) -> None:
    """Every click's listener: :func:`recorded` kept the click, so acknowledge it."""
    ack()
    after_ack(context)


def seen(context: BoltContext) -> None:
    """Every event's listener (Bolt acknowledged the event already)."""
    after_ack(context)
