"""Worker processes that end with the process that started them.

A pool's workers (the build's embedding workers, a derivation's graph builder) wait on their
task queue for the next task. A parent killed outright (SIGKILL, the OOM killer) never shuts
its pool down, and its workers would wait forever, each holding what it loaded. A worker
started with `exit_with(parent)` as its initializer ends once its parent is gone.
"""

from __future__ import annotations

import os
import threading
import time

PARENT_POLL = 0.5  # seconds between a worker's looks at its parent


def exit_with(parent: int) -> None:
    """In a worker process: end it once process `parent` is no longer its parent."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="kb-parent-watch", daemon=True).start()
