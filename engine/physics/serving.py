"""What a customer asks of a serving layout: time to first token, time per output token,
per-user and node tokens/s, requests per second, under in-flight batching.

The model is aiconfigurator's "agg" scheduling (docs/calibration.md, "How aiconfigurator
turns steps into TTFT and TPOT"), for one copy of the model serving ``batch`` requests of
``isl`` prompt and ``osl`` answer tokens, a whole prompt per prefill step:

* ``N_mix = batch`` mixed steps carry one prompt plus a decode token for each of the
  ``batch - 1`` others; the rest of the answer, ``N_gen = osl - N_mix`` steps, is decode only;
* TPOT = ``(N'_mix t_mix + N_gen t_gen) / (N'_mix + N_gen)`` with ``N'_mix = max(1, N_mix -
  drain)`` (the pipeline drain at the prefill/decode boundary);
* TTFT = the prefill of one prompt x a queueing factor ``min(base + (N_mix - 3) x slope,
  max)``: a request waits for the prompts ahead of it;
* throughput = ``batch (osl - 1) / (N_mix t_mix + N_gen t_gen)``; requests/s = throughput /
  (osl - 1); per-user tokens/s = 1 / TPOT.

The constants (drain, queueing) are aiconfigurator 0.12.0's TensorRT-LLM backend's, in
engine/data/policy.toml with their source. With one request (``batch`` = 1) its prompt runs
alone, then every step is decode.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.catalog.schema import Policy
from engine.physics.step import StepModel

__all__ = ["Serving", "serve"]


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


def _serve(step: StepModel, policy: Policy, batch: int, isl: float, osl: float) -> Serving:
    b = max(1, batch)
    osl = max(2.0, osl)
    kv_len = isl + osl / 2.0  # the average sequence length over an answer
    t_gen = step.decode(float(b), kv_len)
    t_ctx = step.prefill(isl)
    if b == 1:
        n_mix, n_tpot, t_mix = 1.0, 0.0, t_ctx
        n_gen = osl - 1.0
    else:
        t_mix = step.mixed(isl, float(b - 1), kv_len)
        n_mix = float(b)
        if n_mix >= osl:  # every step of the answer also carries a prompt
            n_gen, n_tpot = 0.0, n_mix
        else:
            n_gen = osl - n_mix
            n_tpot = max(1.0, n_mix - policy.tpot_drain_steps)
    tpot = (n_tpot * t_mix + n_gen * t_gen) / (n_tpot + n_gen)
    queue = min(policy.ttft_queue_base + (n_mix - 3.0) * policy.ttft_queue_slope,
                policy.ttft_queue_max)
    cycle = n_mix * t_mix + n_gen * t_gen
    tps = b * (osl - 1.0) / cycle
    if not math.isfinite(tps):
        raise ArithmeticError("serving throughput is not finite")
    return Serving(batch=b, ttft_s=t_ctx * queue, tpot_s=tpot, decode_step_s=t_gen,
                   mix_step_s=t_mix, prefill_s=t_ctx, tokens_per_s=tps,
                   requests_per_s=tps / (osl - 1.0))
