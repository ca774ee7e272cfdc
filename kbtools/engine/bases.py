"""Knowledge bases sharing one Milvus database: which releases are whose.

A release records the knowledge base it is of: the manifest's ``source.base``
(`kbtools.base_identity`: the first commit of its repository's history, and its folder
when it is not at the top; with the name kb.toml's ``[release] knowledge_base`` gives it,
when it has one). A publish stores it as the collection property ``kb.base`` (`P_BASE`),
and everything kb decides over the releases of a database stays within one knowledge base
(`same_base`: one name, or one first commit where a side has no name):

* a publish never moves an alias that serves another knowledge base's release
  (`refuse_other`): before anything is written it says to give the release an alias of its
  own (``--alias``, which its readers give too) or a database of its own, or, when it is
  the same knowledge base with its history rewritten, to publish with
  ``--same-knowledge-base`` (`adopt`: its releases become this one's);
* ``keep`` counts and prunes only the publishing knowledge base's releases, and
  ``kb rollback --engine`` goes back (or to TAG) only among the releases of the knowledge
  base the alias serves (`of_base`), so two knowledge bases tagged ``kb-r1``, ``kb-r2``, …
  alike never take each other's place.

A release whose knowledge base is not known — published by a kbtools before ``kb.base``
was recorded, or built from a shallow clone or without a commit — may be any knowledge
base's: it is still found, served, replaced and rolled back to as before, and publishing a
newer release with this kb records the base; but publishing it never prunes, nor does a
rollback from it serve, a release whose knowledge base is known (`of_base`).
"""

from __future__ import annotations

import shlex
from typing import Any

from kbtools.base_identity import base_parts, named_once, same_base, shown
from kbtools.engine.milvus import P_BASE, P_TAG, Engine, alias_name
from kbtools.errors import EngineError


def release_base(manifest: dict[str, Any]) -> str | None:
    """The knowledge base a release's manifest names (None: not known)."""
    source = manifest.get("source")
    base = source.get("base") if isinstance(source, dict) else None
    return base if isinstance(base, str) and base else None


EVERY = "*"  # `of_base`: every release, whatever its knowledge base (no base is "*")


def of_base(releases: list[dict[str, Any]], base: str | None) -> list[dict[str, Any]]:
    """The releases among `releases` (`Engine.releases`) that kb counts, prunes and rolls
    back among for knowledge base `base`: its own and those whose base is not known (its
    releases published before bases were recorded, or from a shallow clone); for a base
    not known, only those whose base is not known either, since a release that may be any
    knowledge base's must not drop or serve one another knowledge base's is known to be.
    `EVERY`: all of them."""
    if base == EVERY:
        return list(releases)
    return [r for r in releases if r.get("base") is None
            or (base is not None and same_base(r["base"], base))]


def refuse_other(url: str, alias: str, current: str | None, props: dict[str, str],
                 base: str | None, done: str = "nothing was written") -> None:
    """EngineError when `alias` serves (collection `current`, its properties `props`) a
    release of another knowledge base than `base`; `done` says what was written before
    (a publish checks before it writes, and again before it moves the alias: another
    knowledge base's publish may have taken the alias while this one loaded)."""
    served = props.get(P_BASE) or None
    if current is None or served is None or base is None or same_base(served, base):
        return
    name = base_parts(base)[1]
    given = shlex.quote(name) if name else "NAME"  # its own name, as the shell takes it
    mapped = f", Milvus alias {alias_name(name)}" if name and alias_name(name) != name else ""
    raise EngineError(f"alias {alias} serves {props.get(P_TAG) or current} of another "
                      f"knowledge base ({shown(served)}), this release is of "
                      f"{shown(base)}; {done}: publish it behind an alias of "
                      f"its own (--alias {given}{mapped}; its readers give --alias {given} "
                      "too) or into a "
                      "database of its own (milvus://HOST:PORT/NAME); if it is that "
                      "knowledge base with its history rewritten (filter-repo, squashed "
                      "first commits), publish with --same-knowledge-base, which makes its "
                      "releases this one's", path=url)


def adopt(engine: Engine, served: str | None, base: str | None) -> list[str]:
    """`kb publish --same-knowledge-base`: the releases of knowledge base `served` (the
    one the alias serves) that are not of `base` (this release's) become `base`'s (their
    ``kb.base`` rewritten), so that ``keep`` counts and a rollback goes back to them as
    this knowledge base's; when `served` is this knowledge base's first commit unnamed and
    `base` names it (`named_once`: the operator's word that the unnamed release is its own,
    `kbtools.engine.lineage`), the releases of exactly that unnamed base. Returns the
    collections relabelled: none when either base is not known."""
    if served is None or base is None:
        return []
    if named_once(served, base):  # its releases from before it was named: those exactly
        moved = [r["collection"] for r in engine.releases() if r["base"] == served]
    elif same_base(served, base):
        return []
    else:
        moved = [r["collection"] for r in engine.releases()
                 if r["base"] is not None and same_base(r["base"], served)
                 and not same_base(r["base"], base)]
    for name in moved:
        engine.call(f"relabelling {name}", "alter_collection_properties", name,
                    {P_BASE: base})
    return moved


def tag_problem(releases: list[dict[str, Any]], found: list[dict[str, Any]], tag: str,
                alias: str, base: str | None) -> str | None:
    """Why `kb rollback --engine --alias ALIAS TAG` does not serve release `tag` (None: it
    may, or no knowledge base has it): `found`, its releases among those of knowledge base
    `base` (the one `alias` serves: `of_base`), is empty but another knowledge base's
    `releases` carry the tag; or the alias serves no knowledge base known (no release yet,
    or one published before bases were recorded) and several knowledge bases' releases
    carry it. A collection named (`found` holds it whatever its base) is served."""
    if not found:
        if not any(tag in (r["tag"], r["collection"]) for r in releases):
            return None
        which = (f"({shown(base)})" if base else
                 "(not known: published by an earlier kbtools or from a shallow clone)")
        names = ", ".join(r["collection"] for r in releases if r["tag"] == tag)
        return (f"release {tag!r} in the engine is of another knowledge base than the one "
                f"alias {alias} serves {which}, so the alias was not moved; publish that "
                f"knowledge base's release, or give the collection ({names}) to serve it "
                "anyway")
    if base is None and len({r["base"] for r in found if r["base"]}) > 1:
        names = ", ".join(r["collection"] for r in found)
        return (f"release {tag!r} is published for several knowledge bases ({names}) and "
                f"alias {alias} serves none of them, so it was not moved; give the "
                "collection of the one to serve instead of the tag")
    return None
