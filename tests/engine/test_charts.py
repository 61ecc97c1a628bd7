"""The charts (issue #12): what is drawn is the engine's numbers, read back from the figures'
artists (lines, bars, labels), never from pixels; every label in English and in French,
with the product's number formats; PNG bytes from a headless backend; the CLI's ``--charts``.
"""

from __future__ import annotations

import io
import math
import subprocess
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text
from PIL import Image

from engine import units
from engine.catalog import catalog
from engine.charts import KINDS, figures, render
from engine.decision import recommend
from engine.decision.curves import Curves, NotReproduced, curves
from engine.decision.facts import build_facts
from engine.decision.trap import final
from engine.physics.inference import InferencePlan, plan_inference
from engine.request import SizingRequest
from engine.units import GB
from engine.wording import engine_catalog, fields

SERVING = SizingRequest(model="llama-3.1-70b", concurrency=64, context=8192,
                        per_user_tokens_per_s=20, ttft_s=4)
REPLICAS = SizingRequest(model="llama-3.1-70b", concurrency=64, context=8192,
                         target_tokens_per_s=20000)
CLUSTER = SizingRequest(model="llama-3.1-405b", concurrency=64, context=32768)
FINETUNE = SizingRequest(model="llama-3.1-70b", workload="full-finetune", train_tokens=2e9,
                         deadline_days=7)
LORA = SizingRequest(model="llama-3.1-70b", workload="lora")
PRETRAIN = SizingRequest(model="llama-3.1-70b", workload="pretrain", train_tokens=15e12,
                         deadline_days=30)


def _line(fig: Figure, gid: str, ax: int = 0) -> Line2D:
    found = [a for a in fig.axes[ax].get_lines() if a.get_gid() == gid]
    assert len(found) == 1, (gid, [a.get_gid() for a in fig.axes[ax].get_lines()])
    return found[0]


def _xy(line: Line2D) -> tuple[list[float], list[float]]:
    """The line's data as the figure holds it."""
    xs = np.asarray(line.get_xdata(), dtype=float)
    ys = np.asarray(line.get_ydata(), dtype=float)
    return [float(v) for v in xs], [float(v) for v in ys]


def _texts(fig: Figure) -> list[str]:
    """Every piece of text a person reads on the figure."""
    out = [t.get_text() for t in fig.findobj(Text)]
    return [t for t in out if t.strip()]


def _chosen_plan(req: SizingRequest) -> InferencePlan:
    _, _, d = final(build_facts(req, catalog()))
    assert isinstance(d.plan, InferencePlan)
    return d.plan


# -- the load curve ---------------------------------------------------------------------------


@pytest.mark.parametrize("req", [SERVING, REPLICAS, CLUSTER], ids=["single", "replicas", "cluster"])
def test_the_load_curve_draws_the_engines_serving_figures(req: SizingRequest) -> None:
    rec = recommend(req)
    c = curves(req, rec)
    assert c.load is not None and c.training is None
    fig = figures(c, "en")["load"]
    speed, ttft = fig.axes
    facts = build_facts(req, catalog())
    plan = _chosen_plan(req)
    xs, ys = _xy(_line(fig, "chosen", 0))
    _, ts = _xy(_line(fig, "chosen", 1))
    assert xs[0] == 1 and xs[-1] == plan.max_concurrency == rec.numbers.max_concurrency
    # every point is the engine's own plan of that layout at that load
    for x, y, t in zip(xs, ys, ts, strict=True):
        p = plan_inference(facts.model, facts.params, facts.kernels, facts.fabric,
                           facts.policy, precision=plan.precision,
                           kv_precision=plan.kv_precision, concurrency=int(x),
                           shape=facts.shape, nodes=plan.nodes,
                           gpus_per_node=plan.gpus_per_node, tp=plan.tp, pp=plan.pp, dp=plan.dp)
        assert y == p.per_user_tokens_per_s and t == p.ttft_s
    # the operating point is the answer's numbers, on the curve
    (px,), (py,) = _xy(_line(fig, "point", 0))
    (_, ), (pt,) = _xy(_line(fig, "point", 1))
    assert float(f"{py:.3g}") == rec.numbers.per_user_tokens_per_s
    assert round(pt, 3) == rec.numbers.ttft_s
    assert px in xs and ys[xs.index(px)] == py
    # the runner-up layout passes through its own numbers at the sized load
    runner = next(a for a in rec.alternatives if a.kind == "layout")
    rx, ry = _xy(_line(fig, "layout", 0))
    assert float(f"{ry[rx.index(px)]:.3g}") == runner.numbers.per_user_tokens_per_s
    assert rx[-1] == runner.numbers.max_concurrency
    # the best other GPU: its own answer's per-user speed is on its curve
    other = next(a for a in rec.alternatives if a.kind == "gpu")
    _, gy = _xy(_line(fig, "gpu", 0))
    assert other.numbers.per_user_tokens_per_s in {float(f"{v:.3g}") for v in gy}
    assert speed.get_xscale() == "log" and ttft.get_xscale() == "log"


def test_the_customers_targets_are_lines_only_when_given() -> None:
    c = curves(SERVING)
    fig = figures(c, "en")["load"]
    _, speed = _xy(_line(fig, "target-speed", 0))
    _, ttft = _xy(_line(fig, "target-ttft", 1))
    assert set(speed) == {20.0} and set(ttft) == {4.0}
    bare = figures(curves(CLUSTER), "en")["load"]
    gids = {line.get_gid() for ax in bare.axes for line in ax.get_lines()}
    assert "target-speed" not in gids and "target-ttft" not in gids


# -- the memory picture -----------------------------------------------------------------------


def _bars(fig: Figure) -> dict[str, list[tuple[float, float]]]:
    """(bottom, height) of each segment's bars, by segment, left to right."""
    out: dict[str, list[tuple[float, float]]] = {}
    for patch in sorted(fig.axes[0].patches, key=lambda p: p.get_x()):  # type: ignore[attr-defined]
        out.setdefault(str(patch.get_gid()), []).append(
            (patch.get_y(), patch.get_height()))  # type: ignore[attr-defined]
    return out


@pytest.mark.parametrize("req", [SERVING, CLUSTER, FINETUNE, LORA, PRETRAIN],
                         ids=["single", "cluster", "finetune", "lora", "pretrain"])
def test_the_memory_picture_is_the_engines_per_gpu(req: SizingRequest) -> None:
    rec = recommend(req)
    c = curves(req, rec)
    assert c.memory is not None
    fig = figures(c, "en")["memory"]
    bars = _bars(fig)
    pic = rec.numbers.memory
    assert pic is not None
    seg = pic.per_copy
    gpus = round(seg.vram_gb * GB / catalog().gpus[rec.gpu].memory_bytes)
    (w0, w), (k0, k), (_, r), (f0, f) = (bars[g][0] for g in ("weights", "work", "reserve",
                                                              "free"))
    assert w0 == 0 and math.isclose(w, seg.weights_gb / gpus)
    assert math.isclose(k0, w) and math.isclose(k, seg.work_gb / gpus)
    assert math.isclose(r, seg.reserve_gb / gpus)
    assert math.isclose(f, max(0.0, seg.free_gb / gpus), abs_tol=1e-9)
    assert math.isclose(f0 + f, max(seg.vram_gb, seg.used_gb) / gpus)
    # the article's 70 % line over each bar, at its own GPU's share
    ceilings = [line for line in fig.axes[0].get_lines() if line.get_gid() == "ceiling"]
    assert len(ceilings) == len(c.memory.bars) == len(bars["weights"])
    _, (y, _) = _xy(ceilings[0])
    assert math.isclose(y, catalog().policy.max_weights_share * seg.vram_gb / gpus)
    if len(c.memory.bars) > 1:  # beside the runner-up (or, without one, the best other GPU)
        second = c.memory.bars[1]
        alt = next(a for a in rec.alternatives
                   if a.kind == second.role or (second.role == "layout" and a.kind == "layout"))
        if alt.numbers.memory is not None:
            s2 = alt.numbers.memory.per_copy
            assert math.isclose(bars["weights"][1][1] * second.gpus, s2.weights_gb)
            assert math.isclose(bars["work"][1][1] * second.gpus, s2.work_gb)


def test_a_training_runner_up_is_drawn_from_its_own_plan() -> None:
    rec = recommend(FINETUNE)
    runner = next(a for a in rec.alternatives if a.kind == "layout")
    c = curves(FINETUNE, rec)
    assert c.memory is not None and c.memory.bars[1].role == "layout"
    bar = c.memory.bars[1]
    facts = build_facts(FINETUNE, catalog())
    lay = runner.layout
    assert lay is not None
    plan = next(p for p in facts.search.training(runner.nodes)[1]
                if (p.tp, p.pp, p.dp) == (lay.tp, lay.pp, lay.dp)
                and round(p.efficiency, 3) == runner.numbers.scaling_efficiency)
    assert math.isclose(bar.weights_gb, plan.weights_per_gpu / GB, rel_tol=1e-4)
    assert math.isclose(bar.work_gb, (plan.state_per_gpu - plan.weights_per_gpu
                                      + plan.activations_per_gpu) / GB, rel_tol=1e-4)


# -- the training curve -----------------------------------------------------------------------


@pytest.mark.parametrize("req", [FINETUNE, LORA, PRETRAIN], ids=["cluster", "single", "frontier"])
def test_the_training_curve_is_days_per_node_count_with_the_deadline(req: SizingRequest) -> None:
    rec = recommend(req)
    c = curves(req, rec)
    assert c.training is not None and c.load is None
    t = c.training
    fig = figures(c, "fr")["training"]
    xs, ys = _xy(_line(fig, "curve"))
    assert xs == [p.nodes for p in t.points] and ys == [p.days for p in t.points]
    _, deadline = _xy(_line(fig, "deadline"))
    assert set(deadline) == {req.deadline_days or catalog().policy.default_deadline_days}
    (px,), (py,) = _xy(_line(fig, "point"))
    assert (px, py) == (rec.nodes, rec.numbers.days)
    facts = build_facts(req, catalog())
    if rec.verdict == "frontier":
        assert t.scaling == "frontier" and max(xs) >= 2 * rec.nodes * 0.99
    else:  # the best layout on each number of nodes, as questions 1 and 4 search it
        for p in t.points:
            best = facts.search.training(p.nodes)[0]
            assert best is not None and p.days == best.days(facts.train_tokens)
            assert p.efficiency == best.efficiency
    if rec.verdict == "multi_node":
        assert round(ys[xs.index(rec.nodes)], 2) == rec.numbers.days
    labels = [a.get_text() for a in fig.axes[0].texts if a.get_gid() == "efficiency"]
    assert labels and all(lab in {units.pct(p.efficiency, "fr") for p in t.points}
                          for lab in labels)


# -- words and images -------------------------------------------------------------------------


def test_every_chart_label_exists_in_both_languages_with_the_same_fields() -> None:
    cat = engine_catalog()
    ids = {i for i in cat.ids() if i.startswith("chart.")}
    assert len(ids) > 30
    for ident in ids:
        en, fr = cat.template(ident, "en"), cat.template(ident, "fr")
        assert fields(en) == fields(fr), ident
        if any(c.isalpha() for c in en) and ident != "chart.bar.detail":
            assert en != fr or ident.endswith("efficiency"), ident


@pytest.mark.parametrize("req", [SERVING, REPLICAS, FINETUNE], ids=["serving", "replicas",
                                                                       "training"])
def test_the_figures_read_in_the_conversations_language(req: SizingRequest) -> None:
    c = curves(req)
    for kind in figures(c, "en"):
        en, fr = _texts(figures(c, "en")[kind]), _texts(figures(c, "fr")[kind])
        assert len(en) == len(fr)
        assert en != fr
        joined = " ".join(fr)
        assert not any(word in joined for word in (" of ", "Speed", "Days", "Weights",
                                                    "Recommended", "requests"))
        assert "{" not in joined and "{" not in " ".join(en)
    load = c.load
    if load is not None:
        text = " ".join(_texts(figures(c, "fr")["load"]))
        assert units.rate(load.point.per_user_tokens_per_s, "fr") in text  # 20,9 tok/s
        assert units.seconds(load.point.ttft_s, "fr") in text
        assert "Requêtes" in text and "tok/s par utilisateur" in text


def test_renders_headless_png_at_slacks_preview_shape() -> None:
    assert matplotlib.get_backend().lower() == "agg"
    for req in (SERVING, FINETUNE):
        images = render(req, lang="fr")
        assert [i.kind for i in images] == [k for k in KINDS if k != (
            "training" if req.workload == "inference" else "load")]
        for image in images:
            assert image.png.startswith(b"\x89PNG\r\n\x1a\n")
            with Image.open(io.BytesIO(image.png)) as im:
                assert im.size == (800, 450)
    # the same chart, the same bytes (make docs rewrites a file only when it changed)
    assert render(SERVING)[0].png == render(SERVING)[0].png


def test_a_recommendation_the_request_does_not_give_is_refused() -> None:
    other = recommend(CLUSTER)
    with pytest.raises(NotReproduced):
        curves(SERVING, other)


def test_a_frontier_serving_estimate_has_no_load_curve() -> None:
    req = SizingRequest(model="llama-3.1-405b", concurrency=2000, context=131072,
                        gpu="l4", gpus_per_node=8, allow_int4=False)
    rec = recommend(req)
    assert rec.verdict == "frontier"
    c: Curves = curves(req, rec)
    assert c.load is None and c.memory is not None and c.training is None


# -- the command line -------------------------------------------------------------------------


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True,
                          text=True, timeout=120)


def test_cli_charts_writes_the_pngs_and_prints_their_paths(tmp_path: Path) -> None:
    out = tmp_path / "charts"
    p = _run("recommend", "--model", "llama-3.1-70b", "--concurrency", "64", "--lang", "fr",
             "--charts", str(out))
    assert p.returncode == 0, p.stderr
    paths = [line for line in p.stdout.splitlines() if line.endswith(".png")]
    assert [Path(x).name for x in paths] == ["llama-3.1-70b-inference-load.png",
                                            "llama-3.1-70b-inference-memory.png"]
    for x in paths:
        assert Path(x).read_bytes().startswith(b"\x89PNG")
    # with --json the one object stays alone on stdout; the paths go to stderr
    j = _run("recommend", "--model", "llama-3.1-70b", "--workload", "lora", "--json",
             "--charts", str(out))
    assert j.returncode == 0 and j.stdout.count("\n") == 1
    assert [Path(x).name for x in j.stderr.split()] == ["llama-3.1-70b-lora-memory.png",
                                                       "llama-3.1-70b-lora-training.png"]
    bad = _run("recommend", "--model", "llama-3.1-70b", "--charts", "/proc/no/such")
    assert bad.returncode == 2 and bad.stderr.startswith("error: --charts:")
    assert "Traceback" not in bad.stderr

