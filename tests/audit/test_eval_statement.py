"""bench/eval_audit_fresh.py matches a listed hazard to a finding by statement, not by line: a
ballot whose call sits on the line after `amask =` is one statement, so a finding on either line
names it; a finding on the next statement does not."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "eval_audit_fresh.py"
_spec = importlib.util.spec_from_file_location("eval_audit_fresh", BENCH)
assert _spec and _spec.loader
evaluate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(evaluate)

SRC = """\
__global__ void k(int *out, int v) {
  unsigned int done =
      __ballot_sync(0xffffffffu,
                    v > 0);          // one statement over lines 2-4
  for (int i = 0;
       i < 4; i++) {                 // the for header is one statement (its ';' are in parentheses)
    out[i] = done;
  }
#define W 32
  out[W] = 1;
}
"""


def test_a_multi_line_statement_maps_to_its_first_line() -> None:
    first = evaluate.statement_lines(SRC)
    assert first[2] == first[3] == first[4] == 2
    assert first[5] == first[6] == 5
    assert first[7] == 7 and first[9] == 9 and first[10] == 10
    assert first[1] == 1 and 1 != first[2]


def test_a_hazard_is_named_by_a_true_finding_on_any_line_of_its_statement(tmp_path, monkeypatch) -> None:
    src = tmp_path / "lib" / "k.cu"
    src.parent.mkdir()
    src.write_text(SRC)

    class F:
        def __init__(self, line: int) -> None:
            self.path, self.line, self.rule = str(src), line, "ballot-32bit"

    class R:
        findings = [F(2), F(7)]

    monkeypatch.setattr(evaluate, "audit_paths", lambda paths, jobs: R())
    lab = {"source": "lib", "file": "k.cu", "rule": "ballot-32bit", "half": "holdout"}
    data = {"finding": [{**lab, "line": 2, "real": True}, {**lab, "line": 7, "real": False}],
            "hazard": [{"source": "lib", "file": "k.cu", "line": 3, "half": "holdout"},   # same statement as 2
                       {"source": "lib", "file": "k.cu", "line": 6, "half": "holdout"},   # for header: no finding
                       {"source": "lib", "file": "k.cu", "line": 7, "half": "holdout"}]}  # finding labelled FALSE
    s = evaluate.score(tmp_path, "holdout", data)
    assert s["hazards_named"] == 1
    assert s["missed"] == [("lib", "k.cu", 6), ("lib", "k.cu", 7)]
