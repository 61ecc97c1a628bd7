"""A model outside the catalog by its Hugging Face id, its pasted config.json, or a file shared:
read, sized by the engine's code for catalog models, and every failure said with the other
two ways. The Hub is a fake one on localhost (``tests/dialogue/fakehub.py``): the real network
is never used."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from dialogue import Dialogue, MemoryStore
from dialogue.hub import HubClient, NoHub
from tests.dialogue.fakehub import FakeHub, Repo, running
from tests.dialogue.helpers import notice_ids

FIXTURES = Path(__file__).parent / "fixtures"
KIMI = (FIXTURES / "kimi-k2-instruct.config.json").read_text()
#: A repo the catalog does not hold, serving Kimi K2's config (a fine-tune keeps its base's):
#: Kimi K2 itself is a catalog model now, taken by name before any fetch.
KIMI_REPO = "acme/Kimi-K2-Instruct-helpdesk"
LLAMA = (FIXTURES / "llama-3.1-8b-finetune.config.json").read_text()


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    fake = FakeHub(repos={
        KIMI_REPO: Repo({"config.json": KIMI.encode()}),
        "meta-llama/Llama-4-Gated": Repo({"config.json": LLAMA.encode()}, gated=True,
                                         token="hf_granted"),
        "acme/weights-only": Repo({}),
    })
    with running(fake) as h:
        yield h


def _dialogue(hub: FakeHub, **kw: object) -> Dialogue:
    return Dialogue(MemoryStore(), hub=HubClient(endpoint=hub.url, timeout_s=5, **kw))  # type: ignore[arg-type]


def test_a_hub_id_is_fetched_and_sized_by_the_same_code_as_the_catalog(hub: FakeHub) -> None:
    d = _dialogue(hub)
    r = d.start("k", f"serve {KIMI_REPO} to 50 users, 8k context over IB 400")
    assert r.sources["hf_config"] == "said" and "model" not in r.request
    assert r.request["hf_config"]["n_routed_experts"] == 384
    assert {"dialogue.notice.fetched", "dialogue.notice.config_moe"} <= set(notice_ids(r))
    moe = next(n.text for n in r.notices if n.text.id == "dialogue.notice.config_moe")
    assert 1.0e12 < moe.params["total"] < 1.1e12  # type: ignore[operator]
    assert 3.0e10 < moe.params["active"] < 3.5e10  # type: ignore[operator]
    assert r.kind == "result" and r.recommendation is not None
    # the weights of a 1T MoE, not of a 1T dense model sized from a count
    assert r.recommendation.numbers.weights_gb is not None
    assert r.recommendation.numbers.weights_gb < 1300
    assert [m for m, path, _ in hub.requests] == ["GET"]
    assert hub.requests[0][1] == f"/{KIMI_REPO}/resolve/main/config.json"


def test_a_hub_id_the_catalog_holds_is_the_catalog_model_and_nothing_is_fetched(
    hub: FakeHub
) -> None:
    r = _dialogue(hub).start("k", "serve moonshotai/Kimi-K2-Instruct to 50 users, 8k context")
    assert r.request["model"] == "kimi-k2" and "hf_config" not in r.request
    assert hub.requests == []


def test_a_gated_model_says_so_keeps_the_rest_and_a_pasted_config_answers(
    hub: FakeHub
) -> None:
    d = _dialogue(hub)
    r = d.start("k", "meta-llama/Llama-4-Gated inference 16 users 8k context")
    assert r.asking == "model" and r.error is not None
    assert r.error.id == "dialogue.error.hub_gated"
    assert r.request["concurrency"] == 16 and r.request["context"] == 8192  # kept
    r = d.handle("k", LLAMA)  # the other way: the config.json pasted
    assert r.request["hf_config"]["num_hidden_layers"] == 32
    assert r.sources["hf_config"] == "said" and r.kind == "result"
    assert "dialogue.notice.config_dense" in notice_ids(r)


def test_the_token_of_the_settings_opens_a_gated_model(hub: FakeHub) -> None:
    d = _dialogue(hub, token="hf_granted")
    r = d.start("k", "meta-llama/Llama-4-Gated")
    assert r.asking == "workload" and r.request["hf_config"]["hidden_size"] == 4096
    assert hub.requests[-1][2] == "Bearer hf_granted"


@pytest.mark.parametrize(("repo", "message"), [
    ("acme/weights-only", "dialogue.error.hub_no_config"),
    ("acme/does-not-exist", "dialogue.error.hub_missing"),
])
def test_a_refusal_at_the_model_question_changes_nothing(hub: FakeHub, repo: str,
                                                         message: str) -> None:
    d = _dialogue(hub)
    before = d.start("k", "")
    r = d.handle("k", repo)
    assert r.kind == "error" and r.error is not None and r.error.id == message
    assert r.asking == "model" and r.version == before.version  # nothing moved, nothing lost


def test_offline_no_request_is_made_and_the_other_ways_are_said(hub: FakeHub) -> None:
    d = _dialogue(hub, offline=True)
    r = d.start("k", f"{KIMI_REPO} 50 users")
    assert r.error is not None and r.error.id == "dialogue.error.hub_offline"
    assert hub.requests == [] and r.request["concurrency"] == 50
    r = Dialogue(MemoryStore(), hub=NoHub()).start("k", KIMI_REPO)
    assert r.error is not None and r.error.id == "dialogue.error.hub_offline"


def test_a_hub_that_fails_is_one_bounded_try(hub: FakeHub) -> None:
    hub.down = True
    r = _dialogue(hub).start("k", KIMI_REPO)
    assert r.error is not None and r.error.id == "dialogue.error.hub_unreachable"
    assert len(hub.requests) == 1  # no retries with backoff while a person waits


def test_a_file_shared_later_is_the_model_and_a_bad_one_is_refused_by_name() -> None:
    d = Dialogue(MemoryStore())
    d.start("k", "llama 3.1 70b inference 64 users")
    r = d.attach("k", "```json\n" + KIMI + "\n```", name="config.json")
    assert r.request["hf_config"]["kv_lora_rank"] == 512 and "model" not in r.request
    assert r.asking == "context"  # the other answers stand
    before = d.load("k")
    r = d.attach("k", '{"model_type": "llama", "hidden_size": 4096', name="config.json")
    assert r.error is not None and r.error.id == "dialogue.error.config_json"
    r = d.attach("k", json.dumps({"model_type": "llama", "hidden_size": 4096}))
    assert r.error is not None and r.error.id == "dialogue.error.config_engine"
    after = d.load("k")
    assert before is not None and after is not None and after.answers == before.answers


def test_a_pasted_config_opens_a_sizing() -> None:
    r = Dialogue(MemoryStore()).start("k", LLAMA)
    assert r.asking == "workload" and r.request["hf_config"]["vocab_size"] == 128256
    assert r.answers[0].slot == "model" and r.answers[0].source == "said"
