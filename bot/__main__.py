"""``python -m bot`` (``make run``): the console, Socket Mode or HTTP, by the tokens present.

* no Slack token: the console dialogue on stdin/stdout;
* ``SLACK_BOT_TOKEN`` + ``SLACK_APP_TOKEN``: Socket Mode (one process; internal use, dev);
* ``SLACK_BOT_TOKEN`` + ``SLACK_SIGNING_SECRET``: HTTP on ``PORT`` at ``/slack/events``
  (gunicorn workers, ``bot.serve``).

A missing or malformed setting stops start-up with a message naming it, never its value.
"""

from __future__ import annotations

import sys

from bot.settings import SettingsError, load_settings


def main() -> int:
    try:
        settings = load_settings()
    except SettingsError as exc:
        print(f"gpu-sizing-bot: {exc}", file=sys.stderr)
        return 2
    if settings.mode == "console":
        from bot import console

        return int(console.main(sys.stdin, sys.stdout))
    from bot import logs

    logs.setup_logging(settings.log_level)
    for secret in (settings.slack_bot_token, settings.slack_app_token,
                   settings.slack_signing_secret):
        if secret is not None:
            logs.add_secret(secret.get_secret_value())
    if settings.mode == "socket":
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        from bot.app import create_app

        assert settings.slack_app_token is not None
        app = create_app(settings)
        handler = SocketModeHandler(app, settings.slack_app_token.get_secret_value())
        handler.start()  # type: ignore[no-untyped-call]
        return 0
    from bot import serve

    serve.main(settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
