"""`kb publish --engine`, `kb rollback --engine`: releases into Milvus, behind an alias.

`publish` verifies the release first (every manifest-listed file by size and sha256, the
manifest hash named by release.json, the signature when keys are configured, not another
release of the served one's serial — nothing is written to the engine before that), then
loads the release into its own collections (`kbtools.engine.milvus`), builds the indexes,
loads them, checks the row count against the release, marks the collection complete and
only then moves the alias in one call. A release older than the served one (`_older`) never
takes the alias from it: one the engine holds ready is refused (`kb rollback` serves it);
one it does not (pruned, or published by a kb of other rules: what `rollback` says to
publish again), or one a newer was published over while it loaded, is loaded and the alias
left where it is, so that a rollback can serve it. Re-publishing a release already
published writes nothing when the alias serves it complete (both its collections, marked
complete: what its readers need), but loads and warms the served collection (`Engine.warm`:
a restarted server may hold it released, and its first reader would pay the load); one the alias serves incomplete (its ``__meta`` dropped)
is loaded into another collection, the alias moved there and the broken one dropped
(`_release_name`); whatever an interrupted publish left of a release (`_complete` says it
is not) is dropped and loaded again, unless another publish is loading it now
(`kbtools.engine.claim`: then this one says so and stops). Old releases are dropped beyond
`keep`, and so are releases marked complete whose ``__meta`` is gone (`prune`); never one
an alias serves. A prune failing after the alias moved is a warning of the result
(`PublishResult.warnings`), not a failed publish: the release is served. Releases of
several knowledge bases in one database stay apart (`kbtools.engine.bases`): an alias
serving another's is never moved, and `keep` and `rollback` count only the releases of the
knowledge base at hand.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbtools.engine import expr
from kbtools.engine.bases import EVERY, adopt, of_base, refuse_other, tag_problem
from kbtools.engine.checked import CheckedRelease as CheckedRelease
from kbtools.engine.checked import check_release as check_release
from kbtools.engine.claim import (
    Claim,
    claimed,
    create,
    drop_orphan_meta,
    forget_sightings,
    forget_stale_sightings,
    sighted,
)
from kbtools.engine.lineage import (
    of_this_history,
    served_releases,
    twin_problem,
)
from kbtools.engine.milvus import (
    ALIAS,
    META_SUFFIX,
    P_BASE,
    P_COMPLETE,
    P_DERIVATION,
    P_FILTERS,
    P_MANIFEST,
    P_PUBLISHED,
    P_SERIAL,
    P_TAG,
    P_TOKENIZER,
    P_TOKENS,
    WRITE_TIMEOUT,
    Engine,
    collection_name,
    now,
)
from kbtools.engine.parts import published_problem, read_parts
from kbtools.engine.rows import (
    LONG_ROWS,
    blob_rows,
    chunk_rows,
    chunk_schema,
    filter_problem,
    meta_parts,
    meta_schema,
)
from kbtools.errors import EngineError, ServedError
from kbtools.index.reader import KbIndex, open_index
from kbtools.index.tokenize import TOKENS_VERSION

Progress = Callable[[str], None]


# --------------------------------------------------------------------------- publishing

@dataclass(frozen=True)
class PublishResult:
    engine: str
    collection: str
    tag: str | None
    serial: int
    chunks: int
    changed: bool  # False: this release was already published and served
    previous: str | None
    pruned: tuple[str, ...] = ()
    seconds: float = 0.0
    moved: bool = True  # the alias points at `collection` now (False: unchanged)
    warnings: tuple[str, ...] = ()  # what failed after the alias moved (pruning)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__, pruned=list(self.pruned), warnings=list(self.warnings))


def publish(engine: Engine, checked: CheckedRelease, *, keep: int = 5, alias: str = ALIAS,
            progress: Progress | None = None, same_base: bool = False) -> PublishResult:
    """Load `checked` into `engine` and point `alias` at it (see the module docstring).
    `same_base`: the knowledge base the alias serves is this release's, its history
    rewritten: its releases become this one's just before the alias moves (`bases.adopt`)."""
    t0 = time.perf_counter()
    say = progress or (lambda _m: None)
    index = open_index(checked.served)  # refuses an index/ derived by other rules
    try:
        derived = _derived_props(index)
        count = index.store.count()
        if (problem := filter_problem(index)) is not None:  # a server refuses the rows
            raise EngineError(f"{problem}; nothing was written", path=str(engine.url))
        want = _meta_wanted(checked, _fields(index), count)
        current = engine.alias_target(alias)
        cur = engine.properties(current) if current else {}
        if not same_base:
            refuse_other(str(engine.url), alias, current, cur, checked.base)
            twin_problem(engine, alias, current, cur, checked.base, checked.manifest_text,
                         _places(checked), signer=checked.signed_by)
        name, damaged = _release_name(engine, checked, derived, current, want, say)
        # what its readers need: both collections, marked complete (not just the mark),
        # its __meta holding this release's record
        broken = current is not None and (not _complete(engine, current)
                                           or current in damaged)
        if current == name and not broken:
            # nothing to write, but the served release must answer now: a restarted
            # server holds it released, and its first reader would pay the load
            ready(engine, name)
            say(f"loaded and warmed {name}")
            return PublishResult(str(engine.url), name, checked.tag, checked.serial,
                                 0, False, current, moved=False,
                                 seconds=round(time.perf_counter() - t0, 3))
        older = _older(engine, checked, cur)
        usable = _complete(engine, name) and name not in damaged
        if older is not None and usable:
            raise EngineError(f"{older}; use `kb rollback --engine … {checked.tag}` to serve "
                              "it", path=str(engine.url))
        if not usable:
            # what an interrupted publish left of it is dropped; one loading it refused
            with claimed(engine, name, say) as claim:
                _load(engine, index, checked, name, derived, say, claim)
        _check_count(engine, name, count)
    finally:
        index.close()
    now_served = engine.alias_target(alias) if older is None else current
    moved = now_served != current  # by another publish or a rollback while this one loaded
    props = (engine.listed_properties(now_served) or {}) if now_served and (
        moved or same_base) else {}
    if moved and not same_base:
        done = f"{name} is loaded but the alias was not moved"
        refuse_other(str(engine.url), alias, now_served, props, checked.base, done=done)
        twin_problem(engine, alias, now_served, props, checked.base, checked.manifest_text,
                     _places(checked), done=done, signer=checked.signed_by)
    # a newer release published meanwhile keeps the alias (the older loaded, as above)
    if (older := older or (_older(engine, checked, props) if moved else None)) is not None:
        say(f"{older}: alias {alias} left at {now_served}")  # loaded for a rollback to serve
        return PublishResult(str(engine.url), name, checked.tag, checked.serial, count, True,
                             now_served, seconds=round(time.perf_counter() - t0, 3),
                             moved=False)
    if same_base:  # (after the load: a failed one relabels nothing)
        for relabelled in adopt(engine, props.get(P_BASE) or None, checked.base):
            say(f"{relabelled} is now a release of this knowledge base")
    engine.warm(name)  # loaded is not yet ready to answer (`Engine.warm`)
    say(f"warmed {name}")
    engine.point_alias(name, alias)
    say(f"alias {alias} -> {name}")
    pruned: list[str] = []
    warnings: tuple[str, ...] = ()
    try:
        pruned += prune(engine, keep, alias, say, base=checked.base, counted=lambda r: (
            same_base or of_this_history(engine, r, checked.base, checked.manifest_text,
                                         _places(checked), checked.signed_by)))
        replaced = [current] if broken and current is not None else []
        for stale in [*replaced, *(d for d in damaged if d not in (current, name))]:
            if stale not in pruned and _drop_replaced(engine, stale, say):
                pruned.append(stale)
    except EngineError as exc:
        # the release is served: a failed clean-up is no failed publish (as a device's
        # sync warns when pruning fails after its switch); what is left goes next time
        warnings = (f"pruning old releases failed: {exc.message}; {name} is served, the "
                    "next publish prunes again",)
    return PublishResult(str(engine.url), name, checked.tag, checked.serial, count, True,
                         current, tuple(pruned), round(time.perf_counter() - t0, 3),
                         warnings=warnings)


def _places(checked: CheckedRelease) -> tuple[Path, ...]:
    """Where the repository the release was built from may be (`lineage.twin_problem`):
    around the release (dist/ in its work tree), or the working directory."""
    return (checked.root, Path.cwd())


def _release_name(engine: Engine, checked: CheckedRelease, derived: dict[str, str],
                  current: str | None, want: dict[str, Any], say: Progress
                  ) -> tuple[str, set[str]]:
    """The collection `checked` goes into, among its candidates
    (`collection_candidates`), and the candidates found complete whose ``__meta`` is not the record `want` of this release
    (`_meta_problem`: damaged, or another release's), which count as not complete:
    `current` (the alias's) when it is one of them, complete (`_complete`) and derived by
    this kb's rules; else the first such complete one (the alias is only moved); else the
    first that is not complete and that no alias serves, to be loaded (anew: what is there
    is dropped). A complete one whose rows were derived by other rules than `derived` (the
    store info of the release's index/ as this kb opened it: published by a kb of another
    tokenizer, other tokenizer libraries or other derivation rules,
    `kbtools.index.selfcheck.derivation_problem`) is never used, so the release is loaded
    anew with the terms its readers make, not found "already published"; nor is one an
    alias serves that is not complete (its ``__meta`` dropped, its mark removed): it cannot
    be dropped to load it again (`Engine.drop`), so the release is loaded into the next
    candidate and the alias moved there. (`publish` opens the release with `open_index`,
    which refuses an index/ derived by other rules than this kb's.)"""
    name = collection_name(checked.tag, checked.manifest_sha256)
    digest = hashlib.sha256(json.dumps(derived, sort_keys=True).encode()).hexdigest()[:8]
    manifest = json.loads(checked.manifest_text)
    names = set(engine.call("listing collections", "list_collections"))
    served = set(engine.aliased())
    ready = fresh = None
    damaged: set[str] = set()
    for i, candidate in enumerate(collection_candidates(name, digest)):
        if candidate in names and _complete(engine, candidate) and \
                (problem := _meta_problem(engine, candidate, want)) is not None:
            say(f"{candidate} is not usable: {problem}; publishing the release again")
            damaged.add(candidate)
        if candidate in names and _complete(engine, candidate) and candidate not in damaged:
            if _derivation_problem(engine, candidate, manifest) is None:
                if candidate == current:
                    return candidate, damaged
                ready = ready or candidate
        elif fresh is None and candidate not in served:
            fresh = candidate
        if i >= NAMED_CANDIDATES - 1 and candidate not in names and fresh is not None:
            break  # the numbered candidates beyond are not there either
    return ready or fresh or name, damaged  # `fresh` is set before the loop ends


def _fields(index: KbIndex) -> dict[str, str]:
    """The chunk collection's vector field of each model of `index`."""
    return {m: f"v{i}" for i, m in enumerate(sorted(index.manifest.get("models", {})))}


def _meta_wanted(checked: CheckedRelease, fields: dict[str, str], count: int
                 ) -> dict[str, Any]:
    """The parts of a ``__meta`` record (`meta_parts`) that name the release: its
    manifest (models and their fingerprints), release.json, vector fields, chunk count."""
    return {"manifest": checked.manifest_text, "release": checked.release_text,
            "fields": fields, "count": count}


def _meta_problem(engine: Engine, name: str, want: dict[str, Any]) -> str | None:
    """Why the ``__meta`` of release collection `name` is not the record `want`
    (`_meta_wanted`) of the release being published (None: it is): a part missing or that
    cannot be read, or another release's; its collection's manifest hash too."""
    try:
        parts = read_parts(engine, name)
    except EngineError as exc:
        if exc.key != "engine_release_incomplete":
            raise  # the engine failed, not the record
        return exc.message
    for part, value in want.items():
        if parts.get(part) != value:
            return f"its {name + META_SUFFIX} holds another {part!r} than this release's"
    wanted = hashlib.sha256(want["manifest"].encode("utf-8")).hexdigest()
    if engine.properties(name).get(P_MANIFEST) != wanted:
        return f"{name} records another manifest hash than this release's"
    return None


NAMED_CANDIDATES = 3  # `collection_candidates` before the numbered ones


def collection_candidates(name: str, digest: str) -> Iterator[str]:
    """The collections release `name` may be published in: `name`; the same ending with
    this kb's tokenizer version; that with `digest` (of the derivation of its rows); and
    that numbered from 2 (the ones before served but not complete)."""
    yield name
    yield f"{name}_{TOKENS_VERSION}"
    last = f"{name}_{TOKENS_VERSION}_{digest}"
    yield last
    for n in itertools.count(2):
        yield f"{last}_{n}"


def _drop_replaced(engine: Engine, name: str, say: Progress) -> bool:
    """Drop `name`, the collection the alias served until this publish replaced it, found
    not complete (its ``__meta`` or its mark gone): prune keeps incomplete releases for the
    publish that may be loading them, and none loads this one, unless a publish took it
    over since the alias moved (its claim is live: kept) or an alias points at it again
    (`Engine.drop` refuses: kept)."""
    if sighted(engine, name) is not None:
        return False
    try:
        engine.drop(name)
    except ServedError as exc:
        say(f"kept {exc.collection}: alias {', '.join(exc.aliases)} points at it now")
        return False
    say(f"dropped {name}, which was served incomplete")
    return True


def _derivation_problem(engine: Engine, collection: str, manifest: dict[str, Any],
                        tag: str | None = None) -> str | None:
    """Why the published `collection` is not derived by this kb's rules (None: it is):
    `kbtools.engine.parts.published_problem`."""
    return published_problem(engine, collection, manifest, tag)


def _derived_props(index: KbIndex) -> dict[str, str]:
    """The collection properties recording what `index`'s terms and rows were derived with
    (its store's info table, which `open_index` checked against this kb's rules) and the
    rules its rows' filter fields are stored by (`expr.FILTER_RULES`)."""
    info = index.store.infos()
    props = {P_TOKENS: info.get("tokens") or "", P_DERIVATION: info.get("derivation", "1"),
             P_FILTERS: expr.FILTER_RULES}
    if info.get("tokenizer"):
        props[P_TOKENIZER] = info["tokenizer"]  # none recorded: not known, as in the store
    return props


def _complete(engine: Engine, name: str) -> bool:
    """Both collections of release `name` exist and it was marked complete (only ever
    after its rows were loaded and counted, `_check_count`)."""
    has = [engine.call("checking a collection", "has_collection", n)
           for n in (name, name + META_SUFFIX)]
    return all(has) and engine.properties(name).get(P_COMPLETE) == "1"


def _older(engine: Engine, checked: CheckedRelease, cur: dict[str, str]) -> str | None:
    """Why `checked` must not replace the served release whose collection properties are
    `cur` (None: it may): a signed release older than the served signed one. Another
    release of the served one's serial is refused (EngineError, nothing written): two
    releases claiming one place in the order. Local builds carry no order."""
    serial = int(cur.get(P_SERIAL, "-1"))
    if checked.serial < 0 or serial < 0 or checked.serial > serial:
        return None
    why = (f"release {checked.tag} (serial {checked.serial}) is not newer than the published "
           f"{cur.get(P_TAG)} (serial {serial})")
    if checked.serial == serial and cur.get(P_MANIFEST) != checked.manifest_sha256:
        raise EngineError(f"{why}, and has another manifest than it; refusing to publish",
                          path=str(engine.url))
    return why if checked.serial < serial else None


def _load(engine: Engine, index: KbIndex, checked: CheckedRelease, name: str,
          derived: dict[str, str], say: Progress, claim: Claim) -> None:
    fields = _fields(index)
    dims = {field: int(index.vectors(m).ndim) for m, field in fields.items()}
    params = index.manifest["config"]["values"]["index"]
    meta = name + META_SUFFIX
    # the release's own collection first: whatever an interrupted publish leaves is listed
    # (`Engine.releases`, incomplete) until this release is published again or pruned
    create(engine, name, claim, chunk_schema(engine, dims, claim.description()),
           {P_TAG: checked.tag or "", P_SERIAL: str(checked.serial),
            P_MANIFEST: checked.manifest_sha256, **derived,
            **({P_BASE: checked.base} if checked.base else {})})
    drop_orphan_meta(engine, name)
    engine.call(f"creating {meta}", "create_collection", meta, schema=meta_schema(engine))
    for i in range(0, len(rows := blob_rows(meta_parts(index, checked, fields))), 64):
        engine.call(f"writing {meta}", "insert", meta, rows[i:i + 64])
    done, long = 0, dict[str, Any]()
    for batch in chunk_rows(index, fields, long):
        engine.call(f"writing {name}", "insert", name, batch)
        done += len(batch)
        say(f"inserted {done} chunks")
    if long:  # rows too large for a JSON field (`rows.ROW_BYTES`)
        for i in range(0, len(rows := blob_rows({LONG_ROWS: long})), 64):
            engine.call(f"writing {meta}", "insert", meta, rows[i:i + 64])
    for coll in (meta, name):
        engine.call(f"flushing {coll}", "flush", coll)
    ip = engine.client.prepare_index_params()
    ip.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="IP",
                 params={"drop_ratio_build": 0.0})
    for field in dims:
        ip.add_index(field, index_type="HNSW", metric_type="COSINE",
                     params={"M": int(params["connectivity"]),
                             "efConstruction": int(params["expansion_add"])})
    engine.call(f"indexing {name}", "create_index", name, ip)
    mip = engine.client.prepare_index_params()
    mip.add_index("pad", index_type="FLAT", metric_type="L2")
    engine.call(f"indexing {meta}", "create_index", meta, mip)
    for coll in (meta, name):
        engine.call(f"loading {coll}", "load_collection", coll)
    say(f"loaded {name}")


def ready(engine: Engine, name: str) -> None:
    """Release collection `name` loaded with its ``__meta`` (what a reader opens first) and
    warm (`Engine.warm`), before an alias is left on or moved to it: a restarted server
    holds every collection released (milvus-lite: ``NotLoad``), which the first reader of a
    re-published or rolled-back release paid, loading both."""
    meta = name + META_SUFFIX
    engine.call(f"loading {meta}", "load_collection", meta)
    engine.warm(name)


def _check_count(engine: Engine, name: str, want: int) -> None:
    got = engine.call(f"counting {name}", "query", name, filter="",
                      output_fields=["count(*)"], consistency_level="Strong",
                      timeout=WRITE_TIMEOUT)  # a step of the publish, after the load
    n = int(got[0]["count(*)"]) if got else 0
    if n != want:
        raise EngineError(f"collection {name} holds {n} chunks, the release {want}; the "
                          "alias was not moved (publish again)", path=str(engine.url))
    engine.call(f"marking {name} complete", "alter_collection_properties", name,
                {P_COMPLETE: "1", P_PUBLISHED: now()})
    forget_sightings(engine, name)  # no host acts on the claim of a complete collection


def prune(engine: Engine, keep: int, alias: str = ALIAS, progress: Progress | None = None,
          *, base: str | None = EVERY,
          counted: Callable[[dict[str, Any]], bool] | None = None) -> list[str]:
    """Drop the complete release collections of knowledge base `base`'s releases (`of_base`:
    a publish's; by default every release of the database) beyond its newest `keep`
    (`kept_releases`: a release counts once however many collections hold it), never one
    that any alias of the database points at (`alias` is the one just
    moved, read again with the others; one another process points an alias at meanwhile
    is kept, and `progress` says so: `Engine.drop`), ``__meta`` collections left
    without their release by an interrupted drop, and releases marked complete whose
    ``__meta`` is gone (`_broken`: no reader can use them, and no publish loads them).
    Other incomplete releases are left to the publish that may still be loading them; an
    interrupted one is dropped when its release is published again. The complete releases
    kept lose any claim sightings left on them (`forget_stale_sightings`). `counted`: which
    of them the publishing release counts as its knowledge base's (`lineage`)."""
    say = progress or (lambda _m: None)
    releases = engine.releases(properties=True)
    complete = [r for r in of_base([r for r in releases if r["complete"]], base)
                if counted is None or counted(r)]
    served = set(engine.aliased())
    kept = kept_releases(complete, keep) | served
    dropped = []
    doomed = [(r["collection"], True) for r in complete if r["collection"] not in kept]
    doomed += [(r["collection"], True) for r in releases if not r["complete"]
               and r["collection"] not in served and _broken(engine, r["collection"])]
    for name, meta in [*doomed, *((m, False) for m in engine.orphans() if m not in served)]:
        try:
            engine.drop(name, meta=meta)  # refuses one an alias was pointed at meanwhile
        except ServedError as exc:
            say(f"kept {exc.collection}: alias {', '.join(exc.aliases)} points at it now")
            continue
        dropped.append(name)
    forget_stale_sightings(engine, [(r["collection"], r["properties"]) for r in complete
                                    if r["collection"] not in dropped])
    return dropped


def kept_releases(complete: list[dict[str, Any]], keep: int) -> set[str]:
    """The collections of the newest `keep` (at least 1) releases among `complete`
    (`Engine.releases`, oldest first), every collection of each: a release published again
    by a kb of another tokenizer or other rules is a second collection of the same release
    (`_same_release`), and counting collections kept two of the newest release for `keep 2`
    and dropped the one before it, which a rollback serves. A release is as new as its
    newest collection."""
    newest: list[tuple[str | None, int, str]] = []
    for r in reversed(complete):
        if (release := _same_release(r)) not in newest:
            newest.append(release)
    wanted = set(newest[:max(keep, 1)])
    return {r["collection"] for r in complete if _same_release(r) in wanted}


def _broken(engine: Engine, name: str) -> bool:
    """Release collection `name` was marked complete (loaded and counted) but its ``__meta``
    is gone (dropped by hand, or a drop stopped between the two), and no live publish holds
    it (one loading it anew, `kbtools.engine.claim`, is left alone)."""
    if (engine.listed_properties(name) or {}).get(P_COMPLETE) != "1":
        return False  # not marked, or dropped since it was listed
    if engine.call("checking a collection", "has_collection", name + META_SUFFIX):
        return False
    return sighted(engine, name) is None


def rollback(engine: Engine, tag: str | None = None, alias: str = ALIAS) -> dict[str, Any]:
    """Point `alias` at release `tag` (default: the newest complete release older than the
    served one, never the served one as a kb of other derivation rules published it), in
    its collection derived by this kb's rules, among the releases of the knowledge base the
    alias serves (`of_base`; an unnamed release of its first commit only when the commits in
    the repository of the working directory show it is its history, `lineage`); EngineError,
    the alias unmoved, when there is none."""
    current = engine.alias_target(alias)
    # (an alias whose collection was dropped underneath serves no knowledge base)
    base = ((engine.listed_properties(current) or {}).get(P_BASE) or None) if current else None
    every = [r for r in engine.releases() if r["complete"]]
    releases = of_base(every, base) if current else every  # an alias serving none: any
    # an unnamed twin's releases are not this knowledge base's to go back to (`lineage`)
    releases, unsure = served_releases(engine, releases, current, base, (Path.cwd(),))
    if tag is not None:
        # a collection named is that one, whichever knowledge base's (`tag_problem` says so)
        found = ([r for r in every if r["collection"] == tag]
                 or [r for r in releases if r["tag"] == tag])
        if (other := tag_problem(every, found, tag, alias, base)) is not None:
            raise EngineError(other, path=str(engine.url))
        if not found:
            have = ", ".join(r["tag"] or r["collection"] for r in releases) or "none"
            raise EngineError(f"release {tag!r} is not published (published: {have}); "
                              "publish it first (`kb publish --engine … --index RELEASE`: an "
                              "older one is loaded without moving the alias), then roll back",
                              path=str(engine.url))
    else:
        names = [r["collection"] for r in releases]
        pos = names.index(current) if current in names else len(names)
        served = _same_release(releases[pos]) if pos < len(releases) else None
        older = [r for r in releases[:pos] if _same_release(r) != served]
        if not older:
            raise EngineError("no older published release to roll back to" + (
                f" ({', '.join(unsure)}: not named, of this knowledge base's first commit, "
                "may be another's; run in its repository to show it is its history, or "
                "give the collection)" if unsure else ""), path=str(engine.url))
        found = [r for r in releases if _same_release(r) == _same_release(older[-1])]
    problems = {r["collection"]: _problem_of(engine, r) for r in found}
    target = ([r for r in found if problems[r["collection"]] is None] or found)[-1]
    if (problem := problems[target["collection"]]) is not None:
        raise EngineError(f"{problem}, so its readers would refuse it; the alias was not "
                          "moved: publish that release again with this kb (`kb publish "
                          "--engine … --index RELEASE`), then roll back to it",
                          path=str(engine.url))
    ready(engine, target["collection"])  # as a publish does before the alias moves
    engine.point_alias(target["collection"], alias)
    return {"engine": str(engine.url), "from": current, "to": target["collection"],
            "tag": target["tag"]}


def _same_release(r: dict[str, Any]) -> tuple[str | None, int, str]:
    """What makes two collections one release (published by kbs of other tokenizers)."""
    return r["tag"], r["serial"], r["manifest_sha256"]


def _problem_of(engine: Engine, r: dict[str, Any]) -> str | None:
    """`_derivation_problem` of release `r` (`Engine.releases`); its manifest is read only
    for a release published before its tokenizer version was recorded."""
    collection = r["collection"]
    manifest: Any = {}
    if P_TOKENS not in engine.properties(collection):
        try:
            manifest = json.loads(read_parts(engine, collection, only=("manifest",))["manifest"])
        except (KeyError, TypeError, ValueError):
            manifest = {}
    return _derivation_problem(engine, collection, manifest if isinstance(manifest, dict)
                               else {}, r["tag"])
