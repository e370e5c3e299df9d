"""ci/github/: the reusable workflow and its caller pass actionlint (with shellcheck on the
run: scripts) and the GitHub workflow schema vendored by check-jsonschema; the job plan
(plan.py); and the merge job's script, run here on artifacts laid out as download-artifact
lays them out (the runners and GitHub itself are not involved)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.sax.saxutils import quoteattr

import pytest
import yaml  # PyYAML: a dependency of kubernetes-validate (test extra)

WORKFLOWS = ("port-matrix.yml", "example-caller.yml")
PLATFORMS = json.dumps([{"name": "cuda", "runs-on": ["self-hosted", "cuda"]},
                        {"name": "rocm-gfx942", "runs-on": "gfx942",
                         "torch-index": "https://download.pytorch.org/whl/rocm7.0"}])


def _tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=os.path.dirname(sys.executable))
    if not found:
        pytest.fail(f"{name} not found: ci/setup installs it (test extra / APT_PACKAGES)")
    return found


@pytest.fixture
def gh_repo(tools, tmp_path) -> Path:
    """A repository laid out as GitHub wants it: the workflows in .github/workflows/."""
    repo = tmp_path / "repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    for name in WORKFLOWS:
        shutil.copy(tools.repo / "ci" / "github" / name, repo / ".github" / "workflows" / name)
    (repo / "ci" / "github").mkdir(parents=True)
    shutil.copy(tools.repo / "ci" / "github" / "plan.py", repo / "ci" / "github" / "plan.py")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def _actionlint(repo: Path) -> subprocess.CompletedProcess:
    return subprocess.run([_tool("actionlint"), f"-shellcheck={_tool('shellcheck')}", "-no-color"], cwd=repo,
                          capture_output=True, text=True, timeout=300)


def _schema_check(files: list[Path]) -> subprocess.CompletedProcess:
    return subprocess.run([_tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows",
                           *map(str, files)], capture_output=True, text=True, timeout=300)


def test_workflows_pass_actionlint_and_the_workflow_schema(gh_repo):
    lint = _actionlint(gh_repo)
    assert lint.returncode == 0 and not lint.stdout.strip(), lint.stdout + lint.stderr
    schema = _schema_check(sorted((gh_repo / ".github" / "workflows").glob("*.yml")))
    assert schema.returncode == 0, schema.stdout + schema.stderr


@pytest.mark.parametrize("old,new,expect", [
    ("needs.plan.outputs.matrix)", "needs.plan.outputs.matrx)", "actionlint"),  # undefined output
    ('exit "${RC:-1}"', "exit $RC", "actionlint"),  # shellcheck SC2086 through actionlint
    ("runs-on: ubuntu-latest", "runs_on: ubuntu-latest", "both"),
])
def test_the_checks_catch_a_broken_workflow(gh_repo, old, new, expect):
    path = gh_repo / ".github" / "workflows" / "port-matrix.yml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    assert _actionlint(gh_repo).returncode != 0
    if expect == "both":
        assert _schema_check([path]).returncode != 0


def _workflow(tools) -> dict:
    return yaml.safe_load((tools.repo / "ci" / "github" / "port-matrix.yml").read_text())


def test_the_workflow_has_the_shape_the_runners_need(tools):
    wf = _workflow(tools)
    triggers = wf[True]  # YAML 1.1 reads the key `on` as True
    assert set(triggers) == {"workflow_call", "workflow_dispatch"}
    assert set(triggers["workflow_call"]["inputs"]) == set(triggers["workflow_dispatch"]["inputs"]) == \
        {"platforms", "shards", "torch-spec", "torch-index", "timeout-minutes"}
    jobs = wf["jobs"]
    steps = {s.get("name", s.get("uses", "")): s for s in jobs["shard"]["steps"]}
    upload = steps["upload JUnit (also after failures and time-outs)"]
    assert upload["if"] == "always()" and upload["uses"].startswith("actions/upload-artifact@")
    matrix_step = steps["port matrix (this shard)"]
    assert matrix_step["timeout-minutes"] == "${{ matrix.step-timeout }}"  # stops before the job does
    assert "--shard" in matrix_step["run"] and jobs["shard"]["strategy"]["fail-fast"] is False
    assert jobs["merge"]["needs"] == ["plan", "shard"] and jobs["merge"]["if"].startswith("always()")
    assert "GITHUB_STEP_SUMMARY" in next(s["run"] for s in jobs["merge"]["steps"] if s.get("id") == "report")
    audit = jobs["audit"]
    assert audit["permissions"]["security-events"] == "write"
    assert any(s.get("uses", "").startswith("github/codeql-action/upload-sarif@") for s in audit["steps"])


def _plan(tools, **env: str) -> subprocess.CompletedProcess:
    e = tools.clean_env(PLATFORMS=PLATFORMS, SHARDS="2", TORCH_SPEC="torch==2.14.1", TORCH_INDEX="",
                        TIMEOUT_MINUTES="90")
    e.pop("GITHUB_OUTPUT", None)
    e.update(env)
    return subprocess.run([sys.executable, str(tools.repo / "ci/github/plan.py"), "matrix"], env=e,
                          capture_output=True, text=True, timeout=60)


def test_the_plan_is_one_job_per_platform_and_shard(tools):
    proc = _plan(tools)
    assert proc.returncode == 0, proc.stderr
    include = json.loads(proc.stdout.removeprefix("matrix="))["include"]
    assert [(e["platform"], e["shard"], e["shards"]) for e in include] == [
        ("cuda", 1, 2), ("cuda", 2, 2), ("rocm-gfx942", 1, 2), ("rocm-gfx942", 2, 2)]
    assert include[0]["torch-index"] == "" and include[2]["torch-index"].endswith("/rocm7.0")
    assert include[2]["runs-on"] == "gfx942" and include[0]["runs-on"] == ["self-hosted", "cuda"]
    assert len({e["artifact"] for e in include}) == 4
    assert all(e["job-timeout"] > e["step-timeout"] == 90 for e in include)


@pytest.mark.parametrize("env,match", [
    ({"PLATFORMS": "[{"}, "not JSON"), ({"PLATFORMS": "[]"}, "non-empty"),
    ({"PLATFORMS": '[{"name": "a b", "runs-on": "x"}]'}, "letters/digits"),
    ({"PLATFORMS": '[{"name": "a", "runs-on": []}]'}, "runs-on"), ({"SHARDS": "0"}, "between 1"),
    ({"SHARDS": "500"}, "between 1"),
])
def test_bad_inputs_stop_the_plan_with_one_line(tools, env, match):
    proc = _plan(tools, **env)
    assert proc.returncode == 2 and match in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def _junit(platform_props: dict[str, str], host: str, shard: str, cases: list[str]) -> str:
    props = {"port.schema": "1", **platform_props, "port.host": host, "port.run_id": "gh-77-1",
             "port.shard": shard, "port.complete": "true", "port.collected": str(len(cases)),
             "port.runner": "github-actions"}
    body = "".join(f'<testcase classname="test_matrix.actor.test_x" name={quoteattr(c)} time="0.1"/>' for c in cases)
    plist = "".join(f"<property name={quoteattr(k)} value={quoteattr(v)}/>" for k, v in props.items())
    return (f'<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="{len(cases)}">'
            f"<properties>{plist}</properties>{body}</testsuite></testsuites>")


CUDA = {"port.platform": "cuda", "port.cuda_version": "13.0", "port.gpu_arch": "sm_90"}
ROCM = {"port.platform": "rocm", "port.rocm_version": "7.0.2", "port.rocm_usable": "true", "port.gpu_arch": "gfx942",
        "port.path": "native-hip", "port.torch_flavour": "rocm", "port.monarch_flavour": "rocm"}
SHARD_CASES = {1: ["test_a", "test_c"], 2: ["test_b", "test_d"]}


def _run_merge_step(tools, tmp_path, uploaded: list[tuple[str, int]]):
    """The merge job's `port report` step, run by bash as the runner runs it."""
    ws = tmp_path / "ws"
    (ws / "ci" / "github").mkdir(parents=True)
    shutil.copy(tools.repo / "ci/github/plan.py", ws / "ci/github/plan.py")
    plan = json.loads(_plan(tools).stdout.removeprefix("matrix="))
    for platform, shard in uploaded:  # download-artifact: one directory per artifact
        entry = next(e for e in plan["include"] if (e["platform"], e["shard"]) == (platform, shard))
        d = ws / "junit" / entry["artifact"]
        d.mkdir(parents=True)
        props, host = (CUDA, f"h100-{shard}") if platform == "cuda" else (ROCM, f"mi300-{shard}")
        (d / f"matrix-gh-77-1-shard{shard}of2.xml").write_text(_junit(props, host, f"{shard}/2", SHARD_CASES[shard]))
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "port").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m porting "$@"\n')
    (bindir / "port").chmod(0o755)
    step = next(s for s in _workflow(tools)["jobs"]["merge"]["steps"] if s.get("id") == "report")
    script = tmp_path / "step.sh"
    script.write_text(step["run"])
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    env = tools.clean_env(MATRIX=json.dumps(plan), GITHUB_STEP_SUMMARY=str(summary), GITHUB_OUTPUT=str(output))
    env["PATH"] = f"{bindir}{os.pathsep}{env['PATH']}"
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=ws, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # the step records rc; the next step exits by it
    return json.loads((ws / "parity" / "parity.json").read_text()), summary.read_text(), output.read_text()


def test_the_merge_step_certifies_shards_gathered_from_four_runners(tools, tmp_path):
    parity, summary, output = _run_merge_step(tools, tmp_path, [("cuda", 1), ("cuda", 2), ("rocm-gfx942", 1),
                                                                ("rocm-gfx942", 2)])
    assert parity["verdict"]["status"] == "certified" and parity["partial"] is False
    assert summary.startswith("# ✅ ROCm parity: CERTIFIED")
    assert output.strip() == "rc=0"
    hosts = sorted(r["host"] for c in parity["columns"] for r in c["runs"])
    assert hosts == ["h100-1", "h100-2", "mi300-1", "mi300-2"]


def test_a_shard_job_that_uploaded_nothing_keeps_the_verdict_from_passing(tools, tmp_path):
    parity, summary, output = _run_merge_step(tools, tmp_path, [("cuda", 1), ("cuda", 2), ("rocm-gfx942", 1)])
    assert parity["partial"] is True and parity["verdict"]["status"] == "incomplete"
    reasons = " | ".join(parity["partial_reasons"])
    assert "rocm-gfx942 shard 2/2 uploaded no JUnit" in reasons and "missing shard(s) 2/2" in reasons
    assert "INCOMPLETE" in summary.splitlines()[0] and output.strip() == "rc=4"
