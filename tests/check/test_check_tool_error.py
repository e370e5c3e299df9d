"""A unit is `compiles` only when the compiler ran and exited 0: a compiler that exits non-zero
without one located error gave no verdict on the code (its own class, `tool-error`), and an
arch the compiler does not support is refused before anything is compiled."""

from __future__ import annotations

import json
from pathlib import Path

from porting.cli import main


def _run(tmp_path: Path, capsys, *extra: str) -> tuple[int, dict, str]:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "k.cu").write_text("this is not C++\n")
    code = main(["check", str(src), "--out", str(tmp_path / "out"), "--format", "json", "-j", "1", *extra])
    cap = capsys.readouterr()
    return code, (json.loads(cap.out) if cap.out else {}), cap.err


# the arch probe (no -H) passes; the unit's compile fails the way a driver refusal does: exit 1, no location
REFUSES = 'case "$*" in *" -H "*) echo "clang: error: unsupported option --foo" >&2; exit 1;; esac\nexit 0\n'


def test_exit_1_without_a_location_is_a_tool_error_never_compiles(tmp_path, capsys, fake_tool, check_cache):
    fake_tool(REFUSES)
    before = set(check_cache.iterdir())
    code, data, _ = _run(tmp_path, capsys)
    assert code == 1  # problems found, not success
    (unit,) = data["units"]
    assert unit["class"] == "tool-error" and set(unit["per_arch"].values()) == {"tool-error"}
    assert unit["diagnostics"][0]["kind"] == "tool-error" and "unsupported option" in unit["diagnostics"][0]["message"]
    assert data["summary"]["tool-error"] == 1 and data["summary"]["compiles"] == 0
    assert set(check_cache.iterdir()) == before  # a refusal is not a verdict worth caching


def test_exit_0_is_the_one_way_to_compiles(tmp_path, capsys, fake_tool):
    fake_tool("exit 0\n")  # the one way to `compiles`: the compiler ran and exited 0
    code, data, _ = _run(tmp_path, capsys)
    assert code == 0 and data["units"][0]["class"] == "compiles"


def test_an_unsupported_arch_is_a_one_line_usage_error(tmp_path, capsys, fake_tool):
    fake_tool('case "$*" in *gfx9999*) echo "clang: error: unsupported HIP gpu architecture: gfx9999" >&2; '
              'exit 1;; esac\nexit 0\n')
    code, _, err = _run(tmp_path, capsys, "--arch", "gfx9999")
    assert code == 2 and "--arch gfx9999" in err and "unsupported HIP gpu architecture" in err
    assert "Traceback" not in err and not (tmp_path / "out" / "check.json").exists()


def test_gfx9999_with_the_real_compiler(toolchain, tmp_path, capsys):
    code, _, err = _run(tmp_path, capsys, "--arch", "gfx9999")
    assert code == 2 and "--arch gfx9999" in err and "unsupported" in err
