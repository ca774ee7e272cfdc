"""Paths as git pathspecs that name those paths alone.

Handed to git bare, a path is a pattern: `pump[1].md`, `a*b.md` or `x?.md` also match
`pump1.md`, `a-b.md` or `x1.md`, and a leading `:` starts pathspec magic. Pure strings, no
GitPython: `kbtools.ship.git` (read by every `kb query` on a device) uses them too.
"""

from __future__ import annotations

__all__ = ["literal", "top_literal"]


def literal(path: str) -> str:
    """`path` as a pathspec naming that path alone (and what is below it). Handed to git
    bare, a path is a pattern: `pump[1].md`, `a*b.md` or `x?.md` also match `pump1.md`,
    `a-b.md` or `x1.md` (whose history, status and commits then pass for the document's),
    and a leading `:` starts pathspec magic."""
    return f":(literal){path}"


def top_literal(path: str) -> str:
    """`path`, relative to the top of the work tree ("" for all of it), as a pathspec
    naming that path alone, as `literal` does, from the top whatever folder git runs in (a
    bare `:/{path}` takes a `path` starting with `:` for more magic: `:kb` became `kb`)."""
    return f":(top,literal){path}"
