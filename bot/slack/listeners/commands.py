"""``/gpu-sizing [help|post|status|what you know]``: recorded, acknowledged empty, then applied.

A listener of its own, unlike clicks and events: it owns its ack, which is sent whether or not
the command was recorded.

The command is recorded in the durable turn queue before the ack
(``bot/slack/listeners/deliver.py``); an empty ack shows nothing, and the root message and the
question follow in the channel (or the help, refusal or status privately), from whichever
worker takes the turn. When the queue cannot take it, Slack still gets its 200 (it does not
retry commands, and its own error text helps nobody) and the person a private note saying the
command could not be confirmed.
"""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext

from bot.slack import payloads
from bot.slack.listeners.deliver import record, recorder_of


def on_gpu_sizing(ack: Ack, body: dict[str, Any], context: BoltContext) -> None:
    got = record(context, payloads.command(body, context))
    ack()
    recorder = recorder_of(context)
    if got is None or recorder is None:
        return
    if got.outcome == "failed":
        recorder.not_taken(got)
    else:
        recorder.after_ack(got)
