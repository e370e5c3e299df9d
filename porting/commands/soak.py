"""`port soak`: fault-injection certification of checkpoint-free recovery (torchft + Monarch)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..errors import ProblemsFound, UsageError
from ..soak.spec import SoakSpec

HELP = "fault-injection soak: replicas train under torchft, faults are injected, recovery is certified"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--replicas", type=int, default=None,
                        help="replica groups (default 4; with --hosts: hosts x replicas per host)")
    parser.add_argument("--hosts", type=int, default=0, metavar="N",
                        help="simulate N hosts, each its own network namespace on a bridge, plus one for the "
                             "Lighthouse (default 0: one namespace, loopback only)")
    parser.add_argument("--replicas-per-host", type=int, default=1, metavar="K",
                        help="replica groups on each simulated host (default 1)")
    parser.add_argument("--link-fault", type=float, default=5.0, metavar="SECONDS",
                        help="how long a partition, slow link or lost host lasts before it heals (default 5)")
    parser.add_argument("--slow-rate", type=int, default=2000, metavar="KBIT",
                        help="rate of the slow link each way, kbit/s (default 2000)")
    parser.add_argument("--duration", type=float, default=120.0, metavar="SECONDS",
                        help="training time after start-up (default 120)")
    parser.add_argument("--fault-every", type=float, default=20.0, metavar="SECONDS",
                        help="seconds between injected faults; also the downtime bound (default 20)")
    parser.add_argument("--quorum-every", type=int, default=5, metavar="STEPS",
                        help="steps between torchft quorums (default 5; a failed step forces one)")
    parser.add_argument("--faults", default="kill,raise,collective",
                        help="fault kinds in rotation: kill (SIGKILL the replica's proc), raise (exception "
                             "in a train step), collective (connections closed mid-allreduce); with --hosts also "
                             "partition (a host's link down), slow (its link rate-limited), lighthouse_partition, "
                             "host_loss (every replica of a host killed, its link down)")
    parser.add_argument("--step-period", type=float, default=0.1, metavar="SECONDS",
                        help="pace of a training step (default 0.1)")
    parser.add_argument("--timeout", type=float, default=5.0, metavar="SECONDS",
                        help="torchft collective/commit/checkpoint timeout (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="data and initialisation seed")
    parser.add_argument("--startup-budget", type=float, default=90.0, metavar="SECONDS",
                        help="time allowed for every replica group to train its first step (default 90)")
    parser.add_argument("--cold-restart", action="store_true",
                        help="restart a failed replica on a newly spawned proc instead of the warm spare")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="output directory (default: <out_dir>/soak from the config)")


def spec_from_args(args: argparse.Namespace) -> SoakSpec:
    """The validated SoakSpec of `port soak`'s options (also read by the cluster launch)."""
    replicas = args.replicas if args.replicas is not None else (
        args.hosts * args.replicas_per_host if args.hosts else 4)
    return SoakSpec(replicas=replicas, hosts=args.hosts, replicas_per_host=args.replicas_per_host,
                    link_fault_s=args.link_fault, slow_rate_kbit=args.slow_rate, duration_s=args.duration,
                    fault_every_s=args.fault_every,
                    quorum_every=args.quorum_every, faults=[k.strip() for k in args.faults.split(",") if k.strip()],
                    step_period_s=args.step_period, timeout_s=args.timeout, seed=args.seed,
                    startup_budget_s=args.startup_budget,
                    warm_spare=not args.cold_restart).validate()


def run(args: argparse.Namespace) -> int:
    from ..config import load_config
    from ..soak.launch import soak

    config = load_config(env=os.environ, config_file=args.config)
    out = Path(args.out) if args.out else Path(config["out_dir"]) / "soak"
    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir():
        raise UsageError(f"--out: {existing} exists and is not a directory")
    spec = spec_from_args(args)
    try:
        record = soak(spec, out, os.environ)
    except KeyboardInterrupt:  # a signal: soak() wrote what there is, marked incomplete
        if (out / "soak.json").is_file():
            print(f"soak interrupted: wrote {out / 'soak.json'} and {out / 'soak.xml'}, marked incomplete")
        raise
    data = record.to_json()
    print(f"soak: {spec.replicas} replicas, {len(data['faults'])} faults, {data['steps_committed']} steps "
          f"committed, {data['steps_lost']} step attempts lost; max downtime {data['downtime']['max_s']:.3g} s "
          f"(bound {data['bounds']['downtime_s']:g} s); participants {data['participants_range'][0]}"
          f"..{data['participants_range'][1]}")
    for inv in data["invariants"]:
        print(f"  {'PASS' if inv['ok'] else 'FAIL'}  {inv['name']}: {inv['detail']}")
    print(f"wrote {out / 'soak.json'}, {out / 'soak.png'}, {out / 'soak.xml'}")
    if not record.ok:
        failed = [i["name"] for i in data["invariants"] if not i["ok"]]
        raise ProblemsFound(f"soak: {len(failed)} invariant(s) failed: {', '.join(failed)} (see {out / 'soak.json'})")
    return 0
