"""The release a search asks for by tag or commit (`kb query --engine … --release TAG`, MCP
`search` and ``/api/search`` with ``release``/``commit`` when an engine is read), found among
the releases the engine holds: those `keep` left of the knowledge base the alias serves
(`bases.of_base`, and not an unnamed twin's: `lineage.served_releases`), complete. A
device's kept releases are its ``releases/`` directories (`kbtools.agents.asked`); an
engine's are its collections, so a citation of the release before the last publish is
still searched in the release it came from, and one pruned or never published is named in
one line with those that are.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kbtools.engine.bases import of_base
from kbtools.engine.lineage import served_commit, served_releases
from kbtools.engine.milvus import P_BASE, Engine
from kbtools.engine.parts import published_problem, read_parts
from kbtools.errors import EngineError, UsageError


def find_published(engine: Engine, served: str, commit: str | None, tag: str | None
                   ) -> tuple[str | None, str]:
    """(the collection of the release `tag` and/or `commit` (a prefix, lower case) names
    among the engine's complete releases of the knowledge base collection `served` is of,
    ""), or (None, one line saying it is not published there and naming those that are).
    UsageError when `tag` and `commit` name two releases, or a commit prefix
    several."""
    base = (engine.listed_properties(served) or {}).get(P_BASE) or None
    complete = [r for r in engine.releases() if r["complete"]]
    mine, _ = served_releases(engine, of_base(complete, base), served, base, (Path.cwd(),))
    tagged = [r for r in mine if tag is None or r["tag"] == tag]
    commits = {r["collection"]: served_commit(engine, r["collection"]) or ""
               for r in (tagged if commit is not None else [])}
    found = [r for r in tagged if commit is None
             or commits[r["collection"]].lower().startswith(commit)]
    if tag is not None and commit is not None and not found and tagged:
        raise UsageError(f"release {tag} is commit {commits[tagged[-1]['collection']][:12]}, "
                         f"not {commit}: give the release or the commit alone")
    if commit is not None and len({commits[r["collection"]] for r in found}) > 1:
        raise UsageError(f"commit {commit} names {len(found)} releases published in "
                         f"{engine.url} (" + ", ".join(
                             f"{r['tag'] or r['collection']}: {commits[r['collection']][:12]}"
                             for r in found) + "): give more of its digits or the release tag")
    if found:
        return _usable(engine, found), ""
    what = f"release {tag}" if tag else f"commit {commit}"
    if tag and commit:
        what += f" (commit {commit})"
    have = ", ".join(dict.fromkeys(r["tag"] or r["collection"] for r in reversed(mine)))
    return None, (f"{what} is not published in {engine.url} (published there, newest "
                  f"first: {have or 'none'}; pruned beyond [release] keep, or never "
                  "published: `kb publish --engine … --index RELEASE` loads it without "
                  "moving the alias)")


def _usable(engine: Engine, found: list[dict[str, Any]]) -> str:
    """The collection to search of one release published in `found` (oldest first): the
    newest one derived by this kb's rules (a kb of another tokenizer may have published the
    release again), else the newest (whose reader then says what is wrong)."""
    if len(found) == 1:
        return str(found[0]["collection"])
    for r in reversed(found):
        try:
            manifest: Any = read_parts(engine, r["collection"], only=("manifest",))["manifest"]
        except EngineError:
            continue
        if published_problem(engine, r["collection"], json.loads(manifest), r["tag"]) is None:
            return str(r["collection"])
    return str(found[-1]["collection"])
