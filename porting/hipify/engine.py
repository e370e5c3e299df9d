"""hipify's per-file machinery, driven one file at a time without its global state.

We load ``torch/utils/hipify`` (hipify_torch as shipped in torch) from torch's install
directory *without importing torch itself* (hipify needs only the standard library and its
own mapping module; importing torch costs ~1.2 s per process). If torch is already
imported, its module is used. Every table, regex and transform comes from that module:
``RE_PYTORCH_PREPROCESSOR``/``PYTORCH_MAP``, ``CAFFE2_PATH_MAPPINGS``, the include regexes,
``processKernelLaunches``, ``replace_math_functions``, ``hip_header_magic``,
``get_hip_file_path``, ``HIPIFY_C_BREADCRUMB``. What is ours is the *order* of the steps
(the same as ``hipify_python.preprocessor``) with the header-include step split out, so
that the include rewriting, which in plain hipify depends on the global
``HIPIFY_FINAL_RESULT`` filled in file-processing order, can be decided once for the whole
tree (see ``includes.py``) and the rest done in any process.

Text is decoded as UTF-8 with ``surrogateescape``: bytes that are not UTF-8 pass through
unchanged, where plain hipify raises ``UnicodeDecodeError``. Newlines are translated the way
``open(..., encoding="utf-8")`` does in plain hipify (``\\r\\n`` and ``\\r`` become ``\\n``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ..errors import ConfigError

_MODULE: ModuleType | None = None
_PKG = "_port_hipify_torch"
_FILES = ("hipify_python.py", "cuda_to_hip_mappings.py", "constants.py", "version.py")


def hipify_dir() -> str:
    """Directory of torch's hipify package, found without importing torch."""
    mod = sys.modules.get("torch.utils.hipify")
    if mod is not None and getattr(mod, "__path__", None):
        return list(mod.__path__)[0]
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("torch is not installed: hipify's tables and machinery come from torch.utils.hipify")
    return os.path.join(list(spec.submodule_search_locations)[0], "utils", "hipify")


def fingerprint() -> dict[str, str]:
    """hipify version and a hash of its code and mapping tables (cheap: hashes the files)."""
    base = hipify_dir()
    digest = hashlib.sha256()
    version = "unknown"
    for name in _FILES:
        path = os.path.join(base, name)
        try:
            data = open(path, "rb").read()
        except OSError:
            continue
        digest.update(name.encode() + b"\0" + data)
        if name == "version.py":
            found = re.search(rb"__version__\s*=\s*['\"]([^'\"]+)", data)
            version = found.group(1).decode() if found else version
    return {"hipify_version": version, "hipify_tables_sha256": digest.hexdigest()}


def _submodule(name: str) -> ModuleType:
    """``torch/utils/hipify/<name>.py``, loaded once per process as ``_port_hipify_torch.<name>``
    (torch's own module when torch is loaded). The mapping tables, needed alone by `port audit`
    and `port aliases`, are then the very module ``hipify_python`` imports."""
    loaded = sys.modules.get(f"torch.utils.hipify.{name}") or sys.modules.get(f"{_PKG}.{name}")
    if loaded is not None:
        return loaded
    base = hipify_dir()
    if _PKG not in sys.modules:
        pkg_spec = importlib.util.spec_from_file_location(
            _PKG, os.path.join(base, "__init__.py"), submodule_search_locations=[base])
        assert pkg_spec is not None and pkg_spec.loader is not None
        pkg = importlib.util.module_from_spec(pkg_spec)
        sys.modules[_PKG] = pkg
        pkg_spec.loader.exec_module(pkg)
    spec = importlib.util.spec_from_file_location(f"{_PKG}.{name}", os.path.join(base, f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[spec.name]  # no half-initialised module for the next caller
        raise
    return module


def hipify_module() -> ModuleType:
    """``hipify_python``, loaded once per process (from sys.modules when torch is loaded)."""
    global _MODULE
    if _MODULE is None:
        _MODULE = _submodule("hipify_python")
    return _MODULE


def mappings_module() -> ModuleType:
    """``cuda_to_hip_mappings`` (standard library only), without hipify_python's regex set-up."""
    return _submodule("cuda_to_hip_mappings")


def decode(data: bytes) -> tuple[str, int]:
    """Lossless decode as plain hipify reads text; returns (text, number of non-UTF-8 bytes)."""
    try:
        text = data.decode("utf-8")
        bad = 0
    except UnicodeDecodeError:
        text = data.decode("utf-8", "surrogateescape")
        bad = sum(1 for ch in text if "\udc80" <= ch <= "\udcff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, bad


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


@dataclass(frozen=True)
class IncludeMatch:
    """One ``#include``/``THC_GENERIC_FILE`` directive that the include step looks at.

    ``regex`` is 0 (quote), 1 (angle) or 2 (THC_GENERIC_FILE); ``index`` counts matches of
    that regex in order; ``fixed`` is the replacement when it does not depend on other files
    (ATen/THC paths), else None and the include is resolved against the tree.
    """

    regex: int
    index: int
    text: str
    name: str
    fixed: str | None

    def to_json(self) -> list[Any]:
        return [self.regex, self.index, self.text, self.name, self.fixed]

    @classmethod
    def from_json(cls, data: list[Any]) -> IncludeMatch:
        return cls(int(data[0]), int(data[1]), str(data[2]), str(data[3]), data[4])


TEMPLATES = ('#include "{0}"', "#include <{0}>", '#define THC_GENERIC_FILE "{0}"')
_ATEN_PREFIXES = ("ATen/cuda", "ATen/native/cuda", "ATen/native/nested/cuda", "ATen/native/quantized/cuda",
                  "ATen/native/sparse/cuda", "ATen/native/transformers/cuda", "THC/")
_CAFFE2: list[Callable[[str], str]] | None = None
_LAUNCHES: Callable[[str, dict[str, list[str]]], str] | None = None


def _sub_step(rx: re.Pattern[str], cuda_path: str, hip_path: str) -> Callable[[str], str]:
    return lambda s: rx.sub(hip_path, s) if cuda_path in s else s


def _replace_step(cuda_path: str, hip_path: str) -> Callable[[str], str]:
    return lambda s: s.replace(cuda_path, hip_path)
# RE_KERNEL_LAUNCH (``([ ]+)(detail?)::[ ]+\\\n[ ]+``) cannot match without "::", spaces and a
# backslash-newline; this starts with a literal, so it is a fast pre-test.
_LAUNCH_HINT = re.compile(r"::[ ]+\\\n")


def _caffe2_steps() -> list[Callable[[str], str]]:
    """hipify's CAFFE2_PATH_MAPPINGS loop, with its patterns compiled once."""
    global _CAFFE2
    if _CAFFE2 is None:
        steps: list[Callable[[str], str]] = []
        for cuda_path, hip_path in hipify_module().CAFFE2_PATH_MAPPINGS.items():
            if "/hip/" in hip_path and "/hip/" not in cuda_path:
                # the same substitution as hipify's re.sub; skipped (a no-op) when the text
                # does not contain the path at all, which a substring test finds much faster
                rx = re.compile(r"(?<!/hip/)" + re.escape(cuda_path))
                steps.append(_sub_step(rx, cuda_path, hip_path))
            else:
                steps.append(_replace_step(cuda_path, hip_path))
        _CAFFE2 = steps
    return _CAFFE2


def stage1(text: str) -> str:
    """The steps of hipify's ``preprocessor`` before header-include rewriting."""
    hp = hipify_module()
    pmap = hp.PYTORCH_MAP
    out = hp.RE_PYTORCH_PREPROCESSOR.sub(lambda m: pmap[m.group(0)], text)
    for step in _caffe2_steps():
        out = step(out)
    return out


def include_matches(text: str, is_pytorch_extension: bool) -> list[IncludeMatch]:
    """The include directives of stage-1 text, in the order hipify rewrites them."""
    hp = hipify_module()
    found: list[IncludeMatch] = []
    for regex_no, rx in enumerate((hp.RE_QUOTE_HEADER, hp.RE_ANGLE_HEADER, hp.RE_THC_GENERIC_FILE)):
        for index, m in enumerate(rx.finditer(text)):
            name = m.group(1)
            fixed = None
            if name.startswith(_ATEN_PREFIXES) or (name.startswith("THC") and not name.startswith("THCP")):
                fixed = TEMPLATES[regex_no].format(hp.get_hip_file_path(name, is_pytorch_extension))
            found.append(IncludeMatch(regex_no, index, m.group(0), name, fixed))
    return found


def apply_includes(text: str, replacements: dict[tuple[int, int], str]) -> str:
    """Rewrite include directives: ``replacements[(regex, index)]`` is the new directive."""
    if not replacements:
        return text
    hp = hipify_module()
    for regex_no, rx in enumerate((hp.RE_QUOTE_HEADER, hp.RE_ANGLE_HEADER, hp.RE_THC_GENERIC_FILE)):
        if not any(key[0] == regex_no for key in replacements):
            continue
        counter = iter(range(1 << 62))

        def repl(m: re.Match[str], regex_no: int = regex_no, counter: Iterator[int] = counter) -> str:
            return replacements.get((regex_no, next(counter)), m.group(0))

        text = rx.sub(repl, text)
    return text


class WouldNotTerminate(ValueError):
    """hipify's kernel-launch rewriting would loop forever on this text."""


def check_launches_terminate(text: str) -> None:
    """Raise ``WouldNotTerminate`` where plain hipify's ``processKernelLaunches`` never returns.

    Its ``find_kernel_bounds`` restarts the search for ``<<<`` from ``text.find(">>>") + 3``;
    when a ``<<<`` has no ``>>>`` after it (a shift-like ``<<<`` in real code, a truncated file)
    that is position 2 and the loop never ends, growing a list until memory runs out. hipify
    searches a copy where comments and strings are masked, so a ``>>>`` there does not count,
    and a ``<<<`` there does not either: the check runs on the very copy hipify searches (its
    namespace regex applied, then its own masking rules, ``launches.mask_comments``; a C
    lexer's rules differ: a ``'<<<'`` character literal is not masked by hipify, and loops it).
    """
    from .launches import mask_comments

    hp = hipify_module()
    code = mask_comments(hp.RE_KERNEL_LAUNCH.sub(lambda m: f"{m.group(1)}{m.group(2)}::", text))
    last = code.rfind("<<<")
    if last >= 0 and code.find(">>>", last) < 0:
        where = "" if text.find(">>>", text.rfind("<<<")) < 0 else " outside comments and strings"
        raise WouldNotTerminate(f"'<<<' without a later '>>>'{where}: hipify's kernel-launch rewriting "
                                "would never finish")


def _process_kernel_launches() -> Callable[[str, dict[str, list[str]]], str]:
    """hipify's ``processKernelLaunches`` with its comment masker at C speed (``launches.py``)."""
    global _LAUNCHES
    if _LAUNCHES is None:
        from .launches import fast_process_kernel_launches

        _LAUNCHES = fast_process_kernel_launches(hipify_module())
    return _LAUNCHES


def stage2(text: str, out_abs_path: str, hip_clang_launch: bool) -> str:
    """The steps of hipify's ``preprocessor`` after header-include rewriting.

    ``processKernelLaunches`` is skipped for text where it cannot change anything (no
    ``<<<`` and no match of its namespace-continuation regex), and runs with a faster,
    equivalent comment masker where it can: hipify's is a per-character Python loop and
    dominates plain hipify's run time.
    """
    hp = hipify_module()
    if out_abs_path.endswith("CMakeLists.txt"):
        text = text.replace("CUDA", "HIP").replace("THC", "THH")
        text = hp.RE_CU_SUFFIX.sub(".hip", text)
    if not hip_clang_launch and "<<<" in text:
        check_launches_terminate(text)
    if not hip_clang_launch and ("<<<" in text or (_LAUNCH_HINT.search(text) and hp.RE_KERNEL_LAUNCH.search(text))):
        text = _process_kernel_launches()(text, {"unsupported_calls": [], "kernel_launches": []})
    if out_abs_path.endswith((".cu", ".cuh")) and "PowKernel" not in out_abs_path:
        text = hp.replace_math_functions(text)
    return hp.hip_header_magic(text)


def breadcrumb() -> str:
    return hipify_module().HIPIFY_C_BREADCRUMB


def needs_breadcrumb(fin_path: str, fout_path: str) -> bool:
    return fin_path != fout_path and hipify_module().match_extensions(
        fin_path, (".cu", ".cuh", ".c", ".cc", ".cpp", ".h", ".hpp"))


def hip_rel_path(rel: str, is_pytorch_extension: bool) -> str:
    return hipify_module().get_hip_file_path(rel, is_pytorch_extension)
