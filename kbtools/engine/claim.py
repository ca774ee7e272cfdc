"""One publisher per release at a time: the claim a publish holds on the collection it loads.

Two `kb publish` of one release into one database used to both find it not complete and
load it together: the second dropped what the first was loading (the first then failed
"collection … does not exist", "WAL already closed" or "index already exists" mid-way), or
both inserted into the one collection. Now the collection itself is the lock:

* creating it is the claim. Its properties record the claimant (`P_LOADER`: host, process
  id, a random nonce, the time it last made progress) and its schema's description the
  same text, so a second create fails whether the server refuses any existing name
  (milvus-lite: "already exists") or accepts one created with identical parameters (a
  Milvus server): the second publish says the release "is already being published by
  another process" in one line, and exits non-zero.
* a collection found incomplete is dropped and loaded again (what an interrupted publish
  left, `kbtools.engine.publish`) only when its claimant is gone: on this host, a process
  that no longer exists (or, in this process, a publish that has returned); on another
  host, one whose last progress (marked every `BEAT_EVERY` seconds by a thread while the
  publish runs, `_beat`) is older than `STALE_AFTER`. That age is not read from the
  publisher's clock alone: each host that finds the claim records when its own clock first
  saw that mark (`P_SEEN`, `judge`), and the claim is void once either clock says the mark
  is `STALE_AFTER` old (a publisher whose clock runs ahead cannot hold it longer).
* a step of the load failing because the collection was dropped or taken over meanwhile
  (two publishes taking over one interrupted publish at the same moment) is the same
  one-line "already being published" when another live claimant holds it now.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from kbtools.engine.milvus import Engine
from kbtools.errors import EngineError

P_LOADER = "kb.loader"
P_SEEN = "kb.loader.seen"  # JSON: host -> [the claim text it saw, its own clock then]
STALE_AFTER = 600.0  # seconds without progress after which another host's claim is void
# (why not sooner: docs/architecture.md, "Releases in Milvus")
BEAT_EVERY = 30.0  # seconds between two progress marks of one publish
_RUNNING: set[str] = set()  # nonces of the publishes running in this process


@dataclass(frozen=True)
class Claim:
    host: str
    pid: int
    nonce: str
    beat: float

    def text(self) -> str:
        return f"{self.host} {self.pid} {self.nonce} {self.beat:.3f}"

    @classmethod
    def parse(cls, text: str) -> Claim | None:
        parts = text.split(" ")
        if len(parts) != 4:
            return None
        try:
            return cls(parts[0], int(parts[1]), parts[2], float(parts[3]))
        except ValueError:
            return None

    def live(self, now: float, seen: float | None = None) -> bool:
        """Whether the publish that made this claim may still be running. `seen`: when this
        host's clock first saw the claim as it is now (its last mark), if it did."""
        if self.host != socket.gethostname():
            age = now - self.beat if seen is None else max(now - self.beat, now - seen)
            return age < STALE_AFTER
        if self.pid == os.getpid():
            return self.nonce in _RUNNING
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except OSError:  # exists, owned by another user
            return True
        return True

    def description(self) -> str:
        """The schema description of the collection this claim creates."""
        return f"kb release, loaded by {self.text()}"

    def describe(self) -> str:
        return f"process {self.pid} on {self.host}"


def holder(engine: Engine, name: str) -> Claim | None:
    """The claim on collection `name` (None: no such collection, or no claim recorded)."""
    if not engine.call("checking a collection", "has_collection", name):
        return None
    return Claim.parse(engine.properties(name).get(P_LOADER, ""))


def judge(engine: Engine, name: str) -> Claim | None:
    """The claim on collection `name` when the publish that made it may still be running
    (None: no claim, or a void one). Another host's claim is aged by its own mark and by
    this host's clock since it first saw that mark, recorded in `name`'s properties
    (`P_SEEN`): the mark is the publisher's wall clock, which may run ahead of this one."""
    if not engine.call("checking a collection", "has_collection", name):
        return None
    props = engine.properties(name)
    claim = Claim.parse(props.get(P_LOADER, ""))
    now = time.time()
    if claim is None or claim.host == socket.gethostname():
        return claim if claim is not None and claim.live(now) else None
    sightings = _sightings(props.get(P_SEEN, ""))
    here = socket.gethostname()
    text, seen = sightings.get(here, ("", now))
    if text != claim.text():  # a mark this host has not seen before: seen now
        seen = now
        sightings[here] = (claim.text(), now)
        try:
            engine.call(f"noting the claim on {name}", "alter_collection_properties", name,
                        {P_SEEN: json.dumps({h: list(v) for h, v in sightings.items()
                                             if v[0] == claim.text()}, sort_keys=True)})
        except EngineError:
            pass  # not recorded: the next look records it
    return claim if claim.live(now, seen) else None


def _sightings(text: str) -> dict[str, tuple[str, float]]:
    try:
        raw = json.loads(text) if text else {}
    except ValueError:
        return {}
    out: dict[str, tuple[str, float]] = {}
    if isinstance(raw, dict):
        for host, row in raw.items():
            if (isinstance(row, list) and len(row) == 2 and isinstance(row[0], str)
                    and isinstance(row[1], int | float)):
                out[str(host)] = (row[0], float(row[1]))
    return out


def busy(engine: Engine, name: str, claim: Claim) -> EngineError:
    return EngineError(f"release {name} is already being published by another process "
                       f"({claim.describe()}); wait for it to finish (publishing again then "
                       "changes nothing), or publish again if it was stopped",
                       path=str(engine.url))


@contextmanager
def claimed(engine: Engine, name: str) -> Iterator[Claim]:
    """Take collection `name` over for loading it: refuse (`busy`) while another publish
    that may be running holds it; drop what a stopped one left (never while an alias
    serves it: `Engine.drop` refuses, ServedError). The claim is made when the caller
    creates the collection (`create`)."""
    other = judge(engine, name)
    if other is not None:
        raise busy(engine, name, other)
    engine.drop(name)
    claim = Claim(socket.gethostname(), os.getpid(), secrets.token_hex(8), time.time())
    _RUNNING.add(claim.nonce)
    stop = threading.Event()
    beating = threading.Thread(target=_beat, args=(engine, name, claim, stop),
                               name=f"claim {name}", daemon=True)
    beating.start()
    try:
        yield claim
    except EngineError:
        now = judge(engine, name) if _exists(engine, name) else None
        if now is not None and now.nonce != claim.nonce:
            raise busy(engine, name, now) from None
        raise
    finally:
        stop.set()
        beating.join()
        _RUNNING.discard(claim.nonce)


def _exists(engine: Engine, name: str) -> bool:
    try:
        return bool(engine.call("checking a collection", "has_collection", name))
    except EngineError:
        return False


def create(engine: Engine, name: str, claim: Claim, schema: Any,
           properties: dict[str, str] | None = None) -> None:
    """Create collection `name` as `claim`'s (`busy` when another publish created it
    first). `schema`'s description must be `claim.description()`: a Milvus server accepts
    a second create of one name when its parameters are identical."""
    try:
        engine.call(f"creating {name}", "create_collection", name, schema=schema,
                    properties={**(properties or {}), P_LOADER: claim.text()})
    except EngineError:
        other = holder(engine, name) if _exists(engine, name) else None
        if other is not None and other.nonce != claim.nonce:
            raise busy(engine, name, other) from None
        raise


def _beat(engine: Engine, name: str, claim: Claim, stop: threading.Event) -> None:
    """Every BEAT_EVERY seconds until `stop`, record progress in `name`'s claim while it is
    `claim`'s (a thread: indexing and loading a large release are single calls that take
    minutes). A failed mark is tried again at the next beat."""
    while not stop.wait(BEAT_EVERY):
        try:
            held = holder(engine, name)
            if held is not None and held.nonce == claim.nonce:
                engine.call(f"marking progress on {name}", "alter_collection_properties",
                            name, {P_LOADER: replace(claim, beat=time.time()).text()})
        except EngineError:
            continue
