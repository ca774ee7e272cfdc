"""Targets renamed or moved in Git history: what a `path-missing` link's file became (or a
wikilink's naming no file).

When a link names a file that exists nowhere on disk, the history of the knowledge base may
say where it went: `git mv a.md b.md`, later `git mv b.md sub/c.md`. The finding then says
"renamed to 'sub/c.md' in <commit>" (the path written relative to the linking document),
and `kb check --fix` rewrites the link when the chain of renames is unambiguous and ends at
a file that exists (and, with `--staged`, is in the Git index); its `#anchor` is settled as
every path fix's (`anchors.settle`: the closest heading, or none).

- An Obsidian wikilink or embed naming no file gets the same hint when the files it named
  (found as Obsidian finds them, `wikilinks.matching`: by name among the renamed paths of the
  knowledge and assets folders, or by its relative path) were renamed along one chain:
  `--fix` writes the standard link (`wikilinks.standard_link`) of the wikilink naming the
  file as Obsidian would (`wikilinks.written_target`: a note without `.md` unless it was
  written with one, the shortest ending of the path that names the file alone), its
  heading, label and size kept: one run, as a wikilink written again would be a finding
  of its own. Several such files renamed: named, not chosen.
- A link whose document was itself renamed or moved (`git mv a.md sub/a.md`; a folder moved
  in the change that renames a file beside the document) is read from where the document
  was: the file it named there, still there or renamed since, is named with the document's
  own move, and `--fix` writes the link from the document's new place
  (`_moved_document_hint`).
- History is read once per run, and only when a link's target is missing: one
  `git log -M --diff-filter=R --name-status -z` over the kb root (documents and assets/),
  and the renames staged in the index (`git diff --cached -M`): the `git mv` of a commit the
  pre-commit hook refuses for the links to the old name, named "in the staged changes".
- Outside Git, in a repository without commits or when git fails: no hint. A shallow
  clone's history stops at its boundary (git reads the boundary commits as roots, whose
  files are added, not renamed): renames before it are not known, and not hinted.
- A link's path differing only in letter case or Unicode form from renamed paths
  (`../Guide.md`, `guide.md` renamed): named with its renames and how it differs, never
  written (links are compared byte for byte on Linux and GitHub; the file may not be the
  one meant). A wikilink matches them as Obsidian does, in any case (the same case
  preferred), and is fixed; its hint says how it differs from the file it named
  (`wikilinks.names_differing`).
- A path renamed to two different places over time (`a.md` → `b.md`, a new `a.md` later
  → `c.md`) is ambiguous: kb does not choose (the latest rename is not what a link written
  before the first one meant), names both and fixes nothing.

Renames are read through GitPython (`provenance.open_repo`): `kb check` only, never
`kb query`'s process.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import git

from kbtools.check import anchors, wikilinks
from kbtools.check.anchors import SlugsOf
from kbtools.check.fscache import FsCache
from kbtools.check.links import Edit, Missing, anchored, written_path
from kbtools.check.names import disk_key
from kbtools.findings import Finding, finding
from kbtools.pathspecs import literal
from kbtools.provenance import git_prefix, open_repo


@dataclass(frozen=True)
class Rename:
    old: str  # root-relative
    new: str
    short: str  # the commit, abbreviated as git abbreviates it (or `STAGED`)


@dataclass(frozen=True)
class Hint:
    """What a `path-missing` finding says of its target's renames, and the edit `--fix`
    writes (None: ambiguous, or nothing to write)."""

    message: str
    edit: Edit | None


Key = tuple[str, int, int]  # (document, line, col) of a link
RETOLD = ("path-missing", wikilinks.CODE)  # the findings a hint replaces


# where a rename staged for the next commit (`git mv`, `git add -A`) was made, in a hint
STAGED = "the staged changes (not committed yet)"


def read_renames(root: Path, outputs: Iterable[str] = ()) -> list[Rename] | None:
    """Every rename of a file below `root` in the history of HEAD, oldest first, then those
    staged in the Git index (`STAGED`); None outside Git, without commits, or when git fails.
    Why the staged ones: a commit that renames a document (`git mv`) is refused by the
    pre-commit hook for the links to its old name, and the rename, not committed yet, was
    in no history: the finding named no new name and `--fix` wrote none. `outputs`: the
    root-relative folders a build writes (dist/), left out of the history read: a commit holding the
    build output paired a document it removed or moved with the build's copy of it
    (``dist/data/source/…``), a rename no link should follow."""
    repo = open_repo(root)
    if repo is None or repo.working_tree_dir is None:
        return None
    with repo:
        try:
            prefix = git_prefix(repo, root)
            below = [literal(prefix.rstrip("/"))] if prefix else []
            below += [f":(exclude,literal){prefix}{rel}" for rel in sorted(outputs)]
            out = repo.git.log("-M", "--diff-filter=R", "--name-status", "-z", "--topo-order",
                               "--format=%x00%H %h", "HEAD", "--", *below)
            staged = repo.git.diff("--cached", "-M", "--diff-filter=R", "--name-status", "-z",
                                   "HEAD", "--", *below)
        except (git.GitCommandError, ValueError, OSError):
            return None
    return parse_log(str(out), prefix)[::-1] + parse_log(str(staged), prefix, STAGED)


def parse_log(out: str, prefix: str, short: str = "") -> list[Rename]:
    """The renames `git log --format=%x00%H %h --name-status -z` printed, newest first,
    of the paths below `prefix` (relative to it). After a status come its two paths
    (whatever their characters); any other token is a commit's header. `short`: where the
    renames before any header were made (`git diff --name-status -z` prints none)."""
    tokens = out.split("\0")
    found: list[Rename] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if _is_rename(token) and i + 2 < len(tokens):
            old, new = tokens[i + 1], tokens[i + 2]
            if old.startswith(prefix) and new.startswith(prefix):
                found.append(Rename(old[len(prefix):], new[len(prefix):], short))
            i += 3
            continue
        if token.strip():
            short = token.strip().rsplit(" ", 1)[-1]
        i += 1
    return found


def _is_rename(token: str) -> bool:
    """Is `token` a rename's `--name-status` status: R and the similarity (`R100`), after
    the line feed git -z puts before a commit's first one?"""
    status = token.removeprefix("\n")
    return status[:1] == "R" and len(status) <= 4 and (status[1:].isascii() and status[1:].isdigit() or status == "R")


def follow(renames: list[Rename], path: str, exists: Callable[[str], bool]
           ) -> tuple[list[Rename], list[Rename]]:
    """The chain of renames (oldest first) leading from `path` to a file that `exists`,
    and, when a path of it was renamed to different places, those renames (the chain
    then empty). Both empty: no rename, or the chain ends where no file is."""
    sources: dict[str, list[int]] = {}
    for n, r in enumerate(renames):
        sources.setdefault(r.old, []).append(n)
    chain: list[Rename] = []
    current, after = path, -1
    while True:
        later = [n for n in sources.get(current, []) if n > after]
        if not later:
            break
        if len({renames[n].new for n in later}) > 1:
            return [], [renames[n] for n in later]
        after = later[0]  # indices only grow: the walk ends
        chain.append(renames[after])
        current = renames[after].new
    return (chain, []) if chain and exists(current) else ([], [])


def hints(missing: Iterable[tuple[str, Missing]], root: Path, fs: FsCache,
          slugs_of: SlugsOf | None, trees: Sequence[str] = (),
          outputs: Iterable[str] = ()) -> dict[Key, Hint]:
    """The rename hint of each missing target (by the linking document, line and column)
    whose file was renamed; reads history only when there is one to look up. `trees`: the
    root-relative folders a wikilink's target is searched in (`wikilinks.search_trees`);
    `outputs`: the build's root-relative output folders, whose history is not read (`read_renames`)."""
    # not a block reference (`[[note#^id]]`): its standard link is written by hand
    wanted = [(doc, m) for doc, m in missing
              if not (m.wikilink and wikilinks.parse_wikilink(m.raw).block)]
    renames = read_renames(root, outputs) if wanted else None
    if not renames:
        return {}

    def there(rel: str) -> bool:
        res = fs.resolve(rel)
        return res.exists and not res.is_dir and res.case_ok and fs.committed(res.rel) \
            and fs.stays_inside(res.rel)

    told: dict[Key, Hint] = {}
    olds = _by_name(renames, trees)
    folded: dict[str, set[str]] = {}  # the renamed paths by `disk_key`
    for r in renames:
        folded.setdefault(disk_key(r.old), set()).add(r.old)
    for doc, m in wanted:
        if m.wikilink:
            hint = _wikilink_hint(doc, m, renames, olds, folded, there, fs, trees, slugs_of)
            if hint is not None:
                told[(doc, m.line, m.col)] = hint
            continue
        chain, choices = follow(renames, m.path, there)
        if not chain and not choices:
            hint = _case_hint(doc, m, renames, sorted(folded.get(disk_key(m.path), ())), there) \
                or _moved_document_hint(doc, m, renames, there, slugs_of)
            if hint is not None:
                told[(doc, m.line, m.col)] = hint
            continue
        doc_dir = posixpath.dirname(doc)
        if choices:
            named = ", ".join(f"to {_rel(r.new, doc_dir)!r} in {r.short}" for r in choices)
            told[(doc, m.line, m.col)] = Hint(
                f"{m.said}; renamed more than once in Git history ({named}): kb does not "
                "choose one; link the file meant by hand", None)
        elif chain:
            told[(doc, m.line, m.col)] = _renamed(doc, m, chain, slugs_of)
    return told


def _renamed(doc: str, m: Missing, chain: list[Rename], slugs_of: SlugsOf | None,
             told: str = "") -> Hint:
    """The hint of a link to where `chain` leads; `told`: what the message says instead of
    the renames (the target stayed where the link named it, `_moved_document_hint`)."""
    final = chain[-1].new
    doc_dir = posixpath.dirname(doc)
    message = f"{m.said}; " + (told or f"renamed to {_rel(final, doc_dir)!r} in "
                               f"{chain[-1].short}")
    if len(chain) > 1:
        message += " (via " + ", ".join(f"{_rel(r.new, doc_dir)!r} in {r.short}"
                                        for r in chain[:-1]) + ")"
    edit = Edit(m.line, m.col, m.raw, written_path(_rel(final, doc_dir)) + m.suffix)
    if "#" in edit.new and final.lower().endswith((".md", ".markdown")):
        edit = anchored(edit, final)
    settled, note = anchors.settle(edit, slugs_of, doc) if slugs_of else (edit, "")
    if not edit.old:
        message += f"; write {(settled or edit).new!r} by hand"
    else:
        message += f"; `kb check --fix` writes {(settled or edit).new!r}" + \
            (f" ({note})" if note else "")
    return Hint(message, edit)


def _moved_document_hint(doc: str, m: Missing, renames: list[Rename],
                         there: Callable[[str], bool], slugs_of: SlugsOf | None
                         ) -> Hint | None:
    """The hint of a link whose document was renamed or moved (`git mv a.md sub/a.md`, a
    folder moved with a file in it renamed) while the link kept its relative path: read
    from where the document was, it named a file that is there still, or that a rename
    took elsewhere. Why: `见 [下一条](记录-0001.md)` in a folder moved in the commit that
    also renamed 记录-0001.md, or a document moved one folder down, was told "did you mean"
    a file of a similar name; the rename that explains it was in the history."""
    written = posixpath.relpath(m.path, posixpath.dirname(doc) or ".")
    current = doc
    for r in reversed(renames):  # the document's own earlier paths, the latest first
        if r.new != current:
            continue
        current = r.old
        was = posixpath.normpath(posixpath.join(posixpath.dirname(r.old), written))
        if was == m.path or was.startswith("../"):
            continue
        chain, choices = follow(renames, was, there)
        if choices:
            return None
        if not chain and not there(was):
            continue
        doc_dir = posixpath.dirname(doc)
        moved = (f"this document was {_rel(r.old, doc_dir)!r} before {r.short}, where the "
                 f"link named {_rel(was, doc_dir)!r}")
        if chain:
            hint = _renamed(doc, m, chain, slugs_of)
            said = f"{m.said}; renamed to "
            return Hint(hint.message.replace(said, f"{m.said}; {moved}, renamed to ", 1),
                        hint.edit)
        return _renamed(doc, m, [Rename(was, was, r.short)], slugs_of, f"{moved}, which "
                        "is there")
    return None


def _case_hint(doc: str, m: Missing, renames: list[Rename], olds: list[str],
               there: Callable[[str], bool]) -> Hint | None:
    """The hint of a link whose path no file was renamed from, when renamed paths differ from
    it only in letter case or Unicode form (`olds`): named, never written. The link never
    named that file where links are compared byte for byte (Linux, GitHub), and a path may
    differ so from another file's: kb does not choose it for the author."""
    doc_dir = posixpath.dirname(doc)
    ends: list[tuple[str, Rename]] = []
    for old in olds:
        if old == m.path:
            continue
        chain, split = follow(renames, old, there)
        ends.extend((old, r) for r in (chain[-1:] or split))
    if not ends:
        return None
    named = "; ".join(f"{_rel(old, doc_dir)!r} (differing {wikilinks.difference(m.path, old)}) was "
                      f"renamed to {_rel(r.new, doc_dir)!r} in {r.short}" for old, r in ends)
    meant = (f"link {written_path(_rel(ends[0][1].new, doc_dir)) + m.suffix!r} by hand if "
             "that is the file meant") if len(ends) == 1 else "link the file meant by hand"
    return Hint(f"{m.said}; no file was renamed from that path, but {named}: links are "
                f"case-sensitive on Linux and GitHub, so `kb check --fix` does not write it; "
                f"{meant}", None)


def _by_name(renames: list[Rename], trees: Sequence[str]) -> dict[str, list[str]]:
    """The renamed paths inside `trees` by file name (`disk_key`), as a wikilink finds them."""
    out: dict[str, set[str]] = {}
    for r in renames:
        if any(t == "." or r.old.startswith(t + "/") for t in trees):
            out.setdefault(disk_key(posixpath.basename(r.old)), set()).add(r.old)
    return {k: sorted(v) for k, v in out.items()}


def _wikilink_hint(doc: str, m: Missing, renames: list[Rename], olds: dict[str, list[str]],
                   folded: Mapping[str, set[str]], there: Callable[[str], bool], fs: FsCache,
                   trees: Sequence[str], slugs_of: SlugsOf | None) -> Hint | None:
    """The hint of a wikilink naming no file, when the files it named (as Obsidian finds
    them: `wikilinks.matching`) were renamed: one chain of renames → the standard link of
    the wikilink naming where it ends (`wikilinks.written_target`), heading and label kept,
    its anchor settled as `--fix` settles it (`anchors.settle`)."""
    link = wikilinks.parse_wikilink(m.raw)
    relative = wikilinks.relative_names(link, doc)
    named = _relative_renamed(relative, folded) if relative is not None else \
        wikilinks.matching(link, doc, trees, lambda key: olds.get(key, ()))
    chains: dict[str, list[Rename]] = {}
    choices: list[Rename] = []
    for old in named:
        chain, split = follow(renames, old, there)
        choices.extend(split)
        if chain:
            chains.setdefault(fs.resolve(chain[-1].new).rel, chain)
    doc_dir = posixpath.dirname(doc)
    if choices or len(chains) > 1:
        listed = choices + [c[-1] for c in chains.values()]
        named_as = ", ".join(f"to {_rel(r.new, doc_dir)!r} in {r.short}" for r in listed)
        return Hint(f"{m.said}; renamed in Git history ({named_as}): kb does not choose one; "
                    f"write a standard relative link to the file meant by hand "
                    f"({wikilinks.SETTINGS})", None)
    if not chains:
        return None
    final, chain = next(iter(chains.items()))
    message = f"{m.said}; renamed to {_rel(final, doc_dir)!r} in {chain[-1].short}"
    if len(chain) > 1:
        message += " (via " + ", ".join(f"{_rel(r.new, doc_dir)!r} in {r.short}"
                                        for r in chain[:-1]) + ")"
    differing = wikilinks.names_differing(link, chain[0].old, doc)
    if differing is not None:
        message += (f" (the file was {_rel(chain[0].old, doc_dir)!r}, differing "
                    f"{wikilinks.difference(*differing)}, which Obsidian finds)")

    def names_only(target: str) -> bool:
        found = wikilinks.candidates(dataclasses.replace(link, target=target), doc, fs, trees)
        return found == [final]

    target = wikilinks.written_target(link, final, doc, names_only)
    if target is None:
        return Hint(f"{message}; no wikilink names it alone: write a standard relative link "
                    f"to it ({wikilinks.SETTINGS})", None)
    # the standard link the wikilink naming the file would become (`wikilinks.standard_link`):
    # one `--fix` writes it, not a wikilink that is itself a finding for a second run
    renamed = wikilinks.parse_wikilink(wikilinks.with_target(link, target))
    slug = wikilinks.heading_slug(renamed, final)
    edit = Edit(m.line, m.col, m.raw, wikilinks.standard_link(renamed, final, doc),
                final if slug else "", slug, True)
    settled, note = anchors.settle(edit, slugs_of, doc) if slugs_of else (edit, "")
    if settled is None:
        return Hint(f"{message}; {note} ({wikilinks.SETTINGS})", edit)
    return Hint(f"{message}; `kb check --fix` writes {wikilinks.quoted(settled.new)}"
                + (f" ({note})" if note else "") + f" ({wikilinks.SETTINGS})", edit)


def _relative_renamed(relative: list[str], folded: Mapping[str, set[str]]) -> list[str]:
    """The renamed path a wikilink's relative target names (`relative`: its variants, in
    order), as Obsidian and `wikilinks.candidates` find a file: the same letter case
    preferred, else the one path differing in case or Unicode form alone (several: none)."""
    for name in relative:
        same = folded.get(disk_key(name), set())
        if name in same:
            return [name]
        if len(same) == 1:
            return sorted(same)
    return []


def _rel(target: str, doc_dir: str) -> str:
    return posixpath.relpath(target, doc_dir or ".")


def retold(findings: list[Finding], told: Mapping[Key, Hint]) -> list[Finding]:
    """`findings` with each `path-missing` finding of a renamed target saying so."""
    out = []
    for f in findings:
        hint = told.get((f.path, f.line, f.col)) if f.code in RETOLD else None
        out.append(finding(f.path, f.line, f.col, f.level, f.code, hint.message)
                   if hint is not None else f)
    return out


def edits_for(told: Mapping[Key, Hint], doc: str) -> tuple[Edit, ...]:
    """The edits `--fix` writes for the renamed targets of the document `doc`."""
    return tuple(h.edit for (d, _, _), h in sorted(told.items()) if d == doc and h.edit)
