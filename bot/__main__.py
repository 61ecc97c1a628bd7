"""``python -m bot`` (``make run``): the console, Socket Mode or HTTP, by the tokens present.

* no Slack token: the console dialogue on stdin/stdout (``--json``: one JSON object per line,
  handled by ``bot/console.py``);
* ``SLACK_BOT_TOKEN`` + ``SLACK_APP_TOKEN``: Socket Mode (one process; internal use, dev);
* ``SLACK_BOT_TOKEN`` + ``SLACK_SIGNING_SECRET``: HTTP on ``PORT`` at ``/slack/events``
  (gunicorn workers, ``bot.ops.serve``);
* ``python -m bot audit ...``: export, purge and retention of the audit trail's personal data
  (``bot/audit.py``), whatever the tokens;
* ``python -m bot brief "<opening>" -o FILE``: a sizing brief (PDF or Markdown) from one
  sentence, without Slack (``bot/brief/command.py``).

Before serving Slack (either mode) the audit trail's retention is applied once
(``bot.audit.apply_at_start``). A missing or malformed setting stops start-up with a message
naming it, never its value.
"""

from __future__ import annotations

import sys

from bot.ops.settings import Settings, SettingsError, load_settings


def main() -> int:
    if sys.argv[1:2] == ["audit"]:
        from bot import audit

        return audit.main(sys.argv[2:])
    if sys.argv[1:2] == ["brief"]:
        from bot.brief.command import main as brief

        return brief(sys.argv[2:])
    try:
        settings = load_settings()
    except SettingsError as exc:
        print(f"gpu-sizing-bot: {exc}", file=sys.stderr)
        return 2
    if settings.mode == "console":
        from bot import console

        return int(console.main(sys.stdin, sys.stdout, sys.argv[1:]))
    from bot.ops import logs

    logs.setup_logging(settings.log_level)
    for secret in (settings.slack_bot_token, settings.slack_app_token,
                   settings.slack_signing_secret):
        if secret is not None:
            logs.add_secret(secret.get_secret_value())
    if settings.log_hash_key is not None:
        logs.set_hash_key(settings.log_hash_key.get_secret_value())
    from bot import audit

    audit.apply_at_start(settings)
    if settings.mode == "socket":
        return run_socket_mode(settings)
    from bot.ops import serve

    serve.main(settings)
    return 0


def run_socket_mode(settings: Settings) -> int:
    """Socket Mode until SIGTERM/SIGINT; a token Slack refuses ends it with a message, exit 1.

    Not ``SocketModeHandler.start()``: that blocks forever, so SIGTERM (``docker stop``) would
    kill the process between a turn's store write and its Slack update, and a refused token
    would end in a traceback. Here the connection is opened with ``connect()`` (which raises
    when ``apps.connections.open`` refuses the app token), then on a signal the WebSocket is
    closed first (no new envelopes) and Bolt's listener threads are drained (turns in flight
    finish), as the HTTP workers do.
    """
    import logging
    import re
    import signal
    import threading

    from slack_bolt.adapter.socket_mode import SocketModeHandler
    from slack_bolt.error import BoltError
    from slack_sdk.errors import SlackApiError

    from bot.ops import logs, warmup
    from bot.slack.app import create_app

    assert settings.slack_app_token is not None
    log = logging.getLogger("bot")
    try:
        built = create_app(settings)
    except BoltError as exc:  # auth.test refused the bot token
        found = re.search(r"'error': '([a-z_]+)'", str(exc))
        why = found.group(1) if found else logs.redact(str(exc))
        print(f"gpu-sizing-bot: Slack refused SLACK_BOT_TOKEN (auth.test: {why}); it must be"
              " the Bot User OAuth Token (xoxb-…) of the installed app", file=sys.stderr)
        return 1
    except OSError as exc:  # URLError included: Slack unreachable after the retries
        print(f"gpu-sizing-bot: cannot reach Slack at SLACK_API_URL ({logs.redact(str(exc))})",
              file=sys.stderr)
        return 1
    # what a first turn would load, before Slack can send one (as the HTTP workers do)
    log.info("worker warm", extra={"json_fields": {
        "event": "warm", "steps": warmup.run(warmup.default_steps())}})
    app = built.app
    handler = SocketModeHandler(app, settings.slack_app_token.get_secret_value())
    try:
        handler.connect()  # type: ignore[no-untyped-call]
    except (SlackApiError, OSError) as exc:
        handler.close()  # type: ignore[no-untyped-call]
        if isinstance(exc, SlackApiError):
            error = exc.response.get("error") if exc.response is not None else None
            print(f"gpu-sizing-bot: Slack refused SLACK_APP_TOKEN (apps.connections.open:"
                  f" {error}); it must be an app-level token (xapp-…) of this app with the"
                  " connections:write scope", file=sys.stderr)
        else:
            print("gpu-sizing-bot: cannot reach Slack at SLACK_API_URL"
                  f" ({logs.redact(str(exc))})", file=sys.stderr)
        return 1
    consumer = built.consumer()  # the turn queue's consumers (in memory without REDIS_URL):
    consumer.start()             # they apply what the listeners record

    stop = threading.Event()

    def _on_signal(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    if handler.client.is_connected():
        log.info("Socket Mode connected; waiting for Slack")
    else:  # apps.connections.open answered but the WebSocket did not open: slack_sdk retries
        log.warning("Socket Mode connection not open yet; retrying every %s s",
                    handler.client.ping_interval)
    while not stop.wait(0.5):
        pass
    log.info("stopping: closing the Socket Mode connection, then finishing turns in flight")
    try:
        handler.close()  # type: ignore[no-untyped-call]
    finally:
        app.listener_runner.listener_executor.shutdown(wait=True)
        consumer.stop()  # the turns in hand finish; the rest stay queued
    log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
