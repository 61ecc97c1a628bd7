"""The console face, driven through stdin and stdout as `printf ... | make run` would.

Expected texts are rendered from their message ids with the faces' catalog, so a test
checks that the right message (with the right numbers) reached the screen, in the right
language, not how a sentence is worded."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot import console
from bot.wording import say
from dialogue import Dialogue, MemoryStore
from engine.wording import msg, text
from tests.redisproc import free_port

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _no_redis_english(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)


def _run(stdin: str, argv: list[str] | None = None) -> tuple[int, str]:
    out = io.StringIO()
    rc = console.main(io.StringIO(stdin), out, argv)
    return rc, out.getvalue()


def test_piped_answers_reach_the_card() -> None:
    rc, out = _run("llama 3.1 70b\ninference\n32\n8k\nno target\n")
    assert rc == 0
    assert say(msg("verdict.single_node", gpus=8)).upper() in out
    assert say(msg("console.card.numbers")) in out and "Llama 3.1 70B" in out
    assert "VRAM █" in out and say(msg("console.bar.kv")) in out
    rec = Dialogue(MemoryStore()).start("k", "llama 3.1 70b inference 32 users 8k no target")
    assert rec.recommendation is not None
    step1 = rec.recommendation.questions[0]
    assert say(msg("console.step", n=1, question=step1.question, answer=msg("answer.yes"))) in out
    assert say(step1.because) in out


def test_numbers_pick_choices_and_errors_are_shown() -> None:
    # '1' picks choice 1 (inference) at the workload question; at the concurrency question a
    # bare '3O' is an error and '#3' picks the third choice (16 at once)
    rc, out = _run("llama 3.1 70b\n1\n3O\n#3\nback\n")
    assert rc == 0
    assert say(msg("dialogue.slot.concurrency.ask")) in out  # '1' answered the workload
    assert "! " + say(msg("dialogue.error.concurrency", lo=1, hi=100_000, text="3O")) in out
    assert say(msg("dialogue.question.now", question=msg("dialogue.slot.concurrency.ask"),
                   now=msg("dialogue.show.count", n=16))) in out


def test_opening_from_argv() -> None:
    rc, out = _run("yes\n", ["llama", "3.1", "405b", "inference", "48", "users", "16k",
                             "context", "no", "target"])
    assert rc == 0 and say(msg("verdict.single_node_int4", gpus=8)).upper() in out


def test_store_unreachable_exits_1_with_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{free_port()}/0")
    rc, out = _run("llama 3.1 70b\n")
    assert rc == 1 and say(msg("dialogue.failure.store_down")) in out
    assert "Traceback" not in out


def test_uses_redis_when_redis_url_is_set(monkeypatch: pytest.MonkeyPatch, redis_url: str) -> None:
    import redis

    monkeypatch.setenv("REDIS_URL", redis_url)
    rc, _ = _run("llama 3.1 70b\n")
    assert rc == 0
    assert redis.Redis.from_url(redis_url).exists("gpusizing:conv:console")


def test_module_runs_from_a_pipe() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "LANG", "LC_ALL")}
    proc = subprocess.run(
        [sys.executable, "-m", "bot.console"], cwd=ROOT, env=env, timeout=120,
        input="llama 3.1 70b\ninference\n32\n8k\nno target\n", capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert say(msg("verdict.single_node", gpus=8)).upper() in proc.stdout and proc.stderr == ""


def test_digits_that_are_not_decimal_are_typed_text_not_a_crash() -> None:
    """'²' is a digit to Python (str.isdigit) but no number (int('²') raises): at any
    question, bare or after '#', it is read as typed text and told as an error."""
    rc, out = _run("llama 3.1 8b lora 1B tokens 7 days\n²\n#²\n")
    assert rc == 0 and "Traceback" not in out
    assert out.count("! ") >= 1  # said to be no answer, the conversation kept


def test_numeric_questions_say_how_to_pick_a_choice() -> None:
    # at the target question '1' meant "No target" (choice 1) but sized 1 tokens/s, silently
    rc, out = _run("llama 3.1 70b\ninference\n#4\n")
    assert rc == 0 and say(msg("console.pick_hint")) in out
    rc, out = _run("llama 3.1 70b\n1\n#4\n2\n")  # '2' at the context question
    assert say(msg("dialogue.error.context_bare", n=2, tokens=2048)) in out


def test_a_result_is_not_reprinted_by_help_or_a_refused_answer() -> None:
    rc, out = _run("help\nfoo\n\nchange gpu to h100\n",
                   ["llama", "3.1", "8b", "inference", "64", "users", "8k", "no", "target"])
    assert rc == 0
    assert out.count(say(msg("console.card.numbers"))) == 2  # the first card and the H100 one
    assert out.count(say(msg("console.stands", headline=text("")))) == 3


def test_enter_takes_the_shown_default_and_says_so() -> None:
    # the speed question asked with nothing assumed: the speed said was refused
    rc, out = _run("llama 3.1 70b inference 64 users\n8k, 0.5 tok/s per user\n\n")
    assert rc == 0
    speed = msg("dialogue.show.per_user", rate=20.0)  # a comfortable reading speed per user
    assert say(msg("console.default", value=speed)) in out
    assert say(msg("dialogue.notice.default_taken", answer=msg(
        "dialogue.notice.pair", label=msg("dialogue.key.per_user_tokens_per_s.label"),
        value=speed))) in out
    assert say(msg("verdict.single_node", gpus=8)).upper() in out


def test_end_of_input_mid_way_says_what_was_kept() -> None:
    rc, out = _run("llama 3.1 70b inference\n64\n")
    assert rc == 0
    kept = [msg("dialogue.notice.pair", label=msg(f"dialogue.slot.{slot}.label"), value=value)
            for slot, value in (("model", text("Llama 3.1 70B")),
                                ("workload", msg("workload.inference")),
                                ("concurrency", msg("dialogue.show.count", n=64)))]
    assert out.rstrip().endswith(say(msg("console.eof.kept", question=msg(
        "dialogue.slot.context.ask", model=text("Llama 3.1 70B"), limit=131072),
        answers=kept)))


def test_the_cards_actions_are_offered_after_the_card() -> None:
    d = Dialogue(MemoryStore())
    rec = d.start("k", "llama 3.1 8b inference 64 concurrent users 8k no target").recommendation
    assert rec is not None
    # 1: the math; 2: compare with another GPU (the GPU menu, then a pick); 3: change an answer
    rc, out = _run("1\n2\n5\n3\n1\n", ["llama", "3.1", "8b", "inference", "64", "concurrent",
                                       "users", "8k",
                                       "no", "target"])
    assert rc == 0
    for action in ("math", "compare", "change"):
        assert say(msg(f"console.action.{action}")) in out
    assert say(rec.math[0]) in out
    assert say(msg("dialogue.slot.gpu.ask", gpus=8)) in out
    assert say(msg("dialogue.slot.model.change")) in out  # the change menu, then its first
    assert say(msg("dialogue.question.now", question=msg("dialogue.slot.model.ask"),
                   now=text("Llama 3.1 8B"))) in out


def test_the_console_gets_what_slack_gets_from_an_opening() -> None:
    # the console dropped the rest of the opening when the model was not recognised
    opening = "llama 70b inference 64 users 8k context"
    slack = Dialogue(MemoryStore()).start("k", opening)
    assert slack.asking == "model" and slack.request["concurrency"] == 64
    assert slack.text.id == "dialogue.confirm.model_which"  # which 70B: asked, not guessed
    rc, out = _run(f"{opening}\nllama 3.1 70b\n")
    assert rc == 0 and say(slack.text) in out
    assert say(msg("verdict.single_node", gpus=8)).upper() in out  # confirmed: the card, at once
    assert say(msg("dialogue.slot.concurrency.ask")) not in out  # nothing asked twice


def test_a_french_conversation_is_rendered_in_french() -> None:
    rc, out = _run("inférence llama 3.1 70b pour 64 utilisateurs\n8k\n\n")
    assert rc == 0
    assert say(msg("dialogue.slot.context.ask", model=text("Llama 3.1 70B"), limit=131072),
               "fr") in out
    assert say(msg("verdict.single_node", gpus=8), "fr").upper() in out
    assert say(msg("console.card.numbers"), "fr") in out
    # French typography in the alternatives too: a narrow space before the colon
    alternatives = out.split(say(msg("console.card.alternatives"), "fr"))[1].split("\n")[1:3]
    assert alternatives and all("\u00a0: " in line for line in alternatives)


def test_the_terminal_locale_picks_the_prompts_language(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    rc, out = _run("llama 3.1 70b\n")
    assert rc == 0
    assert out.startswith(say(msg("dialogue.opening.prompt"), "fr"))
    assert say(msg("dialogue.slot.workload.ask", model=text("Llama 3.1 70B")), "fr") in out


def test_a_short_training_run_shows_its_gpu_months_not_zero() -> None:
    """A LoRA of a few days on a few GPUs is a fraction of a GPU-month: the card shows it
    (0.25), never a rounded 0."""
    rc, out = _run("qwen 2.5 72b lora on 500M tokens within 10 days\n")
    assert rc == 0
    row = next(line for line in out.splitlines()
               if line.strip().startswith(say(msg("console.row.gpu_months"))))
    assert row.split()[-1] == "0.25"


def test_the_bar_of_work_sized_on_fewer_gpus_says_on_how_many() -> None:
    rc, out = _run("llama 3.1 70b inference 96 users 8k no target on h200\n")
    assert rc == 0
    bar = next(line for line in out.splitlines() if line.startswith("VRAM "))
    fewer = [say(msg("console.bar.gpus", gpus=n, node_gpus=8)) for n in (1, 2, 4)]
    assert any(bar.endswith(f"({words})") for words in fewer), bar
