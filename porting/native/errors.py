"""Exceptions raised by the native binding."""

from __future__ import annotations

from ..errors import PortError

STATUS_NAMES = {
    1: "invalid", 2: "no-device", 3: "runtime", 4: "not-found", 5: "bounds",
    6: "overlap", 7: "alignment", 8: "unsupported",
}


class NativeError(PortError):
    """A native call failed; ``status`` is the C status name (``bounds``, ``overlap``, ...)."""

    exit_code = 1

    def __init__(self, message: str, status: str = "invalid") -> None:
        super().__init__(message)
        self.status = status


class NoDeviceError(NativeError):
    """The library loaded, but its GPU runtime has no usable device."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "no-device")
