"""Kernel times on one GPU: GEMMs, decode and prefill attention, MoE layers, element-wise ops.

Each time is a formula over measured curves (docs/calibration.md, "The tables and what the
engine should do with them"), from engine/data/calibration.toml:

* GEMM, decode: ``t = n_gemms x fixed(m) + weight_bytes / (stream_share(m) x BW)``, with the
  compute floor ``flops / (prefill_mfu(m, size) x peak)``: the larger wins (m = tokens in
  the step). Prefill GEMMs are the compute floor.
* decode attention: the measured latency of one layer by units (batch x KV heads of 128
  dims) and KV length (past the units measured, read at the same bytes);
* prefill attention: causal FLOPs / (mfu(prompt, q heads per GPU) x peak);
* MoE: ``max(fixed + touched expert bytes / (bw_share x BW), flops / (mfu(width, tokens per
  expert) x peak))``;
* element-wise ops (norms, activations): aiconfigurator's own memory-op rule, a fixed
  latency plus bytes at a share of the bandwidth (engine/data/policy.toml).

A GPU without measurements takes the curves of the measured part its catalog entry names
(``calibration`` in engine/data/gpus.toml) under one rule: shares and efficiencies apply to
its own datasheet bandwidth and peak, fixed latencies are kept, and the part of a measured
attention latency above its floor scales with the bandwidth ratio. A dtype the part did not
measure takes its BF16 curve (weight-only INT4 streams its bytes the way BF16 weights do).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.catalog.calibration import Calibration, GemmRow
from engine.catalog.schema import GPUSpec, Policy
from engine.physics.curves import Curve, Grid
from engine.result import KVPrecision, Precision

__all__ = ["Attention", "Gemm", "Kernels", "MoE", "compute_dtype", "kernel_dtype", "kernels"]

US = 1e-6


def kernel_dtype(gpu: GPUSpec, precision: Precision) -> str:
    """The measured GEMM family a weight format runs on this GPU.

    FP8 without FP8 tensor cores (A100) runs weight-only W8A16 (``int8_wo``); INT4 and NF4
    run weight-only W4A16 (``int4_wo``); MXFP4 takes the FP4 tensor-core kernels where the GPU
    has them (Blackwell), W4A16 elsewhere (Hopper, Ampere, Ada).
    """
    if precision in ("bf16", "fp16"):
        return "bf16"
    if precision == "fp8":
        return "fp8" if gpu.fp8_tflops else "int8_wo"
    if precision == "nvfp4":
        return "nvfp4"
    if precision == "mxfp4" and gpu.fp4_tflops:
        return "nvfp4"
    return "int4_wo"


def compute_dtype(gpu: GPUSpec, precision: Precision) -> str:
    """The tensor-core rate the multiplications run at: BF16 for weight-only formats, FP8 for
    FP8 and MXFP4 (MXFP4 weights with MXFP8 activations on Blackwell), FP4 for NVFP4."""
    kd = kernel_dtype(gpu, precision)
    if kd == "fp8" or (precision == "mxfp4" and kd == "nvfp4"):
        return "fp8"
    if kd == "nvfp4":
        return "fp4"
    return "bf16"


def peak_flops(gpu: GPUSpec, rate: str) -> float:
    """Dense tensor FLOP/s at a rate ('bf16', 'fp8', 'fp4'), falling back to the next lower."""
    tflops = {"fp4": gpu.fp4_tflops or gpu.fp8_tflops or gpu.bf16_tflops,
              "fp8": gpu.fp8_tflops or gpu.bf16_tflops, "bf16": gpu.bf16_tflops}[rate]
    return tflops * 1e12


@dataclass(frozen=True)
class Gemm:
    """Dense GEMMs of one dtype on one GPU."""

    fixed: Curve  # seconds per GEMM kernel, by tokens
    stream: Curve  # achieved weight-streaming bytes/s, by tokens
    mfu: Grid  # share of peak by (tokens, square size)
    peak: float  # FLOP/s of the rate the dtype computes at
    source: str

    def time(self, m: float, weight_bytes: float, n_gemms: float, flops: float,
             size: float) -> float:
        """Seconds for ``n_gemms`` GEMMs over ``m`` tokens reading ``weight_bytes``."""
        memory = n_gemms * self.fixed(m) + weight_bytes / self.stream(m)
        compute = flops / (self.mfu(max(m, 1.0), size) * self.peak)
        return max(memory, compute)


@dataclass(frozen=True)
class Attention:
    """Decode attention (one layer) and prefill attention efficiency on one GPU."""

    decode: Grid  # seconds by (units, kv_len), this GPU's bandwidth
    floor: Curve  # seconds by units at kv_len 1
    bw_scale: float  # measured part's bandwidth / this GPU's (1.0 when measured)
    prefill_mfu: Grid  # share of peak by (q heads per GPU, prompt tokens)
    peak: float
    source: str
    units_max: float = 128.0  # the most units measured

    def decode_time(self, units: float, kv_len: float) -> float:
        """One layer's decode attention over ``units`` x ``kv_len`` cached tokens.

        Past the most units measured, the kernel is read at the same bytes, as fewer units
        over a longer cache: it splits both across the GPU's SMs (flash-decoding), so its
        efficiency follows the bytes it reads, not how they are cut. Extending in units at
        the last row's efficiency instead would keep a large batch of short sequences at
        the bandwidth of 128 short ones (a third of the DRAM's on H200)."""
        if units > self.units_max:
            kv_len, units = kv_len * units / self.units_max, self.units_max
        t = self.decode(max(units, 1.0), max(kv_len, 1.0))
        if self.bw_scale == 1.0:
            return t
        f = self.floor(max(units, 1.0))
        return f + max(0.0, t - f) * self.bw_scale

    def prefill_time(self, flops: float, heads: float, isl: float) -> float:
        return flops / (self.prefill_mfu(max(heads, 1.0), max(isl, 1.0)) * self.peak)


@dataclass(frozen=True)
class MoE:
    """A grouped-GEMM MoE layer on one GPU."""

    fixed: float  # seconds
    bandwidth: float  # bytes/s achieved streaming touched experts
    mfu: Grid  # share of peak by (expert width, tokens per expert)
    peak: float
    source: str

    def time(self, touched_bytes: float, flops: float, width: float, tpe: float) -> float:
        memory = self.fixed + touched_bytes / self.bandwidth
        compute = flops / (self.mfu(width, max(tpe, 1e-3)) * self.peak)
        return max(memory, compute)


#: (dense GEMMs, output head, attention, routed experts or None) of one step model.
StepKernels = tuple[Gemm, Gemm, Attention, MoE | None]


class Kernels:
    """Every kernel family on one GPU; ``part`` is the measured part its curves come from.

    Built once per GPU (:func:`kernels`); each family's curves are built on first use and
    kept, since an answer asks for the same few thousands of times."""

    def __init__(self, gpu: GPUSpec, part: GPUSpec, calibration: Calibration,
                 policy: Policy) -> None:
        if part.id not in calibration.measured_gpus:
            raise ValueError(f"{part.id} has no measurements in calibration.toml")
        self.gpu = gpu
        self.part = part
        self.calibration = calibration
        self.policy = policy
        self._gemms: dict[tuple[str, str], Gemm] = {}
        self._attn: dict[tuple[str, str], Attention] = {}
        self._moes: dict[tuple[str, str], MoE] = {}
        self._steps: dict[tuple[str, str, str, bool], StepKernels] = {}
        self._ew_fixed = policy.elementwise_latency_us * US
        self._ew_bw = gpu.mem_bw_gbs * 1e9 * policy.elementwise_bw_share
        #: (ops per layer, seconds per op, bytes/s): :meth:`elementwise`, for a step model
        self.elementwise_rule = (policy.elementwise_ops_per_layer, self._ew_fixed, self._ew_bw)

    @property
    def measured(self) -> bool:
        """Whether the curves are this GPU's own (else the named part's, scaled)."""
        return self.part.id == self.gpu.id

    def gemm(self, precision: Precision) -> Gemm:
        return self._gemm(kernel_dtype(self.gpu, precision), compute_dtype(self.gpu, precision))

    def lm_head(self) -> Gemm:
        """The output projection stays BF16 whatever the weights' format."""
        return self._gemm("bf16", "bf16")

    def _gemm(self, kd: str, rate: str) -> Gemm:
        key = (kd, rate)
        if key not in self._gemms:
            cal, part = self.calibration, self.part.id
            row: GemmRow = cal.gemm.get((part, kd)) or cal.gemm[(part, "bf16")]
            bw = self.gpu.mem_bw_gbs * 1e9
            self._gemms[key] = Gemm(
                fixed=Curve(row.tokens, [t * US for t in row.fixed_us], log_y=True),
                stream=Curve(row.tokens, [s * bw for s in row.stream_share]),
                mfu=Grid(row.prefill_tokens, row.square_nk, row.prefill_mfu),
                peak=peak_flops(self.gpu, rate), source=row.source,
            )
        return self._gemms[key]

    def attention(self, kv_precision: KVPrecision, activations: str = "bf16") -> Attention:
        key = (kv_precision, activations)
        if key not in self._attn:
            self._attn[key] = self._attention(kv_precision, activations)
        return self._attn[key]

    def _attention(self, kv: str, activations: str) -> Attention:
        cal, part = self.calibration, self.part.id
        row = cal.decode_attention.get((part, kv))
        scale = 1.0
        if row is None:  # e.g. FP8 KV on A100: the BF16 kernel reading half the bytes
            row = cal.decode_attention[(part, "bf16")]
            scale = 0.5 if kv == "fp8" else 1.0
        grid = Grid(row.units, row.kv_len, [[t * US for t in r] for r in row.latency_us],
                    log_z=True, extend_x=1.0, extend_y=1.0)
        floor = Curve(row.units, [r[0] * US for r in row.latency_us], log_y=True)
        pre = cal.prefill_attention.get((part, activations)) or \
            cal.prefill_attention[(part, "bf16")]
        rate = "fp8" if pre.dtype == "fp8" else "bf16"
        return Attention(decode=grid, floor=floor,
                         bw_scale=scale * self.part.mem_bw_gbs / self.gpu.mem_bw_gbs,
                         prefill_mfu=Grid(pre.heads, pre.isl, pre.mfu),
                         peak=peak_flops(self.gpu, rate), source=row.source,
                         units_max=float(row.units[-1]))

    def moe(self, precision: Precision) -> MoE:
        key = (kernel_dtype(self.gpu, precision), compute_dtype(self.gpu, precision))
        if key not in self._moes:
            cal, kd = self.calibration, key[0]
            row = cal.moe.get((self.part.id, kd)) or cal.moe.get((self.part.id, "bf16"))
            if row is None:  # a part without MoE measurements: the first measured in kd
                row = next(r for (_, d), r in sorted(cal.moe.items()) if d in (kd, "bf16"))
            bw = self.gpu.mem_bw_gbs * 1e9
            self._moes[key] = MoE(
                fixed=row.fixed_us * US, bandwidth=row.bw_share * bw,
                mfu=Grid(row.widths, row.tokens_per_expert,
                         [[max(x, 1e-4) for x in r] for r in row.mfu]),
                peak=peak_flops(self.gpu, key[1]), source=row.source)
        return self._moes[key]

    def for_step(self, precision: Precision, expert_precision: Precision,
                 kv_precision: KVPrecision, moe: bool) -> StepKernels:
        """(dense GEMMs, output head, attention, routed experts or None) of one step model:
        what engine/physics/step.py asks for each layout, looked up once per formats."""
        key = (precision, expert_precision, kv_precision, moe)
        hit = self._steps.get(key)
        if hit is None:
            hit = self._steps[key] = (self.gemm(precision), self.lm_head(),
                                      self.attention(kv_precision, kv_precision),
                                      self.moe(expert_precision) if moe else None)
        return hit

    def elementwise(self, nbytes: float) -> float:
        """Seconds for one element-wise op over ``nbytes`` (read + write)."""
        return self._ew_fixed + nbytes / self._ew_bw


_KERNELS: dict[tuple[str, str, int], Kernels] = {}


def kernels(gpu: GPUSpec, part: GPUSpec, cal: Calibration, policy: Policy) -> Kernels:
    """The kernels of ``gpu`` calibrated on the measured ``part`` (``gpu`` itself when it
    was measured), built once per process for a catalog."""
    key = (gpu.id, part.id, id(cal))
    k = _KERNELS.get(key)
    if k is None or k.gpu is not gpu or k.policy is not policy:
        k = _KERNELS[key] = Kernels(gpu, part, cal, policy)
    return k
