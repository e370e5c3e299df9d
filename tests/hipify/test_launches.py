"""The faster comment masker inside hipify's processKernelLaunches computes exactly what
hipify's own does (porting/hipify/launches.py)."""

from __future__ import annotations

import random
import types

import pytest

from porting.hipify.engine import hipify_module
from porting.hipify.launches import fast_process_kernel_launches, hipify_mask_comments, mask_comments

# the characters hipify's state machine reads, plus filler and launch syntax
ALPHABET = "/*\"\\'\n\rab <>;(x)"

TRICKY = [
    "", "/", "//", "/*", "*/", "/*/", "/**/", "/*/ x */", "a/*b*//c\nd", "x //y\rz\nq", '"', '""', '"\\"', '"\\""',
    "'\"'", "\\\"a\"", 'a "/* no */" b', "/* \" */ \"x\"", '"a\\\\"b"c', "k<<<1, 2>>>(p); // k<<<3>>>(q)",
    "/* k<<<1,1>>>(x) */ f<<<g, b>>>(y);", 'printf("<<<"); k<<<1, 1>>>(z);', "///\n/*//*/\"//\"",
]


@pytest.fixture(scope="module")
def hipify_mask():
    return hipify_mask_comments(hipify_module())


def test_tricky_texts(hipify_mask) -> None:
    for text in TRICKY:
        assert mask_comments(text) == hipify_mask(text), repr(text)


def test_random_texts_over_the_state_machine_alphabet(hipify_mask) -> None:
    rnd = random.Random(20261202)
    for _ in range(20000):
        text = "".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(0, 24)))
        assert mask_comments(text) == hipify_mask(text), repr(text)


def test_generated_corpus(hipify_mask, generator, tmp_path) -> None:
    generator.generate(tmp_path, files=30, lines_per_file=150, seed=11)
    texts = [p.read_text() for p in tmp_path.rglob("*") if p.is_file()]
    assert len(texts) >= 25
    for text in texts:
        assert mask_comments(text) == hipify_mask(text)


def test_process_kernel_launches_matches_hipify(hx) -> None:
    hp = hipify_module()
    fast = fast_process_kernel_launches(hp)
    assert fast is not hp.processKernelLaunches  # the masker was swapped in ...
    texts = [*TRICKY, *(t for t in hx.EDGE_TREE.values() if isinstance(t, str))]
    launching = [t for t in texts if "<<<" in t and ">>>" in t]
    assert len(launching) >= 3
    for text in launching:
        mine, theirs = {"kernel_launches": []}, {"kernel_launches": []}
        assert fast(text, mine) == hp.processKernelLaunches(text, theirs), repr(text)  # ... to the same effect
        assert mine == theirs


def test_unknown_hipify_shape_uses_hipify_unchanged() -> None:
    """A hipify whose processKernelLaunches has no nested mask_comments (a future version): its
    own function is used, not a guess."""
    def processKernelLaunches(string, stats):  # noqa: N802 (hipify's name)
        return string.upper()

    module = types.ModuleType("fake_hipify_python")
    module.processKernelLaunches = processKernelLaunches  # type: ignore[attr-defined]
    assert fast_process_kernel_launches(module) is processKernelLaunches


def test_a_launch_hipify_sees_in_a_character_literal_is_caught(tmp_path, hx) -> None:
    """hipify's masker blanks comments and "strings", not 'characters': a `'<<<'` literal with
    no `>>>` after it loops plain hipify forever. The termination check reads the text as hipify
    does, so the file is reported, not hung on (a C lexer would have masked the literal)."""
    from porting.hipify import convert_tree

    src = hx.write_tree(tmp_path / "src", {
        "char.cu": "__global__ void k() {}\nint shift = '<<<';\n",
        "fine.cu": "__global__ void k() {}\nvoid g() { k<<<1, 1>>>(); }\nint tag = '>>>';\n",
    })
    by = convert_tree(src, tmp_path / "out", jobs=1).by_source()
    assert by["char.cu"].status == "failed" and "never finish" in by["char.cu"].why
    assert by["fine.cu"].status == "converted"
