#!/usr/bin/env python3
"""The job plan of ci/github/port-matrix.yml, and what the merge job found missing.

``plan.py matrix``: from the workflow inputs (environment: PLATFORMS, SHARDS, TORCH_SPEC,
TORCH_INDEX, TIMEOUT_MINUTES) the ``strategy.matrix`` of the shard jobs, one entry per
(platform, shard), written as ``matrix=<json>`` to $GITHUB_OUTPUT (stdout without it).
PLATFORMS is a JSON list of ``{"name": "rocm-gfx942", "runs-on": ["self-hosted", "gfx942"]}``,
optionally with its own ``"torch-spec"`` / ``"torch-index"`` (a ROCm runner needs ROCm torch).

``plan.py missing DIR``: given the planned matrix (environment: MATRIX) and the downloaded
artifacts in DIR (one ``junit-<platform>-shard<i>of<n>`` directory per upload), one line per
shard job that uploaded no JUnit: the merge job passes each to ``port report --incomplete``.

Standard library only: it runs before anything is installed. Bad input: one line, exit 2.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")  # safe in artifact names and paths
MAX_SHARDS = 256  # GitHub runs at most 256 jobs per matrix


class PlanError(Exception):
    pass


def artifact_name(platform: str, shard: int, shards: int) -> str:
    return f"junit-{platform}-shard{shard}of{shards}"


def _platforms(text: str) -> list[dict]:
    try:
        platforms = json.loads(text)
    except ValueError as exc:
        raise PlanError(f"platforms: not JSON ({exc})") from None
    if not isinstance(platforms, list) or not platforms:
        raise PlanError("platforms: expected a non-empty JSON list of {\"name\", \"runs-on\"}")
    seen: set[str] = set()
    for p in platforms:
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or "runs-on" not in p:
            raise PlanError(f"platforms: entry {p!r} needs \"name\" and \"runs-on\"")
        if not NAME.match(p["name"]) or p["name"] in seen:
            raise PlanError(f"platforms: name {p['name']!r} must be unique, letters/digits/._- only")
        runs_on = p["runs-on"]
        if not (isinstance(runs_on, str) and runs_on) and not (
                isinstance(runs_on, list) and runs_on and all(isinstance(x, str) and x for x in runs_on)):
            raise PlanError(f"platforms: {p['name']}: runs-on must be a label or a list of labels")
        seen.add(p["name"])
    return platforms


def _positive(name: str, text: str, limit: int) -> int:
    try:
        value = int(float(text))  # workflow_dispatch numbers may arrive as "4.0"
    except ValueError:
        raise PlanError(f"{name}: {text!r} is not a number") from None
    if not 1 <= value <= limit:
        raise PlanError(f"{name}: {value} must be between 1 and {limit}")
    return value


def plan(env: dict[str, str]) -> dict:
    platforms = _platforms(env.get("PLATFORMS", ""))
    shards = _positive("shards", env.get("SHARDS", "1"), MAX_SHARDS // len(platforms))
    timeout = _positive("timeout-minutes", env.get("TIMEOUT_MINUTES", "90"), 5 * 24 * 60)
    include = []
    for p in platforms:
        for shard in range(1, shards + 1):
            include.append({
                "platform": p["name"], "runs-on": p["runs-on"], "shard": shard, "shards": shards,
                "torch-spec": p.get("torch-spec") or env.get("TORCH_SPEC", ""),
                "torch-index": p.get("torch-index") or env.get("TORCH_INDEX", ""),
                # the matrix step stops before the job does, so the JUnit upload still runs
                "step-timeout": timeout, "job-timeout": timeout + 60,
                "artifact": artifact_name(p["name"], shard, shards),
            })
    return {"include": include}


def missing(env: dict[str, str], junit_dir: Path) -> list[str]:
    try:
        entries = json.loads(env.get("MATRIX", ""))["include"]
    except (ValueError, KeyError, TypeError):
        raise PlanError("MATRIX: not the plan job's matrix output") from None
    out = []
    for e in entries:
        d = junit_dir / e["artifact"]
        if not (d.is_dir() and any(d.rglob("*.xml"))):
            out.append(f"{e['platform']} shard {e['shard']}/{e['shards']} uploaded no JUnit "
                       f"(the job failed before the matrix ran, was cancelled or timed out)")
    return out


def main(argv: list[str]) -> int:
    env = dict(os.environ)
    try:
        if argv[:1] == ["matrix"] and len(argv) == 1:
            line = "matrix=" + json.dumps(plan(env), separators=(",", ":"))
            target = env.get("GITHUB_OUTPUT")
            if target:
                with open(target, "a", encoding="utf-8") as f:
                    f.write(line + "\n")
            else:
                print(line)
            return 0
        if argv[:1] == ["missing"] and len(argv) == 2:
            for reason in missing(env, Path(argv[1])):
                print(reason)
            return 0
    except PlanError as exc:
        print(f"::error::ci/github/plan.py: {exc}", file=sys.stderr)
        return 2
    print("usage: plan.py matrix | plan.py missing DIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
