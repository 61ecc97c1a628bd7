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
    assert _value(text, 'gpubot_turns_total{kind="action",outcome="ok"}') == 0  # not half-counted


def _series(text: str, name: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(name + "{")]


def _nonzero(text: str, name: str) -> list[str]:
    return [line for line in _series(text, name) if float(line.split()[-1]) != 0]


def test_labels_come_from_closed_sets_whatever_clients_send(plain_metrics: None) -> None:
    """30 distinct X-Slack-Retry-Reason values once made 30 series (issue 13, item 9)."""
    before = metrics.render()[0].decode()
    for i in range(30):
        metrics.slack_retry(f"made-up-reason-{i}")
        metrics.observe_turn(f"kind{i}", f"outcome{i}", 0.01)
        metrics.slack_api_error(f"admin.method{i}")
        metrics.refused(f"why{i}")
        metrics.observe_redis(f"FLUSHALL{i}", 0.001)
        with metrics.slack_call(f"admin.method{i}"):
            pass
    for reason in ("http_timeout", "HTTP_TIMEOUT ", "connection_failed", "ratelimited"):
        metrics.slack_retry(reason)
    text = metrics.render()[0].decode()
    for name in ("gpubot_slack_retries_total", "gpubot_turns_total",
                 "gpubot_slack_api_errors_total", "gpubot_requests_refused_total",
                 "gpubot_redis_command_duration_seconds_count",
                 "gpubot_slack_api_duration_seconds_count"):
        assert len(_series(text, name)) == len(_series(before, name)), name  # none added
    retries = _nonzero(text, "gpubot_slack_retries_total")
    assert sorted(line.split()[0] for line in retries) == [
        'gpubot_slack_retries_total{reason="connection_failed"}',
        'gpubot_slack_retries_total{reason="http_timeout"}',
        'gpubot_slack_retries_total{reason="other"}',
        'gpubot_slack_retries_total{reason="ratelimited"}',
    ]
    assert 'gpubot_slack_retries_total{reason="other"} 30.0' in text
    assert 'gpubot_slack_retries_total{reason="http_timeout"} 2.0' in text
    assert _nonzero(text, "gpubot_turns_total") == [
        'gpubot_turns_total{kind="other",outcome="other"} 30.0']
    assert _nonzero(text, "gpubot_slack_api_errors_total") == [
        'gpubot_slack_api_errors_total{method="other"} 30.0']
    assert _nonzero(text, "gpubot_redis_command_duration_seconds_count") == [
        'gpubot_redis_command_duration_seconds_count{command="other"} 30.0']
    assert _nonzero(text, "gpubot_slack_api_duration_seconds_count") == [
        'gpubot_slack_api_duration_seconds_count{method="other"} 30.0']


def test_every_labelled_series_exists_at_zero_before_its_first_event(
        plain_metrics: None) -> None:
    """``rate()`` of an outcome that never happened is 0, not empty (issue 11, item 4)."""
    from prometheus_client.parser import text_string_to_metric_families

    from bot.ops import labelsets as ls

    families = {f.name: f for f in text_string_to_metric_families(metrics.render()[0].decode())}
    expected = {  # family -> (label, closed set) for every labelled counter and histogram
        "gpubot_slack_api_errors": ("method", ls.METHODS),
        "gpubot_slack_retries": ("reason", ls.RETRY_REASONS),
        "gpubot_recommendations": ("verdict", ls.VERDICTS),
        "gpubot_requests_refused": ("reason", ls.REFUSALS),
        "gpubot_turn_duration_seconds": ("kind", ls.KINDS),
        "gpubot_slack_api_duration_seconds": ("method", ls.METHODS),
        "gpubot_redis_command_duration_seconds": ("command", ls.REDIS_COMMANDS),
    }
    for name, (label, allowed) in expected.items():
        samples = [s for s in families[name].samples
                   if s.name.endswith(("_total", "_count"))]
        assert {s.labels[label] for s in samples} == allowed | {"other"}, name
        assert all(s.value == 0 for s in samples), name
    turns = [s for s in families["gpubot_turns"].samples if s.name.endswith("_total")]
    assert {(s.labels["kind"], s.labels["outcome"]) for s in turns} == {
        (k, o) for k in ls.KINDS | {"other"} for o in ls.OUTCOMES | {"other"}}
    assert not any(s.value for s in turns)
    labelled = {f.name for f in families.values()
                if f.type in ("counter", "histogram") and any(s.labels for s in f.samples
                                                              if "le" not in s.labels)}
    assert labelled == set(expected) | {"gpubot_turns"}, "a labelled counter without zeros"


def test_build_info_names_the_version_commit_and_python(
        plain_metrics: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata
    import platform

    monkeypatch.setenv("GPUBOT_COMMIT", "0123abcdef4567")
    metrics._reset_for_tests()
    text = metrics.render()[0].decode()
    version = importlib.metadata.version("gpu-sizing-bot")
    assert (f'gpubot_build_info{{commit="0123abcdef4567",python="{platform.python_version()}",'
            f'version="{version}"}} 1.0') in text
    monkeypatch.setenv("GPUBOT_COMMIT", "$(rm -rf /)")  # not a commit id: no label value
    metrics._reset_for_tests()
    assert 'gpubot_build_info{commit="",' in metrics.render()[0].decode()


def test_slack_call_times_calls_that_return_and_calls_that_raise(plain_metrics: None) -> None:
    with metrics.slack_call("chat.update"):
        pass
    with pytest.raises(ConnectionResetError), metrics.slack_call("chat.update"):
        raise ConnectionResetError("reset by peer")
    text = metrics.render()[0].decode()
    assert _value(text, 'gpubot_slack_api_duration_seconds_count{method="chat.update"}') == 2
    assert _value(text, 'gpubot_slack_api_duration_seconds_bucket{le="0.05",'
                        'method="chat.update"}') == 2


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
    assert _value(out, 'gpubot_recommendations_total{verdict="frontier"}') == 0  # zeros summed
    (info,) = [line for line in out.splitlines() if line.startswith("gpubot_build_info{")]
    assert info.endswith(" 1.0"), info  # one series, not one per worker process


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


def _setup_again(stream: io.StringIO, monkeypatch: pytest.MonkeyPatch, level: str) -> None:
    """setup_logging() again, inside a test: pytest puts its own stderr back for the test's
    body, so point stderr at the buffer first (or the new handler writes elsewhere)."""
    monkeypatch.setattr(sys, "stderr", stream)
    logs.setup_logging(level)


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


def test_turn_lines_carry_keyed_hashes_of_team_and_channel_never_the_ids(
        captured: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "c4ca4238a0b923820dcc509a6f75849b")
    _setup_again(captured, monkeypatch, "DEBUG")
    logs.log_turn(conversation_id="c1", step="model", outcome="ok", duration_ms=1,
                  kind="action", team="T0VENDOR1", channel="C0SALES42", text="Bluebird")
    logs.log_turn(conversation_id="c2", step="model", outcome="ok", duration_ms=1,
                  kind="action", team="T0VENDOR1", channel="C0OTHER77")
    out = captured.getvalue()
    assert "T0VENDOR1" not in out and "C0SALES42" not in out and "C0OTHER77" not in out
    first, _detail, second = (line for line in _lines(captured) if line["logger"] == "bot.turn")
    assert first["team_hash"] == second["team_hash"] == logs.hash_id("T0VENDOR1")
    assert first["channel_hash"] != second["channel_hash"]
    assert len(str(first["team_hash"])) == 16
    # keyed: another deployment's key gives other hashes; the same key, the same ones
    same = logs.hash_id("C0SALES42")
    logs.set_hash_key("another deployment's secret")
    assert logs.hash_id("C0SALES42") != same
    monkeypatch.setenv("LOG_HASH_KEY", "a dedicated key for the log hashes")
    logs.setup_logging("INFO")
    dedicated = logs.hash_id("C0SALES42")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "a rotated signing secret, 32 chars")
    logs.setup_logging("INFO")
    assert logs.hash_id("C0SALES42") == dedicated  # LOG_HASH_KEY survives a rotation
    # a plain (unkeyed) hash of the id is not what is logged: a guess cannot be checked
    import hashlib

    assert dedicated not in hashlib.sha256(b"C0SALES42").hexdigest()


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


def test_a_response_url_is_never_logged(captured: io.StringIO) -> None:
    """Anyone holding a slash command's response_url may post with it: whatever library logs
    one (slack_sdk's webhook client does, on every retry), its credential path is redacted."""
    logging.getLogger("slack_sdk.webhook.client").warning(
        "Failed: POST https://hooks.slack.com/commands/T0123ABC/4567890123/aBcD3fGh1jKl")
    logging.getLogger("anything").warning("click %s",
                                          "https://hooks.slack.com/actions/T01/99/zz-Top_9")
    out = captured.getvalue()
    assert "aBcD3fGh1jKl" not in out and "zz-Top_9" not in out
    assert out.count("[REDACTED]") == 2


def test_setup_logging_registers_secrets_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, captured: io.StringIO
) -> None:
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "c4ca4238a0b923820dcc509a6f75849b")
    _setup_again(captured, monkeypatch, "INFO")  # again: idempotent, one handler
    assert sum(getattr(h, "_bot_json_handler", False) for h in logging.getLogger().handlers) == 1
    logging.getLogger("x").info("echo c4ca4238a0b923820dcc509a6f75849b")
    assert "c4ca4238" not in captured.getvalue()
    assert "echo [REDACTED]" in captured.getvalue()  # the line was written, redacted
