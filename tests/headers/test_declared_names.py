"""declared_names: clang's view of what a header set declares, filtered to the set, cached."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from porting.errors import InputError, ToolError
from porting.headers import HeaderNames, declared_names


def test_rocm71_runtime_names_by_kind(sdk_names):
    assert sdk_names.kinds("hipMalloc") == ["function"]
    assert sdk_names.kinds("HIP_POINTER_ATTRIBUTE_MEMORY_TYPE") == ["enum_constant"]
    assert "hipPointerAttributeMemoryType" not in sdk_names  # hipify's table has it; ROCm 7.1 does not
    assert "type" in sdk_names.kinds("hipError_t") and "type" in sdk_names.kinds("hipMemcpyKind")
    assert sdk_names.kinds("hipSuccess") == ["enum_constant"]
    assert sdk_names.kinds("HIP_VERSION_MAJOR") == ["macro"]
    # ROCm 7 renamed the struct behind a macro: the macro is what the header declares
    assert "macro" in sdk_names.kinds("hipDeviceProp_t") and "type" in sdk_names.kinds("hipDeviceProp_tR0600")
    assert sdk_names.decls["hipMalloc"].file.endswith("/hip/hip_runtime_api.h")
    by_kind = sdk_names.by_kind
    assert len(by_kind["function"]) > 400 and len(by_kind["enum_constant"]) > 400 and len(by_kind["macro"]) > 100


def test_only_the_header_set_is_reported(sdk_names, sdk_dir):
    for system_name in ("malloc", "size_t", "std::vector", "uint32_t", "memcpy"):
        assert system_name not in sdk_names
    assert all(f.startswith(str(sdk_dir.resolve())) for f in sdk_names.files)
    assert all(d.file.startswith(str(sdk_dir.resolve())) for d in sdk_names.decls.values())


def test_rocm7_attributes_nodiscard_and_deprecation(sdk_names):
    assert sdk_names.decls["hipError_t"].nodiscard  # typedef enum [[nodiscard]] hipError_t
    malloc = sdk_names.decls["hipMalloc"]
    assert malloc.returns == "hipError_t" and malloc.nodiscard and malloc.deprecated is None
    assert sdk_names.decls["hipMallocHost"].deprecated == "use hipHostMalloc instead"
    assert "deprecated" in sdk_names.deprecated()["hipCtxCreate"]
    assert "hipMalloc" not in sdk_names.deprecated()
    assert {"hipMalloc", "hipFree", "hipMemcpy"} <= sdk_names.nodiscard()


def test_scopes_macros_and_file_attribution(tmp_path, cache_env, clang):
    inc = tmp_path / "inc"
    (inc / "lib").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "other.h").write_text("int outside_fn(void);\nenum { OUTSIDE_K };\n")
    (inc / "lib" / "part.h").write_text("typedef struct part_s { int x; } part_t;\n")
    (inc / "lib" / "api.h").write_text(
        "#pragma once\n"
        "#define MAKE_FN(n) int n(int)\n"
        "#define GONE 1\n#undef GONE\n"
        "#include <other.h>\n"
        "int before(void);\n"
        "#include \"part.h\"\n"
        "int after(void);\n"  # the include above moved clang's file state: this is api.h again
        "MAKE_FN(made_by_macro);\n"
        "namespace ns { int inner(void); enum class Color { Red }; enum Plain { P0 }; }\n"
        "namespace { int hidden(void); }\n"
        "struct S { int member(void); static int count; };\n"
        "extern \"C\" { [[nodiscard]] int must_use(void); }\n"
        "__attribute__((deprecated(\"use after\"))) int old_fn(void);\n"
        "enum [[nodiscard]] status_t { STATUS_OK };\n"
        "status_t make_status(void);\n"
        "extern int global_var;\n"
        "template <class T> T tmpl(T);\n")
    names = declared_names(["lib/api.h"], include_dirs=[inc, tmp_path / "outside"], roots=[inc], env=cache_env)
    assert names.decls["before"].file.endswith("lib/api.h") and names.decls["after"].file.endswith("lib/api.h")
    assert names.decls["after"].line == 8
    assert names.decls["ns::Color::Red"].line == names.decls["ns::inner"].line == 10
    assert names.kinds("part_t") == ["type"] and names.decls["part_t"].file.endswith("lib/part.h")
    assert names.kinds("made_by_macro") == ["function"]
    assert names.kinds("ns::inner") == ["function"] and names.kinds("ns::Color::Red") == ["enum_constant"]
    assert names.kinds("ns::P0") == ["enum_constant"]
    assert "outside_fn" not in names and "OUTSIDE_K" not in names  # outside the roots
    assert "hidden" not in names and "member" not in names and "S::member" not in names
    assert names.kinds("S") == ["type"] and names.kinds("global_var") == ["variable"]
    assert names.kinds("tmpl") == ["function"]
    assert names.decls["must_use"].nodiscard and names.decls["make_status"].nodiscard
    assert names.decls["old_fn"].deprecated == "use after"
    assert names.kinds("MAKE_FN") == ["macro"] and "GONE" not in names


def test_cache_hit_and_invalidation_on_content_change(tmp_path, cache_env, clang):
    inc = tmp_path / "inc"
    inc.mkdir()
    header = inc / "a.h"
    header.write_text("int first(void);\n")
    cold = declared_names(["a.h"], include_dirs=[inc], env=cache_env)
    warm = declared_names(["a.h"], include_dirs=[inc], env=cache_env)
    assert not cold.cached and warm.cached and warm.decls == cold.decls
    header.write_text("int other(void);\n")  # same size, new content
    changed = declared_names(["a.h"], include_dirs=[inc], env=cache_env)
    assert not changed.cached and "other" in changed and "first" not in changed
    entries = list((Path(cache_env["PORT_CACHE_DIR"]) / "headers").glob("*.json"))
    assert len(entries) == 1
    record = json.loads(entries[0].read_text())
    assert str(header.resolve()) in record["fingerprints"]
    assert HeaderNames.from_json(record["names"]).decls == changed.decls


def test_damaged_cache_entry_is_a_miss(tmp_path, cache_env, clang):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "a.h").write_text("int f(void);\n")
    declared_names(["a.h"], include_dirs=[inc], env=cache_env)
    for entry in (Path(cache_env["PORT_CACHE_DIR"]) / "headers").glob("*.json"):
        entry.write_text("{not json")
    again = declared_names(["a.h"], include_dirs=[inc], env=cache_env)
    assert not again.cached and "f" in again


def test_errors_name_the_problem(tmp_path, cache_env, clang):
    with pytest.raises(InputError, match="nope: include directory does not exist"):
        declared_names(["a.h"], include_dirs=[tmp_path / "nope"], env=cache_env)
    with pytest.raises(InputError, match="language"):
        declared_names(["a.h"], include_dirs=[tmp_path], language="fortran", env=cache_env)
    (tmp_path / "bad.h").write_text("int f(;\n")
    with pytest.raises(ToolError, match=r"reading bad\.h .*bad\.h:1"):
        declared_names(["bad.h"], include_dirs=[tmp_path], env=cache_env)
    with pytest.raises(ToolError, match="not-a-compiler"):
        declared_names(["bad.h"], include_dirs=[tmp_path], compiler="not-a-compiler", env=cache_env)


def test_record_round_trips_and_rejects_other_schemas():
    with pytest.raises(InputError, match="schema-1"):
        HeaderNames.from_json({"schema": 99})
    names = HeaderNames("clang", "22", "c++", ["a.h"], ["/i"], ["/i"], {}, [])
    assert HeaderNames.from_json(json.loads(json.dumps(names.to_json()))) == names
