"""Issue 23, holes 5 and 9: forged or foreign evidence, evidence manifests and their signatures,
one run per output directory."""

from __future__ import annotations

import datetime as dt
import json
import multiprocessing
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

from porting.cli import main
from porting.errors import ConfigError
from porting.outlock import OutputBusy, locked
from porting.provenance import SIGNED, UNSIGNED, UNTRUSTED, check, load_trusted, manifest_path, write_manifest
from porting.report import build_report

TODAY = dt.date(2026, 11, 29)
CASES = [("tests.native.m::a", "passed"), ("tests.native.m::b", "passed")]


def _key(tmp_path: Path, name: str) -> tuple[str, str]:
    key = Ed25519PrivateKey.generate()
    private, public = tmp_path / f"{name}.pem", tmp_path / f"{name}.pub.pem"
    private.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    public.write_bytes(key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo))
    return str(private), str(public)


def _props(path: Path) -> dict[str, str]:
    from porting.junit_contract import run_fields
    from porting.report.junit_reader import read_run

    info = read_run(path).info
    return {k: str(getattr(info, a)) for k, a in run_fields().items() if getattr(info, a)}


def test_hole5_a_forged_rocm_reference_is_never_a_plain_certified(write_junit, jx, tmp_path, capsys):
    """`port certify --reference DIR` on a CPU-only machine, DIR holding one hand-written JUnit
    claiming ROCm: the report run as certify runs it says the ROCm evidence was made elsewhere,
    unsigned, in the verdict line, and exits 5, never 0."""
    cpu = write_junit("cpu.xml", jx.CPU, CASES, run_id="this-run")
    forged = write_junit("forged.xml", jx.ROCM, CASES, run_id="forged")
    rc = main(["report", str(cpu), "--run-id", "this-run", "--external", str(forged), "--out", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert rc == 5 and out.startswith("verdict: certified on external evidence")
    assert "evidence made elsewhere: rocm-7.0.2/gfx942 (no manifest)" in out.splitlines()[0]
    # --require-signed refuses it (and this unsigned CPU run): no usable result is left, one line, exit 2
    rc = main(["report", str(cpu), "--run-id", "this-run", "--external", str(forged), "--require-signed",
               "--out", str(tmp_path / "o2")])
    err = capsys.readouterr().err
    assert rc == 2 and "forged.xml: evidence refused: no manifest" in err.splitlines()[-1]
    assert "Traceback" not in err


def test_a_forged_cpu_fingerprint_claiming_rocm_is_refused(write_junit, jx):
    """The hand-written JUnit of a CPU box: platform rocm but no GPU arch and the cpu path."""
    forged = dict(jx.CPU, **{"port.platform": "rocm", "port.rocm_version": "7.0.2", "port.rocm_usable": "true"})
    v = build_report([str(write_junit("cpu.xml", jx.CPU, CASES, run_id="c")),
                      str(write_junit("f.xml", forged, CASES, run_id="f"))], today=TODAY).verdict
    assert v.status == "not certified" and v.rocm == []


def test_signed_manifest_verifies_and_a_tampered_file_is_refused(write_junit, jx, tmp_path):
    private, public = _key(tmp_path, "fleet")
    _, other_public = _key(tmp_path, "other")
    rocm = write_junit("rocm.xml", jx.ROCM, CASES, run_id="r")
    write_manifest(rocm, _props(rocm), private)
    trusted = load_trusted([public])
    assert check(rocm, trusted).status == SIGNED
    assert check(rocm, load_trusted([other_public])).status == UNTRUSTED
    assert check(rocm, {}).status == UNTRUSTED
    cpu = write_junit("cpu.xml", jx.CPU, CASES, run_id="c")
    r = build_report([str(cpu)], external=[], today=TODAY, run_id=None)
    signed = build_report([str(cpu), str(rocm)], external=[str(rocm)], trusted_keys=[public], require_signed=False,
                          today=TODAY)
    assert signed.verdict.status == "certified on external evidence"
    assert any("signed (key " in e["provenance"] for e in signed.verdict.evidence)
    assert r.verdict.status == "no evidence"
    # one byte changed after the run: the manifest no longer matches, the evidence is refused
    rocm.write_text(rocm.read_text().replace('name="b"', 'name="c"'))
    checked = check(rocm, trusted)
    assert checked.problem and "does not match its evidence manifest" in checked.problem
    tampered = build_report([str(cpu), str(rocm)], trusted_keys=[public], today=TODAY)
    assert tampered.verdict.status == "no evidence" and tampered.matrix.partial


def test_a_forged_signature_does_not_verify(write_junit, jx, tmp_path):
    private, public = _key(tmp_path, "fleet")
    rocm = write_junit("rocm.xml", jx.ROCM, CASES, run_id="r")
    write_manifest(rocm, _props(rocm), private)
    data = json.loads(manifest_path(rocm).read_text())
    data["payload"]["host"] = "mi300-node"  # the claim changed, the signature kept
    manifest_path(rocm).write_text(json.dumps(data))
    checked = check(rocm, load_trusted([public]))
    assert checked.status == UNTRUSTED and "does not verify" in checked.problem


def test_unsigned_manifest_and_require_signed(write_junit, jx, tmp_path):
    _, public = _key(tmp_path, "fleet")
    cpu = write_junit("cpu.xml", jx.CPU, CASES, run_id="c")
    rocm = write_junit("rocm.xml", jx.ROCM, CASES, run_id="r")
    write_manifest(rocm, _props(rocm))
    assert check(rocm, {}).status == UNSIGNED
    assert build_report([str(cpu), str(rocm)], today=TODAY).verdict.status == "certified"
    refused = build_report([str(cpu), str(rocm)], trusted_keys=[public], require_signed=True, today=TODAY)
    assert refused.verdict.status == "no evidence"
    assert any("rocm.xml: evidence refused: manifest, unsigned" in p for p in refused.matrix.partial_reasons())


@pytest.mark.parametrize("content", [b"not a key", b""])
def test_a_bad_trusted_key_is_a_config_error(tmp_path, content):
    bad = tmp_path / "k.pem"
    bad.write_bytes(content)
    with pytest.raises(ConfigError, match="report.trusted_keys .*k.pem: not a readable PEM public key"):
        load_trusted([str(bad)])


@pytest.mark.parametrize("manifest", [b"{", b"[]", b'{"payload": {"kind": "other"}}', b"[" * 100000])
def test_a_hostile_manifest_is_a_problem_not_a_crash(write_junit, jx, manifest):
    rocm = write_junit("rocm.xml", jx.ROCM, CASES, run_id="r")
    manifest_path(rocm).write_bytes(manifest)
    checked = check(rocm, {})
    assert checked.problem


def test_hole9_the_report_reads_only_this_runs_junit(write_junit, jx):
    """A JUnit of another run left in (or written into) certify's directory is named and ignored."""
    cpu = write_junit("cpu.xml", jx.CPU, CASES, run_id="mine")
    other = write_junit("other.xml", jx.ROCM, CASES, run_id="someone-else")
    r = build_report([str(cpu), str(other)], run_id="mine", today=TODAY)
    assert [c.key for c in r.matrix.columns] == ["cpu"] and r.verdict.status == "no evidence"
    assert "other.xml: from run someone-else, not this run mine: ignored" in r.matrix.problems


def _hold(directory: str, ready, release) -> None:
    with locked(directory, "port certify (test holder)"):
        ready.set()
        release.wait(30)


def test_hole9_a_second_run_in_one_output_directory_refuses(tmp_path):
    ctx = multiprocessing.get_context("fork")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold, args=(str(tmp_path), ready, release))
    holder.start()
    try:
        assert ready.wait(30)
        with pytest.raises(OutputBusy, match=r"another run is writing into this output directory \(pid \d+, "
                                             r"port certify \(test holder\)\)"):
            with locked(tmp_path, "port certify"):
                pass
    finally:
        release.set()
        holder.join(30)
    with locked(tmp_path, "port certify"):  # released when its holder ended
        pass


def test_hole9_certify_refuses_a_locked_output_directory(tmp_path, capsys):
    out = tmp_path / "out"
    with locked(out, "port certify"):
        rc = main(["certify", "--out", str(out), "--skip", "build", "--skip", "matrix"])
    _, err = capsys.readouterr()
    assert rc == 2 and err.count("\n") == 1 and "another run is writing into this output directory" in err
    assert not (out / "certify.json").exists()


def test_the_lock_file_is_not_followed_through_a_symlink(tmp_path):
    (tmp_path / "out").mkdir()
    target = tmp_path / "elsewhere"
    (tmp_path / "out" / ".port.lock").symlink_to(target)
    with pytest.raises(Exception, match="cannot lock the output directory"):
        with locked(tmp_path / "out", "port certify"):
            pass
    assert not target.exists()
