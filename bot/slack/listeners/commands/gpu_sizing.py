"""``/gpu-sizing [help|post|status|what you know]``: acknowledged empty, then delivered.

An empty ack shows nothing; the root message and the question follow in the channel (or the
help, refusal or status privately).
"""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, BoltContext

from bot.slack import payloads
from bot.slack.listeners.deliver import deliver

COMMAND = "/gpu-sizing"
COMMANDS = (COMMAND, f"{COMMAND}-dev")  # the production app's, the development app's


def on_gpu_sizing(ack: Ack, body: dict[str, Any], context: BoltContext) -> None:
    ack()
    deliver(context, payloads.command(body, context))
