"""Two processes changing a Milvus engine at once (a real milvus-lite server): the alias
moved or created by another publish between reading it and the call, a collection dropped
by another publish's prune. The loser ends where it wanted to, or says so in one line.

The other process acts through a second connection, at the moment the first one's call
is about to reach the server (`Interposed`, around pymilvus's client)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pymilvus as pm
import pytest

from kbtools.engine.milvus import (
    ALIAS,
    META_SUFFIX,
    P_COMPLETE,
    P_MANIFEST,
    P_PUBLISHED,
    P_SERIAL,
    Engine,
    connect_url,
)
from kbtools.engine.publish import prune
from kbtools.errors import EngineError, ServedError
from tests.milvus_server import milvus  # noqa: F401 - fixture


class Interposed:
    """pymilvus's client, running `before[method](*args)` ahead of each call of that method
    (which may raise what the server would)."""

    def __init__(self, client: Any, before: dict[str, Callable[..., None]]):
        self.client, self.before = client, before

    def __getattr__(self, method: str) -> Any:
        real = getattr(self.client, method)
        hook = self.before.get(method)
        if hook is None:
            return real

        def call(*args: Any, **kwargs: Any) -> Any:
            hook(*args, **kwargs)
            return real(*args, **kwargs)
        return call


def _once(act: Callable[[], None]) -> Callable[..., None]:
    done: list[bool] = []

    def hook(*_args: Any, **_kwargs: Any) -> None:
        if not done:
            done.append(True)
            act()
    return hook


@pytest.fixture
def pair(milvus, request) -> tuple[Engine, Engine]:  # noqa: F811
    """Two connections to one fresh database holding collections c1 and c2 (and their
    ``__meta``)."""
    db = "race_" + request.node.name.removeprefix("test_")[:40]
    a, b = (connect_url(milvus.url(db), create_db=True) for _ in range(2))
    for name in ("kb_c1", "kb_c2"):
        for n in (name, name + META_SUFFIX):
            if not a.client.has_collection(n):
                a.client.create_collection(n, dimension=4)
    yield a, b
    for e in (a, b):
        e.close()


def test_a_publish_whose_alias_another_created_meanwhile_still_points_it(pair):
    a, b = pair
    a.client = Interposed(a.client, {"create_alias": _once(lambda: b.point_alias("kb_c1"))})
    a.point_alias("kb_c1")  # the same release: the end state both wanted
    assert a.alias_target(ALIAS) == "kb_c1"
    b.client.drop_alias(ALIAS)
    a.client = Interposed(a.client.client,
                          {"create_alias": _once(lambda: b.point_alias("kb_c1"))})
    a.point_alias("kb_c2")  # another release: as if a ran after b
    assert a.alias_target(ALIAS) == "kb_c2"


def test_a_publish_whose_alias_another_dropped_meanwhile_creates_it(pair):
    a, b = pair
    a.point_alias("kb_c1")
    a.client = Interposed(a.client, {"alter_alias": _once(lambda: b.client.drop_alias(ALIAS))})
    a.point_alias("kb_c2")
    assert b.alias_target(ALIAS) == "kb_c2"


def test_an_alias_contested_on_every_try_is_one_line(pair):
    a, b = pair

    def create_other(*_args: Any, **_kwargs: Any) -> None:
        b.client.create_alias("kb_c1", ALIAS)

    a.client = Interposed(a.client, {"create_alias": create_other,
                                     "alter_alias": lambda *_a, **_k: b.client.drop_alias(ALIAS)})
    with pytest.raises(EngineError) as err:
        a.point_alias("kb_c2")
    assert err.value.message == (f"pointing alias {ALIAS} at kb_c2 failed: other processes "
                                 "kept creating or dropping it meanwhile; publish again")


@pytest.mark.parametrize("refuses_missing", [False, True])
def test_a_collection_dropped_meanwhile_by_another_is_dropped(pair, refuses_missing):
    """Milvus drops a missing collection without a word since 2.3; servers before refused it
    ("can't find collection"), which `refuses_missing` plays."""
    a, b = pair
    other = _once(lambda: b.drop("kb_c1"))

    def before_drop(*args: Any, **kwargs: Any) -> None:
        other()
        if refuses_missing and not b.client.has_collection(args[0]):
            raise pm.MilvusException(code=100, message=f"can't find collection: {args[0]}")

    a.client = Interposed(a.client, {"drop_collection": before_drop})
    a.drop("kb_c1")
    names = set(b.client.list_collections())
    assert "kb_c1" not in names and "kb_c1" + META_SUFFIX not in names
    a.drop("kb_c1")  # and again: nothing left to drop


def test_a_collection_an_alias_points_at_is_never_dropped(pair):
    """milvus-lite drops a collection an alias points at (a Milvus server refuses): the
    alias then names nothing and its readers fail. `Engine.drop` reads the aliases first
    and refuses in one line naming them, dropping nothing of the release; a prune leaves
    an aliased ``__meta`` whose release is gone."""
    a, b = pair
    b.point_alias("kb_c1")
    b.point_alias("kb_c2" + META_SUFFIX, "other")
    for name, served, alias in (("kb_c1", "kb_c1", ALIAS),
                                ("kb_c2", "kb_c2" + META_SUFFIX, "other")):
        with pytest.raises(ServedError) as err:
            a.drop(name)
        assert err.value.message == (
            f"collection {served} is served by alias {alias}, so it was not dropped; point "
            "the alias at another release first (`kb rollback --engine …`)")
        assert a.client.has_collection(name) and a.client.has_collection(name + META_SUFFIX)
    a.client.drop_collection("kb_c2")  # by hand: its aliased __meta is left alone
    assert prune(a, 5) == [] and a.client.has_collection("kb_c2" + META_SUFFIX)
    b.point_alias("kb_c2" + META_SUFFIX)  # kb_c1 served no more: it may go
    a.drop("kb_c1")
    assert not a.client.has_collection("kb_c1")
    assert not a.client.has_collection("kb_c1" + META_SUFFIX)


def test_a_release_an_alias_is_pointed_at_during_a_prune_is_kept(pair):
    """A prune reads the aliases, then drops the old releases none serves; a rollback in
    another process after that read pointed the alias at one of them, which the prune then
    dropped under its readers (milvus-lite). It is kept, and the prune says so."""
    a, b = pair
    for serial, name in enumerate(("kb_c1", "kb_c2"), 1):
        a.client.alter_collection_properties(name, {
            P_MANIFEST: f"{serial:064x}", P_SERIAL: str(serial), P_COMPLETE: "1",
            P_PUBLISHED: str(serial)})
    b.point_alias("kb_c2")
    reads: list[int] = []

    def rollback_after_the_prune_read_the_aliases(*_args: Any, **_kwargs: Any) -> None:
        reads.append(1)
        if len(reads) == 2:
            b.point_alias("kb_c1")

    a.client = Interposed(a.client, {"list_aliases": rollback_after_the_prune_read_the_aliases})
    said: list[str] = []
    assert prune(a, 1, progress=said.append) == []
    assert said == [f"kept kb_c1: alias {ALIAS} points at it now"]
    assert b.alias_target(ALIAS) == "kb_c1" and b.client.has_collection("kb_c1")
    b.point_alias("kb_c2")
    assert prune(a, 1) == ["kb_c1"]  # served no more: it goes
