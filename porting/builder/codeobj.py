"""What a HIP library's offload bundle holds: per-arch AMDGPU code objects, read from the ELF.

``libport_native.so`` carries its device code in the ``.hip_fatbin`` section: a clang offload
bundle (``__CLANG_OFFLOAD_BUNDLE__``, the format ``clang-offload-bundler`` writes) of one
AMDGPU ELF code object per ``--offload-arch``. Each code object says what it is built for in
its ``NT_AMDGPU_METADATA`` note (msgpack: ``amdhsa.target``, per kernel ``.wavefront_size``)
and in each kernel descriptor (``<kernel>.kd``: bit 10 of ``kernel_code_properties`` is
ENABLE_WAVEFRONT_SIZE32, clear for wave64). Parsed here directly so the build record can list
them without tools that this machine lacks (llvm-readelf is not in Debian's clang-22).
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import InputError

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
EM_AMDGPU = 224
NT_AMDGPU_METADATA = 32
KD_SIZE, KD_CODE_PROPERTIES = 64, 56
KD_ENABLE_WAVEFRONT_SIZE32 = 1 << 10


@dataclass
class CodeObject:
    triple: str  # the bundle entry, e.g. hipv4-amdgcn-amd-amdhsa--gfx942
    arch: str  # from the metadata's amdhsa.target (gfx942, gfx950, ...)
    target: str  # amdhsa.target verbatim (features such as :xnack- included)
    size: int
    sha256: str
    kernels: list[str] = field(default_factory=list)
    wavefront_sizes: list[int] = field(default_factory=list)  # per kernel, from the metadata
    descriptor_wave64: list[bool] = field(default_factory=list)  # per kernel descriptor (.kd)
    undefined: list[str] = field(default_factory=list)  # undefined dynamic symbols: a complete link has none
    file: str | None = None  # where the build wrote it (relative to the build dir)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class _Elf:
    """Just enough ELF64 little-endian: section headers, by name, and symbol tables."""

    def __init__(self, data: bytes, where: str) -> None:
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            raise InputError(f"{where}: not a little-endian ELF64 file")
        self.data, self.where = data, where
        self.machine, self.flags = struct.unpack_from("<H", data, 18)[0], struct.unpack_from("<I", data, 48)[0]
        shoff, = struct.unpack_from("<Q", data, 40)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
        self.sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
        names = self.sections[shstrndx]
        self.names = [self._str(names[4], s[0]) for s in self.sections]

    def _str(self, table_offset: int, index: int) -> str:
        end = self.data.index(b"\0", table_offset + index)
        return self.data[table_offset + index:end].decode()

    def section(self, name: str) -> bytes | None:
        for n, s in zip(self.names, self.sections):
            if n == name:
                return self.data[s[4]:s[4] + s[5]]
        return None

    def of_type(self, sh_type: int) -> list[tuple[int, Any]]:
        return [(i, s) for i, s in enumerate(self.sections) if s[1] == sh_type]

    def symbols(self, sh_type: int) -> list[tuple[str, int, int, int]]:
        """(name, value, section index, info) of each symbol in the tables of ``sh_type``."""
        out = []
        for _, s in self.of_type(sh_type):
            strtab = self.sections[s[6]][4]
            for off in range(s[4], s[4] + s[5], 24):
                name, info, _other, shndx, value, _size = struct.unpack_from("<IBBHQQ", self.data, off)
                out.append((self._str(strtab, name), value, shndx, info))
        return out


def bundle_entries(blob: bytes, where: str = "offload bundle") -> list[tuple[str, bytes]]:
    """(target triple, image) of each entry of a clang offload bundle."""
    if not blob.startswith(BUNDLE_MAGIC):
        raise InputError(f"{where}: not an uncompressed clang offload bundle (magic {blob[:8]!r})")
    count, = struct.unpack_from("<Q", blob, len(BUNDLE_MAGIC))
    pos, out = len(BUNDLE_MAGIC) + 8, []
    for _ in range(count):
        offset, size, tlen = struct.unpack_from("<QQQ", blob, pos)
        triple = blob[pos + 24:pos + 24 + tlen].decode()
        pos += 24 + tlen
        out.append((triple, blob[offset:offset + size]))
    return out


def _msgpack(data: bytes, pos: int = 0) -> tuple[Any, int]:
    """A msgpack value at ``pos`` (the subset AMDGPU metadata uses); returns (value, next pos)."""
    b = data[pos]
    if b <= 0x7F or b >= 0xE0:
        return (b if b <= 0x7F else b - 0x100), pos + 1
    if 0x80 <= b <= 0x9F:
        return _container(data, pos + 1, b & 0x0F, b <= 0x8F)
    if 0xA0 <= b <= 0xBF:
        n = b & 0x1F
        return data[pos + 1:pos + 1 + n].decode(), pos + 1 + n
    fixed = {0xC0: None, 0xC2: False, 0xC3: True}
    if b in fixed:
        return fixed[b], pos + 1
    sized = {0xCC: "<B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q", 0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q",
             0xCA: ">f", 0xCB: ">d"}
    if b in sized:
        fmt = sized[b]
        return struct.unpack_from(fmt, data, pos + 1)[0], pos + 1 + struct.calcsize(fmt)
    lengths = {0xD9: ">B", 0xDA: ">H", 0xDB: ">I", 0xC4: ">B", 0xC5: ">H", 0xC6: ">I"}
    if b in lengths:
        fmt = lengths[b]
        n, = struct.unpack_from(fmt, data, pos + 1)
        start = pos + 1 + struct.calcsize(fmt)
        raw = data[start:start + n]
        return (raw.decode() if b >= 0xD9 else raw), start + n
    counts = {0xDC: (">H", False), 0xDD: (">I", False), 0xDE: (">H", True), 0xDF: (">I", True)}
    if b in counts:
        fmt, is_map = counts[b]
        n, = struct.unpack_from(fmt, data, pos + 1)
        return _container(data, pos + 1 + struct.calcsize(fmt), n, is_map)
    raise InputError(f"AMDGPU metadata: msgpack type 0x{b:02x} not understood")


def _container(data: bytes, pos: int, n: int, is_map: bool) -> tuple[Any, int]:
    items = []
    for _ in range(n * (2 if is_map else 1)):
        value, pos = _msgpack(data, pos)
        items.append(value)
    if is_map:
        return dict(zip(items[0::2], items[1::2])), pos
    return items, pos


def _metadata(elf: _Elf) -> list[dict[str, Any]]:
    """Every NT_AMDGPU_METADATA note (a device link of several objects keeps one per object)."""
    notes: list[dict[str, Any]] = []
    for _, s in elf.of_type(7):  # SHT_NOTE
        pos, end = s[4], s[4] + s[5]
        while pos + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", elf.data, pos)
            name = elf.data[pos + 12:pos + 12 + namesz].rstrip(b"\0")
            desc_at = pos + 12 + ((namesz + 3) & ~3)
            if name == b"AMDGPU" and ntype == NT_AMDGPU_METADATA:
                value, _ = _msgpack(elf.data[desc_at:desc_at + descsz])
                notes += [value] if isinstance(value, dict) else []
            pos = desc_at + ((descsz + 3) & ~3)
    if not notes:
        raise InputError(f"{elf.where}: no NT_AMDGPU_METADATA note")
    return notes


def code_object(triple: str, image: bytes) -> CodeObject:
    """Read one AMDGPU code object: target, kernels, wave sizes from metadata and descriptors."""
    elf = _Elf(image, triple)
    if elf.machine != EM_AMDGPU:
        raise InputError(f"{triple}: ELF machine {elf.machine} is not AMDGPU ({EM_AMDGPU})")
    notes = _metadata(elf)
    targets = {str(n.get("amdhsa.target", "")) for n in notes}
    if len(targets) != 1:
        raise InputError(f"{triple}: metadata notes disagree on the target ({', '.join(sorted(targets))})")
    target = targets.pop()
    kernels = [k for n in notes for k in n.get("amdhsa.kernels", [])]
    descriptors = {}
    for name, value, shndx, _info in elf.symbols(2):  # SHT_SYMTAB
        if name.endswith(".kd") and 0 < shndx < len(elf.sections):
            sec = elf.sections[shndx]
            at = sec[4] + (value - sec[3])
            props, = struct.unpack_from("<H", elf.data, at + KD_CODE_PROPERTIES)
            descriptors[name] = not props & KD_ENABLE_WAVEFRONT_SIZE32
    undefined = sorted({n for n, _v, shndx, _i in elf.symbols(11) if n and shndx == 0})  # SHT_DYNSYM, SHN_UNDEF
    return CodeObject(triple=triple, arch=target.split("--")[-1].split(":")[0], target=target, size=len(image),
                      sha256=hashlib.sha256(image).hexdigest(), kernels=[k.get(".name", "") for k in kernels],
                      wavefront_sizes=[int(k.get(".wavefront_size", 0)) for k in kernels],
                      descriptor_wave64=[descriptors.get(k.get(".symbol", ""), False) for k in kernels],
                      undefined=undefined)


def library_code_objects(data: bytes, where: str) -> list[tuple[CodeObject, bytes]]:
    """Every device code object in a host library's ``.hip_fatbin`` (host entries skipped)."""
    fatbin = _Elf(data, where).section(".hip_fatbin")
    if fatbin is None:
        raise InputError(f"{where}: no .hip_fatbin section (no device code linked)")
    return [(code_object(triple, image), image) for triple, image in bundle_entries(fatbin, where)
            if "amdgcn" in triple]
