"""What a customer asks of a serving layout: time to first token, time per output token,
per-user and node tokens/s, requests per second, under in-flight batching.

The model is aiconfigurator's "agg" scheduling (docs/calibration.md, "How aiconfigurator
turns steps into TTFT and TPOT"), for one copy of the model serving ``batch`` requests of
``isl`` prompt and ``osl`` answer tokens, with its ``ctx_tokens``: a step carries ``k``
whole prompts, as many as the serving stack's budget of tokens per step holds
(``prefill_token_budget``, TensorRT-LLM's ``max_num_tokens``), at least one:

* ``N_mix = ceil(batch / k)`` mixed steps carry ``k`` prompts plus a decode token for each
  of the ``batch - k`` others; the rest of the answer, ``N_gen = osl - N_mix`` steps, is
  decode only;
* TPOT = ``(N'_mix t_mix + N_gen t_gen) / (N'_mix + N_gen)`` with ``N'_mix = max(1, N_mix -
  drain)`` (the pipeline drain at the prefill/decode boundary);
* TTFT = the prefill step of ``k`` prompts x ``1 + (q - 1) / k`` with aiconfigurator's
  queueing factor ``q = min(base + (batch - 3) x slope, max)``: a request waits for the
  prompts ahead of it, ``k`` to a step;
* throughput = ``batch (osl - 1) / (N_mix t_mix + N_gen t_gen)``; requests/s = throughput /
  (osl - 1); per-user tokens/s = 1 / TPOT.

Why several prompts per step: a stack under load fills each step up to its token budget,
and one prompt per step (aiconfigurator's default, ``ctx_tokens = isl``) caps a copy at
``osl`` answers' tokens per prefill step: short prompts come out several times too slow
against measured runs (docs/calibration.md, "End to end"). A prompt longer than the
budget still takes one step (TensorRT-LLM without chunked prefill), so long prompts are
priced as before; a budget of 0 is aiconfigurator's one prompt per step.

The constants (drain, queueing) are aiconfigurator 0.12.0's TensorRT-LLM backend's, in
engine/data/policy.toml with their source. When every request's prompt fits one step
(``batch <= k``, one request alone) the prompts run together, then every step is decode.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from engine.catalog.schema import Policy
from engine.physics.step import StepModel

__all__ = ["Ceiling", "Serving", "ceiling", "prompts_per_step", "serve"]


@dataclass(slots=True, eq=False)
class Serving:
    """One copy of the model under load: the figures a customer reads."""

    batch: int
    ttft_s: float
    tpot_s: float
    decode_step_s: float
    mix_step_s: float
    prefill_s: float
    tokens_per_s: float  # output tokens/s of this copy
    requests_per_s: float

    @property
    def per_user_tokens_per_s(self) -> float:
        return 1.0 / self.tpot_s


def serve(step: StepModel, policy: Policy, batch: int, isl: float, osl: float) -> Serving:
    """The serving figures of one copy running ``batch`` requests of ``isl`` + ``osl``
    (kept on the step model: the same load on the same layout is the same answer)."""
    key = (batch, isl, osl, id(policy))
    hit = step.served.get(key)
    if hit is None:
        hit = _serve(step, policy, batch, isl, osl)
        if len(step.served) < 4096:
            step.served[key] = hit
    return hit


#: Relative margin on a ceiling: it is compared with figures computed in another order, and
#: must stay above them by more than their rounding.
_MARGIN = 1.0 + 1e-9


class Ceiling(NamedTuple):
    """Bounds on one copy's figures without timing its mixed steps in full: at most
    ``tokens_per_s`` output tokens/s and ``per_user_tokens_per_s`` per user, a first token
    in no less than ``ttft_s`` (None when not worked out). A named tuple: a search makes
    one per layout it weighs."""

    tokens_per_s: float
    per_user_tokens_per_s: float
    ttft_s: float | None


def prompts_per_step(policy: Policy, b: int, isl: float, pp: int = 1) -> int:
    """Whole prompts of ``isl`` tokens a step carries for a copy serving ``b`` requests: as
    many as the token budget holds, at least one, at most ``b``; a pipeline of ``pp``
    stages schedules each of its micro-batches on its own budget, so a step (every
    micro-batch once through the stages) carries up to ``pp`` times as many."""
    per_batch = max(1, int(policy.prefill_token_budget // max(isl, 1.0)))
    return max(1, min(b, per_batch * max(1, min(pp, b))))


def _steps(policy: Policy, b: int, k: int, osl: float) -> tuple[float, float, float]:
    """(N_mix, N_gen, N'_mix) of one answer of ``osl`` tokens on a copy serving ``b``
    requests, ``k`` prompts per step."""
    if b <= k:  # every prompt in one step, then decode only
        return 1.0, osl - 1.0, 0.0
    n_mix = float(math.ceil(b / k))
    if n_mix >= osl:  # every step of the answer also carries prompts
        return n_mix, 0.0, n_mix
    return n_mix, osl - n_mix, max(1.0, n_mix - policy.tpot_drain_steps)


def _with_host(policy: Policy, gpu_s: float, seqs: int) -> float:
    """A step's time with the serving runtime's own work for its ``seqs`` sequences
    (scheduling, sampling, preparing each sequence's inputs: ``step_us_per_sequence``).

    Why added to the kernels' time rather than hidden behind it: the runtime's overlap of
    host and GPU is partial, and measured end-to-end runs show the cost in full; it is
    what caps a small model's copy at a few tens of thousands of tokens/s whatever the
    GPU (Llama 3.1 8B gives the same 28k tok/s on H100 and H200 at 128/128 in TensorRT-LLM's
    published runs), and it is fitted to those runs (engine/data/policy.toml)."""
    return gpu_s + policy.step_us_per_sequence * 1e-6 * seqs


def _queue(policy: Policy, b: int, k: int) -> float:
    """TTFT over the prefill step a prompt is in (``k`` prompts), for a copy serving ``b``.

    aiconfigurator's factor counts the prompts a request waits behind, one prefill each:
    ``q = min(base + (b - 3) x slope, max)``, never more than the mean wait of ``b``
    requests arriving together and prefilled one at a time, ``(b + 1) / 2`` (a lone request
    waits behind no one: the factor's own premise). With ``k`` prompts to a step, the
    request's own step holds ``k`` of them, and the ``q - 1`` prompts ahead of it go ``k``
    to a step: ``1 + (q - 1) / k`` steps (``q`` with one prompt a step, as before; one
    step when every prompt fits the first)."""
    if b <= k:
        return 1.0
    q = min(policy.ttft_queue_base + (b - 3.0) * policy.ttft_queue_slope,
            policy.ttft_queue_max, (b + 1.0) / 2.0)
    return 1.0 + (q - 1.0) / k


def ceiling(step: StepModel, policy: Policy, batch: int, isl: float, osl: float, *,
            ttft: bool = True) -> Ceiling:
    """What :func:`serve` can at most give, from the decode step and a lower bound on the
    mixed step (:meth:`StepModel.mixed_floor`: its GEMMs, prefill attention and all-reduces).

    Why: a search weighs many layouts and most lose. The rest of a mixed step (decode
    attention, element-wise ops, the head) only adds time, so the cycle, the time per
    output token and the first token are no shorter than with the floor in place of the
    mixed step, and a layout whose ceiling is below the best found needs no more timing
    (engine/physics/search.py). The margin covers rounding, nothing else. With
    ``ttft=False`` the first-token floor is not worked out.
    """
    b = max(1, batch)
    osl = max(2.0, osl)
    k = prompts_per_step(policy, b, isl, step.pp)
    n_mix, n_gen, n_tpot = _steps(policy, b, k, osl)
    t_gen = _with_host(policy, step.decode(float(b), isl + osl / 2.0), b)
    t_mix = _with_host(policy, step.mixed_floor(isl, float(b - k), float(k)), b)
    cycle = n_mix * t_mix + n_gen * t_gen
    tpot = (n_tpot * t_mix + n_gen * t_gen) / (n_tpot + n_gen)
    first = step.mixed_floor(isl, 0.0, float(k)) * _queue(policy, b, k) / _MARGIN \
        if ttft else None
    return Ceiling(b * (osl - 1.0) / cycle * _MARGIN, _MARGIN / tpot, first)


def _serve(step: StepModel, policy: Policy, batch: int, isl: float, osl: float) -> Serving:
    b = max(1, batch)
    osl = max(2.0, osl)
    kv_len = isl + osl / 2.0  # the average sequence length over an answer
    k = prompts_per_step(policy, b, isl, step.pp)
    t_gen = _with_host(policy, step.decode(float(b), kv_len), b)
    t_ctx = _with_host(policy, step.prefill(isl, float(k)), k)
    n_mix, n_gen, n_tpot = _steps(policy, b, k, osl)
    t_mix = t_ctx if b <= k else \
        _with_host(policy, step.mixed(isl, float(b - k), kv_len, float(k)), b)
    tpot = (n_tpot * t_mix + n_gen * t_gen) / (n_tpot + n_gen)
    queue = _queue(policy, b, k)
    cycle = n_mix * t_mix + n_gen * t_gen
    tps = b * (osl - 1.0) / cycle
    if not math.isfinite(tps):
        raise ArithmeticError("serving throughput is not finite")
    return Serving(batch=b, ttft_s=t_ctx * queue, tpot_s=tpot, decode_step_s=t_gen,
                   mix_step_s=t_mix, prefill_s=t_ctx, tokens_per_s=tps,
                   requests_per_s=tps / (osl - 1.0))
