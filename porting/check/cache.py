"""`port check`'s compile cache: entries that cannot lie.

An entry is reused only when everything the compile's verdict depends on is unchanged:

- the argv and the toolchain's identity (``CompileJob.key_seed``);
- the bytes of the source and of every header the compiler opened (``-H``);
- every header it looked for and did not find: for each ``'x.h' file not found`` the entry
  keeps the paths that were searched (the including file's directory for a quoted include,
  then every ``-I``/``-isystem`` of the argv). Creating the header in any of them makes the
  entry stale, as it would change the compiler's answer.

Entries are authenticated: an HMAC-SHA256 over the entry with a per-user key kept outside every
tree (``~/.cache/rocm-port/check-key``, mode 0600, created on first use). An entry edited to say
``returncode: 0`` or shipped inside a repository fails the check and is recompiled. The default
cache is the per-user directory (``check.cache`` / ``PORT_CHECK_CACHE`` to change it), so
``port check .`` never reads a cache out of the tree it checks.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, InputError
from ..paths import OutputDir, PathRefused
from .diagnostics import missing_lookups

KEY_BYTES = 32
ENTRY_MAX = 16 << 20  # one unit's stderr at -ferror-limit=100 is far below this
USER_SUBDIR = "rocm-port"


def user_cache_base(env: Mapping[str, str]) -> Path | None:
    """$XDG_CACHE_HOME/rocm-port, else ~/.cache/rocm-port; None when neither is set."""
    base = env.get("XDG_CACHE_HOME") or (f"{env['HOME']}/.cache" if env.get("HOME") else None)
    return None if not base else Path(base) / USER_SUBDIR


def cache_location(configured: str, env: Mapping[str, str]) -> tuple[Path, Path]:
    """(cache directory, key file). The key always lives in the per-user directory."""
    base = user_cache_base(env)
    if base is None:
        raise ConfigError("port check: neither XDG_CACHE_HOME nor HOME is set: no per-user place for the "
                          "compile cache's key")
    return (Path(configured).expanduser() if configured else base / "check-cache"), base / "check-key"


def load_key(path: Path) -> bytes:
    """The per-user HMAC key, created (0600, never through a symlink) when missing. A key
    another user can read or write authenticates nothing: refused."""
    os.makedirs(path.parent, mode=0o700, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        return _read_key(path)
    with os.fdopen(fd, "wb") as fh:
        fh.write(secrets.token_bytes(KEY_BYTES))
    return _read_key(path)


def _read_key(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise InputError(f"{path}: cannot read the check cache key: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077:
            raise InputError(f"{path}: the check cache key must be a regular file of yours with mode 0600")
        key = fh.read(KEY_BYTES + 1)
    if len(key) != KEY_BYTES:
        raise InputError(f"{path}: the check cache key is not {KEY_BYTES} bytes; delete it to make a new one")
    return key


@dataclass
class Cache:
    root: Path
    key: bytes

    def __post_init__(self) -> None:
        self._out = OutputDir(self.root)

    @staticmethod
    def entry_name(*parts: str) -> str:
        return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:32] + ".json"

    def _mac(self, body: bytes) -> str:
        return hmac.new(self.key, body, hashlib.sha256).hexdigest()

    def load(self, name: str) -> dict | None:
        """The entry's body when its MAC is ours; None for a miss, a forgery or garbage."""
        from ..walk import read_regular

        if not self.key:
            return None

        data = read_regular(self.root / name, ENTRY_MAX)
        if data is None:
            return None
        try:
            mac, body = data.split(b"\n", 1)
            if not hmac.compare_digest(mac.decode("ascii"), self._mac(body)):
                return None
            entry = json.loads(body)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return None
        return entry if isinstance(entry, dict) else None

    def store(self, name: str, entry: dict) -> None:
        if not self.key:
            return
        body = json.dumps(entry, sort_keys=True).encode("utf-8", "surrogateescape")
        try:  # atomic, not fsynced (a lost entry is a recompile), never through a symlink in the cache
            self._out.write_bytes(name, self._mac(body).encode("ascii") + b"\n" + body, durable=False)
        except (PathRefused, OSError):
            pass  # a cache that cannot be written costs time, not correctness


def lookups_still_missing(lookups: list) -> bool:
    """True while none of the paths searched for a missing header exists yet."""
    return all(not os.path.lexists(p) for _, paths in lookups for p in paths)


def failed_lookups(stderr: str, argv: list[str]) -> list[list]:
    """[[header, [every path the compiler searched for it]]] for each ``file not found``."""
    dirs = [a[2:] if a.startswith("-I") else "" for a in argv]
    search = [d for d in dirs if d]
    search += [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "-isystem"]
    out: list[list] = []
    for name, including in missing_lookups(stderr):
        where = ([os.path.dirname(including)] if including else []) + search
        out.append([name, sorted({os.path.normpath(os.path.join(d, name)) for d in where})])
    return out
