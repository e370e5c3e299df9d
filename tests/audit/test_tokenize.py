"""Tokenizer: kinds, positions, literal/comment boundaries, Rust specifics, robustness."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from porting.audit.tokenize import Token, language_for, tokenize


def kinds(text: str, lang: str = "c") -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in tokenize(text, lang)]


def test_positions_are_one_based_and_track_multiline_tokens() -> None:
    src = "a /* x\ny */ b\n  c"
    toks = list(tokenize(src))
    assert toks == [
        Token("ident", "a", 1, 1),
        Token("comment", "/* x\ny */", 1, 3),
        Token("ident", "b", 2, 6),
        Token("ident", "c", 3, 3),
    ]


def test_preprocessor_head_include_name_and_macro_body() -> None:
    src = "  #  include <cuda_runtime.h>\n#define N cudaMalloc\nx # y\n"
    assert kinds(src) == [
        ("preprocessor", "#include"), ("string", "<cuda_runtime.h>"),
        ("preprocessor", "#define"), ("ident", "N"), ("ident", "cudaMalloc"),
        ("ident", "x"), ("punct", "#"), ("ident", "y"),
    ]
    assert list(tokenize("  #  include <a.h>"))[0].col == 3


def test_strings_chars_and_comments_hide_identifiers() -> None:
    src = r'''f("cuInit // not a comment", '\'', L"w") // cudaFree here
u8R"x(raw "cuMemAlloc" )x" g'''
    ks = kinds(src)
    assert ("string", '"cuInit // not a comment"') in ks
    assert ("char", r"'\''") in ks
    assert ("string", 'L"w"') in ks
    assert ("comment", "// cudaFree here") in ks
    assert ("string", 'u8R"x(raw "cuMemAlloc" )x"') in ks
    assert [t for k, t in ks if k == "ident"] == ["f", "g"]


def test_numbers_and_multichar_operators() -> None:
    ks = kinds("x&=0xffffffffu; y = 1.5e-3f >> 2; p->q::r; k<<<1,2>>>(a); n = 1'000;")
    assert ("number", "0xffffffffu") in ks and ("number", "1.5e-3f") in ks
    assert ("number", "1'000") in ks
    for op in ("&=", ">>", "->", "::", "<<"):
        assert ("punct", op) in ks


def test_backslash_continuation_keeps_line_numbers() -> None:
    toks = list(tokenize("#define F(x) \\\n  cudaFree(x)\nz"))
    assert Token("ident", "cudaFree", 2, 3) in toks
    assert toks[-1] == Token("ident", "z", 3, 1)


def test_unterminated_literals_do_not_swallow_the_file() -> None:
    toks = list(tokenize('a = "open\nb = 1; /* never closed\nc'))
    assert toks[2] == Token("string", '"open', 1, 5)
    assert Token("ident", "b", 2, 1) in toks
    assert toks[-1].kind == "comment"


def test_rust_nested_comments_lifetimes_raw_strings() -> None:
    src = "/* a /* b */ c */ fn f<'a>(x: &'a str) { let q = b'\\n'; r#\"cuInit \"x\"\"#; 1..2; 32_u32 }"
    ks = kinds(src, "rust")
    assert ks[0] == ("comment", "/* a /* b */ c */")
    assert ("lifetime", "'a") in ks and ("char", "b'\\n'") in ks
    assert ("string", 'r#"cuInit "x""#') in ks
    assert ("number", "1") in ks and ("punct", "..") in ks and ("number", "32_u32") in ks
    assert "cuInit" not in [t for k, t in ks if k == "ident"]
    assert not any(k == "preprocessor" for k, _ in kinds("#[derive(Debug)] struct S;", "rust"))


def test_language_for() -> None:
    assert language_for("k.cu") == "c" and language_for("a/B.CUH") == "c"
    assert language_for("lib.rs") == "rust" and language_for("x.py") is None
    with pytest.raises(ValueError):
        list(tokenize("x", "python"))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab1 \n\t\\\"'/*#<>R()_.-&|x:")), max_size=80),
       st.sampled_from(["c", "rust"]))
def test_never_raises_and_tokens_are_substrings_in_order(text: str, lang: str) -> None:
    lines = text.split("\n")
    last = (0, 0)
    for tok in tokenize(text, lang):
        assert tok.kind in ("ident", "string", "char", "comment", "number", "punct", "preprocessor", "lifetime")
        assert (tok.line, tok.col) > last
        last = (tok.line, tok.col)
        first = tok.text.split("\n")[0]
        if tok.kind != "preprocessor":
            assert lines[tok.line - 1][tok.col - 1:].startswith(first)
