"""Two publishes of one release into one Milvus (milvus-lite server) at once: the second used
to drop what the first was loading (the first then failed "WAL already closed", "collection
… does not exist" or "index already exists"). Now the second says in one line that the
release is being published by another process, the first completes, and what a stopped
publish left is still loaded again."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine.claim import (
    BEAT_EVERY,
    P_LOADER,
    P_SEEN,
    STALE_AFTER,
    Claim,
    claimed,
    judge,
    sighted,
    sighting_key,
)
from kbtools.engine.milvus import ALIAS, P_COMPLETE, connect_url
from kbtools.engine.publish import check_release, prune, publish
from kbtools.engine.remote import EngineReader
from kbtools.errors import EngineError
from kbtools.query.search import search
from tests.hostile import make_repo
from tests.milvus_server import milvus  # noqa: F401 - fixture

QUESTION = "how often to replace the pump seal"
BUSY = "is already being published by another process"


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    repo = make_repo(tmp_path_factory.mktemp("claim") / "kr")
    build(load_config(repo), BuildOptions(progress=False))
    return repo / "dist"


def test_a_second_publish_while_the_first_loads_says_so_in_one_line(dist, milvus):  # noqa: F811
    url = milvus.url("claim_cli")
    eng = connect_url(url, create_db=True)
    second = []

    def progress(message: str) -> None:  # the first publish is loading: publish it again
        if message.startswith("inserted") and not second:
            second.append(CliRunner().invoke(main, ["publish", "--engine", url,
                                                    "--index", str(dist)]))

    first = publish(eng, check_release(dist), progress=progress)
    res = second[0]
    assert res.exit_code == 1, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1 and BUSY in err and first.collection in err
    assert "Traceback" not in res.output
    assert first.changed and eng.alias_target(ALIAS) == first.collection
    assert eng.properties(first.collection)[P_COMPLETE] == "1"
    assert search(EngineReader(eng).current(), QUESTION).results
    again = CliRunner().invoke(main, ["publish", "--engine", url, "--index", str(dist)])
    assert again.exit_code == 0 and "already published and served" in again.stdout


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(proc.stdout)


class Stop(Exception):
    """A publish stopped mid-way."""


def _stopped(eng, dist) -> str:
    """Publish `dist` and stop it after its first rows: the incomplete collection's name."""
    def progress(message: str) -> None:
        if message.startswith("inserted"):
            raise Stop

    with pytest.raises(Stop):
        publish(eng, check_release(dist), progress=progress)
    (name,) = [r["collection"] for r in eng.releases() if not r["complete"]]
    return name


@pytest.mark.parametrize("who", ["dead process here", "silent host", "busy host"])
def test_what_a_stopped_publish_left_is_loaded_again_a_running_one_is_not(
        dist, milvus, who):  # noqa: F811
    eng = connect_url(milvus.url(f"claim_{who.replace(' ', '_')}"), create_db=True)
    name = _stopped(eng, dist)
    claim = {"dead process here": Claim(socket.gethostname(), _dead_pid(), "x", time.time()),
             "silent host": Claim("elsewhere", 1, "x", time.time() - STALE_AFTER - 1),
             "busy host": Claim("elsewhere", 1, "x", time.time())}[who]
    eng.client.alter_collection_properties(name, {P_LOADER: claim.text()})
    if who == "busy host":
        with pytest.raises(EngineError) as err:
            publish(eng, check_release(dist))
        assert BUSY in err.value.message and "process 1 on elsewhere" in err.value.message
        assert eng.alias_target(ALIAS) is None
        return
    res = publish(eng, check_release(dist))
    assert res.changed and res.collection == name and eng.alias_target(ALIAS) == name
    assert search(EngineReader(eng).current(), QUESTION).results


def test_a_claim_marked_by_a_clock_running_ahead_is_aged_by_this_hosts_clock_too(
        dist, milvus):  # noqa: F811
    """Another host's claim used to be aged by its mark alone, the publisher's wall clock:
    one running an hour ahead held a stopped publish's collection for an hour and ten
    minutes. This host now records when its own clock first saw the mark, and the claim is
    void once that is `STALE_AFTER` old with no new mark; a new mark is seen afresh."""
    eng = connect_url(milvus.url("claim_ahead"), create_db=True)
    name = _stopped(eng, dist)
    ahead = Claim("elsewhere", 1, "x", time.time() + 3600)
    eng.client.alter_collection_properties(name, {P_LOADER: ahead.text()})
    with pytest.raises(EngineError) as err:  # first seen now: it may be running
        publish(eng, check_release(dist))
    assert BUSY in err.value.message
    here = socket.gethostname()
    key = sighting_key(here)
    seen = json.loads(eng.properties(name)[key])
    assert seen[:2] == [here, ahead.text()] and abs(seen[2] - time.time()) < 60
    long_ago = json.dumps([here, ahead.text(), time.time() - STALE_AFTER - 1])
    marked = Claim("elsewhere", 1, "x", ahead.beat + BEAT_EVERY)  # it marked progress since
    eng.client.alter_collection_properties(name, {P_LOADER: marked.text(), key: long_ago})
    with pytest.raises(EngineError) as err:  # a mark not seen before: alive
        publish(eng, check_release(dist))
    assert BUSY in err.value.message
    long_ago = json.dumps([here, marked.text(), time.time() - STALE_AFTER - 1])
    eng.client.alter_collection_properties(name, {key: long_ago})  # no mark since
    res = publish(eng, check_release(dist))
    assert res.changed and res.collection == name and eng.alias_target(ALIAS) == name
    assert search(EngineReader(eng).current(), QUESTION).results


def test_judging_a_claim_writes_nothing(dist, milvus):  # noqa: F811
    """`judge` used to record this host's sighting in the collection while judging: a look
    (a status, a prune's dry run) wrote to the engine. Recording is `sighted`'s now."""
    eng = connect_url(milvus.url("claim_read"), create_db=True)
    name = _stopped(eng, dist)
    ahead = Claim("elsewhere", 1, "x", time.time() + 3600)
    eng.client.alter_collection_properties(name, {P_LOADER: ahead.text()})
    before = eng.properties(name)
    live = judge(eng, name)
    assert live is not None and live.text() == ahead.text() and eng.properties(name) == before
    assert sighted(eng, name) == live
    after = eng.properties(name)
    assert set(after) - set(before) == {sighting_key(socket.gethostname())}
    assert sighted(eng, name) == live  # seen already: not recorded again (never later)
    assert eng.properties(name) == after and judge(eng, name) is not None


class _Counting:
    """A pymilvus client that counts the calls made through it, by method name."""

    def __init__(self, client):
        self._client, self.calls = client, Counter()

    def __getattr__(self, name):
        attr = getattr(self._client, name)
        if not callable(attr):
            return attr

        def counted(*args, **kwargs):
            self.calls[name] += 1
            return attr(*args, **kwargs)

        return counted


def test_a_claim_is_looked_at_once_before_acting_on_it(dist, milvus):  # noqa: F811
    """Recording this host's sighting and judging the claim each read the collection: a
    publish's claim check asked the engine twice for what one look tells. One look now
    (one `has_collection`, one read of the properties), plus the one write of a mark not
    seen before and the one read after it (was the collection marked complete meanwhile?
    then the sighting is removed again)."""
    eng = connect_url(milvus.url("claim_once"), create_db=True)
    name = _stopped(eng, dist)
    ahead = Claim("elsewhere", 1, "x", time.time() + 3600)
    eng.client.alter_collection_properties(name, {P_LOADER: ahead.text()})
    eng.client = counting = _Counting(eng.client)
    with pytest.raises(EngineError):  # busy: the claim may be live
        with claimed(eng, name):
            pass
    assert counting.calls == Counter(has_collection=1, describe_collection=2,
                                     alter_collection_properties=1)
    counting.calls.clear()
    assert sighted(eng, name) is not None  # seen before: nothing written
    assert counting.calls == Counter(has_collection=1, describe_collection=1)


class _ReadTogether:
    """A pymilvus client whose first `describe_collection` in each of two threads returns
    only once both have read: two hosts looking at one claim at the same moment."""

    def __init__(self, client, barrier: threading.Barrier):
        self._client, self._barrier, self._read = client, barrier, False

    def __getattr__(self, name):
        attr = getattr(self._client, name)
        if name != "describe_collection" or self._read:
            return attr

        def together(*args, **kwargs):
            out = attr(*args, **kwargs)
            self._read = True
            self._barrier.wait(timeout=60)
            return out

        return together


def test_two_hosts_recording_a_sighting_at_once_keep_both(dist, milvus, monkeypatch):  # noqa: F811
    """Two hosts that found one claim at the same moment each wrote the one shared
    sightings property from what they had read: the second write dropped the first host's
    sighting, and hosts looking in turn kept resetting each other's (each then aged the
    claim by the publisher's clock alone, beyond the documented bound). Each host writes
    a property of its own now."""
    url = milvus.url("claim_race")
    eng = connect_url(url, create_db=True)
    name = _stopped(eng, dist)
    ahead = Claim("elsewhere", 1, "x", time.time() + 3600)
    eng.client.alter_collection_properties(name, {P_LOADER: ahead.text()})
    local = threading.local()
    monkeypatch.setattr(socket, "gethostname", lambda: getattr(local, "host", "main"))
    barrier = threading.Barrier(2)
    failures: list[BaseException] = []

    def look(host: str) -> None:
        local.host = host
        other = connect_url(url)
        other.client = _ReadTogether(other.client, barrier)
        try:
            with pytest.raises(EngineError):  # busy: the claim may be live
                with claimed(other, name):
                    pass
        except BaseException as exc:
            failures.append(exc)
        finally:
            other.close()

    threads = [threading.Thread(target=look, args=(h,)) for h in ("host-a", "host-b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    props = eng.properties(name)
    for host in ("host-a", "host-b"):
        assert json.loads(props[sighting_key(host)])[:2] == [host, ahead.text()]


def test_sightings_go_once_the_publish_completes_the_collection(dist, milvus, monkeypatch):  # noqa: F811
    """Each host that looked at a publish's claim kept its sighting property in the
    collection for good (one per host per collection, forever): now the publish that
    marks the collection complete removes every sighting, the shared one of older kbtools
    too. While it loads, they are kept (two hosts looking at once keep both)."""
    url = milvus.url("claim_forget")
    eng = connect_url(url, create_db=True)
    here, seen = socket.gethostname(), {}

    def progress(message: str) -> None:  # while the first publish loads, two hosts look
        if message.startswith("inserted") and not seen:
            (name,) = [r["collection"] for r in eng.releases() if not r["complete"]]
            for host in ("host-a", "host-b"):
                monkeypatch.setattr(socket, "gethostname", lambda host=host: host)
                other = connect_url(url)
                try:
                    with pytest.raises(EngineError) as err:  # busy: the claim is live
                        with claimed(other, name):
                            pass
                    assert BUSY in err.value.message
                finally:
                    other.close()
            monkeypatch.setattr(socket, "gethostname", lambda: here)
            eng.client.alter_collection_properties(name, {P_SEEN: json.dumps({})})
            seen.update(eng.properties(name))

    first = publish(eng, check_release(dist), progress=progress)
    assert {sighting_key("host-a"), sighting_key("host-b"), P_SEEN} <= set(seen)
    props = eng.properties(first.collection)
    assert props[P_COMPLETE] == "1" and P_LOADER in props  # the claim itself is kept
    assert not [k for k in props if k.startswith(P_SEEN)], props
    assert eng.alias_target(ALIAS) == first.collection
    assert search(EngineReader(eng).current(), QUESTION).results


class _CreatedAfterLooking:
    """A pymilvus client whose second look at a release collection that is not there (the
    claim's, before taking it over; the first is the publish's "is it complete") returns
    only once `other` (a publish started then, in a thread) has created it: the first
    publishes of a release, one creating between the other's look and its next step."""

    def __init__(self, client, other):
        self._client, self._other, self.thread, self.looks = client, other, None, 0

    def __getattr__(self, name):
        attr = getattr(self._client, name)
        if name != "has_collection" or self.thread is not None:
            return attr

        def look(collection, **kwargs):
            out = attr(collection, **kwargs)
            if out or collection.endswith("__meta"):
                return out
            self.looks += 1
            if self.looks < 2:
                return out
            self.thread = threading.Thread(target=self._other)
            self.thread.start()
            deadline = time.monotonic() + 60
            while not attr(collection, **kwargs) and time.monotonic() < deadline:
                time.sleep(0.005)
            return out

        return look


def test_a_publish_that_found_nothing_drops_nothing_another_creates(dist, milvus):  # noqa: F811
    """Two first publishes of a release (two CI jobs): the second looked, found no
    collection, and dropped "what a stopped publish left" anyway, which was by then the
    first's collection, being loaded: both failed ("Directory not empty", "does not
    exist"). Now the first completes and the second says the release is being published."""
    url = milvus.url("claim_first")
    checked = check_release(dist)
    first: list[object] = []

    def other() -> None:
        try:
            first.append(publish(connect_url(url), checked))
        except EngineError as exc:
            first.append(exc)

    eng = connect_url(url, create_db=True)
    eng.client = looking = _CreatedAfterLooking(eng.client, other)
    with pytest.raises(EngineError, match=BUSY):
        publish(eng, checked)
    looking.thread.join()
    assert len(first) == 1 and not isinstance(first[0], EngineError), first
    assert eng.alias_target(ALIAS) == first[0].collection
    assert eng.properties(first[0].collection)[P_COMPLETE] == "1"
    assert search(EngineReader(eng).current(), QUESTION).results


def test_a_meta_an_interrupted_drop_left_goes_when_the_release_is_loaded(dist, milvus):  # noqa: F811
    """A drop interrupted between a release's two collections leaves its ``__meta``
    alone; the next publish of the release (which now drops nothing it did not find)
    replaces it rather than failing to create it."""
    eng = connect_url(milvus.url("claim_orphan"), create_db=True)
    done = publish(eng, check_release(dist))
    eng.client.drop_alias(ALIAS)
    eng.client.drop_collection(done.collection)
    assert eng.client.has_collection(done.collection + "__meta")
    again = publish(eng, check_release(dist))
    assert again.changed and again.collection == done.collection
    assert eng.properties(done.collection)[P_COMPLETE] == "1"
    assert search(EngineReader(eng).current(), QUESTION).results


class _LookedBefore:
    """A pymilvus client whose first `describe_collection` returns what it read only once
    `go` is set (`looked` says it has read): a host that looked at a claim just before the
    publish holding it marked the collection complete, and records its sighting after."""

    def __init__(self, client, looked: threading.Event, go: threading.Event):
        self._client, self._looked, self._go, self._read = client, looked, go, False

    def __getattr__(self, name):
        attr = getattr(self._client, name)
        if name != "describe_collection" or self._read:
            return attr

        def held(*args, **kwargs):
            out = attr(*args, **kwargs)
            self._read = True
            self._looked.set()
            assert self._go.wait(timeout=60)
            return out

        return held


def _sightings_in(props: dict[str, str]) -> list[str]:
    return sorted(k for k in props if k == P_SEEN or k.startswith(f"{P_SEEN}."))


def test_a_sighting_recorded_just_after_the_publish_completed_is_not_kept(
        dist, milvus, monkeypatch):  # noqa: F811
    """A host that looked at a publish's claim while it loaded, and recorded its sighting
    only once that publish had marked the collection complete and removed the sightings,
    left its property on the complete collection for good. It looks again after writing
    and removes it."""
    url = milvus.url("claim_late")
    eng = connect_url(url, create_db=True)
    here, local = socket.gethostname(), threading.local()
    monkeypatch.setattr(socket, "gethostname", lambda: getattr(local, "host", here))
    looked, go = threading.Event(), threading.Event()
    seen: list[object] = []
    late: list[threading.Thread] = []

    def look(name: str) -> None:
        local.host = "host-b"
        other = connect_url(url)
        other.client = _LookedBefore(other.client, looked, go)
        try:
            seen.append(sighted(other, name))
        finally:
            other.close()

    def progress(message: str) -> None:  # while the publish loads, host-b reads its claim
        if message.startswith("inserted") and not late:
            (name,) = [r["collection"] for r in eng.releases() if not r["complete"]]
            late.append(threading.Thread(target=look, args=(name,)))
            late[0].start()
            assert looked.wait(timeout=60)

    first = publish(eng, check_release(dist), progress=progress)
    assert eng.properties(first.collection)[P_COMPLETE] == "1"
    go.set()  # host-b writes its sighting now, after the publish completed
    late[0].join(timeout=120)
    assert len(seen) == 1 and isinstance(seen[0], Claim) and seen[0].host == here
    props = eng.properties(first.collection)
    assert props[P_COMPLETE] == "1" and P_LOADER in props
    assert _sightings_in(props) == [], props


def test_no_sighting_is_written_to_a_complete_collection(dist, milvus, monkeypatch):  # noqa: F811
    """Looking at the claim of a complete collection (prune judging one whose ``__meta``
    is gone, a publish taking over one whose ``__meta`` is not its release's) recorded a
    sighting there that nothing removed again."""
    eng = connect_url(milvus.url("claim_done"), create_db=True)
    done = publish(eng, check_release(dist))
    before = eng.properties(done.collection)
    monkeypatch.setattr(socket, "gethostname", lambda: "host-b")
    assert sighted(eng, done.collection) is not None  # another host's recent mark
    assert eng.properties(done.collection) == before


def test_sightings_left_on_a_complete_collection_go_with_the_next_prune(
        dist, milvus):  # noqa: F811
    """Sightings a host killed between its write and its second look (or an older kbtools)
    left on a complete collection stayed there for good unless that very release was
    published again: each publish's prune (here called as a publish calls it) removes them
    from the complete releases it keeps."""
    eng = connect_url(milvus.url("claim_stale"), create_db=True)
    done = publish(eng, check_release(dist))
    left = {sighting_key("host-gone"): json.dumps(["host-gone", "x", time.time()]),
            P_SEEN: json.dumps({"older": ["x", time.time()]})}
    eng.client.alter_collection_properties(done.collection, left)
    assert _sightings_in(eng.properties(done.collection)) == sorted(left)
    assert prune(eng, 5) == []
    props = eng.properties(done.collection)
    assert props[P_COMPLETE] == "1" and _sightings_in(props) == [], props
    assert search(EngineReader(eng).current(), QUESTION).results
