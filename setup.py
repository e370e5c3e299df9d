"""Build hook (metadata stays in pyproject.toml): map the repository's top-level asset
directories into the package as ``porting/_assets/<dir>``, where ``porting.assets`` finds them
in an installed wheel. The repository keeps its layout; a checkout is found by that module
without this copy, so an editable install copies nothing. The sdist carries the same
directories (MANIFEST.in), so building a wheel from it runs this same hook on the same files.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
# Build outputs that may sit in a working tree (cargo's target/, compiled objects): never shipped.
IGNORE = shutil.ignore_patterns("__pycache__", "*.py[cod]", "target", "*.so", "*.o", ".*")


def _assets_constants() -> tuple[tuple[str, ...], str, str]:
    """ASSET_DIRS, PACKAGED and MARKER as porting/assets.py declares them (read, not imported:
    the package is not importable while it is being built)."""
    tree = ast.parse((HERE / "porting" / "assets.py").read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("ASSET_DIRS", "PACKAGED", "MARKER"):
                found[node.targets[0].id] = ast.literal_eval(node.value)
    return tuple(found["ASSET_DIRS"]), found["PACKAGED"], found["MARKER"]


class build_py_with_assets(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # editable: porting.assets reads the checkout itself
        dirs, packaged, marker = _assets_constants()
        if not (HERE / marker).is_file():
            raise SystemExit(f"{HERE / marker}: missing; the source tree lacks native/ (a broken sdist?)")
        target = Path(self.build_lib) / "porting" / packaged
        if target.exists():
            shutil.rmtree(target)  # a stale copy from an earlier build must not leak into this one
        for name in dirs:
            if (HERE / name).is_dir():
                shutil.copytree(HERE / name, target / name, ignore=IGNORE)


setup(cmdclass={"build_py": build_py_with_assets})
