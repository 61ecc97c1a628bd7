"""A bare Bolt app served by the real front (``bot/ops/serve.py``): the server without the bot.

The front's own tests (``tests/ops/test_front.py``) and ``bench/serve.py``'s floor use it, so
they exercise gunicorn, the uvicorn workers, the signature check, the probes and the metrics
listener exactly as production does, without depending on the dialogue or the engine.

    python -m tests.ops.miniapp      # the settings come from the environment, as for the bot

Its listeners ack every command, click and event. A command whose text is ``post`` then posts
one message to its channel (after the ack, on Bolt's listener thread, as the bot's turns do),
which is what the graceful-shutdown test waits for. ``MINI_WARM_S`` makes the warm-up last
that long (the cold-start test).
"""

from __future__ import annotations

import os
import re
import sys
import time
from typing import Any

from slack_bolt import Ack, App
from slack_sdk import WebClient
from slack_sdk.http_retry import RateLimitErrorRetryHandler

from bot.ops.settings import Settings


def factory(settings: Settings) -> App:
    """The Bolt app: its Slack client points at SLACK_API_URL (the fake), retrying 429s."""
    assert settings.slack_bot_token is not None and settings.slack_signing_secret is not None
    client = WebClient(token=settings.slack_bot_token.get_secret_value(),
                       base_url=settings.slack_api_url, timeout=10,
                       retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=2)])
    app = App(client=client, signing_secret=settings.slack_signing_secret.get_secret_value(),
              process_before_response=False)

    def only_ack(ack: Ack) -> None:
        ack()

    def command(ack: Ack, body: dict[str, Any], client: WebClient) -> None:
        ack()
        if body.get("text") == "post":
            client.chat_postMessage(channel=str(body.get("channel_id")), text="posted")

    app.command(re.compile(".*"))(command)
    app.action(re.compile(".*"))(only_ack)
    app.event(re.compile(".*"))(only_ack)
    return app


def warm_steps() -> list[tuple[str, Any]]:
    seconds = float(os.environ.get("MINI_WARM_S", "0") or 0)
    return [("mini", lambda: time.sleep(seconds))]


def main() -> int:
    from bot.ops import serve
    from bot.ops.settings import load_settings

    serve.main(load_settings(), bolt_factory=factory, steps=warm_steps())
    return 0


if __name__ == "__main__":
    sys.exit(main())
