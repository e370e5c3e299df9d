"""Read `mutmut results --all true` on stdin; print killed/total and the score per module given
as arguments (paths), then the survivors. Used by ci/mutation."""

from __future__ import annotations

import re
import sys
from collections import Counter

LINE = re.compile(r"^\s*([\w.]+)__mutmut_\d+:\s*(\w[\w ]*)$")


def main(paths: list[str]) -> int:
    modules = {p[:-3].replace("/", "."): p for p in paths}
    counts: dict[str, Counter[str]] = {m: Counter() for m in modules}
    survivors: list[str] = []
    for raw in sys.stdin:
        m = LINE.match(raw.rstrip())
        if not m:
            continue
        name, status = m.group(1), m.group(2).strip()
        module = next((mod for mod in modules if name.startswith(mod + ".")), None)
        if module is None:
            continue
        counts[module][status] += 1
        if status != "killed":
            survivors.append(f"{raw.strip()}")
    for module, c in counts.items():
        total = sum(c.values())
        if not total:  # mutmut mutates code inside functions only: a module of tables has none
            print(f"{modules[module]}: no mutants (no functions)")
            continue
        score = c["killed"] / total if total else 0.0
        other = ", ".join(f"{n} {s}" for s, n in sorted(c.items()) if s != "killed")
        print(f"{modules[module]}: {c['killed']}/{total} killed, score {score:.1%}" + (f" ({other})" if other else ""))
    for s in survivors:
        print("  not killed:", s)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
