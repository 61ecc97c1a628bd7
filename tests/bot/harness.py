"""Serve the real Bolt app over real HTTP for end-to-end tests, and drive conversations.

``BotServer`` wraps ``create_app`` in Bolt's WSGI adapter on a threading wsgiref server on a
free port, pointed at the fake Slack (``SLACK_API_URL``) and a throwaway Redis, with the app's
turn consumers running (what ``create_app`` built: ``consumer()``), as a worker of the real
server has them. Helpers read what the bot posted from the fake and click the buttons it
rendered, the way a person would.
"""

from __future__ import annotations

import copy
import json
import threading
import time
from collections.abc import Callable
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from slack_bolt.adapter.wsgi import SlackRequestHandler

from bot.ops.settings import Settings
from bot.slack import blockkit, placement
from bot.slack.app import create_app
from bot.slack.cards import ids
from bot.slack.cards.words import Words
from bot.slack.placement import Placement
from engine.units import Lang
from engine.wording import Message, Param, msg
from tests.fakeslack import FakeSlack
from tests.slackreq import SignedClient, block_actions

SECRET = "test-signing-secret-0123456789"
INTERNAL_TEAM = "TINT0001"
EXTERNAL_TEAM = "TEXT0001"
REP = "UREP0001"
COLLEAGUE = "UOTHER01"
CUSTOMER = "UCUST001"
SALES = "CSALES01"
SHARED = "CSHARED1"
QUOTES = "CQUOTE01"


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def populate(fake: FakeSlack) -> None:
    """The people and channels the tests use."""
    fake.add_user(REP, INTERNAL_TEAM)
    fake.add_user(COLLEAGUE, INTERNAL_TEAM)
    fake.add_user(CUSTOMER, EXTERNAL_TEAM, is_stranger=True)
    fake.add_channel(SALES, is_ext_shared=False, is_shared=False)
    fake.add_channel(SHARED, is_ext_shared=True, is_shared=True)
    fake.add_channel(QUOTES, is_ext_shared=False, is_shared=False)


def settings_for(fake: FakeSlack, redis_url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "slack_bot_token": fake.bot_token,
        "slack_signing_secret": SECRET,
        "slack_api_url": fake.url,
        "redis_url": redis_url,
        "internal_team_ids": INTERNAL_TEAM,
        "quote_channel_id": QUOTES,
    }
    values.update(overrides)
    return Settings(**values)


class BotServer:
    """One app instance ("worker") served over HTTP on a free port."""

    def __init__(self, fake: FakeSlack, redis_url: str, **overrides: Any) -> None:
        self.fake = fake
        self.settings = settings_for(fake, redis_url, **overrides)
        self.built = create_app(self.settings)
        self.app = self.built.app
        self.consumer = self.built.consumer()
        self.consumer.block_ms = 50  # a test stops its workers at once (production: 500 ms)
        self.consumer.start()
        handler = SlackRequestHandler(self.app)
        self.server = make_server("127.0.0.1", 0, handler, server_class=_ThreadingWSGIServer,
                                  handler_class=_QuietHandler)
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{port}/slack/events"
        self.client = SignedClient(self.url, SECRET)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.consumer.stop(10)
        executor = getattr(self.app, "_listener_runner", None)
        pool = getattr(executor, "listener_executor", None)
        if pool is not None:
            pool.shutdown(wait=True)


# ------------------------------------------------------------------ reading what was posted


def until(check: Callable[[], object], timeout: float = 30.0, what: str = "") -> None:
    """Wait for ``check()`` to be true (polling every 50 ms), or fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"never happened: {what}")


def message(fake: FakeSlack, channel: str, ts: str) -> dict[str, Any]:
    """A copy of the current state of a message the bot posted (after every chat.update)."""
    return copy.deepcopy(fake.messages[channel][ts])


def assert_valid(message: dict[str, Any]) -> None:
    errors = blockkit.message_problems(message)
    assert not errors, errors


def said(ident: str | Message, lang: Lang = "en", mentions: dict[str, str] | None = None,
         **params: Param) -> str:
    """The text the bot sends for the message ``ident`` (a note's ``text``): what a person
    reads, so a test compares the outcome, not a copy of the catalog's sentence."""
    said_ = ident if isinstance(ident, Message) else msg(ident, **params)
    return Words(lang).md(said_, **(mentions or {}))


def is_card(msg: dict[str, Any]) -> bool:
    return any(b.get("type") == "header" for b in msg.get("blocks") or [])


def action_elements(msg: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(block_id, element) of every interactive element, in order."""
    out = []
    for block in msg.get("blocks") or []:
        if block.get("type") == "actions":
            for el in block["elements"]:
                out.append((block.get("block_id", ""), el))
    return out


def first_choice(msg: dict[str, Any]) -> tuple[str, str, str | None, str | None]:
    """(block_id, action_id, button value, selected option) of the first answer choice."""
    for block_id, el in action_elements(msg):
        if el["action_id"].startswith(ids.A_ANSWER):
            if el["type"] == "button":
                return block_id, el["action_id"], el["value"], None
            return block_id, el["action_id"], None, el["options"][0]["value"]
    raise AssertionError(f"no choice in {json.dumps(msg)[:500]}")


def find_element(msg: dict[str, Any], action_id: str) -> tuple[str, dict[str, Any]]:
    for block_id, el in action_elements(msg):
        if el["action_id"] == action_id:
            return block_id, el
    raise AssertionError(f"no {action_id} in message")


def click(
    server: BotServer,
    *,
    user: str,
    user_team: str | None,
    channel: str,
    message_ts: str,
    block_id: str,
    action_id: str,
    value: str | None = None,
    selected: str | None = None,
    thread_ts: str | None = None,
) -> tuple[int, str]:
    payload = block_actions(user=user, user_team=user_team, channel=channel,
                            message_ts=message_ts, action_id=action_id, block_id=block_id,
                            value=value, selected=selected, thread_ts=thread_ts,
                            response_url=server.fake.response_url("act"))
    return server.client.post_action(payload)


def wait_version_change(fake: FakeSlack, channel: str, ts: str, before: str,
                        timeout: float = 10.0) -> dict[str, Any]:
    """Wait until the message's blocks differ from ``before`` (json), return the new one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = message(fake, channel, ts)
        if json.dumps(msg.get("blocks")) != before:
            return msg
        time.sleep(0.02)
    raise AssertionError("the question message was not updated")


def click_to_card(
    servers: list[BotServer],
    *,
    user: str,
    user_team: str | None,
    channel: str,
    ts: str,
    root: str,
    max_turns: int = 12,
) -> dict[str, Any]:
    """Click the first choice of each question (alternating servers) until the card shows."""
    fake = servers[0].fake
    for turn in range(max_turns):
        msg = message(fake, channel, ts)
        assert_valid(msg)
        if is_card(msg):
            return msg
        block_id, action_id, value, selected = first_choice(msg)
        before = json.dumps(msg.get("blocks"))
        status, _ = click(servers[turn % len(servers)], user=user, user_team=user_team,
                          channel=channel, message_ts=ts, block_id=block_id,
                          action_id=action_id, value=value, selected=selected, thread_ts=root)
        assert status == 200
        wait_version_change(fake, channel, ts, before)
    raise AssertionError("no card after max_turns clicks")


def home_click(bot: BotServer, user: str = REP, expect: int = 200) -> None:
    """A block_actions payload from the Home tab: the container is the view, no channel."""
    payload = {
        "type": "block_actions",
        "user": {"id": user, "username": user.lower(), "name": user.lower(),
                 "team_id": INTERNAL_TEAM},
        "api_app_id": "AAPP0001", "token": "deprecated-verification-token",
        "container": {"type": "view", "view_id": "VHOME0001"},
        "trigger_id": "1.2.3", "team": {"id": INTERNAL_TEAM, "domain": "vendor"},
        "enterprise": None, "is_enterprise_install": False,
        "view": {"id": "VHOME0001", "team_id": INTERNAL_TEAM, "type": "home", "blocks": [],
                 "private_metadata": "", "callback_id": "", "state": {"values": {}},
                 "hash": "1.a", "app_id": "AAPP0001", "external_id": "",
                 "app_installed_team_id": INTERNAL_TEAM, "bot_id": "BBOT0001"},
        "actions": [{"action_id": ids.A_HOME_NEW, "block_id": "home0", "value": "new",
                     "type": "button", "style": "primary", "action_ts": f"{time.time():.6f}",
                     "text": {"type": "plain_text", "text": "New sizing", "emoji": True}}],
    }
    status, _ = bot.client.post_action(payload)
    assert status == expect


def stored_conversations(bot: BotServer) -> dict[str, dict[str, Any]]:
    """Every conversation the bot keeps in its Redis, by key (the JSON document)."""
    import redis

    r = redis.Redis.from_url(str(bot.settings.redis_url))
    out = {}
    for k in r.scan_iter("gpusizing:conv:*"):
        doc = r.hget(k, "doc")
        if doc:
            out[k.decode().removeprefix("gpusizing:conv:")] = json.loads(doc)
    return out


def placements(bot: BotServer) -> dict[str, Placement]:
    """Every stored sizing's Slack placement (where its question message is), by key."""
    from dialogue import Dialogue, RedisStore

    store = RedisStore(str(bot.settings.redis_url))
    dialogue = Dialogue(store)
    prefix = f"{store.prefix}:conv:"
    out = {}
    for k in store.client.scan_iter(prefix + "*"):
        key = k.decode().removeprefix(prefix)
        where = placement.of(dialogue.load(key))
        if where is not None:
            out[key] = where
    return out


def wait_shown(bot: BotServer, ts: str | None = None, key: str | None = None,
               timeout: float = 5.0) -> None:
    """Wait until the sizings' questions are recorded as shown (``ts``: that message is one;
    ``key``: that sizing's is). The record lands right after the post returns."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = {k: p.ts for k, p in placements(bot).items() if p.shown == "shown"}
        if key is not None and shown.get(key) == (ts or shown.get(key)) and key in shown:
            return
        if key is None and ts is not None and ts in shown.values():
            return
        if key is None and ts is None and shown and len(shown) == len(placements(bot)):
            return
        time.sleep(0.02)
    raise AssertionError("a question was never recorded as shown")


def is_math(call_params: dict[str, Any]) -> bool:
    """A "Show the math" post: its sections are code blocks (the formulas)."""
    return any(b.get("type") == "section" and str(b.get("text", {}).get("text", ""))
               .startswith("```") for b in call_params.get("blocks") or [])


def slack_failed(what: str) -> str:
    """The note when Slack refused a post for a passing reason (not "invite me")."""
    return said("slack.slack_failed", what=msg(what))


def plain(ident: str, lang: Lang = "en", **params: Param) -> str:
    """The words of ``ident`` as a button, option or header shows them."""
    return Words(lang).plain(msg(ident, **params))


def verdict_of(card: dict[str, Any]) -> str:
    """The card's verdict as its header says it: the engine's verdict id (``single_node``)."""
    from engine.result import VERDICT_IDS

    header = card["blocks"][0]["text"]["text"]
    found = [v for v, ident in VERDICT_IDS.items()  # the node's own count in its name
             if any(header.startswith(plain(ident, gpus=g) + ":") for g in range(1, 17))]
    assert len(found) == 1, header
    return found[0]
