"""The decision: a sizing request in, a :class:`engine.result.Recommendation` out.

``recommend`` builds the request's facts once (engine/decision/facts.py), walks the tree
(engine/decision/tree.py), checks the research-lab trap (trap.py) and, when asked, compares
other GPUs and INT4 (alternatives.py). Over the packaged catalog the answer is memoized: the
engine is a pure function of a frozen request, and a conversation asks the same question
again on every turn.
"""

from __future__ import annotations

from functools import lru_cache

from engine import memo
from engine.catalog.calibration import calibration
from engine.catalog.load import catalog
from engine.catalog.schema import Catalog
from engine.decision.alternatives import alternatives as other_options
from engine.decision.facts import build_facts
from engine.decision.models import max_context
from engine.decision.owned import owned, owned_headline
from engine.decision.picture import inference_picture
from engine.decision.standing import decided
from engine.physics.inference import clear_steps
from engine.physics.kernels import kernels
from engine.request import SizingRequest
from engine.result import KVPrecision, Precision, Recommendation

__all__ = ["clear_cache", "max_context", "recommend", "warm"]


def recommend(
    req: SizingRequest, cat: Catalog | None = None, *, alternatives: bool = True
) -> Recommendation:
    """Run the five questions for one request and return the verdict with its evidence.

    Raises :class:`engine.errors.UnknownModel` / ``UnknownEntry`` for names the catalog does
    not hold and :class:`engine.errors.UnsizableRequest` for a request the engine cannot size
    (a context beyond the model's limit, an in-node link between nodes); all three are
    :class:`engine.errors.EngineError`. ``alternatives=False`` skips the other GPUs and INT4
    (the runner-up layout is always there).
    """
    if cat is None:
        return _recommend_packaged(req, frozenset(req.model_fields_set), alternatives)
    return _recommend(req, cat, alternatives)


@lru_cache(maxsize=1024)
def _recommend_packaged(
    req: SizingRequest, given: frozenset[str], alternatives: bool
) -> Recommendation:
    """Answers over the packaged catalog, memoized. ``given`` (the fields the person set) is
    part of the key: a default context is capped at the model's limit, the same number given
    explicitly is an error."""
    return _recommend(req, catalog(), alternatives)


def _recommend(req: SizingRequest, cat: Catalog, alternatives: bool) -> Recommendation:
    asked = build_facts(req, cat)
    facts, rec = decided(asked)
    if alternatives:
        rec = rec.model_copy(update={"alternatives": other_options(facts.as_asked(asked), rec)})
    mine = owned(asked)
    if mine is not None:
        rec = rec.model_copy(update={"owned": mine, "headline": owned_headline(mine, rec)})
    return rec


def warm(cat: Catalog | None = None) -> None:
    """Build every GPU's kernel curves and every link's collective curves now (a process
    otherwise builds each on first use: tens of milliseconds spread over the first answers
    that touch a GPU). For a server's start-up and for benchmarks of the steady state."""
    cat = cat or catalog()
    cal = calibration()
    for gpu in cat.gpus.values():
        k = kernels(gpu, cat.gpus[gpu.calibration], cal, cat.policy)
        precisions: tuple[Precision, ...] = ("bf16", "fp8", "int4", "nvfp4", "mxfp4")
        for prec in precisions:
            k.gemm(prec)
            k.moe(prec)
        k.lm_head()
        kvs: tuple[KVPrecision, ...] = ("bf16", "fp8")
        for kv in kvs:
            k.attention(kv, kv)
        build_facts(SizingRequest(params_b=1.0, gpu=gpu.id), cat)  # its link's curves


def clear_cache(*, physics: bool = False) -> None:
    """Forget the memoized answers (benchmarks measure the computed path with it); with
    ``physics``, also the plan searches, step models, step times and memory pictures kept
    across requests (engine/memo.py, engine/physics/inference.py,
    engine/decision/picture.py: the cold path, where only the loaded catalog and calibration
    remain)."""
    _recommend_packaged.cache_clear()
    if physics:
        clear_steps()
        memo.clear()
        inference_picture.cache_clear()
