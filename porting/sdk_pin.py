"""The one wheel the compile-only ROCm 7 SDK comes from.

Its own module, with no imports: the SDK probe checks a selected SDK's manifest against the
pinned tree digest on every `port detect`, and detect's start-up must not pay for
``porting.sdk_fetch`` (pathlib, subprocess, zipfile).
"""

from __future__ import annotations


class Pin:
    """The pinned wheel: version, file name, its sha256, and the tree digest of what it unpacks to."""

    __slots__ = ("version", "wheel", "sha256", "tree_sha256")

    def __init__(self, version: str, wheel: str, sha256: str, tree_sha256: str | None = None) -> None:
        self.version = version
        self.wheel = wheel
        self.sha256 = sha256
        self.tree_sha256 = tree_sha256  # sdk_manifest.tree_digest of what unpack() makes of the wheel

    def __repr__(self) -> str:
        return f"Pin({self.version!r}, {self.wheel!r}, {self.sha256!r}, {self.tree_sha256!r})"


# The cp311 manylinux x86_64 wheel: every wheel of a release carries the same headers, so one
# pinned file (fetched for any local Python) is the ground truth.
PIN = Pin("3.9.0", "triton-3.9.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
          "1622118a038b0c6e16fa4a0305da62c8b3c15904ee1cc4d4e65846a25969e41e",
          # the 74 headers and device libraries unpack() writes from that wheel (computed on the SDK
          # `port sdk fetch` unpacked from it; a planted or edited tree has another digest)
          "da313b5b05149577a0c511bd0687d0b9e22e732242e39d938cc38c9f3a9e5034")
