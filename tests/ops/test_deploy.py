"""The deploy kit, checked with the tools an operator's cluster and CI would use.

* Kubernetes: the real kustomize output (``kubectl kustomize`` or ``kustomize build``) is
  validated with ``kubernetes-validate`` (strict: unknown fields refused) at every Kubernetes
  version from 1.27 to 1.37, and the Prometheus Operator kinds against their published schemas
  (``tests/ops/schemas/``); then what matters to an operator: the HPA owns the replica count,
  a changed setting rolls the pods, drains are not blocked, only ``/slack/events`` is exposed.
* Alerts and dashboard: ``tests/ops/test_monitoring.py``.
* Image: ``hadolint``; base pinned by digest; dependencies from the hashed lock before the source.
* Compose: the Compose Specification's schema; Redis durable. Secrets: placeholders only.

Tools missing on a developer's machine skip their test; in CI (``CI`` set) they fail it.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from bot.ops import asgi, serve
from bot.ops.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY, K8S, SCHEMAS = ROOT / "deploy", ROOT / "deploy" / "k8s", Path(__file__).parent / "schemas"
OPS_DOC = ROOT / "docs" / "operations.md"
APP, NS, JOB = "gpu-sizing-bot", "gpu-sizing-bot", 'job="gpu-sizing-bot"'
K8S_VERSIONS = [f"1.{minor}" for minor in range(27, 38)]
CRD_SCHEMAS = {"ServiceMonitor": "servicemonitor_v1.json",
               "PrometheusRule": "prometheusrule_v1.json"}
SECRET_SHAPES = [re.compile(r"xox[a-z]-[0-9A-Za-z]"), re.compile(r"xapp-[0-9]"),
                 re.compile(r"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])")]  # signing-secret shape


def _tool(*names: str) -> str:
    bins = [Path(sys.executable).parent, ROOT / ".venv" / "bin"]  # .ci/run puts tools there
    path = os.pathsep.join([*map(str, bins), os.environ.get("PATH", "")])
    for name in names:
        if found := shutil.which(name, path=path):
            return found
    if os.environ.get("CI"):
        pytest.fail(f"{' or '.join(names)} must be installed in CI (see .ci/run)")
    pytest.skip(f"{' or '.join(names)} not installed")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)


def _render(directory: Path) -> list[dict[str, Any]]:
    tool = _tool("kubectl", "kustomize")
    cmd = [tool, "kustomize" if tool.endswith("kubectl") else "build", str(directory)]
    out = _run(*cmd)
    assert out.returncode == 0, out.stderr
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def _key(doc: dict[str, Any]) -> str:
    """Kind, except the two ConfigMaps: the settings ("ConfigMap") and the "Dashboard"."""
    if doc["kind"] == "ConfigMap" and doc["metadata"]["name"].endswith("-dashboard"):
        return "Dashboard"
    return str(doc["kind"])


@pytest.fixture(scope="module")
def k8s() -> dict[str, dict[str, Any]]:
    docs = _render(K8S)
    by_key = {_key(d): d for d in docs}
    assert len(by_key) == len(docs), [(d["kind"], d["metadata"]["name"]) for d in docs]
    return by_key


def _container(k8s: dict[str, dict[str, Any]]) -> dict[str, Any]:
    (container,) = k8s["Deployment"]["spec"]["template"]["spec"]["containers"]
    return dict(container)


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def _documented_metrics() -> set[str]:
    return set(re.findall(r"`(gpubot_[a-z_]+)`", OPS_DOC.read_text()))


def _metrics_in(expr: str) -> set[str]:
    names = set(re.findall(r"\b(gpubot_[a-z_]+)", expr))
    return {re.sub(r"_(bucket|sum|count)$", "", n) for n in names}


# -- Kubernetes: valid for the API server, then what an operator relies on ---------------------

def test_kustomize_output_is_valid_at_every_kubernetes_version(
        k8s: dict[str, dict[str, Any]]) -> None:
    kinds = {d["kind"] for d in k8s.values()}
    assert kinds == {"Namespace", "ConfigMap", "Deployment", "Service", "PodDisruptionBudget",
                     "HorizontalPodAutoscaler", "NetworkPolicy", "Ingress", "ServiceMonitor",
                     "PrometheusRule"}
    for doc in k8s.values():
        if doc["kind"] in CRD_SCHEMAS:
            schema = json.loads((SCHEMAS / "monitoring.coreos.com" / CRD_SCHEMAS[doc["kind"]])
                                .read_text())
            jsonschema.Draft7Validator(schema).validate(doc)
            continue
        for version in K8S_VERSIONS:
            kubernetes_validate.validate(doc, version, strict=True)
    broken = json.loads(json.dumps(k8s["PodDisruptionBudget"]))
    broken["spec"]["unhealthyPodEvictonPolicy"] = "AlwaysAllow"  # a typo: strict refuses it
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, K8S_VERSIONS[-1], strict=True)


def test_everything_lives_in_the_bot_namespace_under_the_restricted_profile(
        k8s: dict[str, dict[str, Any]]) -> None:
    ns = k8s["Namespace"]
    assert ns["metadata"]["name"] == NS
    assert ns["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    for doc in k8s.values():
        if doc["kind"] != "Namespace":
            assert doc["metadata"]["namespace"] == NS, doc["kind"]


def test_the_hpa_owns_the_replica_count_and_drains_are_never_blocked(
        k8s: dict[str, dict[str, Any]]) -> None:
    dep, hpa, pdb = k8s["Deployment"], k8s["HorizontalPodAutoscaler"], k8s["PodDisruptionBudget"]
    assert "replicas" not in dep["spec"], "an apply would reset the HPA's replica count"
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment",
                                             "name": dep["metadata"]["name"]}
    floor, ceiling = hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]
    assert 2 <= floor < ceiling
    assert pdb["spec"]["minAvailable"] < floor
    assert pdb["spec"]["unhealthyPodEvictionPolicy"] == "AlwaysAllow"
    labels = dep["spec"]["template"]["metadata"]["labels"]
    for selector in (dep["spec"]["selector"]["matchLabels"], pdb["spec"]["selector"]["matchLabels"],
                     k8s["Service"]["spec"]["selector"],
                     k8s["NetworkPolicy"]["spec"]["podSelector"]["matchLabels"]):
        assert selector.items() <= labels.items()
    resources = _container(k8s)["resources"]
    assert all(resources[k]["cpu"] and resources[k]["memory"] for k in ("requests", "limits"))


def test_a_changed_setting_rolls_the_pods(k8s: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    config = k8s["ConfigMap"]
    refs = [e["configMapRef"]["name"] for e in _container(k8s)["envFrom"] if "configMapRef" in e]
    assert refs == [config["metadata"]["name"]] and refs[0] != "gpu-sizing-bot-config"
    assert set(config["data"]) <= {name.upper() for name in Settings.model_fields}
    assert not any(k.startswith("SLACK_") or k == "REDIS_URL" for k in config["data"])

    copy = tmp_path / "k8s"
    shutil.copytree(K8S, copy)
    env = copy / "settings.env"
    env.write_text(env.read_text().replace("LOG_LEVEL=INFO", "LOG_LEVEL=WARNING"))
    edited = {d["kind"]: d for d in _render(copy) if d["kind"] == "Deployment"}["Deployment"]
    (new_ref,) = [e["configMapRef"]["name"] for e in
                  edited["spec"]["template"]["spec"]["containers"][0]["envFrom"]
                  if "configMapRef" in e]
    assert new_ref != refs[0], "a new setting must change the pod template"


def test_network_policy_lets_in_only_the_ingress_and_prometheus_and_out_only_what_runs(
        k8s: dict[str, dict[str, Any]]) -> None:
    spec = k8s["NetworkPolicy"]["spec"]
    assert set(spec["policyTypes"]) == {"Ingress", "Egress"}
    ports = {p["name"]: p["containerPort"] for p in _container(k8s)["ports"]}
    allowed = {}
    for rule in spec["ingress"]:
        (peer,) = rule["from"]
        (port,) = rule["ports"]
        allowed[peer["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]] = \
            ports[port["port"]]
    assert allowed == {"ingress-nginx": 3000, "monitoring": 9100}
    egress = {(p["port"], p.get("protocol", "TCP")) for r in spec["egress"] for p in r["ports"]}
    assert egress == {(53, "UDP"), (53, "TCP"), (6379, "TCP"), (26379, "TCP"), (443, "TCP")}
    (https,) = [r for r in spec["egress"] if r["ports"][0]["port"] == 443]
    block = https["to"][0]["ipBlock"]
    assert block["cidr"] == "0.0.0.0/0"
    private = {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16"}
    assert private <= set(block["except"])


def test_ingress_exposes_only_slack_events_and_probes_hit_the_servers_routes(
        k8s: dict[str, dict[str, Any]]) -> None:
    (rule,) = k8s["Ingress"]["spec"]["rules"]
    (path,) = rule["http"]["paths"]
    assert (path["path"], path["pathType"]) == (asgi.SLACK_PATH, "Exact")
    assert path["backend"]["service"] == {"name": k8s["Service"]["metadata"]["name"],
                                          "port": {"name": "http"}}
    assert rule["host"] in k8s["Ingress"]["spec"]["tls"][0]["hosts"]

    container = _container(k8s)
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    env = {e["name"]: e["value"] for e in container["env"]}
    defaults = Settings.model_fields
    assert "metrics_port" in defaults, "Settings has no METRICS_PORT (issue 13)"
    assert ports == {"http": defaults["port"].default, "metrics": defaults["metrics_port"].default}
    assert env == {"PORT": str(ports["http"]), "METRICS_PORT": str(ports["metrics"])}
    service_ports = {p["name"]: p["targetPort"] for p in k8s["Service"]["spec"]["ports"]}
    assert service_ports == {"http": "http", "metrics": "metrics"}
    (endpoint,) = k8s["ServiceMonitor"]["spec"]["endpoints"]
    assert (endpoint["port"], endpoint["path"]) == ("metrics", asgi.METRICS_PATH)
    annotations = k8s["Deployment"]["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/port"] == str(ports["metrics"])
    probes = {p: container[p]["httpGet"]
              for p in ("startupProbe", "livenessProbe", "readinessProbe")}
    assert all(get["port"] == "http" for get in probes.values())
    assert probes["readinessProbe"]["path"] == asgi.READY_PATH
    assert probes["livenessProbe"]["path"] == probes["startupProbe"]["path"] == asgi.HEALTH_PATH


def test_graceful_shutdown_fits_in_the_grace_periods(k8s: dict[str, dict[str, Any]]) -> None:
    pod = k8s["Deployment"]["spec"]["template"]["spec"]
    pre_stop = _container(k8s)["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    assert pod["terminationGracePeriodSeconds"] > serve.GRACEFUL_TIMEOUT_S + int(pre_stop[1])
    stop = _yaml(DEPLOY / "compose.yaml")["services"]["bot"]["stop_grace_period"]
    assert int(stop.rstrip("s")) > serve.GRACEFUL_TIMEOUT_S


# -- image and lock ---------------------------------------------------------------------------

def _instructions(dockerfile: Path) -> list[tuple[str, str]]:
    logical = re.sub(r"\\\n", " ", dockerfile.read_text())
    lines = [ln.strip() for ln in logical.splitlines()]
    return [(ln.split(None, 1)[0].upper(), ln.split(None, 1)[1])
            for ln in lines if ln and not ln.startswith("#")]


def test_image_is_pinned_non_root_installs_the_lock_first_and_passes_hadolint(
        k8s: dict[str, dict[str, Any]]) -> None:
    dockerfile = DEPLOY / "Dockerfile"
    steps = _instructions(dockerfile)
    (base,) = [a for op, a in steps if op == "ARG" and a.startswith("PYTHON_IMAGE=")]
    assert re.fullmatch(r"PYTHON_IMAGE=python:3\.11-slim@sha256:[0-9a-f]{64}", base)
    assert all(a.split()[0] == "${PYTHON_IMAGE}" for op, a in steps if op == "FROM")
    runtime = steps[max(i for i, (op, _) in enumerate(steps) if op == "FROM"):]
    ops = [(op, a) for op, a in runtime]
    (lock_i,) = [i for i, (op, a) in enumerate(ops) if op == "RUN" and "runtime.txt" in a]
    assert all(flag in ops[lock_i][1] for flag in ("--require-hashes", "--no-deps", "-r "))
    copies = [(i, a) for i, (op, a) in enumerate(ops) if op == "COPY"]
    assert copies[0][1].startswith("requirements/runtime.txt ") and copies[0][0] < lock_i
    assert all(i > lock_i for i, _ in copies[1:]), "source copied before the dependencies"
    (user,) = [a for op, a in ops if op == "USER"]
    uid = user.split(":")[0]
    assert uid.isdigit() and uid != "0"
    assert int(uid) == k8s["Deployment"]["spec"]["template"]["spec"]["securityContext"]["runAsUser"]
    (health,) = [a for op, a in ops if op == "HEALTHCHECK"]
    probe = json.loads(health[health.index("CMD ") + 4:])  # exec form: a JSON array, no shell
    assert probe[0] == "python" and asgi.HEALTH_PATH in probe[-1]
    assert [json.loads(a) for op, a in ops if op == "CMD"] == [["python", "-m", "bot"]]
    (expose,) = [a.split() for op, a in ops if op == "EXPOSE"]
    assert set(expose) == {"3000", "9100"}
    ignore = [ln.strip() for ln in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
              if ln.strip() and not ln.startswith("#")]
    assert ignore[0] == "*" and "!requirements/runtime.txt" in ignore  # allow-list context
    assert not any(".env" in line and line.startswith("!") for line in ignore)

    linted = _run(_tool("hadolint"), "--no-color", str(dockerfile))
    assert linted.returncode == 0 and not linted.stdout.strip(), linted.stdout + linted.stderr


def _lock(path: Path) -> dict[str, tuple[Requirement, list[str], str]]:
    """Each pinned package of a requirements lock: requirement, hashes, its ``# via`` block."""
    out: dict[str, tuple[Requirement, list[str], str]] = {}
    for block in re.split(r"\n(?=[a-z0-9])", re.sub(r"\\\n", " ", path.read_text())):
        head, _, via = block.partition("\n")
        if head.startswith("#") or not head.strip():
            continue
        spec, *hashes = head.split("--hash=")
        req = Requirement(spec.strip())
        out[canonicalize_name(req.name)] = (req, [h.strip() for h in hashes], via)
    return out


def test_lock_pins_every_runtime_dependency_with_hashes_and_nothing_for_development() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    lock = _lock(ROOT / "requirements" / "runtime.txt")
    declared = [Requirement(r) for r in project["project"]["dependencies"]]
    for dep in declared:
        req, _, _ = lock[canonicalize_name(dep.name)]
        (pin,) = req.specifier
        assert pin.operator == "==" and dep.specifier.contains(pin.version), (dep, pin)
        for extra in dep.extras:  # redis[hiredis]: the extra's package is locked too
            assert canonicalize_name(extra) in lock, extra
    assert all(h and all(re.fullmatch(r"sha256:[0-9a-f]{64}", x) for x in h)
               for _, h, _ in lock.values())
    direct = {n for n, (_, _, via) in lock.items() if "pyproject.toml" in via}
    assert direct == {canonicalize_name(d.name) for d in declared}, "run `make lock`"
    dev = {canonicalize_name(Requirement(r).name)
           for r in project["project"]["optional-dependencies"]["dev"]}
    # A dev tool is locked only as what a runtime package needs (PyYAML: huggingface-hub).
    leaked = {n for n in dev & set(lock) if "pyproject.toml" in lock[n][2]}
    assert not leaked, leaked
    for name, (req, _, _) in lock.items():  # closed: what each locked package needs is locked
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        if str(req.specifier) != f"=={dist.version}":
            continue
        for need in map(Requirement, dist.requires or []):
            if need.marker is None or need.marker.evaluate({"extra": ""}):
                assert canonicalize_name(need.name) in lock, (name, need)
    build = _lock(ROOT / "requirements" / "build.txt")
    (backend,) = [Requirement(r) for r in project["build-system"]["requires"]]
    (pin,) = build[canonicalize_name(backend.name)][0].specifier
    assert backend.specifier.contains(pin.version)


# -- compose, secrets, docs -------------------------------------------------------------------

def test_compose_is_valid_and_its_redis_persists_and_never_evicts() -> None:
    compose = _yaml(DEPLOY / "compose.yaml")
    schema = json.loads((SCHEMAS / "compose-spec.json").read_text())
    jsonschema.Draft7Validator(schema).validate(compose)
    redis = compose["services"]["redis"]
    flags = dict(zip(redis["command"][1::2], redis["command"][2::2], strict=True))
    assert redis["command"][0] == "redis-server" and flags["--appendonly"] == "yes"
    assert flags["--maxmemory-policy"] == "noeviction"
    assert any(v.endswith(":/data") for v in redis["volumes"]) and "ports" not in redis
    bot = compose["services"]["bot"]
    assert bot["depends_on"]["redis"]["condition"] == "service_healthy"
    assert bot["environment"]["REDIS_URL"].startswith("redis://redis:")
    assert all(p.startswith("127.0.0.1:") for p in bot["ports"])  # loopback only
    assert bot["healthcheck"]["test"][0] == "CMD"  # exec form
    assert bot["read_only"] is True
    note = (K8S / "redis.md").read_text()
    assert "noeviction" in note and "appendonly" in note


def test_no_secret_values_anywhere_in_deploy_and_examples() -> None:
    files = [p for p in DEPLOY.rglob("*") if p.is_file()] + [ROOT / ".env.example", OPS_DOC]
    for path in files:
        text = path.read_text()
        for shape in SECRET_SHAPES:
            assert not shape.search(text), f"{path}: {shape.pattern}"
    template = _yaml(K8S / "secret.template.yaml")
    kubernetes_validate.validate(template, K8S_VERSIONS[-1], strict=True)
    assert {"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "REDIS_URL"} <= set(template["stringData"])
    assert all(v.startswith("<") and v.endswith(">") for v in template["stringData"].values())
    assert "secret.template.yaml" not in _yaml(K8S / "kustomization.yaml")["resources"]
    env_example = (ROOT / ".env.example").read_text()
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN"):
        assert re.search(rf"^{name}=$", env_example, re.M), name
    for name in Settings.model_fields:
        assert re.search(rf"^#? ?{name.upper()}=", env_example, re.M), name


def test_docs_name_only_files_in_the_repo() -> None:
    outside = "../" + "shared", "/work/" + "shared"
    for doc in (ROOT / "README.md", OPS_DOC):
        text = doc.read_text()
        assert not any(o in text for o in outside), f"{doc.name} cites files a clone lacks"
        # repository paths: `deploy/k8s/pdb.yaml`, `.ci/run` (not `prometheus.io/scrape`)
        for name in set(re.findall(r"`((?:\.?[\w-]+)(?:/[\w.-]+)+/?)`", text)):
            assert (ROOT / name).exists(), f"{doc.name} names {name}, which is not in the repo"
    owned = [*DEPLOY.rglob("*"), ROOT / "Makefile", ROOT / "pyproject.toml", ROOT / ".ci" / "run",
             ROOT / ".env.example"]
    for path in (p for p in owned if p.is_file()):
        assert not any(o in path.read_text() for o in outside), path
