"""Build paths and toolchains are declared once (porting.registry); every stage reads them."""

from __future__ import annotations

import json

from porting import assets, registry
from porting.builder.backends import BACKENDS
from porting.builder.sources import units_for
from porting.certify import _path_green
from porting.native.library import PATHS as LOAD_ORDER
from porting.plan import ASSESS
from porting.plan import PATHS as PLAN_PATHS


def test_every_stage_lists_the_declared_paths_in_order():
    names = registry.PATH_NAMES
    assert names == tuple(p.name for p in registry.PATHS)
    assert tuple(BACKENDS) == names and LOAD_ORDER == names and PLAN_PATHS == names
    assert all(BACKENDS[n].path == n for n in names)


def test_detect_schema_enums_are_the_registry():
    schema = json.loads(assets.schema("detect-1").read_text())
    assert tuple(schema["properties"]["path"]["enum"]) == registry.PATH_NAMES
    item = schema["properties"]["toolchains"]["items"]["properties"]
    assert tuple(item["path"]["enum"]) == registry.PATH_NAMES
    assert tuple(item["toolchain"]["enum"]) == registry.TOOLCHAIN_NAMES
    assert set(schema["properties"]["device"]["enum"]) == {p.device for p in registry.PATHS}


def test_each_declared_toolchain_is_assessed_and_each_path_names_known_toolchains():
    assert set(ASSESS) == set(registry.TOOLCHAIN_NAMES)
    for p in registry.PATHS:
        assert p.toolchains and all(t in registry.TOOLCHAIN_NAMES for t in p.toolchains)
        assert {registry.toolchain(t).device for t in p.toolchains} == {p.device}
        assert units_for(p.name) and all(u.kind in p.units for u in units_for(p.name))


def test_lookups_and_arch_filters():
    assert registry.build_path("native-hip").toolchains == ("rocm", "rocm7-sdk")  # a ROCm install wins
    assert registry.paths_on("rocm") == ("native-hip", "hipified-cuda")
    assert registry.platform_of_path("hipified-cuda") == "rocm" and registry.platform_of_path(None) == "cpu"
    assert registry.archs_for("cuda", ["sm_90", "90", "gfx942"]) == ["sm_90", "90"]
    assert registry.archs_for("hipified-cuda", ["sm_90", "gfx942", "gfx950"]) == ["gfx942", "gfx950"]
    assert registry.archs_for("cpu", ["gfx942"]) == []
    try:
        registry.build_path("rocm5")
    except KeyError as exc:
        assert "native-hip" in str(exc)
    else:
        raise AssertionError("unknown path accepted")


def test_certify_files_a_path_under_its_registry_platform():
    parity = {"columns": [{"platform": "rocm", "key": "r", "complete": True}],
              "totals": {"r": {"*": {"passed": 3}}}}
    assert _path_green(parity, "hipified-cuda") == "ROCM path green"
    assert _path_green(parity, "cpu") == "no CPU run"
