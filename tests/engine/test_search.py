"""The searches time as few layouts as they can and answer what timing every layout answers.

Why these tests: issue #9 item 9 made the engine faster by not timing what cannot win
(engine/physics/search.py: ceilings from the decode step and a floor of the mixed step; the
load and the layouts shared by the searches of one request; the alternatives' facts built
once per GPU and walked without wording their evidence; one training run per facts). None
of it may move a number: each test compares the fast path with the plain one it replaced,
written out here as it was, on a spread of models, GPUs, loads, formats and bounds.
"""

from __future__ import annotations

import itertools

import pytest

from engine import SizingRequest, recommend
from engine.catalog import catalog
from engine.decision import clear_cache
from engine.decision.facts import Facts, build_facts
from engine.decision.trap import final
from engine.errors import UnsizableRequest
from engine.physics.inference import (
    Bounds,
    InferencePlan,
    best_inference,
    ceiling_of,
    fit_layouts,
    step_model,
    time_plan,
)
from engine.physics.memory import activations_per_gpu
from engine.physics.parallel import training_layouts
from engine.physics.search import next_best
from engine.physics.training import Run, TrainingPlan, best_training, memory_fit, project
from engine.result import Precision

CAT = catalog()
MODELS = ["llama-3.1-70b", "llama-3.1-8b", "deepseek-v3", "qwen3-30b-a3b", "gpt-oss-120b",
          "gemma-3-27b", "mixtral-8x7b"]
GPUS = ["rtx-pro-6000-server", "h100-sxm", "b200", "l40s", "a100-sxm-80gb"]
LOADS = [(1, 2048), (32, 8192), (128, 16384)]
BOUNDS = [Bounds(), Bounds(tokens_per_s=25.0), Bounds(ttft_s=1.0),
          Bounds(tokens_per_s=60.0, ttft_s=0.3), Bounds(tokens_per_s=1000.0)]


def facts_of(model: str, gpu: str, conc: int, ctx: int) -> Facts:
    return build_facts(SizingRequest(model=model, gpu=gpu, concurrency=conc, context=ctx), CAT)


def plans_of(f: Facts, precision: Precision, nodes: int, gpn: int) -> list[InferencePlan]:
    return fit_layouts(f.model, f.params, f.kernels, f.fabric, f.policy, precision=precision,
                       kv_precision="bf16", concurrency=f.concurrency, shape=f.shape,
                       nodes=nodes, gpus_per_node=gpn)


def time_of(f: Facts) -> object:
    return lambda p: time_plan(f.model, f.params, f.kernels, f.fabric, f.policy, p, f.shape)


def reference(f: Facts, plans: list[InferencePlan], bounds: Bounds
              ) -> tuple[InferencePlan | None, InferencePlan | None]:
    """(best, runner-up) as the engine chose them before the ceilings: without bounds,
    layouts timed from the highest memory ceiling down until the best reaches the next
    ceiling; with bounds, every layout timed; the runner-up timed the same way."""
    time = time_of(f)
    fitting = [p for p in plans if p.fits]
    if not fitting:
        return None, None
    if bounds.any:
        for p in fitting:
            time(p)  # type: ignore[operator]
        meeting = [p for p in fitting if p.serving is not None and bounds.met(p.serving)]
        best = max(meeting or fitting, key=lambda p: (p.tokens_per_s, -p.pp))
    else:
        best = None
        for p in sorted(fitting, key=lambda p: -p.bound):
            if best is not None and best.tokens_per_s >= p.bound:
                break
            time(p)  # type: ignore[operator]
            if best is None or (p.tokens_per_s, -p.pp) > (best.tokens_per_s, -best.pp):
                best = p
    assert best is not None
    rest = sorted((p for p in fitting if p is not best), key=lambda p: -p.bound)
    top = max((p.tokens_per_s for p in rest if p.serving is not None), default=0.0)
    for p in rest:
        if p.serving is None and p.bound > top:
            time(p)  # type: ignore[operator]
            top = max(top, p.tokens_per_s)
    timed = sorted((p for p in rest if p.serving is not None), key=lambda p: -p.tokens_per_s)
    return best, (timed[0] if timed else None)


def cap_of(f: Facts, bounds: Bounds) -> object:
    return lambda p: ceiling_of(f.model, f.params, f.kernels, f.fabric, f.policy, p, f.shape,
                                ttft=bounds.ttft_s is not None)


def layout(p: InferencePlan | None) -> tuple[object, ...] | None:
    return None if p is None else (p.tp, p.pp, p.dp, p.tokens_per_s, p.ttft_s)


CASES = list(itertools.product(MODELS, GPUS, LOADS))


@pytest.mark.parametrize(("model", "gpu", "load"), CASES)
def test_the_search_picks_what_timing_every_layout_picks(
        model: str, gpu: str, load: tuple[int, int]) -> None:
    f = facts_of(model, gpu, *load)
    for precision, (nodes, gpn), bounds in itertools.product(
            ("fp8", "int4"), ((1, 8), (2, 8), (1, 4)), BOUNDS):
        clear_cache(physics=True)
        want, want_next = reference(f, plans_of(f, precision, nodes, gpn), bounds)
        clear_cache(physics=True)
        best, plans = best_inference(
            f.model, f.params, f.kernels, f.fabric, f.policy, precision=precision,
            kv_precision="bf16", concurrency=f.concurrency, shape=f.shape, nodes=nodes,
            gpus_per_node=gpn, bounds=bounds)
        assert layout(best) == layout(want), (precision, nodes, gpn, bounds)
        if best is None:
            continue
        second = next_best(best, [p for p in plans if p.fits], bounds,
                           time_of(f), cap_of(f, bounds))  # type: ignore[arg-type]
        assert layout(second) == layout(want_next), (precision, nodes, gpn, bounds)


@pytest.mark.parametrize(("model", "gpu"), list(itertools.product(MODELS, GPUS)))
def test_ceilings_bound_what_timing_finds(model: str, gpu: str) -> None:
    """Tokens/s and per-user tokens/s never above their ceilings, the first token never
    before its floor, and the mixed step's floor never above the step."""
    for conc, ctx in LOADS:
        f = facts_of(model, gpu, conc, ctx)
        for precision, kv, (nodes, gpn) in itertools.product(
                ("fp8", "bf16", "int4"), ("bf16", "fp8"), ((1, 8), (2, 8), (1, 4))):
            for p in fit_layouts(f.model, f.params, f.kernels, f.fabric, f.policy,
                                 precision=precision, kv_precision=kv, concurrency=conc,
                                 shape=f.shape, nodes=nodes, gpus_per_node=gpn):
                if not p.fits:
                    continue
                c = ceiling_of(f.model, f.params, f.kernels, f.fabric, f.policy, p, f.shape,
                               ttft=True)
                s = time_plan(f.model, f.params, f.kernels, f.fabric, f.policy, p,
                              f.shape).serving
                assert s is not None and c.ttft_s is not None
                assert s.tokens_per_s <= c.tokens_per_s
                assert s.per_user_tokens_per_s <= c.per_user_tokens_per_s
                assert s.ttft_s >= c.ttft_s
                assert p.tokens_per_s <= p.ceiling
                sm = step_model(f.model, f.params, f.kernels, f.fabric, f.policy,
                                precision=precision, kv_precision=kv, tp=p.tp, pp=p.pp,
                                spans_nodes=p.tp * p.pp > gpn, gpus_per_node=gpn)
                assert sm.mixed_floor(f.shape.isl, 0.0) <= sm.prefill(f.shape.isl)
                assert sm.mixed_floor(f.shape.isl, 3.0) <= sm.mixed(f.shape.isl, 3.0, 9000.0)


REQUESTS = [
    dict(model="llama-3.1-70b"),
    dict(model="llama-2-70b"),  # the default context beyond its limit: capped, said
    dict(model="llama-3.1-70b", requests_per_s=4.0, prompt_tokens=2000, output_tokens=400),
    dict(model="llama-3.1-70b", per_user_tokens_per_s=30.0, ttft_s=2.0),
    dict(model="deepseek-v3", per_user_tokens_per_s=500.0),  # unreachable: dropped, said
    dict(model="qwen3-30b-a3b", precision="nvfp4", gpu="b200"),
    dict(model="gpt-oss-120b", kv_precision="fp8", gpus_per_node=4),
    dict(model="mixtral-8x7b", workload="full-finetune"),
    dict(params_b=300.0, active_params_b=30.0, target_tokens_per_s=20_000.0),
]


@pytest.mark.parametrize("kw", REQUESTS, ids=[str(r) for r in REQUESTS])
def test_facts_on_another_gpu_are_the_facts_of_that_request(kw: dict[str, object]) -> None:
    f = build_facts(SizingRequest(**kw), CAT)
    for gpu in CAT.gpus:
        if gpu == f.gpu.id:
            continue
        request = f.request.model_copy(update={"gpu": gpu})
        try:
            want = build_facts(request, CAT, given=f.given | {"gpu"}, model=f._model)
        except UnsizableRequest:  # the same refusal
            with pytest.raises(UnsizableRequest):
                f.other(gpu=gpu)
            continue
        got = f.other(gpu=gpu)
        assert got.request.model_dump() == want.request.model_dump()
        for name in ("gpu", "link", "kernels", "precision", "shape", "bounds", "target",
                     "given", "assumptions", "model", "params", "in_catalog"):
            assert getattr(got, name) == getattr(want, name), name
        assert got.fabric.intra is want.fabric.intra and got.fabric.in_node is want.fabric.in_node


@pytest.mark.parametrize("kw", REQUESTS, ids=[str(r) for r in REQUESTS])
def test_brief_walks_deploy_what_explained_walks_deploy(kw: dict[str, object]) -> None:
    """The alternatives walk brief facts (no evidence worded): the same deployments."""
    f = build_facts(SizingRequest(**kw), CAT)
    for gpu in ("h100-sxm", "l40s", "b200", "rtx-pro-6000-ws"):
        if gpu == f.gpu.id:
            continue
        clear_cache(physics=True)
        try:
            explained = final(f.other(gpu=gpu))
        except UnsizableRequest:  # refused the same way
            with pytest.raises(UnsizableRequest):
                f.other(gpu=gpu, brief=True)
            continue
        clear_cache(physics=True)
        brief = final(f.other(gpu=gpu, brief=True))
        assert brief[0].gpu.id == explained[0].gpu.id and brief[1] == explained[1]
        assert brief[2].numbers == explained[2].numbers
        assert (brief[2].verdict, brief[2].layout, brief[2].precision) == (
            explained[2].verdict, explained[2].layout, explained[2].precision)


@pytest.mark.parametrize("model", ["llama-3.1-70b", "mixtral-8x22b", "llama-3.1-8b"])
@pytest.mark.parametrize("workload", ["full-finetune", "lora", "pretrain"])
def test_training_searches_are_the_plain_loop(model: str, workload: str) -> None:
    """One :class:`Run` per search gives what memory_fit and project give layout by layout."""
    f = build_facts(SizingRequest(model=model, workload=workload), CAT)
    for nodes, gpn in ((1, 8), (2, 8), (4, 8), (2, 4)):
        want = []
        for tp, pp, dp, s in training_layouts(f.model, nodes, gpn):
            fit = memory_fit(f.model, f.state, f.gpu, f.policy, tp=tp, pp=pp, dp=dp,
                             strategy=s, activations=activations_per_gpu(f.model, f.policy, tp))
            if fit.fits:
                want.append(project(f.model, f.params, f.state, f.gpu, f.fabric, f.policy,
                                    f.mfu, nodes=nodes, gpus_per_node=gpn, tp=tp, pp=pp,
                                    dp=dp, strategy=s, fit=fit))
        best, got = best_training(f.model, f.params, f.state, f.gpu, f.fabric, f.policy,
                                  f.mfu, nodes=nodes, gpus_per_node=gpn)
        assert [vars_of(p) for p in got] == [vars_of(p) for p in want]
        def roomy(p: TrainingPlan) -> bool:  # the article's least free share of each GPU
            used = p.state_per_gpu + p.activations_per_gpu + p.reserve_per_gpu
            return 1.0 - used / p.memory_per_gpu >= f.policy.min_free_share

        assert best is (max(got, key=lambda p: (roomy(p), p.efficiency, -p.tp, -p.pp))
                        if got else None)
        run = Run(f.model, f.params, f.state, f.gpu, f.fabric, f.policy, f.mfu, gpn)
        for tp, pp, dp, s in training_layouts(f.model, nodes, gpn):
            fit = memory_fit(f.model, f.state, f.gpu, f.policy, tp=tp, pp=pp, dp=dp,
                             strategy=s)
            assert run.fits(tp, pp, dp, s) == fit.fits
            assert vars_of(run.project(nodes, tp, pp, dp, s, None)) == vars_of(project(
                f.model, f.params, f.state, f.gpu, f.fabric, f.policy, f.mfu, nodes=nodes,
                gpus_per_node=gpn, tp=tp, pp=pp, dp=dp, strategy=s))


def vars_of(p: object) -> tuple[object, ...]:
    return tuple(getattr(p, k) for k in p.__slots__)  # type: ignore[attr-defined]


#: Requests whose alternatives walk GPUs that cannot hold the weights (brief facts list no
#: layout there): asked next on such a GPU, the answer must be the one asked first.
AFTER_ALTERNATIVES = [
    dict(model="mixtral-8x7b", gpus_per_node=1, per_user_tokens_per_s=30.0, concurrency=64),
    dict(model="deepseek-v3", gpus_per_node=4, per_user_tokens_per_s=30.0, concurrency=64),
    dict(model="llama-3.1-405b", gpus_per_node=1, per_user_tokens_per_s=30.0),
]


@pytest.mark.parametrize("kw", AFTER_ALTERNATIVES, ids=[str(r) for r in AFTER_ALTERNATIVES])
def test_an_answer_does_not_depend_on_the_alternatives_asked_before(
        kw: dict[str, object]) -> None:
    """A search kept across requests is the same whoever made it: an alternative's brief
    walk (which lists no layout where the weights cannot fit) once left an empty search
    behind, and the next request on that GPU crashed explaining why nothing fits."""
    first = SizingRequest(**kw)
    for gpu in CAT.gpus:
        asked = first.model_copy(update={"gpu": gpu})
        clear_cache(physics=True)
        try:
            alone = recommend(asked)
        except UnsizableRequest:
            continue
        clear_cache(physics=True)
        recommend(first)  # its alternatives walk the other GPUs, briefly
        assert recommend(asked) == alone, gpu
