"""Which model a request sizes: a catalog entry, or one described by size, architecture or
``config.json``, all to the same :class:`engine.catalog.ModelSpec`.

Four ways in, one way through (engine/request.py): a catalog name; ``params_b`` (a synthetic
dense model, engine/physics/params.py) or ``params_b`` + ``active_params_b`` (a synthetic
MoE); ``arch`` (a ModelSpec built by the caller); ``hf_config`` (engine/physics/hfconfig.py).
Whatever the way, the spec is counted by engine/physics/params.py and sized by the same
physics; what was assumed to build it comes back as messages for the answer. Also here: the
weight format a request is sized in (the asked one, or a model's native 4-bit checkpoint).
"""

from __future__ import annotations

from engine.catalog.schema import Catalog, ModelSpec
from engine.errors import UnsizableRequest
from engine.physics.hfconfig import spec_from_hf_config
from engine.physics.params import (
    ParamCount,
    count_params,
    dense_spec_from_params,
    moe_spec_from_params,
)
from engine.request import SizingRequest
from engine.result import Precision
from engine.wording import Message, msg

__all__ = ["ResolvedModel", "max_context", "resolve_model", "sized_precision"]

#: A resolved model: its spec, its parameter count, whether the catalog holds it, and what
#: sizing it assumed (a synthetic architecture, a config.json read).
ResolvedModel = tuple[ModelSpec, ParamCount, bool, tuple[Message, ...]]


def resolve_model(request: SizingRequest, cat: Catalog) -> ResolvedModel:
    """The model ``request`` names or describes; raises UnknownModel / UnsizableRequest."""
    if request.model is not None:
        spec = cat.model(request.model)
        return spec, count_params(spec), True, ()
    notes: list[Message]
    if request.arch is not None:
        spec, notes = request.arch, [msg("assumption.arch", name=request.arch.name)]
    elif request.hf_config is not None:
        cfg = request.hf_config_dict
        assert cfg is not None
        spec, notes = spec_from_hf_config(cfg)
    elif request.params_b is not None and request.active_params_b is not None:
        spec, notes = moe_spec_from_params(request.params_b, request.active_params_b,
                                           cat.policy.synthetic_max_context)
    elif request.params_b is not None:
        spec, notes = dense_spec_from_params(request.params_b, cat.policy.synthetic_max_context)
    else:
        raise UnsizableRequest(msg("error.no_model"))
    return spec, count_params(spec), False, tuple(notes)


def max_context(model: str | None, params_b: float | None, cat: Catalog | None = None,
                *, arch: ModelSpec | None = None, hf_config: str | dict[str, object] | None =
                None) -> int:
    """The longest context the engine sizes for this model: the one limit every layer uses.

    A catalog model takes its published window, a described one its own (``arch``,
    ``hf_config``); a model known only by its parameter count takes the policy's
    ``synthetic_max_context``. Raises ``UnknownModel`` for a name the catalog does not hold.
    """
    from engine.catalog.load import catalog as packaged

    cat = cat or packaged()
    if model is not None:
        return cat.model(model).max_context
    if arch is not None:
        return arch.max_context
    if hf_config is not None:
        req = SizingRequest.model_validate({"hf_config": hf_config})
        return resolve_model(req, cat)[0].max_context
    if params_b is None:
        raise UnsizableRequest(msg("error.no_model"))
    return cat.policy.synthetic_max_context


def sized_precision(request: SizingRequest, spec: ModelSpec, given: frozenset[str]
                    ) -> Precision:
    """The weight format step 1 sizes: the person's when they chose one; else the model's
    native checkpoint format when it is a 4-bit one (gpt-oss ships MXFP4: pricing it as FP8
    would make it 1.8x too large); else the request's default (FP8)."""
    if "precision" in given:
        return request.precision
    if spec.native_precision in ("mxfp4", "nvfp4", "int4"):
        return spec.native_precision
    return request.precision
