"""bot.ops.metrics and bot.ops.logs: what operators read must be right and never leak a secret."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.ops import logs, metrics

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def plain_metrics(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Per-process registry, fresh for this test."""
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    metrics._reset_for_tests()
    yield
    metrics._reset_for_tests()


def _value(text: str, series: str) -> float:
    for line in text.splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    raise AssertionError(f"{series} not in exposition:\n{text}")


def test_every_recorder_shows_in_the_exposition(plain_metrics: None) -> None:
    metrics.observe_turn("action", "ok", 0.2)
    metrics.observe_turn("action", "ok", 0.02)
    metrics.slack_api_error("chat.update")
    metrics.slack_retry("http_timeout")
    metrics.redis_error()
    metrics.recommendation("single_node")
    metrics.conversation_started()
    metrics.conversation_finished()
    body, content_type = metrics.render()
    text = body.decode()
    assert content_type.startswith("text/plain")
    assert _value(text, 'gpubot_turns_total{kind="action",outcome="ok"}') == 2
    assert _value(text, 'gpubot_turn_duration_seconds_count{kind="action"}') == 2
    assert _value(text, 'gpubot_turn_duration_seconds_bucket{kind="action",le="0.025"}') == 1
    assert _value(text, 'gpubot_slack_api_errors_total{method="chat.update"}') == 1
    assert _value(text, 'gpubot_slack_retries_total{reason="http_timeout"}') == 1
    assert _value(text, "gpubot_redis_errors_total") == 1
    assert _value(text, 'gpubot_recommendations_total{verdict="single_node"}') == 1
    assert _value(text, "gpubot_conversations_started_total") == 1
    assert _value(text, "gpubot_conversations_finished_total") == 1


def test_a_metrics_failure_never_breaks_a_turn(plain_metrics: None) -> None:
    metrics.observe_turn("action", "ok", "not a number")  # type: ignore[arg-type]
    metrics.recommendation("x" * 500)  # not a verdict: counted as other, not an error
    text = metrics.render()[0].decode()
    assert 'gpubot_recommendations_total{verdict="other"} 1.0' in text
    assert 'gpubot_turns_total{kind="action",outcome="ok"}' not in text  # nothing half-counted


def _series(text: str, name: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(name + "{")]


def test_labels_come_from_closed_sets_whatever_clients_send(plain_metrics: None) -> None:
    """30 distinct X-Slack-Retry-Reason values once made 30 series (issue 13, item 9)."""
    for i in range(30):
        metrics.slack_retry(f"made-up-reason-{i}")
        metrics.observe_turn(f"kind{i}", f"outcome{i}", 0.01)
        metrics.slack_api_error(f"admin.method{i}")
        metrics.refused(f"why{i}")
    for reason in ("http_timeout", "HTTP_TIMEOUT ", "connection_failed", "ratelimited"):
        metrics.slack_retry(reason)
    text = metrics.render()[0].decode()
    retries = _series(text, "gpubot_slack_retries_total")
    assert sorted(line.split()[0] for line in retries) == [
        'gpubot_slack_retries_total{reason="connection_failed"}',
        'gpubot_slack_retries_total{reason="http_timeout"}',
        'gpubot_slack_retries_total{reason="other"}',
        'gpubot_slack_retries_total{reason="ratelimited"}',
    ]
    assert 'gpubot_slack_retries_total{reason="other"} 30.0' in text
    assert 'gpubot_slack_retries_total{reason="http_timeout"} 2.0' in text
    assert _series(text, "gpubot_turns_total") == [
        'gpubot_turns_total{kind="other",outcome="other"} 30.0']
    assert len(_series(text, "gpubot_slack_api_errors_total")) == 1
    assert len(_series(text, "gpubot_requests_refused_total")) == 1


def test_redis_health_gauges(plain_metrics: None) -> None:
    metrics.redis_health(True, "rdb")
    text = metrics.render()[0].decode()
    assert "gpubot_redis_up 1.0" in text
    assert 'gpubot_redis_persistence{mode="rdb"} 1.0' in text
    assert 'gpubot_redis_persistence{mode="aof"} 0.0' in text
    metrics.redis_health(False, "something new")
    text = metrics.render()[0].decode()
    assert "gpubot_redis_up 0.0" in text
    assert 'gpubot_redis_persistence{mode="unknown"} 1.0' in text
    assert 'gpubot_redis_persistence{mode="rdb"} 0.0' in text


def test_multiprocess_mode_sums_worker_processes(tmp_path: Path) -> None:
    """Two processes record, a third renders the sum: what /metrics does under gunicorn.

    prometheus_client is imported *before* the variable is set, as happens in the gunicorn
    master; bot.ops.metrics must still pick multiprocess mode.
    """
    script = textwrap.dedent(
        """
        import os, sys
        import prometheus_client  # imported before the variable is set
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = sys.argv[1]
        from bot.ops import metrics
        if sys.argv[2] == "record":
            metrics.observe_turn("command", "ok", 0.1)
            metrics.recommendation("replicas")
        else:
            sys.stdout.write(metrics.render()[0].decode())
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    for _ in range(2):
        subprocess.run([sys.executable, "-c", script, str(tmp_path), "record"], env=env,
                       check=True, timeout=30)
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path), "render"], env=env,
                         check=True, timeout=30, capture_output=True, text=True).stdout
    assert _value(out, 'gpubot_turns_total{kind="command",outcome="ok"}') == 2
    assert _value(out, 'gpubot_recommendations_total{verdict="replicas"}') == 2


# -- logs -------------------------------------------------------------------------------------

@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """setup_logging() writing into a buffer; the root logger is restored afterwards."""
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    logs.setup_logging("INFO")
    yield stream
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])


def _lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


def test_log_turn_is_one_json_line_with_the_fields(captured: io.StringIO) -> None:
    logs.log_turn(conversation_id="C1:1700000000.000100", step="model", outcome="ok",
                  duration_ms=12.3456, kind="action", model="llama-3.1-70b")
    (line,) = _lines(captured)
    assert line["event"] == "turn"
    assert line["conversation_id"] == "C1:1700000000.000100"
    assert (line["step"], line["outcome"], line["kind"]) == ("model", "ok", "action")
    assert line["duration_ms"] == 12.35
    assert line["model"] == "llama-3.1-70b"
    assert line["level"] == "INFO" and isinstance(line["pid"], int)


def test_typed_text_never_at_info(captured: io.StringIO) -> None:
    typed = "we run llama 70B for our secret project Bluebird"
    logs.log_turn(conversation_id="c", step="free_text", outcome="ok", duration_ms=1,
                  kind="message", text="Bluebird", note=typed)
    out = captured.getvalue()
    assert "Bluebird" not in out
    (line,) = _lines(captured)
    assert line["text"] == "<8 chars>" and line["note"] == f"<{len(typed)} chars>"


def test_bolt_signature_failures_do_not_quote_the_body(
    captured: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = "payload=%7B%22text%22%3A%22our+secret+project+Bluebird%22%7D"
    bolt = logging.getLogger("slack_bolt.RequestVerification")
    monkeypatch.setattr(bolt, "level", logging.INFO)  # Bolt copies the root level when created
    bolt.info(
        f"Invalid request signature detected (signature: v0=abc, timestamp: 1, body: {body})")
    out = captured.getvalue()
    assert "Bluebird" not in out
    assert f"body: <{len(body)} chars>)" in out


def test_tokens_and_signing_secret_are_redacted(
    captured: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "8f14e45fceea167a5a36dedd4bea2543"
    logs.add_secret(secret)
    log = logging.getLogger("anything")
    log.warning("token %s app %s", "xoxb-1234-5678-abcdEFGH", "xapp-1-A0-123-abc")
    log.warning("refresh xoxe.xoxp-1-abc user xoxp-99-x and signing_secret=hunter2hunter2")
    log.warning("the secret is %s", secret)
    try:
        raise RuntimeError(f"boom with xoxb-9-9-zz and {secret}")
    except RuntimeError:
        log.exception("failed")
    logs.log_turn(conversation_id="c", step="s", outcome="ok", duration_ms=1, kind="k",
                  token="xoxb-1-2-3")
    out = captured.getvalue()
    for leaked in ("xoxb-", "xapp-", "xoxp-", "xoxe.", "hunter2", secret):
        assert leaked not in out, leaked
    assert out.count("[REDACTED]") >= 6
    assert all(isinstance(line, dict) for line in _lines(captured))


def test_setup_logging_registers_secrets_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, captured: io.StringIO
) -> None:
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "c4ca4238a0b923820dcc509a6f75849b")
    logs.setup_logging("INFO")  # again: idempotent, one handler
    assert sum(getattr(h, "_bot_json_handler", False) for h in logging.getLogger().handlers) == 1
    logging.getLogger("x").info("echo c4ca4238a0b923820dcc509a6f75849b")
    assert "c4ca4238" not in captured.getvalue()
