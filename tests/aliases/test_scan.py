"""`port aliases scan`: CUDA names used by Rust sources -> exactly the alias block they need."""

from __future__ import annotations

from pathlib import Path

import pytest

from porting.aliases import rust_gen
from porting.aliases.scan import scan
from porting.aliases.table import AliasTable
from porting.cli import main
from porting.errors import InputError

CONSUMER = """\
use crate::sys::{cuInit, CUdevice, CUDA_SUCCESS};
// cuMemAlloc_v2 in a comment is not a use
fn open(ordinal: i32) -> Result<CUdevice, u32> {
    let msg = "cudaMalloc in a string is not a use";
    let rc = unsafe { cuInit(0) };
    if rc != CUDA_SUCCESS { return Err(rc); }
    let mut dev: CUdevice = 0;
    unsafe { cuDeviceGet(&mut dev, ordinal) };
    Ok(dev)
}
"""


def make_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_finds_code_uses_only(tmp_path: Path, table: AliasTable) -> None:
    src = make_tree(tmp_path / "src", {"lib.rs": CONSUMER, "target/debug/x.rs": "fn f() { cuMemFree(); }"})
    result = scan([src], table)
    assert set(result.used) == {"cuInit", "CUdevice", "CUDA_SUCCESS", "cuDeviceGet"}
    assert result.used["cuInit"].line == 1 and result.used["cuDeviceGet"].line == 8
    assert result.unknown == [] and result.lines == CONSUMER.count("\n")
    assert len(result.files) == 1  # target/ is skipped


def test_unknown_cuda_names_are_errors_with_location(tmp_path: Path, table: AliasTable) -> None:
    text = ("fn f() {\n    cuFrobnicate(1);\n    let x = CUDA_NOT_A_THING;\n    cuFrobnicate(2);\n}\n"
            "fn cuMyHelper() {}\nconst CUDA_LOCAL: u32 = 1;\nfn g() { cuMyHelper(); let _ = CUDA_LOCAL; }\n")
    src = make_tree(tmp_path, {"a.rs": text})
    result = scan([src], table)
    where = sorted((u.name, u.line, u.col) for u in result.unknown)
    assert where == [("CUDA_NOT_A_THING", 3, 13), ("cuFrobnicate", 2, 5), ("cuFrobnicate", 4, 5)]
    allowed = scan([src], table, allow=["cuFrobnicate"])
    assert [u.name for u in allowed.unknown] == ["CUDA_NOT_A_THING"]


def test_generated_block_and_excluded_files_are_skipped(tmp_path: Path, table: AliasTable) -> None:
    block = rust_gen.render_block(table.select(["cuMemAlloc_v2"]))
    src = make_tree(tmp_path, {"lib.rs": "fn f() { cuInit(0); }\n", "rocm_compat.rs": block,
                               "other.rs": "fn g() { cuCtxGetCurrent(); }\n"})
    result = scan([src], table, exclude=[src / "other.rs"])
    assert set(result.used) == {"cuInit"}
    assert sorted(Path(p).name for p in result.skipped) == ["other.rs", "rocm_compat.rs"]


def test_missing_source_is_an_input_error(tmp_path: Path, table: AliasTable) -> None:
    with pytest.raises(InputError, match="no such file"):
        scan([tmp_path / "absent"], table)


def test_block_items_per_kind(table: AliasTable) -> None:
    block = rust_gen.render_block(table.select(["CUdevice", "CUDA_SUCCESS", "cuInit", "CUarray", "CU_FLAG?"]))
    items = [line.split("] ", 2)[-1] for line in block.splitlines() if line.startswith("#[cfg(use_rocm)]")]
    assert items == ["pub type CUarray = *mut hipArray;", "pub type CUdevice = hipDevice_t;",
                     "pub const CUDA_SUCCESS: hipError_t = hipSuccess;", "pub use self::hipInit as cuInit;"]


def test_cli_out_then_check_then_stale(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_tree(tmp_path / "src", {"lib.rs": CONSUMER})
    out = src / "rocm_compat.rs"
    assert main(["aliases", "scan", str(src), "--out", str(out)]) == 0
    text = out.read_text()
    assert "pub use self::hipDeviceGet as cuDeviceGet;" in text and text.count("#[cfg(use_rocm)]") == 4
    assert main(["aliases", "scan", str(src), "--out", str(out), "--check"]) == 0
    (src / "more.rs").write_text("fn h() { unsafe { cuStreamSynchronize(std::ptr::null_mut()) }; }\n")
    capsys.readouterr()
    assert main(["aliases", "scan", str(src), "--out", str(out), "--check"]) == 1
    err = capsys.readouterr().err
    assert "stale (1 alias(es) missing, 0 extra)" in err and out.read_text() == text  # --check writes nothing
    out.unlink()
    assert main(["aliases", "scan", str(src), "--out", str(out), "--check"]) == 1
    assert "alias block is missing" in capsys.readouterr().err


def test_cli_unknown_names_fail_but_block_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_tree(tmp_path, {"lib.rs": "fn f() {\n    cuInit(0);\n    cuNoSuchCall();\n}\n"})
    assert main(["aliases", "scan", str(src / "lib.rs")]) == 1
    captured = capsys.readouterr()
    assert "pub use self::hipInit as cuInit;" in captured.out
    assert f"{src / 'lib.rs'}:3:5: 'cuNoSuchCall' has no HIP counterpart" in captured.err
    assert "port: error:" in captured.err and "Traceback" not in captured.err
    assert main(["aliases", "scan", str(src / "lib.rs"), "--allow", "cuNoSuchCall"]) == 0


def test_cli_json_and_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    src = make_tree(tmp_path, {"lib.rs": CONSUMER})
    assert main(["aliases", "scan", str(src), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["used"] == sorted(["cuInit", "CUdevice", "CUDA_SUCCESS", "cuDeviceGet"]) and data["files"] == 1
    assert main(["aliases", "scan", str(src), "--check"]) == 2
    assert "--check needs --out" in capsys.readouterr().err
    assert main(["aliases", "scan", str(src), "--out", str(src / "lib.rs" / "block.rs")]) == 2
    err = capsys.readouterr().err
    assert "cannot write the alias block" in err and "Traceback" not in err
    assert main(["aliases", "scan", str(tmp_path / "nope")]) == 2
    assert main(["aliases"]) == 2


def test_checked_in_block_of_the_test_sys_crate_is_fresh(hip_aliases_dir: Path, table: AliasTable) -> None:
    src = hip_aliases_dir / "rust" / "test-sys" / "src"
    out = src / "rocm_compat.rs"
    result = scan([src], table, exclude=[out])
    assert result.unknown == []
    assert out.read_text() == rust_gen.render_block(table.select(result.used))


TRICKY = r'''//! cuDoc in a doc comment
/* outer /* nested cuNested */ still comment cuStill */
fn a<'cu>(x: &'cu u8) -> char { let c = '"'; let d = b'\''; let e = '\u{1F600}'; c }
const S: &str = r#"raw "cuRawString" here"#;
const T: &[u8] = br"cuByteRaw \";
const U: &str = "escaped \" cuInString \\";
fn cuOwnHelper() {}
fn b() { let r#type = 1; cuInit(0); r#cuMemAlloc_v2(); x.cuCtxGetCurrent(); }
type CUlocal = u32;
pub use self::hipInit as cuRenamed;
fn c() { cuUnknownCall(); CUDA_NOT_REAL; custom_thing(); current(); nvrtcCompileProgram(); MAJOR_VERSION; }
fn d() { let s = "unterminated
cuAfterNewlineInString"; cuStreamSynchronize(); }
'''


def test_fast_lexer_matches_the_tokenizer(tmp_path: Path, table: AliasTable, hip_aliases_dir: Path) -> None:
    import random

    from porting.aliases import rust_gen as rg

    rng = random.Random(7)
    names = sorted(table.entries)
    words = ["fn", "let", "x", "=", ";", "(", ")", "{", "}", "//", "/*", "*/", '"', "'a'", "'a", "r#\"", "\"#",
             "\\", "\n", " ", "as", "type", "cuFake", "CUDA_NOPE", "r#", "b'x'", "'", "::", "."]
    files = {"tricky.rs": TRICKY, "consumer.rs": CONSUMER}
    for i in range(40):  # random soups of Rust-ish fragments and table names
        files[f"soup{i}.rs"] = "".join(rng.choice(names) if rng.random() < 0.2 else rng.choice(words) + " "
                                       for _ in range(300))
    src = make_tree(tmp_path, files)
    trees = [src, hip_aliases_dir / "rust"]
    for tree in trees:
        fast = scan([tree], table, lexer="fast")
        ref = scan([tree], table, lexer="tokenize")
        assert fast.used == ref.used
        assert sorted(fast.unknown, key=Use_key) == sorted(ref.unknown, key=Use_key)
    tricky = scan([src / "tricky.rs"], table)
    assert set(tricky.used) == {"cuInit", "cuMemAlloc_v2", "cuCtxGetCurrent", "nvrtcCompileProgram",
                                "cuStreamSynchronize"}
    assert sorted(u.name for u in tricky.unknown) == ["CUDA_NOT_REAL", "cuUnknownCall"]
    assert rg.render_block(table.select(tricky.used)).count("#[cfg(use_rocm)]") == 5


def Use_key(u):  # noqa: N802 - sort key
    return (u.file, u.line, u.col, u.name)


def test_unreadable_file_is_reported_not_fatal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_tree(tmp_path, {"ok.rs": "fn f() { cuInit(0); }\n"})
    (src / "dangling.rs").symlink_to(tmp_path / "gone.rs")  # listed by the walk, cannot be read
    assert main(["aliases", "scan", str(src)]) == 1
    captured = capsys.readouterr()
    assert "pub use self::hipInit as cuInit;" in captured.out
    assert "dangling.rs: broken symlink (No such file or directory)" in captured.err


def test_build_rs_bindgen_allowlists_count_as_used(table, tmp_path) -> None:
    from porting.aliases.scan import scan

    crate = tmp_path / "crate"
    (crate / "src").mkdir(parents=True)
    (crate / "src" / "lib.rs").write_text("pub fn init() { unsafe { cuInit(0); } }\n")
    (crate / "build.rs").write_text(
        'fn main() {\n'
        '    let b = bindgen::Builder::default()\n'
        '        .allowlist_function("cuMemGetHandleForAddressRange")\n'
        '        .allowlist_type(r"CUmemRangeHandleType")\n'
        '        .allowlist_var(r#"CU_POINTER_ATTRIBUTE_(MEMORY_TYPE|DEVICE_POINTER)"#)\n'
        '        .allowlist_function("cuStream(Synchronize|Query)");\n'
        '    // .allowlist_function("cuCtxCreate") commented out: bindgen never sees it\n'
        '}\n')
    result = scan([crate], table)
    assert {"cuInit", "cuMemGetHandleForAddressRange", "CUmemRangeHandleType", "CU_POINTER_ATTRIBUTE_MEMORY_TYPE",
            "CU_POINTER_ATTRIBUTE_DEVICE_POINTER", "cuStreamSynchronize", "cuStreamQuery"} <= set(result.used)
    assert "cuStreamCreate" not in result.used  # the regex is anchored at both ends, as bindgen does
    assert "cuCtxCreate" not in result.used
    assert result.used["cuStreamQuery"].file.endswith("build.rs") and result.used["cuStreamQuery"].line == 6
    only_src = scan([crate / "src"], table)
    assert "cuMemGetHandleForAddressRange" not in only_src.used


def test_unreadable_allowlist_regex_is_reported(table, tmp_path) -> None:
    from porting.aliases.scan import scan

    (tmp_path / "build.rs").write_text('fn main() { b.allowlist_function("cu(Init"); }\n')
    result = scan([tmp_path], table)
    assert result.unreadable and "build.rs:1: bindgen allowlist 'cu(Init' is not a regex" in result.unreadable[0]
