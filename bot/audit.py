"""``python -m bot audit ...``: the operator's hands on the personal data the bot keeps.

Why a command: a French vendor's GDPR review asks for retention, access and
erasure of what the audit trail holds (who asked for a sizing or a quote, in which team and
channel, the contact details a quote form carried). The store does the work
(``dialogue/store/redisaudit.py``); this is the operator's side of it, run where the bot runs
(``kubectl exec deploy/gpu-sizing-bot -- python -m bot audit ...``), with the bot's own
settings (``REDIS_URL``, ``REDIS_SENTINELS``, ``REDIS_CLUSTER``, ``AUDIT_RETENTION_DAYS``):

* ``export --since YYYY-MM-DD [--until YYYY-MM-DD] [--user U…]``: the records appended on those
  UTC days (both included), oldest first, as JSON lines on stdout, one record per line with
  its ``id`` (the stream id, the "audit id" a quote summary shows) and ``rid`` (its stable id);
  ``--user`` keeps a person's own records (a subject access request).
* ``purge --user U…``: removes that person's audit records, recent list, the conversations they
  own, the quote contact details typed by them kept in others' conversations
  (``quote_contact.<user>``, ``bot/slack/flows/quote.py``) and the one-off claims naming them,
  then prints what it removed. Running it again removes nothing more (idempotent).
* ``retention``: applies ``AUDIT_RETENTION_DAYS`` now and prints what went (every start and
  every worker, hourly, do it anyway).
* ``hash ID…``: the hash a team or channel id has in the turn logs (``bot/ops/logs.py``).

:func:`apply_at_start` is what ``python -m bot`` runs before serving: it stores the retention
with the stream, so every worker's appends apply it, and trims once.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import TextIO

from bot.ops.health import redis_target
from bot.ops.settings import Settings, SettingsError, load_settings
from dialogue.errors import StoreUnavailable
from dialogue.store.connect import connect
from dialogue.store.redis import RedisStore

__all__ = ["apply_at_start", "main"]

_log = logging.getLogger(__name__)
_USER = re.compile(r"^[UW][A-Z0-9]{2,30}$")
QUOTE_CONTACT = "quote_contact."  # bot/slack/flows/quote.py DRAFT_FIELD (checked by the tests)


def _store(settings: Settings, *, timeout: float = 2.0, retries: int = 2) -> RedisStore:
    target = redis_target(settings)
    if target is None:
        raise SettingsError("REDIS_URL is not set: the audit trail lives in Redis")
    return RedisStore(connect(target, socket_timeout=timeout, retries=retries),
                      audit_retention_days=settings.audit_retention_days)


def apply_at_start(settings: Settings) -> int | None:
    """At start-up: store ``AUDIT_RETENTION_DAYS`` with the stream and trim once.

    Never stops the boot: without Redis it logs one WARNING (the workers retry hourly)."""
    if not settings.redis_url:
        return None
    try:
        store = _store(settings, timeout=1.0, retries=0)
        store.set_audit_retention(settings.audit_retention_days)
        removed = store.apply_retention()
        store.link.close()
    except (StoreUnavailable, SettingsError, ValueError) as exc:
        _log.warning("audit retention not applied at start-up (the workers apply it hourly)",
                     extra={"json_fields": {"event": "audit_retention",
                                            "error": type(exc).__name__}})
        return None
    _log.info("audit retention applied", extra={"json_fields": {
        "event": "audit_retention", "days": settings.audit_retention_days, "removed": removed}})
    return removed


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)") from None


def _user(text: str) -> str:
    if not _USER.match(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a Slack user id (U… or W…)")
    return text


def _ms(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bot audit",
                                     description="The audit trail's personal data.")
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser("export", help="records of some UTC days, as JSON lines")
    export.add_argument("--since", type=_day, required=True, help="first day, YYYY-MM-DD")
    export.add_argument("--until", type=_day, help="last day, YYYY-MM-DD (default: today)")
    export.add_argument("--user", type=_user, help="only this person's records")
    purge = sub.add_parser("purge", help="remove everything kept about a person")
    purge.add_argument("--user", type=_user, required=True, help="their Slack user id")
    purge.add_argument("--json", action="store_true", help="print one JSON object")
    sub.add_parser("retention", help="apply AUDIT_RETENTION_DAYS now")
    hashed = sub.add_parser("hash", help="the hash of team or channel ids in the turn logs")
    hashed.add_argument("ids", nargs="+")
    return parser


def main(argv: Sequence[str], out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Run one audit command; 0 done, 1 Redis unreachable, 2 bad arguments or settings."""
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as exc:  # argparse printed the usage
        return int(exc.code or 0)
    try:
        settings = load_settings()
        if args.command == "hash":
            return _hash(args.ids, out)
        store = _store(settings)
        if args.command == "export":
            return _export(store, args.since, args.until or datetime.now(UTC).date(),
                           args.user, out, err)
        if args.command == "purge":
            return _purge(store, args.user, out, as_json=args.json)
        store.set_audit_retention(settings.audit_retention_days)
        print(f"retention {settings.audit_retention_days} days: removed "
              f"{store.apply_retention()} records and recent entries", file=out)
        return 0
    except SettingsError as exc:
        print(f"gpu-sizing-bot audit: {exc}", file=err)
        return 2
    except StoreUnavailable as exc:
        print(f"gpu-sizing-bot audit: Redis unreachable ({exc}); run the command again",
              file=err)
        return 1


def _export(store: RedisStore, since: date, until: date, user: str | None,
            out: TextIO, err: TextIO) -> int:
    if until < since:
        print("gpu-sizing-bot audit: --until is before --since", file=err)
        return 2
    count = 0
    for record in store.export_audit(_ms(since), _ms(until + timedelta(days=1)), user):
        out.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
        count += 1
    print(f"{count} records from {since} to {until} (UTC)", file=err)
    return 0


def _purge(store: RedisStore, user: str, out: TextIO, *, as_json: bool) -> int:
    done = store.purge_person(user, (QUOTE_CONTACT + user,))
    if as_json:
        out.write(json.dumps({
            "user": user, "audit_records": list(done.audit_ids),
            "recent_entries": done.recent_entries, "conversations": list(done.conversations),
            "quote_contacts": done.meta_fields, "claims": done.claims,
            "pending_records": done.pending}, sort_keys=True) + "\n")
        return 0
    lines = [f"purged {user}:",
             f"  audit records: {len(done.audit_ids)}"
             + (f" ({', '.join(done.audit_ids)})" if done.audit_ids else ""),
             f"  recent list entries: {done.recent_entries}",
             f"  conversations they owned: {len(done.conversations)}",
             f"  quote contact details in other conversations: {done.meta_fields}",
             f"  one-off claims naming them: {done.claims}"]
    if done.pending:
        lines.append(f"  records waiting in conversations (cluster): {done.pending}")
    if not done.total:
        lines.append("  nothing was kept about them (or it was already purged)")
    out.write("\n".join(lines) + "\n")
    return 0


def _hash(ids: Sequence[str], out: TextIO) -> int:
    from bot.ops import logs

    logs.setup_logging("WARNING")  # reads the same key as the server (LOG_HASH_KEY, ...)
    for ident in ids:
        out.write(f"{ident} {logs.hash_id(ident)}\n")
    return 0
