"""The console face, driven through stdin and stdout as `printf ... | make run` would."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot import console
from tests.redisproc import free_port

ROOT = Path(__file__).resolve().parents[2]


def _run(text: str, argv: list[str] | None = None) -> tuple[int, str]:
    out = io.StringIO()
    rc = console.main(io.StringIO(text), out, argv)
    return rc, out.getvalue()


def test_piped_answers_reach_the_card(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    rc, out = _run("llama 3.1 70b\ninference\n32\n8k\nno target\n")
    assert rc == 0
    assert "ONE 8-GPU NODE" in out
    assert "1. Does it fit one node" in out or "1. " in out
    assert "VRAM █" in out and "free of" in out  # the bar: weights, KV, free against the node
    assert "Key numbers:" in out and "Llama 3.1 70B" in out
    assert "Step 1:" in out and ": yes" in out


def test_numbers_pick_choices_and_errors_are_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    # "2" picks choice 2 (Llama 3.1 70B) on the model question; at the concurrency question a
    # bare "3O" is an error and "#3" picks the third choice
    rc, out = _run("2\n1\n3O\n#3\nback\n")
    assert rc == 0
    assert "What will you do with Llama 3.1 70B?" in out
    assert "! I need a number of concurrent requests between 1 and 100,000; '3O' isn't one" in out
    assert "(now: 16)" in out  # #3 was 16 at once; back shows it, editable


def test_opening_from_argv(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    rc, out = _run("no target\nyes\n", ["405b", "inference", "48", "users", "16k", "context"])
    assert rc == 0 and "WITH INT4 WEIGHTS" in out


def test_store_unreachable_exits_1_with_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{free_port()}/0")
    rc, out = _run("llama 3.1 70b\n")
    assert rc == 1 and "cannot reach its store" in out


def test_uses_redis_when_redis_url_is_set(monkeypatch: pytest.MonkeyPatch, redis_url: str) -> None:
    import redis

    monkeypatch.setenv("REDIS_URL", redis_url)
    rc, _ = _run("llama 3.1 70b\n")
    assert rc == 0
    assert redis.Redis.from_url(redis_url).exists("gpusizing:conv:console")


def test_module_runs_from_a_pipe() -> None:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    proc = subprocess.run(
        [sys.executable, "-m", "bot.console"], cwd=ROOT, env=env, timeout=60,
        input="llama 3.1 70b\ninference\n32\n8k\nno target\n", capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "ONE 8-GPU NODE" in proc.stdout


def test_numeric_questions_say_how_to_pick_a_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    # at the target question '1' meant "No target" (choice 1) but sized 1 tokens/s, silently
    monkeypatch.delenv("REDIS_URL", raising=False)
    rc, out = _run("llama 3.1 70b\ninference\n#4\n")
    assert rc == 0
    assert "(type your own value, or #1, #2, ... to pick a choice)" in out
    rc, out = _run("llama 3.1 70b\n1\n#4\n2\n")  # '2' at the context question
    assert "did you mean 2k (2,048 tokens)?" in out


def test_a_result_is_not_reprinted_by_help_or_a_refused_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    rc, out = _run("help\nfoo\n\nchange gpu to h100\n",
                   ["llama", "3.1", "8b", "inference", "64", "users", "8k", "no", "target"])
    assert rc == 0
    assert out.count("Key numbers:") == 2  # the first result and the H100 one, nothing else
    assert out.count("(the result above stands)") == 3
