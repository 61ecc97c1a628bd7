"""The per-GPU calibration (issue #9 items 1, 2 and 5): derived from the measured tables, each
constant sourced, unmeasured GPUs on a stated rule, collectives on the measured curves, and
training overhead at scale computed.

What the engine does with each table and why: docs/calibration.md. The accuracy against
aiconfigurator and published runs is printed by bench/accuracy.py, not asserted here.
"""

from __future__ import annotations

from itertools import pairwise

import pytest

from engine import SizingRequest, recommend
from engine.catalog import catalog
from engine.catalog.calibration import CALIBRATION_FILE, calibration
from engine.catalog.derive import derive, render
from engine.decision.facts import build_facts
from engine.physics.comm import allreduce_s
from engine.physics.training import goodput
from engine.result import Recommendation

CAT = catalog()
CAL = calibration()
MEASURED = CALIBRATION_FILE.parent / "measured"
#: The GPUs aiconfigurator 0.12.0 ships no data for, and the part each one borrows from.
BORROWED = {
    "rtx-pro-6000-ws": "rtx-pro-6000-server", "rtx-5090": "rtx-pro-6000-server",
    "l40": "l40s", "l4": "l40s", "rtx-4090": "l40s", "h100-pcie": "h100-sxm",
    "a100-pcie-80gb": "a100-sxm-80gb", "a100-sxm-40gb": "a100-sxm-80gb",
}


def rec(**kw: object) -> Recommendation:
    return recommend(SizingRequest(**kw), alternatives=False)  # type: ignore[arg-type]


def ids(messages) -> list[str]:  # type: ignore[no-untyped-def]
    return [m.id for m in messages]


def test_the_calibration_file_is_what_the_measured_tables_derive() -> None:
    # regenerate with `python bench/calibrate.py fit` after changing a measured table
    assert CALIBRATION_FILE.read_text() == render(derive(MEASURED))


def test_every_calibrated_row_names_its_measured_file_and_the_aiconfigurator_version() -> None:
    rows = [*CAL.gemm.values(), *CAL.decode_attention.values(),
            *CAL.prefill_attention.values(), *CAL.moe.values(),
            *(r for by_n in CAL.collectives.values() for r in by_n.values())]
    assert len(rows) > 50
    for row in rows:
        assert "aiconfigurator" in row.source and "0.12.0" in row.source, row.source
        assert "engine/data/measured/" in row.source + row.fitted_to, row.source


def test_measured_gpus_calibrate_on_themselves() -> None:
    assert set(CAL.measured_gpus) == {"rtx-pro-6000-server", "l40s", "h100-sxm", "h200",
                                      "b200", "a100-sxm-80gb"}
    for gpu_id in CAL.measured_gpus:
        assert CAT.gpus[gpu_id].calibration == gpu_id


@pytest.mark.parametrize(("gpu_id", "part"), sorted(BORROWED.items()))
def test_an_unmeasured_gpu_borrows_the_closest_measured_part_and_says_which(
        gpu_id: str, part: str) -> None:
    gpu = CAT.gpus[gpu_id]
    assert gpu.calibration == part
    assert gpu.calibration_note and "aiconfigurator 0.12.0" in gpu.calibration_note
    f = build_facts(SizingRequest(model="llama-3.1-8b", gpu=gpu_id), CAT)
    assert f.kernels.part.id == part and not f.kernels.measured
    r = rec(model="llama-3.1-8b", gpu=gpu_id)
    (said,) = [a for a in r.assumptions if a.id == "assumption.calibrated_as"]
    assert said.params["part"] == CAT.gpus[part].name


def test_the_borrowing_rule_scales_with_the_gpus_own_datasheet() -> None:
    # the Workstation Edition has the Server's die and kernels at 1,792 against 1,597 GB/s
    server = build_facts(SizingRequest(model="llama-3.1-70b"), CAT)
    ws = build_facts(SizingRequest(model="llama-3.1-70b", gpu="rtx-pro-6000-ws"), CAT)
    gs, gw = server.kernels.gemm("fp8"), ws.kernels.gemm("fp8")
    ratio = CAT.gpus["rtx-pro-6000-ws"].mem_bw_gbs / CAT.gpus["rtx-pro-6000-server"].mem_bw_gbs
    assert gw.stream(1.0) / gs.stream(1.0) == pytest.approx(ratio)
    assert gw.fixed(1.0) == gs.fixed(1.0)  # fixed kernel latencies are kept


def test_a_measured_gpu_says_its_speed_is_its_own() -> None:
    r = rec(model="llama-3.1-70b")
    (said,) = [a for a in r.assumptions if a.id == "assumption.measured"]
    assert said.params["aic"] == "0.12.0"
    assert "assumption.calibrated_as" not in ids(r.assumptions)


def test_the_pcie_all_reduce_follows_the_measured_curve_of_issue_9() -> None:
    f = build_facts(SizingRequest(model="llama-3.1-70b"), CAT)
    # 256 KB on 8 GPUs measured at ~85 us (the old ring model said 36 us)
    t = allreduce_s(256 * 1024, 8, f.fabric)
    assert 70e-6 <= t <= 100e-6
    # the largest message: 24.7 GB/s bus bandwidth at 8 GPUs
    big = 512 * 2**20
    busbw = 2 * 7 / 8 * big / allreduce_s(big, 8, f.fabric) / 1e9
    assert busbw == pytest.approx(24.7, abs=0.1)


def test_a_link_measured_only_on_another_host_says_so() -> None:
    # the A100 PCIe's PCIe 4 link was measured on the L40S host
    r = rec(model="llama-3.1-8b", gpu="a100-pcie-80gb")
    assert "assumption.link_measured_on" in ids(r.assumptions)


def test_inter_node_collectives_say_they_come_from_documented_figures() -> None:
    r = rec(model="llama-3.1-405b", concurrency=64, context=32768)
    assert r.nodes > 1
    (said,) = [a for a in r.assumptions if a.id == "assumption.fabric_documented"]
    assert said.params["link"] == CAT.links[r.interconnect or ""].name


def test_the_two_fitted_knobs_say_what_they_were_fitted_to() -> None:
    src = CAT.policy.sources
    assert "bench/calibrate.py fit" in src["train_gemm_share"]
    assert "training_runs.toml" in src["train_gemm_share"]
    assert "C14" in src["tp_comm_overlap"] and "C17" in src["tp_comm_overlap"]
    assert f"{CAT.policy.tp_comm_overlap}" in src["tp_comm_overlap"]
    assert f"{CAT.policy.train_gemm_share}" in src["train_gemm_share"]


def test_the_fitted_host_time_says_what_it_was_fitted_to_and_its_value() -> None:
    """The serving runtime's time per sequence is fitted to measured end-to-end runs: its
    source names the command that refits it, the file it is fitted to and the value."""
    for knob in ("step_us_per_sequence", "pipeline_us_per_sequence"):
        src = CAT.policy.sources[knob]
        assert "bench/calibrate.py fit-serving" in src, knob
        assert f"{getattr(CAT.policy, knob):g}" in src, knob
    assert "trtllm_bench.toml" in CAT.policy.sources["step_us_per_sequence"]
    assert "_executor_loop_pp" in CAT.policy.sources["pipeline_us_per_sequence"]


def test_goodput_falls_with_the_gpu_count_as_the_llama_3_paper_reports() -> None:
    pol = CAT.policy
    assert goodput(8, pol) > 0.999
    # Llama 3: "higher than 90 % effective training time" on 16,384 H100s
    assert 0.9 <= goodput(16384, pol) <= 0.92
    counts = [8, 512, 4096, 16384, 32768]
    shares = [goodput(n, pol) for n in counts]
    assert shares == sorted(shares, reverse=True)


def test_a_frontier_run_computes_its_scaling_efficiency_at_scale() -> None:
    r = rec(model="llama-3.1-405b", workload="pretrain", gpu="h100-sxm",
            interconnect="ib-400", train_tokens=15.6e12, deadline_days=90)
    n = r.numbers
    assert r.verdict == "frontier" and (n.gpus_needed or 0) > 10_000
    # DP all-reduce, pipeline bubbles and interruptions at ~16k GPUs: not 1.0
    assert n.scaling_efficiency is not None and 0.6 <= n.scaling_efficiency <= 0.9
    assert n.mfu is not None and 0.25 <= n.mfu <= 0.45
    assert "assumption.frontier_scale" in ids(r.assumptions)


def test_a_frontier_runs_gpu_hours_do_not_jump_with_the_deadline() -> None:
    # GPU-hours are the work over the efficiency: a later deadline means fewer GPUs at a
    # slightly better efficiency, never a jump (a node count with no good pipeline split,
    # e.g. a prime number of nodes, must not be chosen)
    hours = []
    for days in (60, 75, 89, 90, 91, 120):
        r = rec(model="llama-3.1-405b", workload="pretrain", gpu="h100-sxm",
                interconnect="ib-400", train_tokens=15.6e12, deadline_days=days)
        hours.append(r.numbers.gpu_months or 0.0)
    assert all(b <= a * 1.005 for a, b in pairwise(hours))
    assert hours[2] / hours[4] < 1.01  # 89 against 91 days
    assert hours[0] / hours[-1] < 1.1
