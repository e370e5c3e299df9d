"""Evidence manifests: which run made a JUnit file, and (with a key) a signature over that claim.

`port matrix` writes ``<junit stem>.evidence.json`` beside each JUnit file: the sha256 of the
file, the run's ``port.*`` properties (the detect record as the JUnit carries it), the host,
the run id and the time. With ``matrix.signing_key`` set (an Ed25519 private key in PEM, e.g.
``openssl genpkey -algorithm ed25519 -out key.pem``) the manifest is signed with it through the
``cryptography`` package. `port report` verifies each input's manifest: a JUnit file edited
after its run no longer matches (a problem: the evidence is refused), a signature counts only
when its public key is one of ``report.trusted_keys`` (PEM public keys, ``openssl pkey -in
key.pem -pubout``). A hand-written JUnit file has no manifest, or one it cannot sign.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import os
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ConfigError

KIND = "rocm-port.evidence"
SCHEMA = 1
SUFFIX = ".evidence.json"
MANIFEST_LIMIT = 1 << 20  # a manifest is a few KiB; a larger file is not one of ours

SIGNED = "signed"  # by a trusted key
UNTRUSTED = "signed by an untrusted key"
UNSIGNED = "manifest, unsigned"
NO_MANIFEST = "no manifest"


def manifest_path(junit: str | os.PathLike[str]) -> Path:
    path = Path(junit)
    return path.with_name(path.stem + SUFFIX)


def _canonical(payload: Mapping[str, Any]) -> bytes:
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _load_private(path: str) -> Any:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        key = load_pem_private_key(Path(path).read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise ConfigError(f"matrix.signing_key {path}: not a readable PEM private key ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(f"matrix.signing_key {path}: not an Ed25519 key")
    return key


def _raw_public(key: Any) -> bytes:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return bytes(key.public_bytes(Encoding.Raw, PublicFormat.Raw))


def key_id(raw_public: bytes) -> str:
    """A short, stable name of a public key: the first 16 hex digits of its sha256."""
    return _sha256(raw_public)[:16]


def write_manifest(junit: str | os.PathLike[str], properties: Mapping[str, str],
                   signing_key: str | None = None, now: dt.datetime | None = None) -> Path:
    """Write the manifest beside ``junit`` through ``OutputDir`` (atomically, never through a
    symlink planted at its name); signed when ``signing_key`` is given."""
    from .paths import OutputDir

    data = Path(junit).read_bytes()
    payload = {"kind": KIND, "schema": SCHEMA, "file": Path(junit).name, "sha256": _sha256(data),
               "run_id": properties.get("port.run_id", ""), "shard": properties.get("port.shard", ""),
               "host": properties.get("port.host", "") or socket.gethostname(),
               "time": (now or dt.datetime.now(dt.timezone.utc)).isoformat(timespec="seconds"),
               "properties": dict(sorted(properties.items()))}
    record: dict[str, Any] = {"payload": payload}
    if signing_key:
        key = _load_private(signing_key)
        record["signature"] = {"alg": "ed25519", "key_id": key_id(_raw_public(key.public_key())),
                               "value": base64.b64encode(key.sign(_canonical(payload))).decode("ascii")}
    target = manifest_path(junit)
    OutputDir(target.parent).write_bytes(target.name, (json.dumps(record, indent=1) + "\n").encode("utf-8"))
    return target


def load_trusted(paths: Iterable[str]) -> dict[str, Any]:
    """key id -> Ed25519 public key, from PEM files (``report.trusted_keys``)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    keys: dict[str, Any] = {}
    for path in paths:
        try:
            key = load_pem_public_key(Path(path).read_bytes())
        except (OSError, ValueError, TypeError) as exc:
            raise ConfigError(f"report.trusted_keys {path}: not a readable PEM public key ({exc})") from None
        if not isinstance(key, Ed25519PublicKey):
            raise ConfigError(f"report.trusted_keys {path}: not an Ed25519 public key")
        keys[key_id(_raw_public(key))] = key
    return keys


@dataclass
class Checked:
    status: str  # SIGNED / UNTRUSTED / UNSIGNED / NO_MANIFEST
    detail: str = ""  # e.g. "key 1a2b..."; for a problem, why
    problem: str = ""  # the manifest contradicts the file: the evidence is refused

    @property
    def label(self) -> str:
        return self.status + (f" ({self.detail})" if self.detail else "")


def _read_manifest(path: Path) -> dict[str, Any] | str:
    from .errors import PortError
    from .parsing import loads_json  # bounded nesting: a hostile manifest is a problem, not a crash

    try:
        if not path.is_file() or path.stat().st_size > MANIFEST_LIMIT:
            return f"{path.name}: not a manifest (not a regular file of at most {MANIFEST_LIMIT} bytes)"
        data = loads_json(path.read_bytes(), str(path))
    except (OSError, PortError) as exc:
        return f"{path.name}: unreadable evidence manifest ({str(exc)[:120]})"
    if not isinstance(data, dict) or not isinstance(data.get("payload"), dict) \
            or data["payload"].get("kind") != KIND:
        return f"{path.name}: not a {KIND} manifest"
    return data


def check(junit: str | os.PathLike[str], trusted: Mapping[str, Any]) -> Checked:
    """What the manifest beside ``junit`` says about it (never raises for bad content)."""
    from cryptography.exceptions import InvalidSignature

    path = manifest_path(junit)
    if not os.path.lexists(path):
        return Checked(NO_MANIFEST)
    data = _read_manifest(path)
    if isinstance(data, str):
        return Checked(NO_MANIFEST, problem=data)
    payload = data["payload"]
    try:
        actual = _sha256(Path(junit).read_bytes())
    except OSError as exc:
        return Checked(NO_MANIFEST, problem=f"cannot read {junit}: {exc.strerror or exc}")
    if payload.get("sha256") != actual or payload.get("file") != Path(junit).name:
        return Checked(UNSIGNED, problem=f"{Path(junit).name} does not match its evidence manifest "
                                         "(changed after the run that made it)")
    sig = data.get("signature")
    if not isinstance(sig, dict):
        return Checked(UNSIGNED)
    kid = str(sig.get("key_id", ""))[:64]
    key = trusted.get(kid)
    if key is None:
        return Checked(UNTRUSTED, f"key {kid}")
    try:
        key.verify(base64.b64decode(str(sig.get("value", "")), validate=True), _canonical(payload))
    except (InvalidSignature, ValueError):
        return Checked(UNTRUSTED, f"key {kid}", problem=f"{path.name}: signature does not verify with key {kid}")
    return Checked(SIGNED, f"key {kid}")
