"""The scriptable face end to end: ``python -m bot --json`` in a subprocess, one JSON object
per input line, with exactly the keys a script relies on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.wording import say
from engine.wording import msg

ROOT = Path(__file__).resolve().parents[2]
KEYS = {"asking", "answers", "sources", "language", "text", "choices", "recommendation"}


def _script(lines: list[str], *args: str, module: str = "bot") -> list[dict[str, Any]]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("REDIS_URL", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET",
                        "LANG", "LC_ALL")}
    proc = subprocess.run(
        [sys.executable, "-m", module, "--json", *args], cwd=ROOT, env=env, timeout=120,
        input="".join(f"{line}\n" for line in lines), capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert all(set(o) == KEYS for o in out), [sorted(o) for o in out]
    return out


@pytest.mark.parametrize("module", ["bot", "bot.console"])
def test_one_object_per_line_to_the_recommendation(module: str) -> None:
    # the card once the context is known (the speed assumed), then its speed question
    out = _script(["llama 3.1 70b inference 64 users", "8k", "change speed", ""], module=module)
    assert len(out) == 4
    assert [o["asking"] for o in out] == ["context", None, "target_tokens_per_s", None]
    assert out[1]["sources"]["per_user_tokens_per_s"] == "assumed"
    assert out[0]["answers"] == {"model": "llama-3.1-70b", "workload": "inference",
                                 "users_total": 64, "concurrency": 64, "gpu": "rtx-pro-6000-server",
                                 "gpus_per_node": 8, "interconnect": "ib-200"}
    assert out[0]["sources"]["concurrency"] == "assumed" and out[0]["sources"]["gpu"] == "default"
    assert out[0]["recommendation"] is None and out[0]["language"] == "en"
    assert {"value": "32k", "label": "32k tokens"} in out[0]["choices"]
    last = out[-1]
    assert last["answers"]["context"] == 8192 and last["answers"]["per_user_tokens_per_s"] == 20
    assert last["sources"]["per_user_tokens_per_s"] == "confirmed"  # Enter: the speed shown
    rec = last["recommendation"]
    assert rec["verdict"] == "single_node" and rec["model"]["id"] == "llama-3.1-70b"
    assert say(msg("dialogue.slot.context.ask", model=msg("text", text="Llama 3.1 70B"),
                   limit=131072)) in out[0]["text"]


def test_french_and_a_refusal_keep_the_answers() -> None:
    out = _script(["nous voulons faire tourner Llama 3.1 70B pour 50 utilisateurs", "-8k", "8k",
                   "pas d'objectif"])
    assert [o["language"] for o in out] == ["fr"] * 4
    assert out[1]["asking"] == "context" and out[1]["answers"] == out[0]["answers"]
    assert say(msg("dialogue.error.negative", text="-8k", what=msg("dialogue.what.context")),
               "fr") in out[1]["text"]
    assert out[-1]["asking"] is None and out[-1]["answers"]["concurrency"] == 50
    assert out[-1]["recommendation"]["verdict"] == "single_node"


def test_the_opening_from_the_arguments_and_int4_consent() -> None:
    out = _script(["yes"], "llama", "3.1", "405b", "inference", "48", "users", "16k",
                  "context", "no", "target")
    assert [o["asking"] for o in out] == ["int4", None]
    assert out[-1]["answers"]["int4"] is True and out[-1]["sources"]["int4"] == "said"
    assert out[-1]["recommendation"]["verdict"] == "single_node_int4"
