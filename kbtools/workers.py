"""Worker processes that end with the process that started them.

A pool's workers (the build's embedding workers, a derivation's graph builder) wait on their
task queue for the next task. A parent killed outright (SIGKILL, the OOM killer) never shuts
its pool down, and its workers would wait forever, each holding what it loaded. A worker
started with `exit_with(parent)` as its initializer ends once its parent is gone.

A worker is a new Python process: it imports kbtools from disk afresh. A long-lived process
(`kb watch`) whose kbtools `pip install -U` replaced meanwhile would have its work done by the
newer code (vectors of another model revision stored as its own, a changed function called
with the older arguments). Its workers get the parent's `CODE` and refuse to start on other
code, which the pools take as a worker that could not start: the parent does the work itself.
"""

from __future__ import annotations

import os
import threading
import time

PARENT_POLL = 0.5  # seconds between a worker's looks at its parent


def _code() -> tuple[int, int, int]:
    st = os.stat(__file__)  # pip writes every file of a release anew
    return st.st_ino, st.st_size, st.st_mtime_ns


CODE = _code()  # this file as the process imported kbtools


def exit_with(parent: int, code: tuple[int, int, int] | None = None) -> None:
    """In a worker process: end it once process `parent` is no longer its parent; refuse to
    start (RuntimeError) when it imported other code than the parent's `code`."""
    if code is not None and tuple(code) != CODE:
        raise RuntimeError("kbtools was replaced on disk since the parent process started")
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="kb-parent-watch", daemon=True).start()
