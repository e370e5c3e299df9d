"""Property: on random trees of headers that include each other (cycles, unchanged headers,
cuda/ directories), the parallel conversion equals plain hipify, file for file."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from porting.hipify import convert_tree


def _plain(src: Path, out: Path) -> None:
    from torch.utils.hipify import hipify_python as hp

    hp.HIPIFY_FINAL_RESULT.clear()  # plain hipify's global state, fresh for each run
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        hp.hipify(project_directory=str(src), output_directory=str(out), is_pytorch_extension=True,
                  show_progress=False)
    hp.HIPIFY_FINAL_RESULT.clear()


@st.composite
def trees(draw):
    n = draw(st.integers(2, 6))
    names = [("cuda/" if draw(st.booleans()) else "") + f"h{i}" + draw(st.sampled_from([".h", ".cuh"]))
             for i in range(n)]
    files: dict[str, str] = {}
    for i, name in enumerate(names):
        body = ["#pragma once"]
        for j in draw(st.lists(st.integers(0, n - 1), max_size=3, unique=True)):
            if j != i:
                rel = os.path.relpath(names[j], os.path.dirname(name) or ".")
                body.append(f'#include "{rel}"')
        if draw(st.booleans()):
            body.append("inline void use() { cudaDeviceSynchronize(); }")
        else:
            body.append(f"inline int plain{i}() {{ return {i}; }}")
        files[name] = "\n".join(body) + "\n"
    for k in range(draw(st.integers(1, 3))):
        inc = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
        ext = draw(st.sampled_from([".cu", ".cpp"]))
        body = [f'#include "{h}"' for h in inc] + ["void run() { int x = 0; (void)x; }"]
        if ext == ".cu":
            body += ["__global__ void k() {}", "void go() { k<<<1, 1>>>(); }"]
        files[f"tu{k}{ext}"] = "\n".join(body) + "\n"
    return files


def _digest(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and p.name != ".port-hipify-manifest.json"}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=trees())
def test_random_include_graphs_match_plain_hipify(tmp_path: Path, files: dict[str, str]) -> None:
    case = tmp_path / "case"
    shutil.rmtree(case, ignore_errors=True)
    src = case / "src"
    for rel, text in files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    _plain(src, case / "plain")
    convert_tree(src, case / "ours", jobs=1)
    assert _digest(case / "ours") == _digest(case / "plain")
