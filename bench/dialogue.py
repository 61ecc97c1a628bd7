"""Measure the dialogue: the cost of one turn, of reading one message, Redis round trips
per turn, stored bytes.

    .venv/bin/python bench/dialogue.py          (REDIS_URL to use a running Redis; else a
                                                  throwaway redis-server is started if present)

Goals: a turn under 200 us without I/O and the engine; reading any single message under
5 ms of CPU (issue #10: a 499-character answer cost 352 ms, an ambiguous name ~20 ms); at
most two Redis round trips per turn; under 4 KB per stored conversation. Reading is measured
as CPU time (``time.process_time``) of a message never read before in a warmed process
(the catalog index built once): every line of the acceptance corpus
(tests/dialogue/corpus/utterances.jsonl), named worst cases, and adversarial 499-character
soups of model words. Prints numbers; passes or fails nothing.
"""

from __future__ import annotations

import gc
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis

from dialogue import Dialogue, MemoryStore, RedisStore, understand
from dialogue.flow import request, sizing_request
from dialogue.store import Write
from dialogue.understand.opening import extract
from dialogue.understand.tidy import tidy
from engine import recommend
from engine.catalog import catalog
from engine.catalog.names import lookup
from engine.decision import clear_cache
from tests.redisproc import counting_connection

N = 400


def _median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def turn_cost(opening: str, text: str, n: int = N) -> tuple[float, str]:
    """Median seconds of ``handle(text)`` on a conversation freshly put at ``opening``'s state."""
    store = MemoryStore()
    d = Dialogue(store)
    d.start("seed", opening)
    seed = store.read("seed")
    assert seed is not None
    version = d.load("seed").version  # type: ignore[union-attr]
    for i in range(n):  # one copy per run, so every timed turn starts from the same state
        store.write(f"k{i}", Write(doc=seed.doc, version=version, expected=None,
                                   ttl_seconds=3600))
    samples = []
    state = ""
    for i in range(n):
        t0 = time.perf_counter()
        r = d.handle(f"k{i}", text)
        samples.append(time.perf_counter() - t0)
        state = r.state
    return _median_us(samples), state


def engine_cost(answers: dict[str, Any], n: int = 50) -> float:
    """The engine's first answer to this request (its memo cleared before every run)."""
    # the request the dialogue sends: INT4 allowed while it probes whether to ask about it
    req = sizing_request(request(answers, {})[0],
                         allow_int4=answers.get("workload") == "inference")
    samples = []
    for _ in range(n):
        clear_cache()
        t0 = time.perf_counter()
        recommend(req)
        samples.append(time.perf_counter() - t0)
    return _median_us(samples)


def without_engine(opening: str, text: str, n: int) -> float:
    """The same turn with the engine's answer precomputed (a dict lookup in its place)."""
    from dialogue import flow

    cache: dict[Any, Any] = {}

    def cached(req: Any) -> Any:
        if req not in cache:
            cache[req] = recommend(req)
        return cache[req]

    real = flow.recommend
    flow.recommend = cached
    try:
        turn_cost(opening, text, 5)  # fill the cache
        return turn_cost(opening, text, n)[0]
    finally:
        flow.recommend = real


def reading_cost(text: str, n: int = 30) -> tuple[float, float]:
    """CPU microseconds to read one message as an opening (the costliest reading: every
    recogniser and the catalog search for a model): (median, max) over ``n`` variants of it
    never read before (a number appended), so no memo of an earlier reading helps."""
    samples = []
    for i in range(n):
        said = f"{text[:490]} z{i}"
        t0 = time.process_time()
        read(said)
        samples.append(time.process_time() - t0)
    return _median_us(samples), max(samples) * 1e6


CORPUS = Path(__file__).resolve().parents[1] / "tests" / "dialogue" / "corpus"


def read(said: str) -> None:
    """What a message costs to understand: made plain (Slack's markup, the lexicon), then
    read as an opening."""
    extract(tidy(said))

_SOUP = ["llama", "qwen", "mistral", "gemma", "deepseek", "70b", "8b", "3.1", "2.5", "large",
         "moe", "x", "foo", "gpt", "oss", "405b", "users", "64", "8k", "int4", "no", "h100",
         "lora", "employees", "tok/s", "per", "user", "documents", "by", "friday", "sorry",
         "not", "?"]


#: Slack's markup, spelled numbers, glued counts and typos, in pieces to mix
_SLACK = ["*Model:*", "*Users:*", "`meta-llama/Llama-3.1-8B`", "<@U0123ABCD>", "<#C01|sales>",
          "<https://huggingface.co/x/y|label>", ":pray:", "~64 users~", "two", "hundred", "and",
          "fifty", "quatre-vingt", "-dix", "cent", "pour", "100users", "4kctx", "70", "b",
          "infrence", "fine", "tunning", "usrs", "for just me", "reglage fin complet",
          "tokens a second", "\n", "&gt;", "*", "_", "```"]


def _cpu_us(texts: list[str]) -> list[float]:
    out = []
    for said in texts:
        t0 = time.process_time()
        read(said)
        out.append((time.process_time() - t0) * 1e6)
    return sorted(out)


def _summary(samples: list[float]) -> str:
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    return (f"median {statistics.median(samples):7.0f} us, p99 {p99:7.0f} us, "
            f"max {samples[-1]:7.0f} us")


def reading_numbers() -> None:
    print("\nReading one message as an opening, CPU time, warm process, never read before:")
    for label, said in (
        ("a full English opening", "llama 3.1 70b inference 64 users 32k context no target"),
        ("a French opening", "nous voulons faire tourner Llama 3.1 70B pour 50 utilisateurs"),
        ("an ambiguous model ('llama 70b')", "llama 70b inference 64 users"),
        ("the customer's terms", "process 10M documents of 2k tokens by Friday on our 4x "
                                 "L40S, 30 tok/s per user, sorry 20 tok/s"),
        ("499 characters of prose", ("we are a mid-size company and we would like to know "
                                     "what hardware we need ") * 6 + "llama 3.1 70b"),
        ("499 characters of names", "70b 405b 8b mistral large 3 GLM-4.5 kimi k2 yi 34b " * 10),
        ("499 characters of numbers", "1 2 3 4 5 6 7 8 9 10 " * 30),
    ):
        med, top = reading_cost(said[:499])
        print(f"  {label:38} median {med:7.0f} us, max {top:7.0f} us ({len(said[:499])} chars)")
    lines = [line for path in sorted(CORPUS.glob("*.jsonl"))
             for raw in path.read_text(encoding="utf-8").splitlines() if raw.strip()
             for line in json.loads(raw)["say"] if line]
    print(f"  every corpus line ({len(lines):4} lines)         {_summary(_cpu_us(lines))}")
    rng = random.Random(10)
    soups = [" ".join(rng.choice(_SOUP) + ("" if rng.random() < 0.8 else str(i))
                      for _ in range(90))[:499] for i in range(300)]
    print(f"  adversarial soups of names (300)      {_summary(_cpu_us(soups))}")
    slack = [" ".join(rng.choice(_SLACK) + ("" if rng.random() < 0.7 else str(i))
                      for _ in range(60))[:499] for i in range(300)]
    print(f"  adversarial soups of Slack text (300) {_summary(_cpu_us(slack))}")
    models = catalog().models
    samples = []
    for i in range(200):  # each name new: what the issue measured at ~20 ms
        t0 = time.process_time()
        lookup(f"llama {i % 90 + 1}b chat v{i}", models, "model")
        samples.append((time.process_time() - t0) * 1e6)
    print(f"  a new ambiguous name, catalog look-up {_summary(sorted(samples))}")


CountingConnection = counting_connection()


def redis_numbers(url: str) -> None:
    pool = redis.ConnectionPool.from_url(url, connection_class=CountingConnection)
    client = redis.Redis(connection_pool=pool)
    prefix = f"bench{os.getpid()}"
    d = Dialogue(RedisStore(client, prefix=prefix))
    key = "T1:C1:1700000000.000100:U1"
    d.start(key, "", owner="U1", delivery_id="warm", meta={"channel": "C1"})
    d.update_meta(key, {"ts": "1700000000.000200"})
    script = ["llama 3.1 70b", "inference", "64", "help", "8k", "no target", "change context",
              "32k", "no", "ib-200", "en français", "changer le contexte à 8k"]
    print("\nRedis round trips per turn (delivery id dedupe pipelined with the read):")
    trips: list[int] = []
    latency: list[float] = []
    for i, text in enumerate(script):
        CountingConnection.sent = 0
        t0 = time.perf_counter()
        r = d.handle(key, text, delivery_id=f"ev{i}")
        latency.append(time.perf_counter() - t0)
        trips.append(CountingConnection.sent)
        print(f"  {text!r:18} -> {r.state:20} {CountingConnection.sent} round trip(s)")
    print(f"  max {max(trips)}, mean {statistics.mean(trips):.2f}; "
          f"median wall time per turn with Redis {_median_us(latency):.0f} us (localhost)")
    conv_key = f"{prefix}:conv:{key}"
    fields = client.hgetall(conv_key)
    payload = sum(len(k) + len(v) for k, v in fields.items())
    usage = client.memory_usage(conv_key)
    doc = fields[b"doc"]
    print(f"\nStored conversation (finished, with history and meta): doc {len(doc)} B, "
          f"hash payload {payload} B, Redis MEMORY USAGE {usage} B (goal < 4096)")
    client.delete(conv_key, f"{prefix}:audit", f"{prefix}:recent:U1",
                  *[f"{prefix}:delivery:ev{i}" for i in range(len(script))],
                  f"{prefix}:delivery:warm")


def _with_redis(fn: Callable[[str], None]) -> None:
    url = os.environ.get("REDIS_URL")
    if url:
        fn(url)
        return
    try:
        from tests.redisproc import RedisProcess

        proc = RedisProcess()
    except RuntimeError as exc:
        print(f"\n(no Redis: {exc}; set REDIS_URL to measure round trips)")
        return
    proc.start()
    try:
        fn(proc.url)
    finally:
        proc.cleanup()


def main() -> None:
    print(f"One turn without I/O (MemoryStore), median of {N}:")
    rows = [
        ("answer, next question (no engine)", "llama 3.1 70b inference", "64", None),
        ("invalid answer, re-asked", "llama 3.1 70b inference", "3O", None),
        ("help", "llama 3.1 70b inference", "help", None),
        ("back", "llama 3.1 70b inference 64 users", "back", None),
        ("answer -> result (engine included)",
         "llama 3.1 405b inference 48 users 16k context no target", "no",
         {"model": "llama-3.1-405b", "workload": "inference", "concurrency": 48,
          "context": 16384, "target_tokens_per_s": None, "int4": False}),
        ("answer -> result, pretrain (engine)", "llama 3.1 70b pretrain 1.5T tokens",
         "30 days", {"model": "llama-3.1-70b", "workload": "pretrain", "train_tokens": 1.5e12,
                     "deadline_days": 30.0}),
        ("French answer, next question", "inférence llama 3.1 70b", "64 utilisateurs", None),
        ("Enter: the shown default", "llama 3.1 70b lora", "", None),
        ("a candidate clicked: confirmed", "llama 70b inference 64 users", "llama-3.1-70b",
         None),
        ("a question: help, nothing moves", "llama 3.1 70b inference 64 users",
         "what is context?", None),
        ("a correction, the last value", "llama 3.1 70b inference", "64, sorry 128 users",
         None),
    ]
    for label, opening, text, answers in rows:
        n = N if answers is None else 60
        us, state = turn_cost(opening, text, n)
        line = f"  {label:38} {us:9.0f} us  (-> {state})"
        if answers is not None:
            e = engine_cost(answers)
            alone = without_engine(opening, text, N)
            line += (f"; the engine's first answer {e:.0f} us (later turns reuse it); "
                     f"the turn without the engine {alone:.0f} us")
        print(line)
    understand.warm()  # the catalog indexes, built once per process (the service does it)
    gc.collect()
    gc.freeze()  # as the worker's warm-up does last (bot/ops/warmup.py): no collection walks
    reading_numbers()  # what start-up loaded, so a reading pays only for its own objects
    _with_redis(redis_numbers)


if __name__ == "__main__":
    main()
