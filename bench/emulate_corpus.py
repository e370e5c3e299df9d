"""Run `port emulate` over a checkout of NVIDIA's cuda-samples and tally the verdicts.

The corpus is not part of this repository (its code is never committed): point --samples at a
checkout (the README's figures: NVIDIA/cuda-samples c94ff366). The programs are chosen by rule,
before looking at any result: every sample directory of the four kernel-centred categories
(0_Introduction, 2_Concepts_and_Techniques, 3_CUDA_Features, 6_Performance); its sources are
the directory's .cu/.cpp files that no other file there #includes. The programs are split into
two halves by the parity of the first byte of sha256(directory name): "tune" (even) is the half
the emulator was improved on, "eval" (odd) the half reported untouched.

    .venv/bin/python bench/emulate_corpus.py --samples DIR [--static] [--half tune|eval|all]
        [--timeout 120] [--out DIR] [--json results.json]

--summarize A.json B.json merges runs (a later file wins per program) and prints the verdict
rate per half, the refusals grouped by class and every divergence.
--static only runs the refusal scan (porting.emulate.refuse) and groups refusals by feature;
without it each program goes through `port emulate --json` and is counted by exit status:
0 same / 1 diverged (judged), 2 refused or not built, 3 inconclusive (timeout).

--hecbench DIR takes the second suite instead: a checkout of zjin-lcf/HeCBench (the README's
figures: f27000a5). Its rule, fixed before any run: a program is a src/*-cuda directory whose
Makefile names its sources (`source = ...`) and whose `run:` recipe is `[$(LAUNCHER)]
./$(program) ARGS` with plain ARGS (no shell syntax, no `$`, no path out of the directory); it
is built with the Makefile's -I/-D flags that name no make variable, plus -I src/include, and
run with ARGS in its own directory. Among the candidates that pass the refusal scan, those whose
files use a warp intrinsic (WARP_INTRINSIC) form the "warp" stratum, the others "plain"; from
each stratum the --per-stratum (20) with the smallest sha256("select:" + name) are chosen. The
tune/eval split is the same parity rule as for the samples. `--hecbench DIR --static` scans every
candidate and prints the refusal table by feature and the chosen list.

--teaching DIR takes the third suite: teaching repositories whose programs are meant to be run
as they are, with a test-sized default input (DIR holds one checkout per repository, named
owner+name; the README's figures name each commit). Its rule, fixed and committed before any
run: the repositories are TEACHING_REPOS (books, courses and blog posts that teach CUDA, chosen
for that and for holding warp-intrinsic programs, before any of them was run); a program is a
.cu file that defines main(), with the .cu/.cpp files of its directory that define no main()
and that no file there #includes; it is built with -I its directory and -I every directory
named common/Common/include/inc beside one of its ancestors inside the repository, and run with
no arguments in its own directory, --timeout 60. No refusal scan selects: a program that uses a
refused feature counts as refused. Its stratum is "warp" when a file it reaches by #include "..."
uses a warp intrinsic (WARP_INTRINSIC), else "plain"; from each stratum the --per-stratum (20)
with the smallest sha256("teach:" + name) are chosen (name = owner+repo/path of the main file);
tune/eval split by the same parity rule as the others.

--fresh DIR takes the fourth suite, chosen (2026-12-07 10:40 UTC) and committed before any of
its programs was run, from repositories never used here: FRESH_REPOS, found with the stored
index's repository search for CUDA optimisation tutorials and book examples ("how-to-optim",
"How_to_optimize", "cuda-by-example", "parallel-computing-cuda"), the ones with most stored
files whose programs are standalone .cu files (DIR holds one checkout per repository, named
owner+name; the README's figures name each commit). The program rule, strata and split are the
teaching suite's (same -I rule, no arguments, run in its own directory), with the salt
"fresh:" instead of "teach:"; the timeout is the script's default (--timeout 120).

--fifth DIR takes the fifth suite. Its search rule, written and committed (2026-12-07 13:46 UTC, 746be35)
before any repository was searched for it: the stored index's find_repos for each of the name
fragments "cuda-tutorial", "cuda_tutorial", "cuda-course", "cuda-exercises", "cuda-examples",
"learn-cuda", "cuda-learning", "gpu-programming", "cuda-practice", "cuda-notes"; from the union,
drop every repository used here before (named in README.md, docs/, tests/audit/ or bench/, as
owner/name or owner+name, or mirrored under /work/.mirror: the four emulate suites and the audit
corpora); order the rest by the index's file_versions, most first (ties by name); fetch each in
that order and keep it when its snapshot has at least two programs by the teaching rule; stop
as soon as the kept repositories hold at least 20 candidates of each stratum and at least five
repositories are kept. Program rule, strata and split are the teaching suite's (no arguments,
run in its own directory), salt "fifth:"; timeout 120 s. The kept repositories and their
commits are FIFTH_REPOS and the README's figures; nothing of them is read or run beyond what
this rule needs before the one run of both halves.
Added at 13:48 UTC, before any program was run, on seeing that kept repositories hold copies of
earlier suites' files (Aayushongit/cuda-learning holds a copy of Infatoshi/cuda-course; skchoe's
holds old CUDA SDK samples): a program whose main file's git blob hash is the hash of a .cu/.cuh
file in any repository used before (--exclude-blobs FILE: `git ls-tree -r HEAD` of every other
repository under /work/.mirror, 5,427 hashes) is dropped before the strata are counted. Applied:
xiangzhang-coding/cuda-learning-site, youyun8/gpu-programming-notes and JatinKhare/cuda-course
have no snapshot (skipped); sskhan67 4, linjunhui 38, skchoe 25 (59 less 34 copies), Aayushongit
89 (91 less 2), gau-nernst 2, psmarter 43, ENCCS 23, PacktPublishing excluded (third suite),
nambn007 no snapshot, gokayfem, csc-training/high-level, SinaHkz none, namespacemarcus 11,
Animesh-roy100 no snapshot, mlc-ai, csc-training/portable, KZelab, Wisc-HCI none, LeoYangXY 72:
warp candidates 21 then (plain 218+), so the search stopped there. FIFTH_REPOS holds the nine
kept.

--sixth DIR takes the sixth suite. Its rule, written and committed (2026-12-07 17:09 UTC, e9a2e5e) before any
repository was searched for it and before any of its programs ran:
Search. The stored index's find_repos for each of these name fragments, in this order (four kinds
of public CUDA code none of the earlier suites drew from: university course assignments, book
examples, benchmark suites, optimisation blogs): "cs344", "ece408", "cs179", "cme213", "15418",
"15-418", "cs149", "cudahandbook", "pmpp", "massively-parallel", "cuda-programming", "polybench",
"parboil", "shoc", "mixbench", "microbench", "cuda-bench", "sgemm", "cuda-reduction",
"parallel-reduction", "softmax", "cuda-kernels". Drop every repository used here before: named
in README.md, docs/, tests/audit/ or bench/ (as owner/name or owner+name) or mirrored under
/work/.mirror before this search (102 entries, the list's sha256 45348cad...). Order each
fragment's remaining repositories by the index's file_versions, most first (ties by name), and
take them round-robin: the first fragment's first, the second fragment's first, ..., then each
fragment's second, and so on (a repository already taken under an earlier fragment is skipped).
Fetch each in that order and keep it when its snapshot holds at least two candidates; stop as
soon as the kept repositories hold at least 500 candidates, at least 60 of the warp stratum by
the teaching rule's text reach, and at least ten repositories are kept, or after 40 repositories
were tried (one with no snapshot counts as tried).
Candidates. The teaching suite's program rule (a .cu file that defines main(), with the
.cu/.cpp files of its directory that define no main() and that no file there #includes), with
one change to the include rule that the fifth suite tripped on: after the -I list of that rule
(its directory, then common/Common/include/inc beside an ancestor inside the repository), a
header the preprocessor reports missing (`g++ -MM -MG` with the emulator's own flags, either
width; quoted or angled, only what an active branch includes) is resolved by a unique match
inside the same repository: the files whose repository path ends with "/" + the name as
written; when exactly one exists, the directory that makes DIR/name that file is appended to
-I, and the scan repeats (at most eight rounds). No match or two or more: left missing, and the
build names it. A program whose main file is a byte copy (git blob hash) of a .cu/.cuh file of a
repository mirrored here before this search (--exclude-blobs: `git ls-tree -r` of each, 6,152
hashes, the list's sha256 ad8eedb2...) is dropped, and so is one whose main file's blob is that
of an earlier candidate of the suite (kept order, then path order): forks and copies count once.
(a) Coverage: the refusal scan (--static) of every candidate, with the code of the time of the
run; stratum "warp" when a file the preprocessor reads for it (either width; not system or
emulator headers) uses a warp intrinsic (WARP_INTRINSIC), else "plain".
(b) Verdicts, conditional on (a): from each stratum, walk the candidates in the order of
sha256("sixth:" + name) and take one when the refusal scan of main at a91fc4b refuses nothing
and `nvcc -arch=sm_80 -c MAIN -o OBJ` (CUDA 13.0, the program's -I/-D flags, then cuda-samples
c94ff366's Common/ for the helper headers the emulator provides; 180 s) succeeds; stop at 20.
Each runs once with no arguments in its own directory, timeout 120 s, both widths in parallel;
tune/eval by the parity rule. SIXTH_REPOS holds the kept repositories and their commits.
Amended at 17:15 UTC, after the search under the rule above ended at its cap and before any
candidate was scanned or run: the 40 tries held 24 repositories with no .cu file (the fragments
also name operating-systems courses, game projects, "shock" and "parboiled" repositories), 6
with no snapshot, and 9 kept with 271 candidates, 14 of the warp stratum, fewer than the 20 (b)
needs. The cap becomes 200 tries; the round-robin goes on where it stopped, with the same stop
condition. Ties of file_versions are ordered by name as Python sorts strings (case-sensitive).
Usage: `--sixth DIR --exclude-blobs FILE --static --json SCAN` scans every candidate (a); with
`--scan SCAN` the programs keep the -I lists SCAN resolved, so `--static --scan SCAN` scans the
same programs with today's emulator, and `--scan SCAN --samples-common DIR --nvcc-cache FILE
[--list]` makes the selection (b) and runs it.

--seventh DIR takes the seventh suite: the sixth's design (same candidate rule, include
resolution, copy rule, strata, (a) and (b), same options), another population, salt "seventh:".
Its rule, written and committed (2026-12-07 20:25 UTC, 289a4c5) before any repository was searched for it
and before any of its programs ran:
Search. The stored index's find_repos for each of these name fragments, in this order (three
kinds of public CUDA code, interleaved: course labs and homework, implementations of one kernel
family, personal study repositories; no fragment of an earlier suite): "cuda-homework",
"prefix-sum", "cuda-study", "cuda-lab", "flash-attention", "cuda-demo", "cuda-assignment",
"layernorm", "cuda-code", "gpu-computing", "histogram", "cuda-playground", "hpc-course",
"radix-sort", "cuda-basics", "parallel-programming", "matmul", "cuda-intro", "warp-shuffle",
"nbody", "gemm", "stencil". Drop every repository used here before: named in README.md, docs/,
tests/audit/ or bench/ (as owner/name or owner+name, case-insensitive) or mirrored under
/work/.mirror before this search (295 repositories, the sixth suite's 200 tries among them; the
list of 296 entries with the mirror's fetch.sh has sha256 faef4553...). Order each fragment's
remaining repositories by the index's file_versions, most first (ties by name as Python sorts
strings), and take them round-robin: the first fragment's first, the second fragment's first,
..., then each fragment's second, and so on (a repository already taken under an earlier fragment
is skipped). Fetch each in that order and keep it when its snapshot holds at least two candidates
after the copy rule; stop as soon as the kept repositories hold at least 400 candidates, at least
60 of the warp stratum by the teaching rule's text reach, and at least ten repositories are kept,
or after 160 repositories were tried (one with no snapshot counts as tried).
Candidates, copies, strata and (a): the sixth suite's rule, word for word, with the blob list of
the 295 repositories mirrored before this search (--exclude-blobs: `git ls-tree -r HEAD`'s .cu/.cuh
blobs, 9,256 hashes, sha256 20e823a9...).
(b) Verdicts, conditional on (a): from each stratum, walk the candidates in the order of
sha256("seventh:" + name) and take one when the saved refusal scan (--scan, the code at the time
the selection is made, its commit recorded) refuses nothing in it and `nvcc -arch=sm_80 -c MAIN`
(CUDA 13.0, the program's -I/-D flags, then cuda-samples c94ff366's Common/; 180 s) succeeds; stop
at 20. Each runs once with no arguments in its own directory, timeout 120 s, both widths in
parallel; tune/eval by the parity rule. The selection is committed (names only) before any of
the 40 runs. SEVENTH_REPOS holds the kept repositories and docs/emulate.md their commits.
Applied (20:26-20:31 UTC): the search stopped at try 94 by its stop condition, with 22 kept, 707
candidates after the copy rule, 62 of the warp stratum by text reach (17 tries had no snapshot, 38
no .cu file); docs/emulate_seventh_search.txt lists every try with its commit and counts.

--eighth DIR takes the eighth suite: the sixth's design (same candidate rule, include resolution,
copy rule, strata, (a) and (b), same options), another population, salt "eighth:", and one change
for the concentration the seventh met (one repository held 381 of its 707 candidates): a
per-repository cap. Its rule, written and committed (2026-12-07 23:39 UTC, the commit that adds
this paragraph) before any repository was searched for it and before any of its programs ran:
Search. The stored index's find_repos for each of these name fragments, in this order (three
kinds of public CUDA code, interleaved: workshops, trainings and personal projects; scientific
simulation programs; data-parallel primitives; no fragment of an earlier suite, nor one that
contains or is contained in one): "gpgpu", "mandelbrot", "spmv", "cuda-workshop", "monte-carlo",
"bitonic", "cuda-training", "game-of-life", "transpose", "cuda-project", "jacobi",
"convolution", "cuda-challenge", "heat-equation", "kmeans", "cuda-experiments",
"lattice-boltzmann", "topk", "cuda-101", "raytracer", "cuda-optimization", "sparse-matrix".
Drop every repository used here before: named in README.md, docs/, tests/audit/ or bench/ (as
owner/name or owner+name, case-insensitive), mirrored under /work/.mirror before this search, or
claimed in /work/wt/CORPUS_CLAIMS by another session when it is read (the list is written to
/tmp/i25l/used_repos.txt and its size and sha256 go into docs/emulate.md). Order each fragment's
remaining repositories by the index's file_versions, most first (ties by name as Python sorts
strings), and take them round-robin: the first fragment's first, the second fragment's first,
..., then each fragment's second, and so on (a repository already taken under an earlier fragment
is skipped). Fetch each in that order and keep it when its snapshot holds at least two candidates
after the copy rule; stop as soon as the kept repositories hold at least 400 candidates after the
cap, at least 60 of them of the warp stratum by the teaching rule's text reach, and at least ten
repositories are kept, or after 160 repositories were tried (one with no snapshot counts as tried).
Candidates, copies, strata and (a): the sixth suite's rule, word for word, with the blob list of
the repositories mirrored before this search (--exclude-blobs: `git ls-tree -r HEAD`'s .cu/.cuh
blobs), then the cap: a repository contributes at most EIGHTH_CAP (75) candidates, its first 75
in the order of sha256("eighth-cap:" + name) (after the copy rule; the others are counted in the
search log and not scanned), so no repository holds more than a fifth of a 400-candidate suite.
(b) Verdicts, conditional on (a): from each stratum, walk the capped candidates in the order of
sha256("eighth:" + name) and take one when the saved refusal scan (--scan, the code at the time the
selection is made, its commit recorded) refuses nothing in it and `nvcc -arch=sm_80 -c MAIN` (CUDA
13.0, the program's -I/-D flags, then cuda-samples c94ff366's Common/; 180 s) succeeds; stop at 20.
Each runs once with no arguments in its own directory, timeout 120 s, both widths in parallel;
tune/eval by the parity rule. The selection is committed (names only) before any of the 40 runs.
EIGHTH_REPOS holds the kept repositories, docs/emulate_eighth_search.txt every try with its commit.
Amended at 23:49 UTC, after the search under the rule above ended at its cap of 160 tries and before
any candidate was scanned or run: the 160 tries kept 30 repositories with 545 candidates after the
copy rule and the cap (which bound none: the largest holds 58), but only 12 of the warp stratum by
text reach, fewer than the 20 (b) needs (the simulation and primitive fragments name mostly
repositories without CUDA: 22 tries had no snapshot, most others no .cu file). A second round
follows, the same way (same drop list, with the first round's tries added; same round-robin, copy
rule, cap and stop condition, counted over both rounds), over fragments of code that reduces or
normalises per warp, in this order: "days-of-cuda", "flash-attn", "rmsnorm", "cuda-reduce",
"warp-level", "llm-cuda", "gpu-kernels", "cuda-mode"; it stops by the stop condition or after 80
more tries (240 in all).
Applied (23:39-23:53 UTC): the first round ended at its cap (try 160: 30 kept, 545 candidates, 12
warp); the second stopped by the stop condition at try 169 (33 kept, 706 candidates after the copy
rule and the cap, 91 of the warp stratum by text reach, 75 of them luatil/100-days-of-cuda's).
"""

from __future__ import annotations

import argparse
import collections
import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

CATEGORIES = ("0_Introduction", "2_Concepts_and_Techniques", "3_CUDA_Features", "6_Performance")
_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
# a warp-level operation: the stratum of half the HeCBench selection (the issue: half with warp intrinsics)
WARP_INTRINSIC = re.compile(r"\b(?:__shfl\w*|__ballot\w*|__any_sync|__all_sync|__any|__all|__activemask|__syncwarp"
                            r"|__match_\w+_sync|__reduce_\w+_sync|tiled_partition|coalesced_threads)\s*[(<]")


@dataclass
class Prog:
    name: str
    sources: list[Path]
    cwd: Path
    include_dirs: list[Path] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    stratum: str = ""


def programs(samples: Path) -> list[Prog]:
    found = []
    common = samples / "Common"
    for cat in CATEGORIES:
        for d in sorted(p for p in (samples / "Samples" / cat).iterdir() if p.is_dir()):
            files = sorted(p for p in d.iterdir() if p.suffix in (".cu", ".cpp"))
            if not files:
                continue
            included = {Path(name).name for p in d.iterdir() if p.is_file()
                        for name in _INCLUDE.findall(p.read_text(errors="replace"))}
            found.append(Prog(d.name, [f for f in files if f.name not in included], d, [common]))
    return found


_SHELL = re.compile(r"[$;|&<>`\\'\"]|\.\./")


def _make_value(text: str, var: str) -> str | None:
    """The value of ``var = ...`` (continuation lines joined), or None."""
    m = re.search(rf"^{var}\s*:?=\s*((?:.*\\\n)*.*)$", text, re.M)
    return m.group(1).replace("\\\n", " ") if m else None


def _top_level_flags(text: str) -> list[str]:
    """-I/-D flags of CFLAGS lines outside ifeq/ifneq blocks (the DEBUG and compiler variants)."""
    flags, depth = [], 0
    for line in text.replace("\\\n", " ").splitlines():  # a continued line is one line
        word = line.strip().split(" ", 1)[0]
        if word in ("ifeq", "ifneq", "ifdef", "ifndef"):
            depth += 1
        elif word == "endif":
            depth -= 1
        elif depth == 0 and re.match(r"\s*CFLAGS\s*(?:\+|:)?=", line):
            tokens = line.split("=", 1)[1].split()
            flags += [t for t in tokens if t.startswith(("-I", "-D")) and "$" not in t and len(t) > 2]
    return flags


def hecbench_candidates(root: Path) -> list[Prog]:
    """Every src/*-cuda directory that satisfies the rule in the module docstring."""
    found = []
    for d in sorted((root / "src").glob("*-cuda")):
        make = d / "Makefile"
        if not make.is_file():
            continue
        text = make.read_text(errors="replace")
        source = _make_value(text, "source")
        program = _make_value(text, "program") or "main"
        recipe = re.search(r"^run\s*:.*\n\t(.*)$", text, re.M)
        if source is None or recipe is None or "$" in source:
            continue
        command = recipe.group(1).replace("$(LAUNCHER)", "").replace("$(program)", program.strip()).strip()
        words = command.split()
        if not words or words[0] != f"./{program.strip()}" or _SHELL.search(command):
            continue
        sources = [d / name for name in source.split()]
        if not all(s.is_file() for s in sources):
            continue
        flags = _top_level_flags(text)
        includes = [(d / f[2:]).resolve() for f in flags if f.startswith("-I")]
        found.append(Prog(d.name, sources, d, [root / "src" / "include", *[i for i in includes if i.is_dir()]],
                          [f[2:] for f in flags if f.startswith("-D")], words[1:]))
    return found


TEACHING_REPOS = ("olcf+cuda-training-series", "NVIDIA-developer-blog+code-samples",
                  "PacktPublishing+Learn-CUDA-Programming", "deeperlearning+professional-cuda-c-programming",
                  "brucefan1983+CUDA-Programming", "Tony-Tan+CUDA_Freshman", "CoffeeBeforeArch+cuda_programming",
                  "Infatoshi+cuda-course", "PaddleJitLab+CUDATutorial", "RussWong+CUDATutorial")
FRESH_REPOS = ("BBuf+how-to-optim-algorithm-in-cuda", "Liu-xiandong+How_to_optimize_in_GPU",
               "TZHelloWorld+how-to-optim-in-cuda", "CodedK+CUDA-by-Example-source-code-for-the-book-s-examples-",
               "the-other-mariana+parallel-computing-cuda", "douyixuan+cuda-by-example")
FIFTH_REPOS = ("sskhan67+GPGPU-Programming-", "linjunhui+cuda-learning", "skchoe+2012.Functional-GPU-Programming",
               "Aayushongit+cuda-learning", "gau-nernst+learn-cuda", "psmarter+CUDA-Practice", "ENCCS+gpu-programming",
               "namespacemarcus+CUDA-Practice", "LeoYangXY+learn-cuda-cute-triton")
# the sixth suite's kept repositories, in the order the rule tried them (commits: docs/emulate.md)
SIXTH_REPOS: tuple[str, ...] = ("eedalong+ECE408", "ArchaeaSoftware+cudahandbook",
               "leoda1+the-notes-of-cuda-programming", "jarnesino+cuda-reduction-optimization",
               "p4tare+parallel-reduction-benchmark", "prince71753+CME213-Final-Project", "kx0318+cudahandbook",
               "R100001+Programming-Massively-Parallel-Processors", "adsc-hls+fcuda-benchmarks",
               "maxxfuu+CUDA-Kernels", "Sondringsen+cme213-project", "AdamAdli+cuda-benchmarks",
               "LessUp+sgemm-optimization", "umfranzw+cuda-reduction-example", "xinfangwu+CME213",
               "tycho+cudahandbook", "ahmet-f-gumustas+Cuda-Programming", "Jumperkables+cuda-benchmarking",
               "lmzuccarelli+cuda-kernels", "galv+cudahandbook", "IlyaNyrkov+CUDA-programming-examples-TUM-HPC",
               "abduld+Parboil", "manishmeganathan+cuda-benchcraft",
               "amanfc7+CUDA-reduction_benchmarking_and_performance_optimization", "ViperEkura+cuda-kernels",
               "EricDarve+cme213-spring-2021", "amapara27+cuda-reductions", "chongchen1999+cuda-kernels",
               "chizhang529+cme213", "marcusalenius+15-418-project",
               "rkaunismaa+Programming-Massively-Parallel-Processors",
               "ronnierahman1+absolute-beginners-guide-to-cuda-programming", "tosi2504+cuda-reductions",
               "mehulgoel873+15418-final-project", "rkaunismaa+Programming-Massively-Parallel-Processors-2",
               "gmaher+stanford-cme213.github.io", "manishklach+pmpp-cuda-study",
               "arielkantorovich+Programming-Massively-Parallel-Processors", "MaxMLang+cuda-programming-notes",
               "hello-hello-0+parallel-reduction", "pboribal+ece408proj", "qyz96+CME213")
# the seventh suite's kept repositories, in the order its rule tried them (commits: docs/emulate_seventh_search.txt)
SEVENTH_REPOS: tuple[str, ...] = ("nathan12-12+CUDA-Homework", "sdodlapati3+cuda-lab", "sand47+ME759-CUDA-Assignments",
               "Wuc127+CUDA-code", "HubertK05+cuda-basics", "laoyeche1998+cuda-homework",
               "Hyeonjoon-Nam+Cuda-Study-Journey", "gonglixue+CUDA-Assignments", "drecuk+ABM-CUDA-Basics",
               "lighttransport+gemm", "Nathanoj02+GPU-Computing-2025-256178", "arindam-bose+my-cuda-playground",
               "Obeyed+dtu-hpc-course", "riyoalfath+cuda-basics", "danboyle7+Cuda-Homework-1", "jamespud+cuda-demo",
               "matteo-dinoia+GPU-Computing-2025-258426", "gnepgnep+cuda-playground", "xhghhh+CUDA-Basics",
               "Juanxpeke+CUDA-Study", "AlfredBr+CUDA-Demos-for-Jetson-Nano", "Awe31402+cuda-code")
# the eighth suite's kept repositories, in the order its rule tried them (commits: docs/emulate_eighth_search.txt)
EIGHTH_REPOS: tuple[str, ...] = ("kimwoonggon+CUDA-Challenge", "discovery-unicamp+brkga-cuda-experiments",
               "sharifAhmd+cuda-101", "ShreySharma07+Multi-Agentic-CUDA-optimization", "Kaixhin+cuda-workshop",
               "ugovaretto-accel+cuda-training", "JTylerBoylan+cuda-projects", "cwpearson+cuda-experiments",
               "mastershin+learn-cuda-101", "jay-tux+cuda-workshop", "tpoisot+CUDA-training", "Anmol42+cuda-101",
               "Michael-Bernasconi+Sparse-Matrix-Vector-Multiplication", "mindriot101+cuda-workshop-2017",
               "UraykevoliQwQ+cuda-training-series", "HyprThrd+CUDA-101-Workshop", "UPTK-GPGPU+uptktest",
               "kashif+cuda-workshop", "tengfoonglam+cuda-training-series", "Muhammad-Shaheer12+First-CUDA-Project",
               "dantelok+cuda-challenge-100-days", "ai-nikolai+cuda-101", "3dperceptionlab+cuda-workshop-2019",
               "zerozedsc+100-days-my-cuda-training", "JiaxinLu98+CUDA-Challenge", "lcskrishna+my-cuda-experiments",
               "Akagi201+cuda-workshop", "sgiraz+CUDA-Training", "AkashWorld+CUDA-Experiments",
               "XiaofengZhu+intro-cuda-workshop", "maitiSoutrik+100-days-of-cuda", "yynscfmq+warp-level-benchmark",
               "luatil+100-days-of-cuda")
# the eighth suite's cap: a repository contributes at most this many candidates (the seventh's one
# repository held 381 of 707), its first in the order of sha256("eighth-cap:" + name)
EIGHTH_CAP = 75
# the sixth design's suites: option name -> (kept repositories, the selection's hash salt)
SIXTH_DESIGN: dict[str, tuple[tuple[str, ...], str]] = {"sixth": (SIXTH_REPOS, "sixth:"),
                                                         "seventh": (SEVENTH_REPOS, "seventh:"),
                                                         "eighth": (EIGHTH_REPOS, "eighth:")}
# the suites of that design whose rule caps each repository's candidates: option name -> (cap, salt)
DESIGN_CAP: dict[str, tuple[int, str]] = {"eighth": (EIGHTH_CAP, "eighth-cap:")}
_MAIN = re.compile(r"\bint\s+main\s*\(")
_COMMON_DIRS = ("common", "Common", "include", "inc")


def _reached(f: Path, include_dirs: list[Path], seen: set[Path]) -> None:
    """Every file f reaches by #include "..." (its own directory first, then include_dirs)."""
    if f in seen or not f.is_file():
        return
    seen.add(f)
    for name in _INCLUDE.findall(f.read_text(errors="replace")):
        for base in (f.parent, *include_dirs):
            if (base / name).is_file():
                _reached((base / name).resolve(), include_dirs, seen)
                break


def teaching_candidates(root: Path, repos: tuple[str, ...] = TEACHING_REPOS) -> list[Prog]:
    """Every program of `repos` (TEACHING_REPOS, FRESH_REPOS) by the rule in the module docstring,
    stratum set."""
    found = []
    for repo in repos:
        top = root / repo
        for f in sorted(top.rglob("*.cu")):
            if not _MAIN.search(f.read_text(errors="replace")):
                continue
            d = f.parent
            here = [p for p in sorted(d.iterdir()) if p.is_file()]
            included = {Path(n).name for p in here for n in _INCLUDE.findall(p.read_text(errors="replace"))}
            helpers = [p for p in here if p.suffix in (".cu", ".cpp") and p != f and p.name not in included
                       and not _MAIN.search(p.read_text(errors="replace"))]
            incs = [d] + [a / c for a in d.parents if a == top or top in a.parents
                          for c in _COMMON_DIRS if (a / c).is_dir()]
            prog = Prog(f"{repo}/{f.relative_to(top)}", [f, *helpers], d, incs)
            seen: set[Path] = set()
            for s in prog.sources:
                _reached(s.resolve(), incs, seen)
            warp = any(WARP_INTRINSIC.search(x.read_text(errors="replace")) for x in seen)
            prog.stratum = "warp" if warp else "plain"
            found.append(prog)
    return found


# The link rule (sixth suite's rerun on): a program's sources are its main file and, found by
# what they define, the files that define a function it declares and does not define.
_SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")
_COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
# a brace whose block still counts as file scope: extern "C" { }, namespace { }, class bodies
# (a member declared there is defined as Class::name( at file scope elsewhere)
_TRANSPARENT = re.compile(r'(?:extern\s*""|namespace(?:\s+[\w:]+)?|(?:class|struct|union)\s+\w[\w:<>, ]*'
                          r'(?:\s*:[^{;()]*)?)\s*$')
_FUNCTION = re.compile(r"\b([A-Za-z_]\w*)\s*\(([^;{}]*)\)\s*(?:const\s*)?(?:noexcept\s*)?(?:->\s*[\w:<>*& ]+)?([;{])")
_NOT_FUNCTIONS = {"if", "while", "for", "switch", "return", "sizeof", "defined", "decltype", "alignof", "static_assert",
                  "__attribute__", "__declspec", "main"}


def _file_scope(text: str) -> str:
    """``text`` without comments and literals, the insides of function bodies blanked (a call
    inside a body is no declaration); braces kept."""
    code = _COMMENT_OR_STRING.sub(lambda m: '""' if m.group(0).startswith('"') else " ", text)
    out: list[str] = []
    stack: list[bool] = []  # stack: True for a block that still counts as file scope
    for i, ch in enumerate(code):
        deep = not all(stack)
        if ch == "{":
            stack.append(not deep and bool(_TRANSPARENT.search(code[max(0, i - 200):i])))
            out.append("{" if not deep else " ")
        elif ch == "}":
            if stack:
                stack.pop()
            out.append("}" if all(stack) else " ")
        else:
            out.append(ch if not deep or ch == "\n" else " ")
    return "".join(out)


def declared_and_defined(path: Path) -> tuple[set[str], set[str]]:
    """The function names a file declares (a prototype ending in ;) and defines (a body) at file
    scope or in a class body."""
    declared: set[str] = set()
    defined: set[str] = set()
    for m in _FUNCTION.finditer(_file_scope(path.read_text(errors="replace"))):
        name = m.group(1)
        if name in _NOT_FUNCTIONS or name.isupper():  # macros called at file scope (DEFINE_X(...);)
            continue
        (defined if m.group(3) == "{" else declared).add(name)
    return declared, defined


def link_sources(p: Prog, top: Path, rounds: int = 8) -> list[Path]:
    """The link rule: to the program's main file, add the main-less source files of its repository
    (.cu .cpp .cc .cxx .c) that define a function the program's files (sources and the headers
    they reach by #include "...") declare and do not define; of several files defining one, the
    nearest to the main file (most leading directories shared) when it is the only one that near,
    else none (two variants of one function are not guessed). Repeats with the added files (at
    most ``rounds``). Replaces the directory rule, which compiled every main-less sibling (a
    truncated variant broke its neighbours) and missed definitions in other directories."""
    main = p.sources[0].resolve()
    index = _definitions(top.resolve())
    sources = [main]
    for _ in range(rounds):
        seen: set[Path] = set()
        for s in sources:
            _reached(s, p.include_dirs, seen)
        declared: set[str] = set()
        defined: set[str] = set()
        for f in seen:
            d, e = declared_and_defined(f)
            declared |= d
            defined |= e
        added = {f for name in sorted(declared - defined) for f in _nearest(index.get(name, []), main)
                 if f != main} - set(sources)
        if not added:
            break
        sources += sorted(added)
    return sources


@functools.lru_cache(maxsize=8)
def _definitions(top: Path) -> dict[str, list[Path]]:
    """Function name -> the main-less source files of ``top`` that define it."""
    index: dict[str, list[Path]] = collections.defaultdict(list)
    for f in sorted(top.rglob("*")):
        if f.suffix in _SOURCE_SUFFIXES and f.is_file() and not _MAIN.search(f.read_text(errors="replace")):
            for name in declared_and_defined(f)[1]:
                index[name].append(f.resolve())
    return index


def _nearest(files: list[Path], main: Path) -> list[Path]:
    """The one file sharing the most leading directories with ``main``, or none when two tie."""
    if not files:
        return []
    shared = {f: len(os.path.commonpath([f, main]).split(os.sep)) for f in files}
    best = max(shared.values())
    top = [f for f, n in shared.items() if n == best]
    return top if len(top) == 1 else []


# The argument rule (issue 25, after the seventh run): a program that reads argv[1] or later
# without testing argc gets the command line its own repository documents for its binary, else
# none (it then reads past argv, as it would when started bare). Documented means, searching the
# program's directory and then each parent up to the repository's top, in each directory first
# the Makefiles' run/test/check targets, then its shell scripts, then its READMEs: the first line
# that runs the binary (written as a path, `./task3`, `bin/task3`, or bare as the command's first
# word) with at least one argument, every argument a value: a number, an option (`-n`, `--size=8`)
# or a file that exists in the program's directory. Make variables set at a Makefile's top level
# and a script's variables are substituted (a loop's variable takes its first value, `$((...))` is
# evaluated), so `for i in {10..29}; do ./task3 $((2**i))` documents `./task3 1024`; a
# placeholder (`./task3 N`, `<n>`) documents nothing.
_ARGV_READ = re.compile(r"\bargv\s*\[\s*[1-9]")
_ARGC_TEST = re.compile(r"\bargc\s*(?:[<>]=?|[!=]=)|(?:[<>]=?|[!=]=)\s*argc\b|\(\s*argc\s*\)|!\s*argc\b|\bargc\s*[-?]")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_OPTION = re.compile(r"--?[A-Za-z][\w-]*(?:=[\w.,/-]+)?")
_COMMANDS = re.compile(r"\s*(?:;|&&|\|\|?|`|\$\(|\))\s*")  # a line's commands (pipes, lists, substitutions)
_REDIRECT = re.compile(r"\s(?:\d?>>?|<|&|#)")  # where a command's words end
_MAKE_ASSIGN = re.compile(r"^([A-Za-z_]\w*)\s*(?::|\?|\+)?=\s*([^$\n#]*?)\s*(?:#.*)?$", re.M)
_MAKE_TARGET = re.compile(r"^([\w.-]+)\s*:(?!=)")
_SH_ASSIGN = re.compile(r"^\s*(?:export\s+)?([A-Za-z_]\w*)=(\S*)\s*$")
_SH_FOR = re.compile(r"^\s*for\s+(?:([A-Za-z_]\w*)\s+in\s+(\S+)|\(\(\s*([A-Za-z_]\w*)\s*=\s*([^;]+);)")
_VAR = re.compile(r"\$\{?([A-Za-z_]\w*)\}?|\$\(([A-Za-z_]\w*)\)")
_ARITH = re.compile(r"\$\(\((.*?)\)\)")


def reads_argv_unchecked(main: Path) -> bool:
    """Whether the main file reads argv[1] or later and never tests argc (comments and string
    literals left out)."""
    code = _COMMENT_OR_STRING.sub(" ", main.read_text(errors="replace"))
    return bool(_ARGV_READ.search(code)) and not _ARGC_TEST.search(code)


def documented_args(main: Path, top: Path) -> list[str] | None:
    """The command line the repository at `top` documents for main's binary (the rule above), or None."""
    d = main.parent
    while True:
        for lines in _documented_lines(d):
            for line in lines:
                args = _args_for(line, main.stem, main.parent)
                if args:
                    return args
        if d == top or top not in d.parents:
            return None
        d = d.parent


def _documented_lines(d: Path) -> list[list[str]]:
    files = sorted(f for f in d.iterdir() if f.is_file())
    makes = [f for f in files if f.name in ("Makefile", "makefile", "GNUmakefile") or f.suffix == ".mk"]
    scripts = [f for f in files if f.suffix == ".sh"]
    readmes = [f for f in files if f.name.lower().startswith("readme")]
    return ([_make_run_lines(f.read_text(errors="replace")) for f in makes]
            + [_script_lines(f.read_text(errors="replace")) for f in scripts]
            + [[ln.strip().lstrip("$ ").strip("`") for ln in f.read_text(errors="replace").splitlines()]
               for f in readmes])


def _make_run_lines(text: str) -> list[str]:
    """The recipe lines of the targets named run*, test* or check*, Make variables substituted."""
    text = text.replace("\\\n", " ")
    values = {m.group(1): m.group(2) for m in _MAKE_ASSIGN.finditer(text)}
    lines, active = [], False
    for line in text.splitlines():
        target = _MAKE_TARGET.match(line)
        if target:
            active = target.group(1).lower().startswith(("run", "test", "check"))
        elif active and line.startswith("\t"):
            lines.append(_substitute(line.strip().lstrip("@-"), values))
    return [ln for ln in lines if ln is not None]


def _script_lines(text: str) -> list[str]:
    """A shell script's lines with its variables substituted as they stand at that line, a
    loop's variable at its first value."""
    values: dict[str, str] = {}
    out = []
    for line in text.splitlines():
        loop = _SH_FOR.match(line)
        if loop:
            name, items = (loop.group(1), loop.group(2)) if loop.group(1) else (loop.group(3), loop.group(4))
            first = _first_item(items.strip(), values)
            if first is not None:
                values[name] = first
            body = re.split(r"\bdo\s", line, maxsplit=1)  # `for ...; do ./prog $i; done` on one line
            line = body[1] if len(body) > 1 else ""
        assign = _SH_ASSIGN.match(line)
        if assign:
            value = _substitute(assign.group(2).strip("\"'"), values)
            if value is not None:
                values[assign.group(1)] = value
            continue
        resolved = _substitute(line.strip(), values)
        if resolved is not None:
            out.append(resolved)
    return out


def _first_item(items: str, values: dict[str, str]) -> str | None:
    brace = re.fullmatch(r"\{(-?\d+)\.\.(-?\d+)(?:\.\.-?\d+)?\}", items)
    if brace:
        return brace.group(1)
    return _substitute(items.split(";")[0], values)


def _substitute(text: str, values: dict[str, str]) -> str | None:
    """text with $((expr)), $VAR, ${VAR} and $(VAR) replaced; None when one stays unknown."""
    def arith(m: re.Match[str]) -> str:
        expr = _VAR.sub(lambda v: values.get(v.group(1) or v.group(2), "?"), m.group(1))
        expr = re.sub(r"\b([A-Za-z_]\w*)\b", lambda v: values.get(v.group(1), "?"), expr)
        return str(_arith(expr)) if re.fullmatch(r"[\d\s+\-*/%()]+", expr) else "$?"

    text = _ARITH.sub(arith, text)
    text = _VAR.sub(lambda v: values.get(v.group(1) or v.group(2), "$?"), text)
    return None if "$" in text else text


def _arith(expr: str) -> int:
    """Integer arithmetic of + - * / % ** and parentheses (the shell's $((...)))."""
    import ast
    import operator

    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
           ast.Div: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}

    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return ops[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        raise ValueError(expr)

    return ev(ast.parse(expr, mode="eval").body)


def _args_for(line: str, binary: str, cwd: Path) -> list[str] | None:
    """The arguments when a command of `line` runs `binary` with values only (the rule above), else None."""
    for command in _COMMANDS.split(line):
        words = _REDIRECT.split(f" {command} ", 1)[0].split()
        if words and words[0] in ("do", "then", "else"):
            words = words[1:]
        for i, word in enumerate(words):
            named = any(word == binary + ext and i == 0 or word.endswith("/" + binary + ext)
                        for ext in ("", ".out", ".exe"))
            if not named or (i > 0 and words[i - 1] == "-o"):
                continue
            args = words[i + 1:]
            if args and all(_NUMBER.fullmatch(a) or _OPTION.fullmatch(a) or _is_file(cwd, a) for a in args):
                return args
            break
    return None


def _is_file(cwd: Path, name: str) -> bool:
    path = (cwd / name).resolve()
    return (path == cwd.resolve() or cwd.resolve() in path.parents) and path.is_file()


def apply_argument_rule(progs: list[Prog], root: Path) -> None:
    """Give each program that reads argv unchecked its documented command line (or none)."""
    for p in progs:
        main = p.sources[0]
        if reads_argv_unchecked(main):
            p.args = documented_args(main, root / p.name.split("/", 1)[0]) or []
            print(f"arguments: {p.name}: {' '.join(p.args) if p.args else '(none documented)'}")


def git_blob(path: Path) -> str:
    """The git blob hash of a file (what `git ls-tree` lists for it in any repository)."""
    data = path.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def drop_copies(cands: list[Prog], blobs_file: Path | None, within: bool = False) -> list[Prog]:
    """The candidates whose main file is no byte copy of a file in a repository used before;
    with ``within``, nor of an earlier candidate's main file (the order given: forks count once)."""
    used = set(blobs_file.read_text().split()) if blobs_file is not None else set()
    kept = []
    for p in cands:
        blob = git_blob(p.sources[0])
        if blob in used:
            continue
        if within:
            used.add(blob)
        kept.append(p)
    return kept


def missing_headers(p: Prog) -> list[str]:
    """The headers the emulator's preprocessor cannot find for p at either width, as written
    (``-M -MG``: quoted and angled, only those an active branch includes; a missing header's own
    includes appear once it is found)."""
    from porting.emulate import build
    tool = build.Toolchain()
    missing: dict[str, None] = {}
    for warp in (32, 64):
        cmd = [tool.cxx, f"-std={tool.std}", f"-DEMU_WARP={warp}", *build._include_flags(p.include_dirs),
               *[f"-D{d}" for d in p.defines], "-include", "emu_runtime.h", "-x", "c++", "-M", "-MG",
               *map(str, p.sources)]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd="/")
        except subprocess.TimeoutExpired:
            return []
        # a header found is listed by the absolute path it was found at (sources and -I are absolute)
        missing.update((n, None) for n in build._make_deps(done.stdout) if not n.startswith("/"))
    return list(missing)


def _header_index(top: Path) -> dict[str, list[str]]:
    """Every file of a repository by basename, as "/" + its path inside the repository."""
    index: dict[str, list[str]] = collections.defaultdict(list)
    for f in top.rglob("*"):
        if f.is_file():
            index[f.name].append("/" + f.relative_to(top).as_posix())
    return index


def resolve_includes(p: Prog, top: Path, index: dict[str, list[str]], rounds: int = 8) -> list[str]:
    """Append to p's -I list the directory that makes each missing header's name, as written,
    the one file of the repository whose path ends with it; the headers left missing (none or
    several such files, or a name with "..") are returned."""
    for _ in range(rounds):
        left, added = missing_headers(p), False
        for name in left:
            rel = name.removeprefix("./")
            if ".." in Path(rel).parts:
                continue
            matches = [m for m in index.get(Path(rel).name, []) if m.endswith("/" + rel)]
            if len(matches) == 1:
                d = top / matches[0][1:len(matches[0]) - len(rel) - 1]  # d / rel is that file
                if d not in p.include_dirs:
                    p.include_dirs.append(d)
                    added = True
        if not added:
            return left
    return missing_headers(p)


def cap_per_repository(cands: list[Prog], cap: tuple[int, str] | None) -> list[Prog]:
    """At most cap[0] candidates of each repository (the first part of a name): its first in the
    order of sha256(cap[1] + name); the order of the rest kept. None: all."""
    if cap is None:
        return cands
    limit, salt = cap
    by_repo: dict[str, list[Prog]] = collections.defaultdict(list)
    for p in cands:
        by_repo[p.name.split("/", 1)[0]].append(p)
    kept = {id(p) for group in by_repo.values()
            for p in sorted(group, key=lambda p: _sixth_key(p.name, salt))[:limit]}
    return [p for p in cands if id(p) in kept]


def sixth_candidates(root: Path, blobs_file: Path | None, repos: tuple[str, ...] = SIXTH_REPOS,
                     cap: tuple[int, str] | None = None) -> list[Prog]:
    """The sixth suite's candidates: the teaching rule's programs of ``repos`` less byte copies
    (of earlier suites' files and of each other), capped per repository (cap_per_repository),
    each with its missing headers resolved inside its repository (resolve_includes)."""
    cands = cap_per_repository(drop_copies(teaching_candidates(root, repos), blobs_file, within=True), cap)
    indexes: dict[str, dict[str, list[str]]] = {}
    for p in cands:
        repo = p.name.split("/", 1)[0]
        if repo not in indexes:
            indexes[repo] = _header_index(root / repo)
        resolve_includes(p, root / repo, indexes[repo])
    return cands


def nvcc_compiles(p: Prog, samples_common: Path, timeout: int = 180) -> bool:
    """Whether CUDA's own compiler builds p's main file to an object (host and device code,
    nothing run): the program's -I/-D flags, then cuda-samples' Common/ for the helper headers
    the emulator provides to a program that brings none."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["nvcc", "-arch=sm_80", "-c", str(p.sources[0]), "-o", str(Path(tmp) / "main.o"),
               *[a for d in p.include_dirs for a in ("-I", str(d))], *[f"-D{d}" for d in p.defines],
               "-I", str(samples_common)]
        try:
            return subprocess.run(cmd, capture_output=True, cwd=p.cwd, timeout=timeout).returncode == 0
        except subprocess.TimeoutExpired:
            return False


def _sixth_key(name: str, salt: str = "sixth:") -> str:
    return hashlib.sha256((salt + name).encode()).hexdigest()


def sixth_select(cands: list[Prog], scan: dict, per_stratum: int, nvcc: dict[str, bool],
                 compiles: Callable[[Prog], bool], salt: str = "sixth:") -> list[Prog]:
    """Per stratum, in sha256(salt + name) order, the first ``per_stratum`` candidates that
    the saved scan refuses nothing in and that ``compiles``; ``nvcc`` keeps each answer."""
    chosen = []
    for stratum in ("warp", "plain"):
        group = sorted((p for p in cands if scan["strata"].get(p.name) == stratum),
                       key=lambda p: _sixth_key(p.name, salt))
        taken = 0
        for p in group:
            if taken == per_stratum:
                break
            if scan["scan"].get(p.name, ["not scanned"]):
                continue
            if p.name not in nvcc:
                nvcc[p.name] = compiles(p)
            if nvcc[p.name]:
                p.stratum = stratum
                chosen.append(p)
                taken += 1
    return sorted(chosen, key=lambda p: p.name)


def teaching_select(cands: list[Prog], per_stratum: int, salt: str = "teach:") -> list[Prog]:
    chosen = []
    for stratum in ("warp", "plain"):
        group = sorted((p for p in cands if p.stratum == stratum),
                       key=lambda p: hashlib.sha256((salt + p.name).encode()).hexdigest())
        chosen += group[:per_stratum]
    return sorted(chosen, key=lambda p: p.name)


def _select_key(name: str) -> str:
    return hashlib.sha256(("select:" + name).encode()).hexdigest()


def hecbench_select(cands: list[Prog], scan: dict[str, list[str]], per_stratum: int) -> list[Prog]:
    passing = [p for p in cands if not scan[p.name]]
    chosen = []
    for stratum in ("warp", "plain"):
        group = sorted((p for p in passing if p.stratum == stratum), key=lambda p: _select_key(p.name))
        chosen += group[:per_stratum]
    return sorted(chosen, key=lambda p: p.name)


def half(name: str) -> str:
    return "tune" if hashlib.sha256(name.encode()).digest()[0] % 2 == 0 else "eval"


def static_scan(progs: list[Prog]) -> dict[str, list[str]]:
    """Refused features per program; sets each program's stratum from the files it reads."""
    from porting.emulate import build, scan_program
    from porting.errors import PortError
    results = {}
    for p in progs:
        try:  # what `port emulate` scans: with the .cu of each driver-API module the program loads
            scanned = scan_program(p.sources, p.include_dirs, p.defines, build.Toolchain())
        except PortError as exc:
            results[p.name] = [f"not scanned: {exc}"[:120]]
            continue
        files = scanned.files
        results[p.name] = sorted({r.feature for r in scanned.refusals})
        warp = any(WARP_INTRINSIC.search(f.read_text(errors="replace")) for f in files)
        p.stratum = "warp" if warp else "plain"
    return results


def _share_runtime(out: Path, name: str) -> None:
    """Hard-link the runtime objects already compiled (out/runtime-*.o) into this program's
    cache, and keep any new one: the runtime is the same for every program of the corpus, so
    it is compiled once per width instead of once per program."""
    shared = out / "runtime-objects"
    cache = out / name / "cache"
    shared.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    for src, dst in ((shared, cache), (cache, shared)):
        for obj in src.glob("runtime-*.o"):
            if not (dst / obj.name).exists():
                (dst / obj.name).hardlink_to(obj)


def run_one(p: Prog, out: Path, timeout: int) -> dict:
    _share_runtime(out, p.name)
    cmd = [sys.executable, "-m", "porting", "emulate", *map(str, p.sources),
           *[a for d in p.include_dirs for a in ("-I", str(d))], *[a for d in p.defines for a in ("-D", d)],
           "--out", str(out / p.name), "--json", "--timeout", str(timeout), "--cwd", str(p.cwd), "--", *p.args]
    done = subprocess.run(cmd, capture_output=True, text=True)
    _share_runtime(out, p.name)
    outcome = {0: "same", 1: "diverged", 3: "inconclusive"}.get(done.returncode, "refused")
    record = {"program": p.name, "half": half(p.name), "stratum": p.stratum, "outcome": outcome,
              "exit": done.returncode, "args": p.args,
              "message": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""}
    try:
        data = json.loads(done.stdout)
        record["differences"] = data["differences"]
        record["faults"] = [r["fault"] for r in data["runs"]]
        record["seconds"] = data["seconds"]
    except (json.JSONDecodeError, KeyError):
        pass
    return record


_FEATURE = re.compile(r":\d+: (.*?), which port emulate does not emulate")
_LACKS = re.compile(r"uses (\w+), which port emulate's runtime does not provide")
_HEADER = re.compile(r"includes <([^>]+)>, which port emulate does not provide")


def reason(record: dict) -> str:
    """A refusal's class: the feature named, the API or header the runtime lacks, or the kind
    of failure."""
    msg = record["message"]
    for pattern, label in ((_FEATURE, "{}"), (_LACKS, "runtime lacks {}"), (_HEADER, "header <{}>")):
        m = pattern.search(msg)
        if m:
            return label.format(m.group(1))
    if "does not compile" in msg:
        return "does not compile"
    if "fails at every width" in msg:
        return "fails at every width"
    return msg[:80]


def _tally_line(label: str, rs: list[dict]) -> str:
    tally = collections.Counter(r["outcome"] for r in rs)
    judged = tally["same"] + tally["diverged"]
    return (f"{label}: {len(rs)} programs, verdict for {judged} ({100 * judged / max(len(rs), 1):.0f}%): "
            + ", ".join(f"{o} {tally[o]}" for o in ("same", "diverged", "inconclusive", "refused")))


def summarize(records: list[dict]) -> None:
    by_name = {r["program"]: r for r in records}  # a later record of a program replaces an earlier one
    for h in ("tune", "eval", "all"):
        rs = [r for r in by_name.values() if h == "all" or r["half"] == h]
        print(_tally_line(h, rs))
        for stratum in sorted({r.get("stratum", "") for r in rs} - {""}):
            print("  " + _tally_line(stratum, [r for r in rs if r.get("stratum") == stratum]))
    print("refusals by class (all):")
    for why, n in collections.Counter(reason(r) for r in by_name.values() if r["outcome"] == "refused").most_common():
        print(f"{n:4d}  {why}")
    for r in sorted(by_name.values(), key=lambda r: r["program"]):
        if r["outcome"] in ("diverged", "inconclusive"):
            print(f"{r['outcome']}: {r['program']} ({r['half']}): {r.get('differences')}"[:400])


def _print_table(results: dict[str, list[str]], progs: list[Prog]) -> None:
    by_feature = collections.Counter(f for fs in results.values() for f in fs)
    clean = sum(1 for fs in results.values() if not fs)
    print(f"{len(progs)} programs, {clean} pass the refusal scan")
    for h in ("tune", "eval"):
        counts = collections.Counter(f for n, fs in results.items() if half(n) == h for f in fs)
        print(f"  {h}: {sum(1 for n in results if half(n) == h)} programs, "
              f"{sum(1 for n, fs in results.items() if half(n) == h and not fs)} pass; "
              + "; ".join(f"{f} {c}" for f, c in counts.most_common()))
    for feature, n in by_feature.most_common():
        print(f"{n:4d}  {feature}")


def _hecbench(args) -> tuple[list[Prog], dict | None]:
    """The chosen HeCBench programs; with --static also the scan of every candidate."""
    cands = hecbench_candidates(args.hecbench)
    if args.scan and not args.static:  # a --static run's record: the selection without scanning again
        saved = json.loads(args.scan.read_text())
        for p in cands:
            p.stratum = saved["strata"].get(p.name, "")
        return hecbench_select(cands, saved["scan"], args.per_stratum), None
    results = static_scan(cands)
    _print_table(results, cands)
    chosen = hecbench_select(cands, results, args.per_stratum)
    print("chosen:", " ".join(f"{p.name}({p.stratum},{half(p.name)})" for p in chosen))
    return chosen, {"scan": results, "strata": {p.name: p.stratum for p in cands},
                    "chosen": [p.name for p in chosen]}


def _sixth(args: argparse.Namespace, ap: argparse.ArgumentParser, suite: str = "sixth") -> list[Prog] | None:
    """A suite of the sixth's design (SIXTH_DESIGN: --sixth, --seventh, --eighth): with --static, scan
    every candidate (coverage, written to --json) and return None; else the selection from the
    saved scan (--scan) and the nvcc check. With --scan the programs keep the -I lists that scan
    resolved (a --static run then scans them again with today's emulator)."""
    repos, salt = SIXTH_DESIGN[suite]
    cap = DESIGN_CAP.get(suite)
    root = getattr(args, suite)
    missing = [r for r in repos if not (root / r).is_dir()]
    if missing:  # a wrong DIR would otherwise scan nothing and report 0 of 0
        ap.error(f"--{suite} {root}: no checkout {missing[0]} (owner+name) there"
                 + (f", nor {len(missing) - 1} more of its repositories" if len(missing) > 1 else ""))
    saved = json.loads(args.scan.read_text()) if args.scan else None
    if saved is None:
        cands = sixth_candidates(root, args.exclude_blobs, repos, cap)
    else:  # the programs as the saved scan defined them: its -I lists, not resolved again
        cands = cap_per_repository(drop_copies(teaching_candidates(root, repos), args.exclude_blobs, within=True), cap)
        for p in cands:
            p.include_dirs = [Path(d) for d in saved["include_dirs"][p.name]]
    if args.static:
        results = static_scan(cands)
        _print_table(results, cands)
        for stratum in ("warp", "plain"):
            group = [p for p in cands if p.stratum == stratum]
            print(f"  {stratum}: {len(group)} programs, {sum(1 for p in group if not results[p.name])} pass")
        if args.json:
            args.json.write_text(json.dumps({"scan": results, "strata": {p.name: p.stratum for p in cands},
                                             "include_dirs": {p.name: list(map(str, p.include_dirs)) for p in cands}},
                                            indent=1))
        return None
    if saved is None or not args.samples_common:
        ap.error(f"--{suite} without --static needs --scan (the --static JSON the selection uses) and --samples-common")
    nvcc = json.loads(args.nvcc_cache.read_text()) if args.nvcc_cache and args.nvcc_cache.exists() else {}
    known = len(nvcc)
    chosen = sixth_select(cands, saved, args.per_stratum, nvcc, lambda p: nvcc_compiles(p, args.samples_common), salt)
    if args.nvcc_cache and len(nvcc) > known:  # the two halves' runs read it side by side: written only when new
        tmp = args.nvcc_cache.with_suffix(".tmp")
        tmp.write_text(json.dumps(nvcc, indent=1))
        tmp.replace(args.nvcc_cache)
    print("chosen:", " ".join(f"{p.name}({p.stratum},{half(p.name)})" for p in chosen))
    if args.program_rule == "link":  # strata and selection stay the directory rule's (committed before the run)
        for p in chosen:
            p.sources = link_sources(p, root / p.name.split("/", 1)[0])
    if args.program_args == "documented":  # the sixth and seventh runs had none: --program-args none
        apply_argument_rule(chosen, root)
    return None if args.list else chosen


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    suite = ap.add_mutually_exclusive_group()
    suite.add_argument("--samples", type=Path, help="a checkout of NVIDIA/cuda-samples")
    suite.add_argument("--hecbench", type=Path, help="a checkout of zjin-lcf/HeCBench")
    suite.add_argument("--teaching", type=Path, help="a directory of checkouts of TEACHING_REPOS (owner+name)")
    suite.add_argument("--fresh", type=Path, help="a directory of checkouts of FRESH_REPOS (owner+name)")
    suite.add_argument("--fifth", type=Path, help="a directory of checkouts of FIFTH_REPOS (owner+name)")
    suite.add_argument("--sixth", type=Path, help="a directory of checkouts of SIXTH_REPOS (owner+name)")
    suite.add_argument("--seventh", type=Path, help="a directory of checkouts of SEVENTH_REPOS (owner+name)")
    suite.add_argument("--eighth", type=Path, help="a directory of checkouts of EIGHTH_REPOS (owner+name)")
    ap.add_argument("--exclude-blobs", type=Path,
                    help="--fifth: git blob hashes of the .cu/.cuh files of repositories used before")
    ap.add_argument("--static", action="store_true")
    ap.add_argument("--scan", type=Path, help="HeCBench, --sixth: the --static run's JSON (the selection, not scanned "
                    "again)")
    ap.add_argument("--samples-common", type=Path,
                    help="--sixth: cuda-samples' Common/ directory, the last -I of the nvcc check")
    ap.add_argument("--nvcc-cache", type=Path, help="--sixth: JSON of the nvcc check's answers, read and updated")
    ap.add_argument("--list", action="store_true", help="--sixth: print the selection and stop")
    ap.add_argument("--program-rule", choices=("directory", "link"), default="directory",
                    help="--sixth: a program's other sources: every main-less .cu/.cpp of its directory (the "
                         "rule of the one run), or the files defining what it declares (link_sources)")
    ap.add_argument("--program-args", choices=("documented", "none"), default="documented",
                    help="--sixth/--seventh: a program that reads argv[1] without testing argc gets the command "
                         "line its repository documents (apply_argument_rule), or none; the sixth and seventh "
                         "runs had none")
    ap.add_argument("--per-stratum", type=int, default=20)
    ap.add_argument("--half", choices=("tune", "eval", "all"), default="all")
    ap.add_argument("--only", action="append", default=[], help="program names (repeatable)")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--out", type=Path, default=Path("/tmp/emulate-corpus"))
    ap.add_argument("--json", type=Path)
    ap.add_argument("--summarize", type=Path, nargs="+", metavar="JSON",
                    help="merge earlier --json result files (a later one wins per program) and print the tally")
    args = ap.parse_args()
    if args.summarize:
        summarize([r for f in args.summarize for r in json.loads(f.read_text())])
        return 0
    design = next((name for name in SIXTH_DESIGN if getattr(args, name)), None)
    if not (args.samples or args.hecbench or args.teaching or args.fresh or args.fifth or design):
        ap.error("one of --samples, --hecbench, --teaching, --fresh, --fifth, --sixth, --seventh, --eighth or "
                 "--summarize is required")
    payload: object
    if args.hecbench:
        chosen, payload = _hecbench(args)
        if args.static:
            if args.json:
                args.json.write_text(json.dumps(payload, indent=1))
            return 0
        progs = chosen
    elif args.teaching:
        progs = teaching_select(teaching_candidates(args.teaching), args.per_stratum)
        print("chosen:", " ".join(f"{p.name}({p.stratum},{half(p.name)})" for p in progs))
    elif args.fresh:
        progs = teaching_select(teaching_candidates(args.fresh, FRESH_REPOS), args.per_stratum, "fresh:")
        print("chosen:", " ".join(f"{p.name}({p.stratum},{half(p.name)})" for p in progs))
    elif args.fifth:
        cands = drop_copies(teaching_candidates(args.fifth, FIFTH_REPOS), args.exclude_blobs)
        progs = teaching_select(cands, args.per_stratum, "fifth:")
        print("chosen:", " ".join(f"{p.name}({p.stratum},{half(p.name)})" for p in progs))
    elif design:
        picked = _sixth(args, ap, design)
        if picked is None:
            return 0
        progs = picked
    else:
        progs = programs(args.samples)
    progs = [p for p in progs if (args.half == "all" or half(p.name) == args.half)
             and (not args.only or p.name in args.only)]
    if args.static:
        results = static_scan(progs)
        _print_table(results, progs)
        payload = results
    else:
        records = []
        for p in progs:
            rec = run_one(p, args.out, args.timeout)
            records.append(rec)
            print(f"{rec['half']:4s} {rec['outcome']:12s} {p.name}: {rec['message'][:150]}", flush=True)
            if args.json:  # after every program: a long run stopped early keeps what it measured
                args.json.write_text(json.dumps(records, indent=1))
        summarize(records)
        payload = records
    if args.json:
        args.json.write_text(json.dumps(payload, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
