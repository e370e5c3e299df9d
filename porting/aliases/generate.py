"""The checked-in generated files of ``hip_aliases/``: compute, write, or check them.

- ``include/hip_aliases/detail/gpu_runtime_renames.h`` (CUDA/HIP backends of the header)
- the API list region of ``include/hip_aliases/gpu_runtime.h``
- ``rust/src/table.rs`` (the ``rocm_compat!`` macro's arms: every Rust-usable alias)
- ``alias_table.json`` (the verified table itself, for machines without ROCm headers:
  ``porting.aliases.snapshot``)

All are pure functions of the alias table and ``gpu_runtime_api.toml``, so a test regenerates
them and compares byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..atomic import write_text
from ..errors import InputError
from . import cpp_gen, rust_gen, snapshot
from .table import AliasTable


@dataclass(frozen=True)
class Layout:
    root: Path  # the hip_aliases/ directory

    @property
    def api_file(self) -> Path:
        return self.root / "gpu_runtime_api.toml"

    @property
    def header(self) -> Path:
        return self.root / "include" / "hip_aliases" / "gpu_runtime.h"

    @property
    def renames(self) -> Path:
        return self.root / "include" / "hip_aliases" / "detail" / "gpu_runtime_renames.h"

    @property
    def rust_table(self) -> Path:
        return self.root / "rust" / "src" / "table.rs"

    @property
    def snapshot(self) -> Path:
        return self.root / snapshot.NAME


def expected_files(table: AliasTable, layout: Layout) -> dict[Path, str]:
    """Path -> the content it must have."""
    resolved = cpp_gen.resolve_api(cpp_gen.load_api(layout.api_file), table, str(layout.api_file))
    try:
        header_now = layout.header.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{layout.header}: cannot read the hand-written header: {exc.strerror or exc}") from None
    return {
        layout.renames: cpp_gen.render_renames(resolved),
        layout.header: cpp_gen.splice_api_list(header_now, cpp_gen.render_api_list(resolved), str(layout.header)),
        layout.rust_table: rust_gen.render_macro_table(table),
        layout.snapshot: snapshot.render(table),
    }


def stale_files(expected: dict[Path, str]) -> list[Path]:
    stale = []
    for path, text in expected.items():
        try:
            current = path.read_text(encoding="utf-8")
        except OSError:
            current = None
        if current != text:
            stale.append(path)
    return stale


def write_files(expected: dict[Path, str]) -> list[Path]:
    """Write the files whose content differs; return those written."""
    changed = stale_files(expected)
    for path in changed:
        try:
            write_text(path, expected[path])
        except OSError as exc:
            raise InputError(f"{path}: cannot write the generated file: {exc.strerror or exc}") from None
    return changed
