"""The soak plot: participating replicas and global mean loss against time, faults marked."""

from __future__ import annotations

import io
import os
from typing import Any

from ..atomic import write_bytes

_COLOURS = {"kill": "tab:red", "raise": "tab:orange", "collective": "tab:purple"}


def render_png(record: dict[str, Any]) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(9, 5.5), dpi=100)
    try:
        parts = record.get("participants", [])
        if parts:
            top.step([p[0] for p in parts], [p[1] for p in parts], where="post", color="tab:blue", lw=1.2)
        top.set_ylabel("replicas committing")
        top.set_ylim(0, int(record["spec"]["replicas"]) + 0.5)
        top.yaxis.set_major_locator(MaxNLocator(integer=True))
        top.grid(alpha=0.3)
        curve = record.get("loss_curve", [])
        if curve:
            bottom.plot([p[2] for p in curve], [p[1] for p in curve], color="tab:green", lw=1.0)
            if min(p[1] for p in curve) > 0:
                bottom.set_yscale("log")
        bottom.set_ylabel("global mean loss")
        bottom.set_xlabel("seconds since schedule start")
        bottom.grid(alpha=0.3)
        seen: set[str] = set()
        for fault in record.get("faults", []):
            colour = _COLOURS.get(fault["kind"], "black")
            for ax in (top, bottom):
                ax.axvline(fault["t"], color=colour, ls="--", lw=0.9,
                           label=fault["kind"] if ax is top and fault["kind"] not in seen else None)
                if fault.get("rejoin_s") is not None:
                    ax.axvspan(fault["t"], fault["t"] + fault["rejoin_s"], color=colour, alpha=0.08)
            seen.add(fault["kind"])
        if seen:
            top.legend(loc="lower right", fontsize=8, title="fault", title_fontsize=8)
        spec = record["spec"]
        top.set_title(f"port soak ({record.get('scale', 'cpu')} scale): {spec['replicas']} replicas, "
                      f"fault every {spec['fault_every_s']:g} s, quorum every {spec['quorum_every']} steps",
                      fontsize=10)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        return buf.getvalue()
    finally:
        plt.close(fig)


def write_plot(record: dict[str, Any], path: str | os.PathLike[str]) -> None:
    write_bytes(path, render_png(record))
