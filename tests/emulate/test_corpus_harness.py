"""The corpus harness's rules (bench/emulate_corpus.py) on trees written here: a missing header is
resolved by a unique match in the repository and only then; copies count once; the sixth suite's
selection walks the hash order and takes only what the saved scan passes and the compiler builds.
Public programs are never committed: these trees reproduce each case."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

_SPEC = importlib.util.spec_from_file_location(
    "emulate_corpus", Path(__file__).resolve().parents[2] / "bench" / "emulate_corpus.py")
assert _SPEC and _SPEC.loader
corpus: Any = importlib.util.module_from_spec(_SPEC)
sys.modules["emulate_corpus"] = corpus
_SPEC.loader.exec_module(corpus)

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="the preprocessor scan needs g++")


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def _prog(top: Path, rel: str) -> Any:
    f = top / rel
    return corpus.Prog(f"repo/{rel}", [f], f.parent, [f.parent])


@needs_gxx
def test_a_unique_match_is_resolved_and_an_ambiguous_one_is_not(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    _write(top, {
        "progs/a/main.cu": '#include "helpers.h"\n#include <lib/angled.h>\n#include "twice.h"\n'
                           '#if 0\n#include "inactive.h"\n#endif\nint main() { return HELPER + ANGLED; }\n',
        "Common/include/helpers.h": "#define HELPER 1\n",
        "third/lib/angled.h": '#include "nested.h"\n#define ANGLED 2\n',
        "deep/x/nested.h": "// found in a second round: its includer was missing in the first\n",
        "one/twice.h": "", "two/twice.h": "",
        "elsewhere/inactive.h": "",
    })
    p = _prog(top, "progs/a/main.cu")
    left = corpus.resolve_includes(p, top, corpus._header_index(top))
    assert p.include_dirs[1:] == [top / "Common/include", top / "third", top / "deep/x"]
    assert left == ["twice.h"]  # two files end with that name: not guessed


@needs_gxx
def test_a_name_climbing_out_of_its_directory_is_left_missing(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    _write(top, {"p/main.cu": '#include "../inc/up.h"\nint main() {}\n', "q/inc/up.h": ""})
    p = _prog(top, "p/main.cu")
    assert corpus.resolve_includes(p, top, corpus._header_index(top)) == ["../inc/up.h"]
    assert p.include_dirs == [top / "p"]


def test_copies_of_earlier_suites_and_of_each_other_are_dropped(tmp_path: Path) -> None:
    _write(tmp_path, {"a/main.cu": "int main() {}\n", "b/main.cu": "int main() {}\n",
                      "c/main.cu": "int main() { return 1; }\n", "d/main.cu": "int main() { return 2; }\n"})
    blobs = tmp_path / "blobs.txt"
    blobs.write_text(corpus.git_blob(tmp_path / "d/main.cu") + "\n")
    progs = [_prog(tmp_path, f"{d}/main.cu") for d in "abcd"]
    assert [p.name for p in corpus.drop_copies(progs, blobs, within=True)] == ["repo/a/main.cu", "repo/c/main.cu"]
    # the fifth suite's rule (no within-suite drop) is unchanged
    assert [p.name for p in corpus.drop_copies(progs, blobs)] == ["repo/a/main.cu", "repo/b/main.cu",
                                                                   "repo/c/main.cu"]


def test_the_selection_takes_scan_passing_compiling_programs_in_hash_order(tmp_path: Path) -> None:
    progs = [corpus.Prog(f"r/{i}.cu", [tmp_path / f"{i}.cu"], tmp_path) for i in range(12)]
    strata = {p.name: ("warp" if i % 2 else "plain") for i, p in enumerate(progs)}
    refused = {p.name: (["textures"] if i in (1, 2) else []) for i, p in enumerate(progs)}
    scan: dict[str, Any] = {"strata": strata, "scan": refused}
    refused_by_nvcc = {"r/3.cu", "r/4.cu"}
    asked: list[str] = []

    def compiles(p: Any) -> bool:
        asked.append(p.name)
        return p.name not in refused_by_nvcc

    cache: dict[str, bool] = {}
    chosen = corpus.sixth_select(progs, scan, 2, cache, compiles)
    for stratum in ("warp", "plain"):
        order = sorted((p.name for p in progs if strata[p.name] == stratum), key=corpus._sixth_key)
        eligible = [n for n in order if not scan["scan"][n] and n not in refused_by_nvcc]
        assert [p.name for p in chosen if p.stratum == stratum] == sorted(eligible[:2])
    assert not {"r/1.cu", "r/2.cu"} & set(asked)  # refused by the scan: never compiled
    assert corpus.sixth_select(progs, scan, 2, cache, lambda p: pytest.fail("cached")) == chosen


def test_a_later_suite_of_the_same_design_orders_by_its_own_salt(tmp_path: Path) -> None:
    """--seventh shares --sixth's selection; only the hash salt differs, and with 40 names the
    two orders must disagree somewhere (else the salt would not be used)."""
    progs = [corpus.Prog(f"r/{i}.cu", [tmp_path / f"{i}.cu"], tmp_path) for i in range(40)]
    scan: dict[str, Any] = {"strata": {p.name: "plain" for p in progs}, "scan": {p.name: [] for p in progs}}
    sixth = corpus.sixth_select(progs, scan, 5, {}, lambda p: True)
    seventh = corpus.sixth_select(progs, scan, 5, {}, lambda p: True, corpus.SIXTH_DESIGN["seventh"][1])
    by_salt = sorted((p.name for p in progs), key=lambda n: corpus._sixth_key(n, "seventh:"))[:5]
    assert [p.name for p in seventh] == sorted(by_salt)
    assert {p.name for p in seventh} != {p.name for p in sixth}
    assert corpus.SIXTH_DESIGN["sixth"] == (corpus.SIXTH_REPOS, "sixth:")


def _linked(top: Path, rel: str, *incs: str) -> list[str]:
    f = top / rel
    p = corpus.Prog(f"repo/{rel}", [f], f.parent, [f.parent, *(top / i for i in incs)])
    return [str(s.relative_to(top)) for s in corpus.link_sources(p, top)]


def test_the_link_rule_adds_what_the_program_declares_wherever_it_is_defined(tmp_path: Path) -> None:
    """The sixth suite's four wrongly built programs, reproduced: a truncated sibling variant
    (ASpT's sspmm_128.cu) is not compiled with its neighbour; definitions under src/ of a
    program in tests/ are found, through a header on the -I list; a header's own definitions
    (datastructures/bcsr.cu) are found in a second round; a class member defined as
    Class::name( counts."""
    top = tmp_path / "repo"
    _write(top, {
        "spmm/dspmm_32.cu": '#include "common.h"\nint main() { return shared_inline(); }\n',
        "spmm/common.h": "static inline int shared_inline() { return 0; }\n",
        "spmm/sspmm_128.cu": '#include "common.h"\nvoid half_a_file() {\n  for (;;) {\n',  # cut off
        "proj/include/kernels.h": "void gemm(float* a, int n);\nstruct Model { void step(); };\n",
        "proj/src/kernels/gemm.cu": '#include "kernels.h"\n#include "tile.h"\n'
                                    "void gemm(float* a, int n) { tile(a); }\n",
        "proj/src/kernels/tile.h": "void tile(float* a);\n",
        "proj/src/kernels/tile.cu": '#include "tile.h"\nvoid tile(float* a) { a[0] = 1; }\n',
        "proj/src/model.cpp": '#include "kernels.h"\nvoid Model::step() { gemm(nullptr, 0); }\n',
        "proj/tests/profile.cu": '#include "kernels.h"\nint main() { Model m; m.step(); }\n',
        "proj/tests/other_test.cu": '#include "kernels.h"\nint main() { gemm(0, 0); }\n',
    })
    assert _linked(top, "spmm/dspmm_32.cu") == ["spmm/dspmm_32.cu"]
    assert _linked(top, "proj/tests/profile.cu", "proj/include") == [
        "proj/tests/profile.cu", "proj/src/kernels/gemm.cu", "proj/src/model.cpp", "proj/src/kernels/tile.cu"]


def test_the_link_rule_takes_the_nearest_definition_and_no_tie(tmp_path: Path) -> None:
    top = tmp_path / "repo"
    _write(top, {
        "a/main.cu": "void work();\nvoid other();\nint main() { work(); other(); }\n",
        "a/work.cu": "void work() {}\n",
        "old/work.cu": "void work() { /* an older copy, farther away */ }\n",
        "v1/other.cu": "void other() {}\n", "v2/other.cu": "void other() {}\n",
    })
    assert _linked(top, "a/main.cu") == ["a/main.cu", "a/work.cu"]  # other(): two as near, none guessed


def test_what_breaks_the_link_rule(tmp_path: Path) -> None:
    """A function defined by a macro (DEFINE_KERNEL(scale)) or only ever called through a pointer
    the program never declares is not seen: its file is not added, and the link fails, named."""
    top = tmp_path / "repo"
    _write(top, {
        "p/main.cu": '#include "k.h"\nint main() { scale(); }\n',
        "p/k.h": "void scale();\n#define DEFINE_KERNEL(n) void n() {}\n",
        "p/k.cu": '#include "k.h"\nDEFINE_KERNEL(scale)\n',
    })
    assert _linked(top, "p/main.cu") == ["p/main.cu"]


def test_a_suite_directory_without_its_checkouts_is_an_error_naming_it(tmp_path: Path, monkeypatch: Any,
                                                                        capsys: Any) -> None:
    """A wrong --seventh DIR must not scan zero programs and report 0 of 0 as a coverage figure."""
    (tmp_path / corpus.SEVENTH_REPOS[0]).mkdir()
    monkeypatch.setattr(sys, "argv", ["emulate_corpus.py", "--seventh", str(tmp_path), "--static"])
    with pytest.raises(SystemExit) as exc:
        corpus.main()
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"no checkout {corpus.SEVENTH_REPOS[1]}" in err and str(tmp_path) in err
    assert f"nor {len(corpus.SEVENTH_REPOS) - 2} more" in err


def test_the_cap_keeps_a_repositorys_first_candidates_by_its_salt_and_leaves_smaller_ones_whole(tmp_path: Path) -> None:
    """The eighth suite's cap: a repository over it keeps exactly its first ``cap`` names in
    sha256(salt + name) order, a repository under it keeps all, and the order given is kept."""
    big = [corpus.Prog(f"big/{i}.cu", [tmp_path / f"{i}.cu"], tmp_path) for i in range(30)]
    small = [corpus.Prog(f"small/{i}.cu", [tmp_path / f"{i}.cu"], tmp_path) for i in range(3)]
    cands = [*big[:15], *small, *big[15:]]
    kept = corpus.cap_per_repository(cands, (10, "eighth-cap:"))
    first = sorted((p.name for p in big), key=lambda n: corpus._sixth_key(n, "eighth-cap:"))[:10]
    assert {p.name for p in kept if p.name.startswith("big/")} == set(first)
    assert [p for p in kept if p.name.startswith("small/")] == small
    assert kept == [p for p in cands if p in kept]  # order kept
    other = corpus.cap_per_repository(cands, (10, "another:"))
    assert {p.name for p in other} != {p.name for p in kept}  # the salt is used
    assert corpus.cap_per_repository(cands, None) == cands
    assert corpus.DESIGN_CAP["eighth"] == (corpus.EIGHTH_CAP, "eighth-cap:")
    assert "sixth" not in corpus.DESIGN_CAP and "seventh" not in corpus.DESIGN_CAP  # their rules had none


def test_eighth_is_a_suite_of_the_sixth_design(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    """--eighth reaches the shared code: a DIR without its checkouts is the same one-line error."""
    (tmp_path / corpus.EIGHTH_REPOS[0]).mkdir()
    monkeypatch.setattr(sys, "argv", ["emulate_corpus.py", "--eighth", str(tmp_path), "--static"])
    with pytest.raises(SystemExit) as exc:
        corpus.main()
    assert exc.value.code == 2
    assert f"--eighth {tmp_path}: no checkout {corpus.EIGHTH_REPOS[1]}" in capsys.readouterr().err


def test_a_program_reading_argv_unchecked_gets_its_documented_command_line(tmp_path: Path) -> None:
    """The argument rule: the program's own directory first (Makefile run/test targets, then shell
    scripts, then READMEs), then its parents up to the repository's top; variables and a loop's
    first value substituted; a program that tests argc is left alone."""
    _write(tmp_path, {
        "r/hw1/task1.cu": "int main(int argc, char** argv) { int n = atoi(argv[1]); }\n",
        "r/hw1/task1.sh": "#!/bin/bash\nnvcc task1.cu -o task1\nfor i in {10..29}\ndo\n  N=$((2**$i))\n"
                          "  ./task1 $N 512 > out.txt\ndone\n",
        "r/hw1/README.md": "Run it as `./task1 7 7`.\n",
        "r/hw2/task2.cu": "int main(int c, char** argv) { int n = atoi(argv[2]); }  // argc? no\n",
        "r/hw2/Makefile": "SIZE := 64\nall: task2\n\tnvcc task2.cu -o task2\nrun: all\n\t@./task2 $(SIZE) -v\n",
        "r/hw2/run.sh": "./task2 1 2\n",
        "r/hw3/deep/task3.cu": "int main(int argc, char** argv) { float x = atof(argv[1]); }\n",
        "r/hw3/data.txt": "1\n",
        "r/README.md": "Usage:\n\n    $ for n in 3; do ./task3 0.5e-3; done\n",
        "r/hw4/task4.cu": "int main(int argc, char** argv) { if (argc < 2) return 1; return atoi(argv[1]); }\n",
        "r/hw4/task4.sh": "./task4 9\n",
    })
    top = tmp_path / "r"
    assert corpus.documented_args(top / "hw1/task1.cu", top) == ["1024", "512"]  # the script before the README
    assert corpus.documented_args(top / "hw2/task2.cu", top) == ["64", "-v"]  # the Makefile's run target first
    assert corpus.documented_args(top / "hw3/deep/task3.cu", top) == ["0.5e-3"]  # found at the top
    progs = [corpus.Prog(f"r/{d}", [top / d], (top / d).parent) for d in
             ("hw1/task1.cu", "hw2/task2.cu", "hw4/task4.cu")]
    corpus.apply_argument_rule(progs, tmp_path)
    assert [p.args for p in progs] == [["1024", "512"], ["64", "-v"], []]  # task4 tests argc: none


def test_what_documents_no_command_line(tmp_path: Path) -> None:
    """Placeholders, compile lines, another binary, a runner before a bare name, a file that is not
    there, an unknown variable and a non-run Makefile target document nothing."""
    _write(tmp_path, {
        "r/a/prog.cu": "int main(int argc, char** argv) { return atoi(argv[1]); }\n",
        "r/a/README.md": "./prog N\n./prog <n>\nnvcc -o prog prog.cu\n./prog2 5\nmpirun -np 2 prog 8\n"
                         "./prog input.txt\n",
        "r/a/go.sh": "./prog $UNSET\n",
        "r/a/Makefile": "build:\n\t./prog 3\n",
    })
    top = tmp_path / "r"
    assert corpus.documented_args(top / "a/prog.cu", top) is None
    (top / "a/input.txt").write_text("1\n")
    assert corpus.documented_args(top / "a/prog.cu", top) == ["input.txt"]  # once the file is there
