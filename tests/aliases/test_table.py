"""The alias table: hipify's maps + overrides.toml -> one CUDA -> HIP table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from porting.aliases.table import HIPIFY_MAPS, AliasTable, build_table, load_hipify_maps, load_overrides
from porting.errors import ConfigError

EMPTY = "# no overrides\n"


def write(tmp_path: Path, text: str, name: str = "overrides.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_kinds_and_targets_come_from_hipify(table: AliasTable) -> None:
    assert (table.get("CUdevice").hip, table.get("CUdevice").kind) == ("hipDevice_t", "type")
    assert (table.get("cuInit").hip, table.get("cuInit").kind) == ("hipInit", "function")
    ok = table.get("CUDA_SUCCESS")
    assert (ok.hip, ok.kind, ok.const_type) == ("hipSuccess", "const", "hipError_t")
    assert table.get("cudaMemcpyHostToDevice").const_type == "hipMemcpyKind"
    assert table.get("CUarray").hip_pointee == "hipArray"
    assert table.get("cudaMalloc").origin == "hipify:CUDA_IDENTIFIER_MAP"


def test_every_identifier_mapping_of_hipify_is_in_the_table(table: AliasTable) -> None:
    maps, _version = load_hipify_maps()
    ident = re.compile(r"[A-Za-z_]\w*\Z")
    expected = {c for m in maps.values() for c, h in m.items()
                if ident.match(c) and ident.match(h) and c != h and not c.startswith("__")}
    # each is kept (declared, renamed to the declared spelling, or an unverified library alias)
    # or dropped by a documented [[undeclared]] rule: none disappears silently
    assert expected <= set(table.entries) | {a.cuda for a in table.dropped}
    assert all(a.reason for a in table.dropped)
    assert "cub::" not in table and "__CUDACC__" not in table
    assert table.skipped > 0


def test_overrides_are_applied_and_documented(table: AliasTable, hip_aliases_dir: Path) -> None:
    overrides = load_overrides(hip_aliases_dir / "overrides.toml")
    assert overrides.aliases, "the curated file has entries"
    for alias in overrides.aliases:
        entry = table.get(alias.cuda)
        assert entry is not None and entry.origin == "override"
        assert (entry.hip, entry.kind, entry.min_hip) == (alias.hip, alias.kind, alias.min_hip)
        assert entry.status in ("declared", "unverified")  # an override's target is held to the headers too
        assert entry.reason and entry.source
    # hipify's identifier map has a HIP name that does not exist; the override fixes it
    assert table.get("CU_POINTER_ATTRIBUTE_BUFFER_ID").hip == "HIP_POINTER_ATTRIBUTE_BUFFER_ID"
    assert table.get("cudaMemoryTypeUnregistered").min_hip == 6


def test_synthetic_maps_first_mapping_wins_and_override_replaces(tmp_path: Path) -> None:
    ovr = write(tmp_path, '''
[[alias]]
cuda = "cuThing"
hip = "hipThingV2"
kind = "function"
reason = "renamed in HIP 7"
source = "test"

[[const_type]]
pattern = "hipKind"
type = "hipKind_t"
reason = "enum"
''')
    maps = {"CUDA_IDENTIFIER_MAP": {"cuThing": "hipThing", "cudaKindA": "hipKindA", "cub::X": "hipcub::X",
                                    "CU_FLAG": "HIP_FLAG"},
            "CUDA_TYPE_NAME_MAP": {"cudaKindA": "ignored", "CUthing": "hipThing_t", "CUarr": "hipArr *"}}
    t = build_table(ovr, maps=maps)
    assert t.get("cuThing").hip == "hipThingV2" and t.get("cuThing").origin == "override"
    assert (t.get("cudaKindA").kind, t.get("cudaKindA").const_type) == ("const", "hipKind_t")
    assert t.get("CU_FLAG").kind == "const" and t.get("CU_FLAG").const_type is None
    assert t.get("CUthing").kind == "type" and t.get("CUarr").hip_pointee == "hipArr"
    assert "cub::X" not in t and t.skipped == 1
    assert len(t) == 5


def test_json_round_trip(tmp_path: Path) -> None:
    t = build_table(write(tmp_path, EMPTY), maps={"CUDA_TYPE_NAME_MAP": {"CUdevice": "hipDevice_t"}})
    data = t.to_json()
    assert data["schema"] == 1 and data["counts"] == {"type": 1, "const": 0, "function": 0}
    again = AliasTable.from_json(data)
    assert again.entries == t.entries


@pytest.mark.parametrize("text, fragment", [
    ('[[alias]]\ncuda = "cuA"\nhip = "hipA"\nkind = "function"\nsource = "s"\n', "'reason'"),
    ('[[alias]]\ncuda = "cuA"\nhip = "hipA"\nkind = "macro"\nreason = "r"\nsource = "s"\n', "kind must be"),
    ('[[alias]]\ncuda = "cu A"\nhip = "hipA"\nkind = "type"\nreason = "r"\nsource = "s"\n', "not an identifier"),
    ('[[alias]]\ncuda = "cuA"\nhip = "hipA"\nkind = "type"\nreason = "r"\nsource = "s"\nmin_hip = "6"\n',
     "min_hip"),
    ('[[alias]]\ncuda = "cuA"\nhip = "hipA"\nkind = "type"\nreason = "r"\nsource = "s"\nconst_type = "x"\n',
     "const_type"),
    ('[[alias]]\ncuda = "cuA"\nhip = "hipA"\nkind = "type"\nreason = "r"\nsource = "s"\nextra = 1\n',
     "unknown key"),
    ('[[const_type]]\npattern = "("\ntype = "t"\nreason = "r"\n', "regular expression"),
    ('[aliases]\n', "unknown table"),
    ('[[alias]\n', "invalid TOML"),
])
def test_bad_overrides_name_the_file_and_entry(tmp_path: Path, text: str, fragment: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_overrides(path)
    assert str(path) in str(info.value) and fragment in str(info.value)


def test_missing_overrides_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        build_table(tmp_path / "nope.toml", maps={})


def test_table_does_not_import_torch() -> None:
    import subprocess
    import sys

    code = ("import sys; from porting.aliases.table import build_table; t = build_table(); "
            "print(len(t), 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert int(out[0]) > 1000 and out[1] == "False"


def test_hipify_map_names_exist() -> None:
    maps, version = load_hipify_maps()
    assert set(maps) == set(HIPIFY_MAPS) and version


def test_every_runtime_target_is_declared_by_the_rocm_headers(table: AliasTable) -> None:
    from porting.aliases.ground_truth import rocm_names

    names = rocm_names()
    for a in table.entries.values():
        target = a.hip_pointee or a.hip
        if a.status == "unverified":
            assert a.library  # a library whose headers are not here: marked, not checked
        else:
            assert target in names, f"{a.cuda} -> {a.hip}"
    assert table.get("CU_POINTER_ATTRIBUTE_MEMORY_TYPE").hip == "HIP_POINTER_ATTRIBUTE_MEMORY_TYPE"
    assert table.get("CU_MEMORYTYPE_HOST").hip == "hipMemoryTypeHost"  # renamed: the declared spelling
    assert table.get("CUmemorytype").hip == "hipMemoryType"
    assert "CUctx_flags" not in table and "CUevent_flags" not in table  # dropped, with a reason
    assert table.get("cublasCreate").status == "unverified" and table.get("cublasCreate").library == "hipBLAS"
    assert table.headers and "rocm" in table.headers.lower()


def _names(decls: dict[str, list[str]]):
    from porting.headers import Decl, HeaderNames

    return HeaderNames("clang", "22", "hip", [], [], [], {n: Decl(n, k, "h", 1) for n, k in decls.items()})


def test_undeclared_targets_fail_naming_the_entry_unless_a_rule_covers_them(tmp_path: Path) -> None:
    maps = {"CUDA_IDENTIFIER_MAP": {"cuGood": "hipGood", "CU_ATTR_X": "hipAttrX", "cuGone": "hipGone",
                                    "cublasThing": "hipblasThing", "cuOld": "hipOld__"}}
    names = _names({"hipGood": ["function"], "HIP_ATTR_X": ["enum_constant"]})
    with pytest.raises(ConfigError, match=r"1 alias target\(s\) not declared .*cuGone -> hipGone"):
        build_table(write(tmp_path, EMPTY), maps=maps, names=names)
    rule = '[[undeclared]]\npattern = "^cuGone$"\nreason = "removed"\n'
    t = build_table(write(tmp_path, rule), maps=maps, names=names)
    assert t.get("cuGood").status == "declared"
    assert (t.get("CU_ATTR_X").hip, t.get("CU_ATTR_X").status) == ("HIP_ATTR_X", "renamed")
    assert (t.get("cublasThing").status, t.get("cublasThing").library) == ("unverified", "hipBLAS")
    assert {a.cuda: a.reason for a in t.dropped} == {
        "cuGone": "removed", "cuOld": "hipify marks the HIP target hipOld__ unsupported (trailing __)"}
    assert [a.cuda for a in t.select(t.entries, verified_only=True)] == ["CU_ATTR_X", "cuGood"]
    with pytest.raises(ConfigError, match=r"\[\[undeclared\]\] #1: must be a table"):
        build_table(write(tmp_path, '[[undeclared]]\npattern = "x"\n'), maps=maps, names=names)
