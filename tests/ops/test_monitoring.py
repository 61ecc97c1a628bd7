"""The monitoring kit, checked with Prometheus's own tool: the PrometheusRule's alerts (``promtool
check rules``, and ``promtool test rules``: each alert fires on its fault and stays quiet
without it), the Grafana dashboard's queries (valid PromQL, exactly the documented metrics),
and ``docs/operations.md``'s metrics table against what the bot really exports.

Tools missing on a developer's machine skip their test; in CI (``CI`` set) they fail it
(``tests/ops/test_deploy.py``: ``_tool``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from tests.ops.test_deploy import (
    APP,
    JOB,
    K8S,
    NS,
    OPS_DOC,
    _documented_metrics,
    _metrics_in,
    _run,
    _tool,
    k8s,
)

__all__ = ["k8s"]  # the rendered kustomize output, shared with tests/ops/test_deploy.py


# -- alerts and dashboard -------------------------------------------------------------------------

def _fires(series: dict[str, str], at: str, alert: str, labels: dict[str, str] | None) -> Any:
    """A promtool unit test: ``alert`` fires at ``at`` (with these extra labels), or not (None)."""
    return {"interval": "1m",
            "input_series": [{"series": s, "values": v} for s, v in series.items()],
            "alert_rule_test": [{"eval_time": at, "alertname": alert,
                                 "exp_alerts": [] if labels is None else [{"exp_labels": labels}]}]}


ALERT_CASES = [  # (alert, input series, fires at, extra labels or None for "stays quiet")
    ("GpuSizingBotDown", {f'up{{{JOB}, instance="a"}}': "0x30"}, "10m", {}),
    ("GpuSizingBotDown", {'up{job="other"}': "1x30"}, "10m", {"job": APP}),
    ("GpuSizingBotDown", {f'up{{{JOB}, instance="a"}}': "1x30"}, "10m", None),
    ("GpuSizingBotPodsNotReady", {f'kube_pod_status_ready{{namespace="{NS}", pod="{APP}-1", '
                                  'condition="false"}': "1x30"}, "15m", {}),
    ("GpuSizingBotPodsNotReady", {f'kube_pod_status_ready{{namespace="{NS}", pod="{APP}-1", '
                                  'condition="false"}': "0x30"}, "15m", None),
    ("GpuSizingBotRedisErrors", {f"gpubot_redis_errors_total{{{JOB}}}": "0+6x30"}, "15m", {}),
    ("GpuSizingBotRedisErrors", {f"gpubot_redis_errors_total{{{JOB}}}": "0x30"}, "15m", None),
    ("GpuSizingBotRedisRefusesWrites", {f"gpubot_redis_errors_total{{{JOB}}}": "0+6x30",
                                        f'gpubot_redis_up{{{JOB}, instance="a"}}': "1x30"},
     "10m", {}),
    ("GpuSizingBotRedisRefusesWrites", {f"gpubot_redis_errors_total{{{JOB}}}": "0+6x30",
                                        f'gpubot_redis_up{{{JOB}, instance="a"}}': "0x30"},
     "10m", None),  # Redis is down, not full: GpuSizingBotRedisErrors says so
    ("GpuSizingBotSlowTurns", {f'gpubot_turn_duration_seconds_bucket{{{JOB}, le="{le}"}}': v
                               for le, v in (("0.5", "0+50x30"), ("2.0", "0+90x30"),
                                             ("3.0", "0+100x30"), ("+Inf", "0+100x30"))},
     "20m", {}),
    ("GpuSizingBotSlowTurns", {f'gpubot_turn_duration_seconds_bucket{{{JOB}, le="{le}"}}':
                               "0+100x30" for le in ("0.5", "2.0", "+Inf")}, "20m", None),
    ("GpuSizingBotSlackApiErrors", {f'gpubot_slack_api_errors_total{{{JOB}, method="chat.update"}}':
                                    "0+6x30"}, "20m", {}),
    ("GpuSizingBotSlackApiErrors", {f'gpubot_slack_api_errors_total{{{JOB}, method="chat.update"}}':
                                    "0+1x30"}, "20m", None),
    ("GpuSizingBotRedisNotPersistent", {f'gpubot_redis_persistence{{{JOB}, mode="{m}"}}': v
                                        for m, v in (("aof", "0x30"), ("rdb", "1x30"),
                                                     ("none", "0x30"), ("unknown", "0x30"))},
     "20m", {}),
    ("GpuSizingBotRedisNotPersistent", {f'gpubot_redis_persistence{{{JOB}, mode="{m}"}}': v
                                        for m, v in (("aof", "0x30"), ("rdb", "0x30"),
                                                     ("none", "0x30"), ("unknown", "1x30"))},
     "20m", None),  # CONFIG refused (managed Redis) or unreachable: not this alert
    ("GpuSizingBotRedisNotPersistent", {f'gpubot_redis_persistence{{{JOB}, mode="aof"}}': "1x30",
                                        f'gpubot_redis_persistence{{{JOB}, mode="rdb"}}': "0x30"},
     "20m", None),
    ("GpuSizingBotSlowRedis", {f'gpubot_redis_command_duration_seconds_bucket{{{JOB}, '
                               f'command="{c}", le="{le}"}}': v
                               for c, le, v in (("hgetall", "0.05", "0+50x30"),
                                                ("hgetall", "0.25", "0+90x30"),
                                                ("hgetall", "+Inf", "0+100x30"),
                                                ("xreadgroup", "0.05", "0x30"),
                                                ("xreadgroup", "+Inf", "0x30"))},
     "20m", {}),
    ("GpuSizingBotSlowRedis", {f'gpubot_redis_command_duration_seconds_bucket{{{JOB}, '
                               f'command="{c}", le="{le}"}}': v
                               for c, le, v in (("hgetall", "0.005", "0+100x30"),
                                                ("hgetall", "+Inf", "0+100x30"),
                                                ("xreadgroup", "0.005", "0x30"),
                                                ("xreadgroup", "1.0", "0+100x30"),
                                                ("xreadgroup", "+Inf", "0+100x30"))},
     "20m", None),  # the queue's blocking read waits up to 1 s by design
]


def test_alerts_are_valid_fire_on_their_fault_and_are_the_documented_ones(
        k8s: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    groups = k8s["PrometheusRule"]["spec"]["groups"]
    rules = {r["alert"]: r for g in groups for r in g["rules"]}
    documented = set(re.findall(r"`(GpuSizingBot[A-Za-z]+)`", OPS_DOC.read_text()))
    assert set(rules) == documented, "docs/operations.md documents other alerts"
    assert {case[0] for case in ALERT_CASES} == set(rules), "every alert needs its fault here"
    for rule in rules.values():
        assert rule["labels"]["severity"] in {"warning", "critical"}
        assert rule["annotations"]["summary"] and rule["annotations"]["description"]
        assert _metrics_in(rule["expr"]) <= _documented_metrics(), rule["alert"]

    promtool = _tool("promtool")
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump({"groups": groups}))
    checked = _run(promtool, "check", "rules", str(tmp_path / "rules.yaml"))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tests = []
    for alert, series, at, extra in ALERT_CASES:
        case = _fires(series, at, alert, None if extra is None else
                      {**rules[alert]["labels"], **extra})
        for exp in case["alert_rule_test"][0]["exp_alerts"]:
            exp["exp_annotations"] = rules[alert]["annotations"]
        tests.append(case)
    (tmp_path / "tests.yaml").write_text(yaml.safe_dump(
        {"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": tests}))
    tested = _run(promtool, "test", "rules", str(tmp_path / "tests.yaml"))
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_dashboard_is_a_labelled_configmap_whose_queries_are_valid_promql(
        k8s: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    cm = k8s["Dashboard"]
    assert cm["metadata"]["name"] == f"{APP}-dashboard"  # fixed: one copy per dashboard uid
    assert cm["metadata"]["labels"]["grafana_dashboard"] == "1"
    (text,) = cm["data"].values()
    dashboard = json.loads(text)
    assert dashboard == json.loads((K8S / "dashboards" / f"{APP}.json").read_text())
    assert dashboard["uid"] == APP
    assert [v["type"] for v in dashboard["templating"]["list"]] == ["datasource"]
    panels = dashboard["panels"]
    assert len({p["id"] for p in panels}) == len(panels)
    exprs = [t["expr"] for p in panels for t in p["targets"]]
    shown = set().union(*(_metrics_in(e) for e in exprs))
    assert shown == _documented_metrics(), "the dashboard shows exactly the documented metrics"
    assert all(JOB in e for e in exprs)

    promtool = _tool("promtool")
    rules = [{"record": f"dashboard:panel_{i}", "expr":
              e.replace("$__rate_interval", "5m").replace("$__range", "1h")}
             for i, e in enumerate(exprs)]
    group = {"name": "dashboard", "rules": rules}
    (tmp_path / "panels.yaml").write_text(yaml.safe_dump({"groups": [group]}))
    checked = _run(promtool, "check", "rules", str(tmp_path / "panels.yaml"))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_operations_doc_names_the_real_metrics() -> None:
    from bot.ops import metrics

    metrics._reset_for_tests()
    try:
        metrics.observe_turn("k", "ok", 0.1)
        for fn in (metrics.slack_api_error, metrics.slack_retry, metrics.recommendation):
            fn("x")
        exposition = metrics.render()[0].decode()
    finally:
        metrics._reset_for_tests()
    exported = set(re.findall(r"^# TYPE (gpubot_[a-z_]+) ", exposition, re.M))
    assert exported == _documented_metrics()
