"""Which knowledge base a release is of, as one text (the manifest's ``source.base``, a
Milvus collection's ``kb.base``), and when two such texts name the same knowledge base.

A knowledge base is known by where its history starts: the first commit of the history
HEAD descends from by first parents, then ``:FOLDER`` when its kb.toml is below the
repository's top (`kbtools.build.identity.knowledge_base`) — the *first* part. That is
stable across ordinary commits, but two knowledge bases that share a first commit (a
repository split in two by copying it, two started from one template repository) share it
too, and a rewritten history (``git filter-repo``, a squash of the first commits) starts
at another commit. So an author may name the knowledge base, kb.toml's ``[release]
knowledge_base = "NAME"``; the base of a named one is the JSON array ``[NAME, FIRST]``
(FIRST null when not known: a shallow clone), a text no first part starts with.

Two bases name the same knowledge base (`same_base`) when both are named alike, whatever
their first commits (the name is the author's word; it outlives a rewritten history and a
shallow clone); when one is named and the other not, by their first parts (the releases a
knowledge base published before it was given its name are still its own); when neither is
named, when they are equal (as before names existed).
"""

from __future__ import annotations

import json


def base_of(first: str | None, name: str | None) -> str | None:
    """The base of a release whose history starts at `first` (None: not known) in the
    knowledge base the author named `name` (None: not named); None when neither is known."""
    if name:
        return json.dumps([name, first], ensure_ascii=False)
    return first


def base_parts(base: str) -> tuple[str | None, str | None]:
    """(first part, name) of a base (`base_of`); a text that is no named base is a first
    part, as every base was before names."""
    if base.startswith("["):
        try:
            parts = json.loads(base)
        except ValueError:
            parts = None
        if isinstance(parts, list) and len(parts) == 2 and isinstance(parts[0], str) \
                and isinstance(parts[1], (str, type(None))):
            return parts[1], parts[0]
    return base, None


def same_base(a: str, b: str) -> bool:
    """Whether bases `a` and `b` name one knowledge base (see the module docstring)."""
    if a == b:
        return True
    (first_a, name_a), (first_b, name_b) = base_parts(a), base_parts(b)
    if name_a and name_b:
        return name_a == name_b
    return first_a is not None and first_a == first_b


def named_once(a: str, b: str) -> bool:
    """Whether `same_base` holds for `a` and `b` only by their first parts, one of them
    named and the other not: a knowledge base's release from before it was named, or its
    unnamed twin's (`kbtools.engine.lineage` asks the commits which)."""
    named_a, named_b = bool(base_parts(a)[1]), bool(base_parts(b)[1])
    return a != b and named_a != named_b and same_base(a, b)


def shown(base: str) -> str:
    """A base as messages name it: its name in quotes, its first commit shortened, its
    folder as it is (``"agri-zh" (first commit 1a2b3c4d5e6f)``)."""
    first, name = base_parts(base)
    commit, _, folder = (first or "").partition(":")
    where = (f"first commit {commit[:12]}:{folder}" if folder else
             f"first commit {commit[:12]}" if commit else "first commit not known")
    return f"{json.dumps(name, ensure_ascii=False)} ({where})" if name else where
