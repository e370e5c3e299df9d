"""Pieces of the replica and the launcher that can be checked without starting a soak."""

from __future__ import annotations

import socket

from porting.cli import main
from porting.soak import launch
from porting.soak.procs import pid_alive
from porting.soak.trainer import (
    TrainerSpec,
    build_model,
    close_tcp_connections,
    control_path,
    current_deadline,
    deadline_path,
    socket_inodes,
    teacher_batch,
    weights_checksum,
)


def test_batches_are_deterministic_per_step_and_replica_and_learnable():
    import torch

    x1, y1 = teacher_batch(3, 1, 0)
    x2, y2 = teacher_batch(3, 1, 0)
    assert torch.equal(x1, x2) and torch.equal(y1, y2)
    assert not torch.equal(teacher_batch(3, 2, 0)[0], x1)
    assert not torch.equal(teacher_batch(4, 1, 0)[0], x1)
    assert y1.std() > 0.5  # a real target, not noise around a constant


def test_checksum_tracks_weights_exactly():
    a, b = build_model(1), build_model(1)
    assert weights_checksum(a) == weights_checksum(b)
    b.load_state_dict(a.state_dict())
    assert weights_checksum(a) == weights_checksum(b)
    with __import__("torch").no_grad():
        next(b.parameters())[0, 0] += 1e-6
    assert weights_checksum(a) != weights_checksum(b)
    assert weights_checksum(build_model(2)) != weights_checksum(a)


def test_deadline_file_shortens_but_never_extends_the_cap(tmp_path):
    assert current_deadline(tmp_path, 100.0) == 100.0
    deadline_path(tmp_path).parent.mkdir(parents=True)
    deadline_path(tmp_path).write_text("50.5")
    assert current_deadline(tmp_path, 100.0) == 50.5
    deadline_path(tmp_path).write_text("500")
    assert current_deadline(tmp_path, 100.0) == 100.0
    deadline_path(tmp_path).write_text("garbage")
    assert current_deadline(tmp_path, 100.0) == 100.0


def test_control_files_are_per_generation(tmp_path):
    assert control_path(tmp_path, 1, 0) != control_path(tmp_path, 1, 1)
    spec = TrainerSpec(replica=1, generation=2, lighthouse="http://127.0.0.1:1", out_dir=str(tmp_path), deadline=1.0,
                       quorum_every=5, step_period=0.1, min_replicas=2, timeout_s=5, quorum_timeout_s=30)
    assert TrainerSpec.from_json(spec.to_json()) == spec


def test_collective_fault_closes_new_connections_only():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    old = socket.create_connection(server.getsockname())
    old_peer, _ = server.accept()
    keep = socket_inodes()
    new = socket.create_connection(server.getsockname())
    new_peer, _ = server.accept()
    try:
        closed = close_tcp_connections(keep)
        assert closed == 2  # both ends of the new connection (same process here); not the listener
        new_peer.settimeout(5)
        assert new_peer.recv(1) == b""  # the peer sees the connection closed
        old.sendall(b"x")
        old_peer.settimeout(5)
        assert old_peer.recv(1) == b"x"  # pre-existing connection untouched
        conn = socket.create_connection(server.getsockname())  # listener still accepts
        conn.close()
    finally:
        for s in (server, old, old_peer, new, new_peer):
            s.close()


def test_pid_alive():
    import os
    import subprocess

    assert pid_alive(os.getpid())
    child = subprocess.Popen(["true"])
    child.wait()
    assert not pid_alive(child.pid)


def test_soak_refuses_without_a_network_namespace(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))  # no `unshare` to be found
    assert main(["soak", "--replicas", "2", "--duration", "10", "--fault-every", "5",
                 "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "network namespace" in err and "refusing" in err
    assert not (tmp_path / "o").exists()


def test_driver_budget_covers_the_run():
    from porting.soak.spec import SoakSpec

    spec = SoakSpec()
    assert launch.driver_budget_s(spec) > spec.startup_budget_s + spec.duration_s + 2 * spec.timeout_s


def test_reap_lists_every_launched_pid_past_a_torn_line(tmp_path):
    import json
    import subprocess

    from porting.soak.driver import _reap

    gone = []
    for _ in range(2):
        proc = subprocess.Popen(["true"])
        proc.wait()
        gone.append(proc.pid)
    (tmp_path / "supervisor.jsonl").write_text(
        json.dumps({"event": "launch", "replica": 0, "gen": 0, "pid": gone[0]}) + "\n"
        + '{"event": "failure", "repl\n'
        + json.dumps({"event": "spare", "pid": gone[1]}) + "\n")
    assert _reap(tmp_path) == {"launched": gone, "stragglers_killed": []}
    assert _reap(tmp_path / "missing") == {"launched": [], "stragglers_killed": []}
