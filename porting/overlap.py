"""A stage run beside the caller on a thread, its outcome joined back where the caller decides.

`port certify` runs the stages that the matrix does not need (audit and hipify of the
sources) beside detect -> build -> matrix. The thread's children are started through
``process_group.spawn`` like every stage's, so a signal to the command ends them too (the
owner signals every registered group, worker threads' included). An exception raised on the
thread (an output path refused, the command interrupted) is kept and raised again in the
caller's thread, at its next check or at the join, so it reaches the CLI as it did when the
stages ran one after the other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class Beside:
    """``work()`` running on a daemon thread from construction on."""

    def __init__(self, name: str, work: Callable[[], None]) -> None:
        self._error: BaseException | None = None
        self._raised = False
        self.thread = threading.Thread(target=self._run, args=(work,), name=name, daemon=True)
        self.thread.start()

    def _run(self, work: Callable[[], None]) -> None:
        try:
            work()
        except BaseException as exc:  # noqa: BLE001 - carried to the caller's thread, raised there
            self._error = exc

    def check(self) -> None:
        """Raise, once, what ``work`` raised if it has already failed; else return at once."""
        error = self._error
        if error is not None and not self._raised:
            self._raised = True
            raise error

    def join(self, reraise: bool = True) -> None:
        """Wait for ``work`` to end; then raise what it raised (unless ``reraise`` is False:
        the caller is already unwinding from its own exception, which must not be replaced)."""
        self.thread.join()
        if reraise:
            self.check()
