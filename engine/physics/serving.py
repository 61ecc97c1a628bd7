"""What a customer asks of a serving layout: time to first token, time per output token,
per-user and node tokens/s, requests per second, under in-flight batching.

The model is aiconfigurator's "agg" scheduling (docs/calibration.md, "How aiconfigurator
turns steps into TTFT and TPOT"), for one copy of the model serving ``batch`` requests of
``isl`` prompt and ``osl`` answer tokens, with its ``ctx_tokens``: a step carries ``k``
whole prompts, as many as the serving stack's budget of tokens per step holds
(``prefill_token_budget``, TensorRT-LLM's ``max_num_tokens``), at least one; a prompt longer
than the budget is chunked (:func:`prefill_plan`): each step carries a budget's worth of it
beside the decodes, and it spans ``c = isl / budget`` steps (``c = 1`` unchunked):

* ``N_mix = ceil(batch x c / k)`` mixed steps carry ``k`` prompts (or chunks) plus a decode
  token for each of the ``batch - k`` others; the rest of the answer, ``N_gen = osl - 1 + c
  - N_mix`` steps, is decode only;
* TPOT = ``(N'_mix t_mix + N_gen t_gen) / (N'_mix + N_gen)`` with ``N'_mix = max(1, N_mix -
  drain)`` (the pipeline drain at the prefill/decode boundary);
* TTFT = ``c`` x the step a prompt is in (the prefill step of ``k`` prompts; a mixed step
  when chunked, its chunks ride with the decodes) x ``1 + (q - 1) / k`` with
  aiconfigurator's queueing factor ``q = min(base + (batch - 3) x slope, max)``: a request
  waits for the prompts ahead of it, ``k`` to a step;
* throughput = ``batch (osl - 1) / (N_mix t_mix + N_gen t_gen)``; requests/s = throughput /
  (osl - 1); per-user tokens/s = 1 / TPOT.

Why several prompts per step: a stack under load fills each step up to its token budget,
and one prompt per step (aiconfigurator's default, ``ctx_tokens = isl``) caps a copy at
``osl`` answers' tokens per prefill step: short prompts come out several times too slow
against measured runs (docs/calibration.md, "End to end"). Why chunks: a long prompt whole
holds every decode of its micro-batch for its whole prefill; stacks split it over steps
(TensorRT-LLM's ``enable_chunked_context``, vLLM's chunked prefill, always on in vLLM V1:
docs/calibration.md, "Chunked prefill"). Chunking spreads a prompt's work, it does not
remove it: a load whose prompts outweigh its answers stays bound by its prefill. A budget
of 0 is aiconfigurator's one whole prompt per step.

The constants (drain, queueing) are aiconfigurator 0.12.0's TensorRT-LLM backend's, in
engine/data/policy.toml with their source. When every request's prompt fits one step
(``batch <= k``, one request alone) the prompts run together (over ``c`` steps), then every
step is decode.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from engine.catalog.schema import Policy
from engine.physics.step import StepModel

__all__ = ["Ceiling", "Serving", "ceiling", "in_flight", "prefill_plan", "serve"]


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


def serve(step: StepModel, policy: Policy, batch: int, isl: float, osl: float,
          cached: float = 0.0) -> Serving:
    """The serving figures of one copy running ``batch`` requests of ``isl`` + ``osl``
    (``isl`` the prompt tokens prefilled; ``cached`` more already in the prefix cache from
    earlier turns of the same conversation: read by every decode step, never prefilled)
    (kept on the step model: the same load on the same layout is the same answer)."""
    key = (float(batch), isl, osl, cached, id(policy))
    hit = step.served.get(key)
    if hit is None:
        hit = _serve(step, policy, batch, isl, osl, cached)
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


def prefill_plan(policy: Policy, b: int, isl: float, pp: int = 1) -> tuple[int, float]:
    """(prompts a step carries, steps each prompt's prefill spans) for a copy serving ``b``
    requests of ``isl`` prompt tokens.

    A prompt that fits the token budget (``prefill_token_budget``) runs whole: a step
    carries as many as the budget holds, at least one, at most ``b``; a pipeline of ``pp``
    stages schedules each of its micro-batches on its own budget, so a step (every
    micro-batch once through the stages) carries up to ``pp`` times as many. A longer
    prompt is chunked (TensorRT-LLM's chunked context, vLLM's chunked prefill): each
    micro-batch carries a budget's worth of one prompt beside its decodes, so the prompt
    spans ``isl / budget`` steps. A budget of 0 is one whole prompt per step, never
    chunked (aiconfigurator's scheduling)."""
    budget = policy.prefill_token_budget
    slots = max(1, min(pp, b))
    if budget > 0 and isl > budget:
        return slots, isl / budget
    per_batch = max(1, int(budget // max(isl, 1.0)))
    return max(1, min(b, per_batch * slots)), 1.0


def _steps(policy: Policy, b: int, k: int, chunks: float,
           osl: float) -> tuple[float, float, float]:
    """(N_mix, N_gen, N'_mix) of one answer of ``osl`` tokens on a copy serving ``b``
    requests, ``k`` prompts (or chunks) per step, each prompt spanning ``chunks`` steps.

    A request spends ``chunks`` steps in its prefill and ``osl - 1`` decoding, so a cycle
    is ``chunks + osl - 1`` steps (``osl`` unchunked), ``N_mix`` of which carry prompts."""
    if b <= k:  # every prompt in the first steps, then decode only
        return chunks, osl - 1.0, 0.0
    n_mix = float(math.ceil(b * chunks / k - 1e-9))
    total = osl - 1.0 + chunks
    if n_mix >= total:  # every step of the answer also carries prompts
        return n_mix, 0.0, n_mix
    return n_mix, total - n_mix, max(1.0, n_mix - policy.tpot_drain_steps)


def _with_host(policy: Policy, gpu_s: float, seqs: int, step: StepModel) -> float:
    """A step's time with the serving runtime's own work for its ``seqs`` sequences
    (scheduling, sampling, preparing each sequence's inputs: ``step_us_per_sequence``), and
    on a pipeline of ``pp`` stages the scheduling of each extra micro-batch
    (``pipeline_us_per_sequence`` x ``seqs`` x ``(pp - 1)``).

    Why added to the kernels' time rather than hidden behind it: the runtime's overlap of
    host and GPU is partial, and measured end-to-end runs show the cost in full; it is
    what caps a small model's copy at a few tens of thousands of tokens/s whatever the
    GPU (Llama 3.1 8B gives the same 28k tok/s on H100 and H200 at 128/128 in TensorRT-LLM's
    published runs), and it is fitted to those runs (engine/data/policy.toml). Why a
    pipeline pays more: its executor runs one loop iteration per micro-batch, each
    scheduling over every request of the copy and relaying the sampled tokens from rank to
    rank on the host, without the overlap of host and GPU a single-stage copy has
    (TensorRT-LLM's PyExecutor pipeline loop; docs/calibration.md, "Deep pipelines"): a
    step of ``pp`` micro-batches pays it ``pp`` times where a single stage pays it once.
    Under attention data parallelism each of the group's ``ranks`` GPUs runs its own
    scheduler over its own requests, side by side: the step waits for the busiest, a
    ``ranks``-th of the sequences (TensorRT-LLM's executor per attention-DP rank)."""
    per_seq = policy.step_us_per_sequence + policy.pipeline_us_per_sequence * (step.pp - 1)
    return gpu_s + per_seq * 1e-6 * math.ceil(seqs / step.ranks)


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
            ttft: bool = True, cached: float = 0.0) -> Ceiling:
    """What :func:`serve` can at most give, from the decode step and a lower bound on the
    mixed step (:meth:`StepModel.mixed_floor`: its GEMMs, prefill attention and all-reduces).

    Why: a search weighs many layouts and most lose. The rest of a mixed step (decode
    attention, element-wise ops, the head) only adds time, so the cycle, the time per
    output token and the first token are no shorter than with the floor in place of the
    mixed step, and a layout whose ceiling is below the best found needs no more timing
    (engine/physics/search.py). The margin covers rounding, nothing else. With
    ``ttft=False`` the first-token floor is not worked out.
    """
    b = in_flight(policy, batch)
    osl = max(2.0, osl)
    k, c = prefill_plan(policy, b, isl, step.pp * step.ranks)
    n_mix, n_gen, n_tpot = _steps(policy, b, k, c, osl)
    t_gen = _with_host(policy, step.decode(float(b), cached + isl + osl / 2.0), b, step)
    t_mix = _with_host(policy, step.mixed_floor(isl, float(b - k), float(k), c), b, step)
    cycle = n_mix * t_mix + n_gen * t_gen
    tpot = (n_tpot * t_mix + n_gen * t_gen) / (n_tpot + n_gen)
    gen_first = float(b - k) if c > 1.0 and b > k else 0.0
    first = c * step.mixed_floor(isl, gen_first, float(k), c) * _queue(policy, b, k) \
        / _MARGIN if ttft else None
    return Ceiling(b * (osl - 1.0) / cycle * _MARGIN, _MARGIN / tpot, first)


def in_flight(policy: Policy, batch: int) -> int:
    """Requests a copy serving ``batch`` runs at once: all of them, up to the runtime's cap
    (``max_requests_per_copy``: its decoder buffers and per-micro-batch batch size are sized
    for that many); the rest wait for a slot."""
    cap = policy.max_requests_per_copy
    return max(1, min(batch, cap) if cap else batch)


def _serve(step: StepModel, policy: Policy, batch: int, isl: float, osl: float,
           cached: float) -> Serving:
    b = in_flight(policy, batch)
    osl = max(2.0, osl)
    # the average sequence length over an answer: the cached history, the prompt prefilled,
    # half the answer (the new tokens' attention to the cached history in their prefill is
    # left out: a turn of ~70 tokens over an 8k history is ~2 % of a decode step's reads)
    kv_len = cached + isl + osl / 2.0
    k, c = prefill_plan(policy, b, isl, step.pp * step.ranks)
    t_gen = _with_host(policy, step.decode(float(b), kv_len), b, step)
    t_ctx = _with_host(policy, step.prefill(isl, float(k), c), k, step)
    n_mix, n_gen, n_tpot = _steps(policy, b, k, c, osl)
    t_mix = t_ctx if b <= k else \
        _with_host(policy, step.mixed(isl, float(b - k), kv_len, float(k), c), b, step)
    tpot = (n_tpot * t_mix + n_gen * t_gen) / (n_tpot + n_gen)
    # a first token waits for its prompt's steps: one prefill step whole, or ``c`` steps
    # chunked, which carry the decodes of the others (the point of chunking)
    t_first = t_mix if c > 1.0 and b > k else t_ctx
    queue = c * _queue(policy, b, k)
    cycle = n_mix * t_mix + n_gen * t_gen
    tps = b * (osl - 1.0) / cycle
    if not math.isfinite(tps):
        raise ArithmeticError("serving throughput is not finite")
    # past the cap a request first waits for a slot: a whole answer's cycle, for the share
    # of the requests that do not fit (none below the cap)
    waiting = (batch - b) / batch * cycle if batch > b else 0.0
    return Serving(batch=b, ttft_s=t_first * queue + waiting, tpot_s=tpot, decode_step_s=t_gen,
                   mix_step_s=t_mix, prefill_s=t_ctx, tokens_per_s=tps,
                   requests_per_s=tps / (osl - 1.0))
