"""Loopback ports for the tests' servers, and for the addresses where nothing listens.

`bind(0)` hands out a port from the kernel's ephemeral range, where every outgoing
connection takes its own end too and where the other pytest worker's `bind(0)` looks: a port
found free that way could be taken (by the other worker's server, by a connection's own end)
before the test's server bound it, or while it was stopped for a restart on the same port;
an address "where nothing listens" could then answer. `free_port` hands out ports below
that range instead, each pytest-xdist worker from its own share of it, going round its share
from a random start (two runs of the suite at once rarely meet) and skipping any port some
socket holds: no other worker takes one, no connection's own end is one, and a port stays
the test's across a restart. An address where nothing may listen is `refusing_port`'s: a
port held for the test by a socket that never listens, so no server (another run's, another
helper's) can take it meanwhile and every connection to it is refused.
"""

from __future__ import annotations

import os
import random
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOWEST = 20000  # above the well-known and registered services' usual ports
EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")


def ephemeral_range() -> tuple[int, int]:
    """The kernel's range for ports it picks itself (Linux's default where it cannot say)."""
    try:
        low, high = EPHEMERAL.read_text(encoding="ascii").split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def worker_share(worker: str | None = None, count: int | None = None) -> range:
    """This pytest worker's ports (`PYTEST_XDIST_WORKER` gwN of
    `PYTEST_XDIST_WORKER_COUNT`; one process without xdist has them all): a share of the
    ports from `LOWEST` up to the ephemeral range (or of the 12,000 above it, when the
    kernel's range starts lower), none shared with another worker."""
    worker = worker if worker is not None else os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    count = count if count is not None else int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    low, high = LOWEST, ephemeral_range()[0]
    if high - low < 4000:  # a kernel taking (almost) every port for itself: above its range
        low = ephemeral_range()[1] + 1
        high = min(low + 12000, 65536)
    number = int(worker[2:]) if worker[2:].isdigit() else 0
    size = (high - low) // max(count, 1)
    start = low + (number % max(count, 1)) * size
    return range(start, start + size)


_turn: dict[range, int] = {}  # the next port to try in each share: random at first


def held(port: int) -> bool:
    """Whether some socket holds `port` on loopback (bound, listening or connected)."""
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def free_port() -> int:
    """A loopback port of this worker's share that no socket holds now, not handed out
    again before the rest of the share was."""
    share = worker_share()
    at = _turn.get(share, random.randrange(len(share)))
    for step in range(len(share)):
        port = share[(at + step) % len(share)]
        if not held(port):
            _turn[share] = (at + step + 1) % len(share)
            return port
    raise RuntimeError(f"no free loopback port in {share.start}-{share.stop - 1}")


@contextmanager
def refusing_port() -> Iterator[int]:
    """A loopback port where nothing listens while the block runs: held by a socket bound
    there that never listens and does not share its address (no SO_REUSEADDR), so no
    server binds it meanwhile, even one that asks to reuse addresses, and a connection to
    it is refused at once. (A `free_port` merely found free could be taken by a server of
    a suite running beside this one before the test's connection was refused there.)"""
    for _ in range(20):
        port = free_port()
        with socket.socket() as holder:
            try:
                holder.bind(("127.0.0.1", port))
            except OSError:  # taken between free_port's look and this bind: the next one
                continue
            yield port
            return
    raise RuntimeError("no loopback port could be held for a refused connection")
