"""Header-based rules degrade to a stated skip without headers; the corpus scorer catches an
unlabelled finding, a stale label and a missed hazard (so test_corpus.py can fail)."""

from __future__ import annotations

from pathlib import Path

from porting.audit.evaluate import evaluate
from porting.audit.findings import Finding
from porting.audit.scan import audit_paths
from porting.audit.symbols import SymbolSets

GOLDEN = Path(__file__).parent / "golden"


def test_without_headers_the_header_rules_are_skipped_and_said_so() -> None:
    sets = SymbolSets(problems=("cuda-unmapped: no CUDA toolkit headers (set CUDA_HOME); the rule was skipped",))
    result = audit_paths([GOLDEN / "cuda_unmapped.cu"], jobs=1, sets=sets)
    assert "cuda-unmapped" not in {f.rule for f in result.findings}
    assert any("no CUDA toolkit headers" in p for p in result.problems)


def test_a_cuda_name_the_headers_declare_is_reported_only_then(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    src.write_text("void f() { cudaMadeUpButDeclared(0); cudaNotDeclared(0); }\n")
    sets = SymbolSets(cuda=frozenset({"cudaMadeUpButDeclared"}), rocm=frozenset({"hipMalloc"}))
    found = {(f.rule, f.symbol) for f in audit_paths([src], jobs=1, sets=sets).findings}
    assert found == {("cuda-unmapped", "cudaMadeUpButDeclared")}


def _finding(path: Path, line: int, rule: str) -> Finding:
    return Finding(str(path), line, 1, rule, "warning", "m", "s", "x")


def test_scorer_flags_unlabelled_stale_and_missed(tmp_path: Path) -> None:
    (tmp_path / "labels.toml").write_text(
        '[[finding]]\nfile = "a.cu"\nline = 1\nrule = "warp-size-literal"\nreal = true\nwhy = "lane math"\n\n'
        '[[finding]]\nfile = "a.cu"\nline = 9\nrule = "warp-mask-32bit"\nreal = false\nwhy = "gone"\n')
    (tmp_path / "hazards.toml").write_text(
        '[[hazard]]\nfile = "a.cu"\nline = 1\nclass = "lane-math"\nwhy = "x"\n\n'
        '[[hazard]]\nfile = "a.cu"\nline = 5\nclass = "mask"\nwhy = "y"\n')
    ev = evaluate(tmp_path, [_finding(tmp_path / "a.cu", 1, "warp-size-literal"),
                             _finding(tmp_path / "a.cu", 3, "ballot-32bit")])
    assert ev.unlabelled == [("a.cu", 3, "ballot-32bit")]
    assert ev.stale_labels == [("a.cu", 9, "warp-mask-32bit")]
    assert ev.missed == [("a.cu", 5, "mask")] and ev.recall() == 0.5
    assert ev.precision("warp-size-literal") == 1.0
