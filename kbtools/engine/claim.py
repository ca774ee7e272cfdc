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
  publisher's clock alone: each host that is about to act on the claim (drop what it
  guards) first records when its own clock first saw that mark (`sighted`), in a
  property of its own (`sighting_key`: two hosts recording at once never overwrite each
  other's), and the claim is void once either clock says the mark is `STALE_AFTER` old (a
  publisher whose clock runs ahead cannot hold it longer). `judge` only reads. Sightings
  matter while the collection may be taken over, so until it is complete: none is written
  to a collection its look finds complete, the publish that marks it complete removes them
  (`forget_sightings`), a host whose sighting landed just after that removal finds the mark
  when it looks again and removes it itself, each publish's prune removes any a killed
  host (or an older kbtools) left on a complete collection, and a drop takes them with it.
* a step of the load failing because the collection was dropped or taken over meanwhile
  (two publishes taking over one interrupted publish at the same moment) is the same
  one-line "already being published" when another live claimant holds it now.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from kbtools.engine.milvus import META_SUFFIX, P_COMPLETE, Engine
from kbtools.errors import EngineError

P_LOADER = "kb.loader"
P_SEEN = "kb.loader.seen"  # + "." + a host's digest (`sighting_key`): JSON [host, the claim
# text it saw, its own clock then]; P_SEEN itself: the one shared JSON older kbtools wrote
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
    looked = _look(engine, name)
    return None if looked is None else looked[0]


def sighting_key(host: str) -> str:
    """The collection property where `host` records when its clock first saw the claim's
    current mark: one per host (a digest of its name, which may hold any character), so a
    host writes only its own and two hosts recording at once lose neither sighting."""
    return f"{P_SEEN}.{hashlib.sha256(host.encode()).hexdigest()[:16]}"


def _sighting(props: dict[str, str], claim: Claim) -> float | None:
    """When this host's clock first saw `claim`'s mark, as recorded in `props` (its own
    property, else its entry in the shared one older kbtools wrote, `P_SEEN`); None when
    it has not recorded seeing this mark."""
    here = socket.gethostname()
    own = _seen_row(props.get(sighting_key(here), ""))
    if own is not None and own[0] == here and own[1] == claim.text():
        return own[2]
    shared = _sightings(props.get(P_SEEN, "")).get(here)
    return shared[1] if shared is not None and shared[0] == claim.text() else None


def judge(engine: Engine, name: str) -> Claim | None:
    """The claim on collection `name` when the publish that made it may still be running
    (None: no claim, or a void one). A read: nothing is written. Another host's claim is
    aged by its own mark and, when this host recorded seeing that mark (`sighted`),
    by this host's clock since: the mark is the publisher's wall clock, which may run ahead
    of this one. A mark not recorded is aged by itself alone (as seen just now)."""
    looked = _look(engine, name)
    if looked is None:
        return None
    claim, props = looked
    return claim if claim.live(time.time(), _sighting(props, claim)) else None


def _look(engine: Engine, name: str) -> tuple[Claim, dict[str, str]] | None:
    """The claim on collection `name` and the collection's properties (None: no such
    collection, or no claim recorded): one `has_collection`, one read of the properties."""
    if not engine.call("checking a collection", "has_collection", name):
        return None
    props = engine.properties(name)
    claim = Claim.parse(props.get(P_LOADER, ""))
    return None if claim is None else (claim, props)


def sighted(engine: Engine, name: str) -> Claim | None:
    """`judge`, after recording in collection `name` when this host's clock first saw the
    current mark of another host's claim on it (unless already recorded): called before
    acting on the answer (dropping what a void claim guards). One look at the collection
    serves both (its properties read once). Only this host's property is written
    (`sighting_key`), and never to a collection that look finds complete (`P_COMPLETE`:
    its publish has finished, and nothing would remove the sighting again); a write that
    races another of this host's records a later time, never an earlier one, so the claim
    can only be judged void later. A failed write is left unrecorded (the next look
    records it) and the mark aged as seen just now."""
    return _sight(engine, name)[1]


def _sight(engine: Engine, name: str) -> tuple[bool, Claim | None]:
    """Whether collection `name` exists, and `sighted`'s answer: one look serves both."""
    if not engine.call("checking a collection", "has_collection", name):
        return False, None
    props = engine.properties(name)
    claim = Claim.parse(props.get(P_LOADER, ""))
    if claim is None:
        return True, None
    now = time.time()
    seen = _sighting(props, claim)
    here = socket.gethostname()
    if seen is None and claim.host != here and props.get(P_COMPLETE) != "1":
        try:
            engine.call(f"noting the claim on {name}", "alter_collection_properties", name,
                        {sighting_key(here): json.dumps([here, claim.text(), now])})
        except EngineError:
            pass
        else:
            # the publish may have marked it complete and removed the sightings between
            # the look and this write: this one would stay for good; look again
            _forget_if_complete(engine, name)
    return True, (claim if claim.live(now, seen) else None)


def _forget_if_complete(engine: Engine, name: str) -> None:
    """`forget_sightings` when collection `name` is marked complete now (a failed look
    leaves the sighting to the next prune: `forget_stale_sightings`)."""
    try:
        props = engine.properties(name)
    except EngineError:
        return
    if props.get(P_COMPLETE) == "1":
        _drop_sightings(engine, name, props)


def forget_sightings(engine: Engine, name: str) -> None:
    """Remove every host's sighting (`sighting_key`, and the shared `P_SEEN` older kbtools
    wrote) from collection `name`, which the caller's publish has just marked complete: a
    complete collection is not taken over, so no host acts on its claim again, and each
    host that ever looked at it would otherwise keep a property there for good. A failed
    removal leaves them, as before (the publish has succeeded; its prune tries again)."""
    _drop_sightings(engine, name, engine.properties(name))


def forget_stale_sightings(engine: Engine, complete: list[tuple[str, dict[str, str]]]
                           ) -> None:
    """`forget_sightings` on each collection of `complete` (name, its properties as just
    read: it is marked complete) that still holds a sighting (one a host killed between
    its write and its second look left, or one an older kbtools left)."""
    for name, props in complete:
        _drop_sightings(engine, name, props)


def _drop_sightings(engine: Engine, name: str, props: dict[str, str]) -> None:
    """Drop the sighting properties among `props`, collection `name`'s (none: no call)."""
    keys = sorted(k for k in props if k == P_SEEN or k.startswith(f"{P_SEEN}."))
    if keys:
        try:
            engine.call(f"removing the sightings of the claim on {name}",
                        "drop_collection_properties", name, keys)
        except EngineError:
            pass


def _seen_row(text: str) -> tuple[str, str, float] | None:
    """A host's own sighting property: [host, claim text, its clock then]."""
    try:
        row = json.loads(text) if text else None
    except ValueError:
        return None
    if (isinstance(row, list) and len(row) == 3 and isinstance(row[0], str)
            and isinstance(row[1], str) and isinstance(row[2], int | float)
            and not isinstance(row[2], bool)):
        return row[0], row[1], float(row[2])
    return None


def _sightings(text: str) -> dict[str, tuple[str, float]]:
    """The shared sightings property older kbtools wrote (`P_SEEN`): host -> [text, time]."""
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
def claimed(engine: Engine, name: str, say: Callable[[str], None] = lambda _m: None
            ) -> Iterator[Claim]:
    """Take collection `name` over for loading it: refuse (`busy`) while another publish
    that may be running holds it; drop what a stopped one left (never while an alias
    serves it: `Engine.drop` refuses, ServedError). The claim is made when the caller
    creates the collection (`create`). Nothing is dropped when there was no collection to
    take over: another publish may create it between the look and a drop, and the drop
    would take its collection from under it (two first publishes of a release: both
    failed); an ``__meta`` left alone by an interrupted drop goes once the collection is
    this publish's (`drop_orphan_meta`). `say` is told when something was dropped."""
    exists, other = _sight(engine, name)
    if other is not None:
        raise busy(engine, name, other)
    if exists:
        engine.drop(name)
        say(f"dropped what an interrupted publish left of {name}; loading it anew")
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


def drop_orphan_meta(engine: Engine, name: str) -> None:
    """Drop the ``__meta`` of release collection `name`, which this publish has just
    created (`create`), if one is there: no other publish makes one while the release
    collection is claimed (each creates the release collection first), so it is what a
    drop interrupted between the two collections left."""
    meta = name + META_SUFFIX
    if engine.call("checking a collection", "has_collection", meta):
        engine.drop(meta, meta=False)


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
