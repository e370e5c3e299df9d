"""Which standard names the emulator's runtime headers make unusable as a program's globals.

A CUDA program with `using namespace std;` and a global named like a standard function or type
(`int size;`, `__device__ unsigned count;`) compiles with nvcc when nvcc's own headers do not
declare that name in std, and fails (`reference to 'size' is ambiguous`, or a redeclaration) when
they do. `port emulate` force-includes its runtime (emu_runtime.h) into every translation unit, so
whatever standard headers the runtime includes count the same way (docs/emulate.md, "Standard
names in the program's global lookup"). This writes one translation unit with a global per name
below and `using namespace std;`, compiles it with g++ and the runtime as `port emulate` does
(syntax only, warp 32) and, when nvcc is on PATH, with nvcc; it prints the names that fail with
the runtime but not with nvcc.

    python bench/emulate_std_names.py [--no-nvcc] [--runtime DIR]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# standard names a program may well use for a global: algorithms, containers, functors, helpers
NAMES = (
    "size data empty vector string array mutex function hash less greater plus minus multiplies divides modulus "
    "negate equal_to not_equal_to ref cref tie allocator count find sort reverse transform search merge unique "
    "partition replace rotate generate max_element min_element accumulate iota map set list deque queue stack pair "
    "tuple get move swap min max copy fill distance begin end next prev advance thread atomic bitset optional "
    "variant any span complex valarray shared_ptr unique_ptr make_pair make_tuple forward declval greater_equal "
    "less_equal logical_and logical_or logical_not bit_and bit_or bit_xor bind invoke mem_fn not_fn unordered_map "
    "unordered_set lock_guard unique_lock condition_variable future promise chrono ratio numeric_limits "
    "initializer_list exchange clamp gcd lcm abs size_t byte ostream istream cout cin endl equal all_of any_of "
    "none_of for_each lower_bound upper_bound binary_search includes mismatch is_sorted nth_element heap make_heap "
    "push_heap pop_heap shuffle sample reduce inner_product partial_sum adjacent_difference exclusive_scan "
    "inclusive_scan"
).split()
_GXX = re.compile(r"(?:reference to ‘(\w+)’ is ambiguous|‘int (\w+)’ redeclared|‘(\w+)’ was declared"
                  r"|conflicting declaration ‘int (\w+))")
_NVCC = re.compile(r'(?:"(\w+)" is ambiguous|incompatible with [\w ]*"(\w+)")')


def program(names: list[str]) -> str:
    uses = "".join(f"  s += {n};\n" for n in names)
    return ("#include <cstdio>\nusing namespace std;\n" + "".join(f"int {n} = 1;\n" for n in names)
            + f"int main() {{\n  int s = 0;\n{uses}  printf(\"%d\\n\", s);\n  return 0;\n}}\n")


def failing(output: str, pattern: re.Pattern[str]) -> set[str]:
    return {next(g for g in m.groups() if g) for m in pattern.finditer(output)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runtime", type=Path, default=Path(__file__).resolve().parents[1] / "porting/emulate/runtime")
    ap.add_argument("--no-nvcc", action="store_true", help="count every name that fails with the runtime")
    args = ap.parse_args()
    if not (args.runtime / "emu_runtime.h").is_file():
        ap.error(f"--runtime {args.runtime}: no emu_runtime.h there")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "names.cu"
        src.write_text(program(NAMES))
        gxx = subprocess.run(["g++", "-std=c++17", "-DEMU_WARP=32", "-fsyntax-only", "-I",
                              str(args.runtime / "include"), "-I", str(args.runtime), "-include", "emu_runtime.h",
                              "-x", "c++", str(src)], capture_output=True, text=True)
        emu = failing(gxx.stderr, _GXX)
        nvcc: set[str] = set()
        if not args.no_nvcc and shutil.which("nvcc"):
            done = subprocess.run(["nvcc", "-std=c++17", "-c", str(src), "-o", str(Path(tmp) / "names.o")],
                                  capture_output=True, text=True)
            nvcc = failing(done.stdout + done.stderr, _NVCC)
        elif not args.no_nvcc:
            print("nvcc not on PATH: every name that fails with the runtime is listed", file=sys.stderr)
    only = sorted(emu - nvcc)
    print(f"{len(NAMES)} names: {len(emu)} fail with the runtime, {len(nvcc)} with nvcc; "
          f"{len(only)} with the runtime only: {' '.join(only)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
