"""A model's Hugging Face ``config.json``, pasted as text (or arriving as a Slack file or snippet,
or fetched from the Hub): read, reduced, and checked by the engine.

Why here: the config is the one description of a model outside the catalog that holds its
real architecture (layers, widths, heads, experts, MLA ranks), so the engine sizes it with
the same code as a catalog model (``engine/physics/hfconfig.py``; which fields it reads is
the engine's, not repeated here). A conversation is stored as small JSON, so what no
architecture needs is dropped by its shape, not by a list of names: tokenizer and label
tables, vision and audio towers, long lists; the language model's own fields stay (and a
multimodal config's ``text_config``). The engine then reads the result once, here, so a
config it cannot size is refused at the question, with the engine's own words.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from dialogue.errors import ParseError
from engine.errors import EngineError
from engine.physics.hfconfig import spec_from_hf_config
from engine.physics.params import count_params
from engine.wording import Message, msg

MAX_CONFIG_CHARS = 100_000  # a config.json is 1-6 KB; a pasted file is refused past this
#: Parts of a config no language model's size depends on (towers, tokenizers, labels).
_DROP = re.compile(r"^(?:vision_config|audio_config|speech_config|vision_tower|mm_.*|id2label"
                   r"|label2id|auto_map|task_specific_params|.*_token_id|.*_token|tokenizer.*"
                   r"|transformers_version|chat_template|processor.*|image_.*|video_.*"
                   r"|torch_dtype|dtype|use_cache|initializer_range|rms_norm_eps|.*dropout.*)$")
_KEEP_NESTED = frozenset({"text_config", "quantization_config", "rope_scaling"})
_MAX_LIST = 512
_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$")


def looks_like(text: str) -> bool:
    """Whether a message is a pasted JSON object (a config), not words: it opens with '{'
    (after an optional ```json fence) and names a config field."""
    t = _FENCE.sub("", text.strip())
    return t.startswith("{") and ("hidden_size" in t or "num_hidden_layers" in t
                                  or "model_type" in t or "architectures" in t)


def read(text: str) -> dict[str, Any]:
    """The config.json a text holds, reduced (see the module doc); ParseError saying what
    is wrong, in the engine's words when the engine cannot size it."""
    if len(text) > MAX_CONFIG_CHARS:
        raise ParseError(msg("dialogue.error.config_long", n=MAX_CONFIG_CHARS))
    try:
        raw = json.loads(_FENCE.sub("", text.strip()))
    except (ValueError, RecursionError):
        raise ParseError(msg("dialogue.error.config_json")) from None
    if not isinstance(raw, dict):
        raise ParseError(msg("dialogue.error.config_json"))
    cfg = reduce(raw)
    check(cfg)
    return cfg


def reduce(raw: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if not isinstance(key, str) or _DROP.match(key):
            continue
        if isinstance(value, dict):
            if key in _KEEP_NESTED and depth < 2:
                out[key] = reduce(value, depth + 1)
        elif isinstance(value, list):
            if len(value) <= _MAX_LIST and all(isinstance(v, str | int | float | bool)
                                               for v in value):
                out[key] = value
        elif isinstance(value, str):
            out[key] = value[:200]
        elif isinstance(value, int | float | bool) or value is None:
            out[key] = value
    return out


@dataclass(frozen=True)
class Summary:
    """What the engine reads in a config: the model's name, its counts (billions)."""

    name: str
    total_b: float
    active_b: float
    moe: bool


def check(cfg: dict[str, Any], name: str | None = None) -> Summary:
    """The engine's reading of the config (the same code that will size it)."""
    try:
        spec, _ = spec_from_hf_config(cfg, name)
        counted = count_params(spec)
    except EngineError as exc:
        raise ParseError(msg("dialogue.error.config_engine", why=exc.message)) from None
    except (ValueError, TypeError, ArithmeticError, KeyError):
        raise ParseError(msg("dialogue.error.config_json")) from None
    return Summary(spec.name, counted.total / 1e9, counted.active / 1e9, spec.is_moe)


def understood(cfg: dict[str, Any], name: str) -> Message:
    """'Read from its config.json: 1.03T parameters, 32.9B active per token (MoE).'"""
    s = check(cfg, name)
    if s.moe:
        return msg("dialogue.notice.config_moe", name=name, total=s.total_b * 1e9,
                   active=s.active_b * 1e9)
    return msg("dialogue.notice.config_dense", name=name, total=s.total_b * 1e9)


def dumps(config: dict[str, Any]) -> str:
    """The stored form: compact JSON, keys sorted (the same config is the same answer)."""
    return json.dumps(config, sort_keys=True, separators=(",", ":"))


def loads(stored: str) -> dict[str, Any]:
    value = json.loads(stored)
    return value if isinstance(value, dict) else {}


def label(config: dict[str, Any], repo: str | None = None) -> str:
    """How the model is named back: its Hub id, else its name in the file, else its type."""
    if repo:
        return repo
    name = str(config.get("_name_or_path") or "").strip()
    if name and len(name) <= 80 and "/" in name:
        return name
    text = config.get("text_config")
    kind = config.get("model_type") or (text.get("model_type") if isinstance(text, dict)
                                        else None)
    arch = config.get("architectures") or ["config.json"]
    return str(kind or arch[0])
