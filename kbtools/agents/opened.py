"""Earlier releases a long-running server keeps open: `kb mcp` and `kb serve` answer a call
that asks for the release a result cited (`kbtools.agents.asked`) from the release the
previous such call opened, as they keep the served release open.

An agent that cites release T and then reads, searches and evaluates tables on T made each
call open T again (its store, BM25 and HNSW; at 54k chunks 0.3-0.5 s, and the first search
of a new opening loads its pages again). `OpenedReleases` keeps the `KEEP` most recently
used, keyed by the release directory and which directory and manifest write it is: a
release pruned and synced again, a ``dist/`` rebuilt, a clone's derived tag pruned and
derived again, is opened anew. Every use resolves the directory again as an open does, so
a device's release whose files were edited since is refused as an open refuses it; a kept
release whose directory is gone or replaced, or that a switch serves now, is closed once
no call runs on it (`sweep`, also run when the served release changes). A release a sync pruned is never
served from here: the caller lists the releases kept on disk first (`asked_index`) and
refuses one that is not.

Calls run on several threads: an opened release is closed only when the last call using
it has ended (closing it under a running search crashed the server).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from kbtools.index import reader
from kbtools.index.layout import ReleaseLayout
from kbtools.ship.checkout import resolve_index_path

T = TypeVar("T")
KEEP = 2  # earlier releases kept open at once by one server
Key = tuple[int, int, tuple[int, int] | None]  # the directory (device, inode), its manifest write


@dataclass
class Open:
    """One earlier release kept open, with what callers derived from it once (`memo`)."""

    index: reader.KbIndex
    key: Key
    made: dict[str, Any] = field(default_factory=dict)

    def memo(self, name: str, make: Callable[[reader.KbIndex], T]) -> T:
        """`make(index)`, made once per opening (a release's `Knowledge`)."""
        if name not in self.made:
            self.made.setdefault(name, make(self.index))
        out: T = self.made[name]
        return out


def release_key(root: Path) -> Key | None:
    """Which directory `root` is now and which write of its manifest; None when it is gone."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    return st.st_dev, st.st_ino, ReleaseLayout(root).written()


class OpenedReleases:
    """The earlier releases one server keeps open (see the module). `opens` counts the
    releases it opened."""

    def __init__(self, keep: int = KEEP) -> None:
        self.keep = keep
        self.opens = 0
        self._open: OrderedDict[Path, Open] = OrderedDict()
        self._lock = threading.Lock()
        self._users: dict[int, int] = {}  # id(Open) → calls using it
        self._retired: list[Open] = []  # no longer kept, closed once no call uses them

    @contextmanager
    def borrow(self, root: Path) -> Iterator[Open]:
        """The release directory `root` (an earlier release a device keeps, a clone's
        derived tag), opened, or kept open from an earlier call; checked as every open
        checks it (`ship.checkout.resolve_index_path`: IndexLoadError for a device's
        release edited after its sync)."""
        where = resolve_index_path(root).resolve()
        entry = self._take(where)
        if entry is None:
            entry = self._add(where, reader.open_index(where))
        try:
            yield entry
        finally:
            with self._lock:
                self._users[id(entry)] -= 1
                if not self._users[id(entry)]:
                    del self._users[id(entry)]
                self._close_retired()

    def __len__(self) -> int:
        """How many releases are kept open (not counting those closing once unused)."""
        with self._lock:
            return len(self._open)

    def sweep(self, served: Path | None = None) -> None:
        """Let go of the kept releases whose directory is gone or replaced (a sync pruned
        it), and of `served`, the release a switch (a rollback) serves now, which calls on
        it read as the served one: closed now, or when the last call on one ends."""
        with self._lock:
            if served is not None and (entry := self._open.pop(served.resolve(), None)):
                self._retired.append(entry)
            self._sweep()

    def close(self) -> None:
        """Close every release kept (the server is stopping)."""
        with self._lock:
            self._retired.extend(self._open.values())
            self._open.clear()
            self._close_retired()

    def _take(self, where: Path) -> Open | None:
        with self._lock:
            self._sweep()
            entry = self._open.get(where)
            if entry is None:
                return None
            self._open.move_to_end(where)
            self._users[id(entry)] = self._users.get(id(entry), 0) + 1
            return entry

    def _add(self, where: Path, index: reader.KbIndex) -> Open:
        """`index`, just opened on `where`, kept (or the one another call kept meanwhile,
        `index` then closed), in use by the caller."""
        key = release_key(where)
        with self._lock:
            self.opens += 1
            entry = self._open.get(where)
            if entry is not None and entry.key == key:
                index.close()
            else:
                if entry is not None:
                    self._retired.append(self._open.pop(where))
                entry = Open(index, key or (0, 0, None))
                self._open[where] = entry
                while len(self._open) > self.keep:
                    self._retired.append(self._open.popitem(last=False)[1])
            self._users[id(entry)] = self._users.get(id(entry), 0) + 1
            self._close_retired()
            return entry

    def _sweep(self) -> None:
        """(Under `_lock`.) Retire the kept releases whose directory changed."""
        for where, entry in list(self._open.items()):
            if release_key(where) != entry.key:
                self._retired.append(self._open.pop(where))
        self._close_retired()

    def _close_retired(self) -> None:
        """(Under `_lock`.) Close the retired releases no call uses."""
        for old in [r for r in self._retired if id(r) not in self._users]:
            self._retired.remove(old)
            old.index.close()
