"""KV cache per sequence: this engine against the formulas public calculators use.

Prints, for a few architectures at 32k tokens of context (BF16 cache), what each formula
gives and how far it is from the engine's (which follows vLLM's own allocation: GQA heads,
MLA latents, sliding-window layers). Run: ``.venv/bin/python bench/accuracy.py``.

- gpu_poor: ``2 * L * hidden * 2 B`` per token (ignores GQA, MLA, windows)
- llm-analysis / accelerate-style GQA: ``2 * L * kv_heads * head_dim * 2 B`` (no MLA, no windows;
  for MLA models the config's ``num_key_value_heads`` is used, as those tools do)
- hf-mem (experimental KV): GQA with sliding windows, no MLA branch

The formulas are transcribed in docs/engine-notes.md#other-calculators.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this folder comes first on sys.path and bench/engine.py would shadow the
# package it measures: put the repository root first.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.catalog import catalog
from engine.physics.memory import cached_layer_tokens, kv_cache_bytes
from engine.units import GB

CONTEXT = 32768
MODELS = ["llama-3.1-70b", "deepseek-v3", "gemma-3-27b", "gemma-2-27b", "gpt-oss-120b",
          "qwen3-235b-a22b", "llama-4-scout"]


def main() -> None:
    cat = catalog()
    print(f"KV cache for one sequence of {CONTEXT:,} tokens, BF16, GB (error vs this engine)")
    print(f"{'model':<18} {'engine':>8} {'gpu_poor':>16} {'GQA only':>16} {'hf-mem':>16}")
    for mid in MODELS:
        m = cat.model(mid)
        ours = kv_cache_bytes(m, "bf16", CONTEXT, 1)
        naive = 2 * m.layers * m.hidden * 2 * CONTEXT
        gqa = 2 * m.layers * m.kv_heads * m.head_dim * 2 * CONTEXT
        hfmem = 2 * m.kv_heads * m.head_dim * 2 * cached_layer_tokens(m, CONTEXT)

        def cell(x: float, ours: float = ours) -> str:
            return f"{x / GB:7.2f} ({(x - ours) / ours:+5.0%})"

        print(f"{mid:<18} {ours / GB:8.2f} {cell(naive):>16} {cell(gqa):>16} {cell(hfmem):>16}")


if __name__ == "__main__":
    main()
