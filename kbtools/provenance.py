"""Provenance from Git: who changed a document, and when.

- per-document history (`kbtools.doc_changes.doc_changes`) is built on the states read
  here (`DocChange`, `states_at`);
- blame at build time: `blame_lines` + `chunk_provenance` stamp every chunk with the last
  commit that changed its lines;
- repository helpers: `open_repo` / `require_repo` (review and agents open the
  repository through these too), `git_prefix`, `resolve_commit`, `merge_base`,
  `changed_docs`, `state_at`, `blob_text`, `git_identity`, `doc_rel`, `is_shallow`,
  `shallow_boundary`, `not_ancestors`, `staged_paths` (the index: what `kb check
  --staged` may link to), `work_tree_top`.

No review vocabulary: which front-matter fields count as content, and what `verified`
means, are `kbtools.review`'s business; it passes them in (`ignore` fields, a `version`
key). All Git access goes through GitPython's `repo.git`; commits and files are read with
`kbtools.gitobjects` (`CommitInfo`), so a SHA-256 repository reads like a SHA-1 one.
Functions used at build time degrade to empty results when the root is not a Git repository
or the file is untracked.

Imports config, corpus, errors and gitobjects only.
"""

from __future__ import annotations

import bisect
import json
import os
import re
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import git

from kbtools import gitbatch
from kbtools.config import Config
from kbtools.corpus import decode, entry_spelling, parse_source
from kbtools.errors import KbError, UsageError
from kbtools.gitobjects import (
    CommitInfo,
    commit_authors,
    paths_with_folders,
    read_blobs,
    read_commit,
)
from kbtools.gitobjects import merge_base as base_of
from kbtools.pathspecs import literal

UNCOMMITTED = "uncommitted"
# a line a shallow clone's boundary commit holds: git blames it on that commit (its parents
# are not fetched), though any earlier commit may have written it
NOT_FETCHED = "not fetched"
# object ids: 40 hex digits in a SHA-1 repository, 64 in a SHA-256 one
# (`git init --object-format=sha256`); blame's id for uncommitted lines is all zeros
OBJECT_ID_LENGTHS = (40, 64)
HEX_DIGITS = frozenset("0123456789abcdef")
NOTHING: frozenset[str] = frozenset()


# ---------------------------------------------------------------- data


@dataclass(frozen=True)
class DocState:
    """A document's parsed content at one commit."""

    meta: dict[str, Any]
    body: str
    fm_text: str  # the raw front matter (used for comparison when it does not parse)
    ok: bool  # front matter parsed to a mapping
    key_lines: dict[str, int] = field(default_factory=dict)
    body_line: int = 1  # the file line the body starts at (lines named in findings)

    def key(self, ignore: frozenset[str] = NOTHING) -> tuple[str, str]:
        """The body and the front matter without the fields in `ignore`, comparable
        across commits (the raw front matter when it does not parse)."""
        if not self.ok:
            return self.body, self.fm_text
        meta = {k: v for k, v in self.meta.items() if k not in ignore}
        return self.body, json.dumps(meta, sort_keys=True, ensure_ascii=False, default=str)

    def changed_fields(self, other: DocState, ignore: frozenset[str] = NOTHING) -> list[str]:
        """What differs between `other` (older) and self: "body", then front-matter keys
        (sorted) outside `ignore`."""
        out = ["body"] if self.body != other.body else []
        keys = sorted((set(self.meta) | set(other.meta)) - ignore)
        out += [k for k in keys if self.meta.get(k) != other.meta.get(k)]
        return out


@dataclass(frozen=True)
class DocChange:
    """One commit's effect on one document (newest first in lists)."""

    commit: CommitInfo
    path: str  # git path after the commit
    before: DocState | None  # None: the document did not exist before
    after: DocState | None  # None: deleted
    # the history is cut here (a shallow clone's boundary commit): the document may well
    # have existed before, but git shows it as created, by this commit's author
    cut: bool = False

    def changed(self, ignore: frozenset[str] = NOTHING) -> bool:
        """The commit created the document or changed it outside `ignore` (not a deletion)."""
        if self.after is None:
            return False
        if self.before is None:
            return True
        return self.after.key(ignore) != self.before.key(ignore)


@dataclass(frozen=True)
class LineProvenance:
    line: int  # 1-based line in the working-tree file
    commit: str  # sha, or "uncommitted"
    author_name: str
    author_email: str
    authored_at: str  # ISO 8601 with offset ("" when uncommitted)
    committed_ts: int  # for ordering; 0 when uncommitted
    authored_ts: int  # the author time as an instant (0 when uncommitted), to order commits
    # of one second


# ---------------------------------------------------------------- repository

# Settings (`git -c`) for every git command run on a repository from `open_repo`: what git
# prints as it does with no settings at all, whatever a build machine's ~/.gitconfig or
# /etc/gitconfig say, so that two machines building one commit read the same history
# (`tests/test_reproducible_env.py`). Paths unquoted and text in UTF-8 (see `plain_paths`);
# the root commit's files listed by `git log` (log.showRoot=false hid the commit that set
# `verified: true` in a repository's first commit: every review lapsed); no signature
# checks in log output; `-m` as each parent's diff; `git log -- path` not turned into
# `--follow`; blame's line matching by git's default diff with its indent heuristic.
MACHINE_NEUTRAL = ("core.quotePath=false", "i18n.logOutputEncoding=UTF-8",
                   "log.showRoot=true", "log.showSignature=false", "log.diffMerges=separate",
                   "log.follow=false", "diff.algorithm=default", "diff.indentHeuristic=true")


def open_repo(root: Path) -> git.Repo | None:
    """The Git repository containing `root`, or None. Its git commands print paths as they
    are (``core.quotePath=false``): quoted, ``knowledge/设备/手册.md`` would come back as
    ``"knowledge/\\350\\256…"`` and match no document."""
    try:
        repo = git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    plain_paths(repo)
    return repo


def plain_paths(repo: git.Repo) -> git.cmd.Git:
    """`repo.git` with paths printed as they are (``core.quotePath=false``; see `open_repo`),
    for the commands whose output names files: the caller's repo may not come from
    `open_repo`. Names and messages come out in UTF-8 whatever the machine's
    ``i18n.logOutputEncoding`` (blame re-encodes authors to it: in GBK, 张伟 read back as
    mojibake, and provenance depended on the machine). They read `repo` and its work tree
    whatever ``GIT_DIR`` / ``GIT_WORK_TREE`` the environment holds (a hook of another
    repository, a shell set up for one): git would take the index and history of one
    repository and the files of another, and a build called every file changed. And what
    git prints does not depend on the machine's settings (`MACHINE_NEUTRAL`)."""
    repo.git.set_persistent_git_options(c=list(MACHINE_NEUTRAL))
    pinned = {"GIT_DIR": os.fspath(repo.git_dir)}
    if repo.working_tree_dir is not None:
        pinned["GIT_WORK_TREE"] = os.fspath(repo.working_tree_dir)
    repo.git.update_environment(**pinned)
    return repo.git


def require_repo(root: Path) -> git.Repo:
    """The Git repository containing `root`; a KbError when there is none."""
    repo = open_repo(root)
    if repo is None:
        raise KbError("not inside a Git repository", path=str(root))
    return repo


def nested_repo(root: Path, rel: str) -> str | None:
    """The folder of `root` (a kb root) at or above document `rel` that is a Git repository
    of its own (a submodule, a clone inside the repository), or None. Its files have no
    history in `root`'s repository, the only one kb reads and writes."""
    parts = Path(rel).parent.parts
    for n in range(1, len(parts) + 1):
        folder = "/".join(parts[:n])
        if os.path.lexists(root / folder / ".git"):
            return folder
    return None


def submodules(repo: git.Repo, commit: str, under: str) -> list[str]:
    """Git paths of the submodules (gitlinks) below `under` in `commit`: their files are
    in another repository, whether or not they are checked out."""
    out = plain_paths(repo).ls_tree("-r", "-z", commit, "--", literal(under))
    return [e.split("\t", 1)[1] for e in out.split("\0") if e.startswith("160000 ")]


def in_nested_repo(folder: str) -> str:
    """Why documents in `folder` (see `nested_repo`) have no history kb can read."""
    return (f"{folder}/ is a Git repository of its own (a submodule?): kb reads history "
            f"only in the repository holding kb.toml; keep kb.toml in {folder}/'s repository "
            "and run kb there")


def git_prefix(repo: git.Repo, root: Path) -> str:
    """`root` relative to the work tree top, as a posix prefix ("" or "sub/dir/")."""
    top = Path(repo.working_tree_dir or ".").resolve()
    rel = root.resolve().relative_to(top).as_posix()
    return "" if rel == "." else rel + "/"


def resolve_commit(repo: git.Repo, ref: str) -> CommitInfo:
    """The commit `ref` names; a UsageError when it names none, a KbError saying so when
    `ref` is HEAD on a branch with no commit yet (not a misspelt revision)."""
    found = read_commit(repo, ref)
    if found is None:
        if ref == "HEAD":
            raise KbError("the repository has no commits yet (unborn branch): commit the "
                          "knowledge first", path=os.fspath(repo.working_tree_dir or repo.git_dir))
        raise UsageError(f"unknown Git revision {ref!r}")
    return found


def head_commit(repo: git.Repo) -> CommitInfo | None:
    """The commit HEAD names; None in a repository without commits."""
    return read_commit(repo, "HEAD")


def merge_base(repo: git.Repo, base: CommitInfo, head: CommitInfo) -> CommitInfo:
    """The merge base of `base` and `head` (what a pull request starts from); `base` when
    they share no history."""
    sha = base_of(repo, base.sha, head.sha)
    found = read_commit(repo, sha) if sha else None
    return found or base


def changed_docs(repo: git.Repo, start: CommitInfo | git.Commit, head: CommitInfo | git.Commit,
                 knowledge: str) -> list[str]:
    """Git paths of Markdown documents under `knowledge` that exist at head and differ
    from `start` (the merge base: what a pull request changes)."""
    out = plain_paths(repo).diff("--name-only", "-z", "--no-renames", "--diff-filter=d",
                                 start.hexsha, head.hexsha, "--", literal(knowledge))
    return sorted(p for p in out.split("\x00")
                  if p.endswith(".md") and not Path(p).name.startswith("_"))


def landing_base(repo: git.Repo, sha: str, head: str) -> CommitInfo | None:
    """The commit that `sha` was added on top of, as seen from `head`'s first-parent line:
    the first parent of the mainline commit that brought `sha` in (a merge, or `sha`
    itself when it was committed on the line). That is the pull request's base for a
    merged or squashed branch and the parent for a direct push; None for a root commit."""
    try:
        out = repo.git.rev_list("--first-parent", "--ancestry-path", f"{sha}..{head}")
    except git.GitCommandError:
        out = ""
    line = out.split()
    landing = read_commit(repo, sha)
    if line:
        oldest = read_commit(repo, line[-1])
        if oldest is not None and oldest.parents[:1] != (sha,):
            landing = oldest  # `sha` came in through this merge
    return read_commit(repo, landing.parents[0]) if landing and landing.parents else None


def staged_paths(root: Path) -> frozenset[str] | None:
    """Every path in the Git index below `root` (what the next commit holds), relative to
    `root`, with every folder above them ("" included); None outside a work tree. Names are
    read as bytes (``ls-files -z``: no quoting, whatever ``core.quotePath``); undecodable
    bytes survive as lone surrogates, as `kbtools.corpus.rel_path` keeps them."""
    repo = open_repo(root)
    if repo is None or repo.working_tree_dir is None:
        return None
    with repo:
        prefix = git_prefix(repo, root)
        try:
            out = repo.git.ls_files("-z", stdout_as_string=False)
        except git.GitCommandError:
            return None
    return paths_with_folders(out, prefix)


def work_tree_top(root: Path) -> Path | None:
    """The top folder of the Git work tree holding `root`, None outside one."""
    repo = open_repo(root)
    if repo is None or repo.working_tree_dir is None:
        return None
    with repo:
        return Path(repo.working_tree_dir)


def shallow_boundary(repo: git.Repo) -> frozenset[str]:
    """The commits where a shallow clone's history stops (their parents are missing; git
    treats them as root commits). Empty for a full clone."""
    try:  # git keeps the list in the common dir, shared by every worktree
        return frozenset((Path(repo.common_dir) / "shallow").read_text(encoding="ascii").split())
    except OSError:  # no such file: not shallow
        return frozenset()


def is_shallow(repo: git.Repo) -> bool:
    """True when the clone's history is cut short (`git clone --depth`)."""
    try:
        return str(repo.git.rev_parse("--is-shallow-repository")).strip() == "true"
    except git.GitCommandError:
        return False


def not_ancestors(repo: git.Repo, commits: Iterable[str], of: str) -> set[str]:
    """The commits among `commits` that are neither `of` nor an ancestor of it (one
    `git rev-list` for all of them)."""
    wanted = sorted(set(commits) - {of})
    known = gitbatch.memo(repo, "not ancestors")  # (commit, of) -> bool
    asked = [c for c in wanted if (c, of) not in known] if known is not None else wanted
    late: set[str] = set()
    if asked:
        late = set(asked) & set(repo.git.rev_list(*asked, "--not", of).split())
    if known is None:
        return late
    known.update({(c, of): c in late for c in asked})
    return {c for c in wanted if known[(c, of)]}


def git_identity(repo: git.Repo) -> tuple[str, str]:
    """(name, email) of the current Git author identity (config and GIT_AUTHOR_* env)."""
    try:
        ident = repo.git.var("GIT_AUTHOR_IDENT")
    except git.GitCommandError:
        return "", ""
    m = re.match(r"^([^<]*)<([^>]*)>", ident)  # linear: no lazy group before \s*
    return (m[1].strip(), m[2].strip()) if m else ("", "")


def _link_out(root: Path, path: Path) -> str:
    """The first symbolic link on `path` as written below `root` whose target lies outside
    `root`, said as `knowledge/ext (a symbolic link to /data/ext)`; "" when none is."""
    top = Path(os.path.abspath(root))
    at = top
    for part in Path(os.path.abspath(path)).relative_to(top).parts:
        at = at / part
        if at.is_symlink() and not at.resolve().is_relative_to(root.resolve()):
            return f"{at.relative_to(top).as_posix()} (a symbolic link to {at.resolve()})"
    return ""


def doc_rel(cfg: Config, doc: str) -> str:
    """A document argument (relative to the cwd, or to the repo root) as a root-relative
    posix path. One that exists no more is still a document (its history is there): of
    the two readings, the first the history of HEAD knows, else the one relative to the cwd
    (`cd knowledge && kb history crops/gone.md` names knowledge/crops/gone.md). UsageError
    for a directory (`git log` would take it, and show its documents' history as if it were
    one document's) and for a path outside the knowledge base (an absolute path was taken
    as relative to the root, and reported as a nested repository)."""
    if not doc.strip():  # `kb review approve "$DOC"` with DOC unset: Path("") is the cwd
        raise UsageError(f"{doc!r}: an empty path, not a document; name one Markdown file")
    p = Path(doc)
    inside: list[str] = []
    linked_out = ""  # named below the root, but a symlink (or one above it) leads out
    for cand in (p if p.is_absolute() else Path.cwd() / p, cfg.root / p):
        try:
            rel = cand.resolve().relative_to(cfg.root.resolve()).as_posix()
        except ValueError:
            if not linked_out and Path(os.path.abspath(cand)).is_relative_to(
                    os.path.abspath(cfg.root)):
                linked_out = _link_out(cfg.root, cand) or "a symbolic link"
            continue
        # as the directory spells it: typed composed for a name macOS wrote decomposed
        # (NFD), or the reverse, is the name git recorded
        rel = entry_spelling(cfg.root, rel) or rel
        if (cfg.root / rel).is_dir():
            raise UsageError(f"{doc}: a directory, not a document; name one Markdown file")
        if (cfg.root / rel).exists():
            break
        inside.append(rel)
    else:
        known = next((r for r in dict.fromkeys(inside) if in_history(cfg.root, r)), None)
        if linked_out and known is None:
            raise UsageError(f"{doc}: {linked_out} leading outside the knowledge base "
                             f"{cfg.root}; kb reads no document outside it")
        if not inside:
            raise UsageError(f"{doc}: not inside the knowledge base {cfg.root}; name a "
                             "document below it")
        rel = known or inside[0]
    if (folder := nested_repo(cfg.root, rel)) is not None:
        raise KbError(in_nested_repo(folder), path=rel)
    return rel


def in_history(root: Path, rel: str) -> bool:
    """Whether a commit reachable from HEAD touched `rel` (relative to kb root `root`)."""
    repo = open_repo(root)
    if repo is None:
        return False
    with repo:
        try:
            return bool(plain_paths(repo).log("-1", "--format=%H", "HEAD", "--",
                                              literal(git_prefix(repo, root) + rel)).strip())
        except git.GitCommandError:  # no commits yet
            return False


# ---------------------------------------------------------------- commits and states


def state_from_text(text: str, rel: str) -> DocState:
    src = parse_source(text, Path(rel), rel)
    fm = text.split("\n")[1:src.fm_end_line - 1] if src.fm_end_line else []
    return DocState(meta=src.meta, body=src.body, fm_text="\n".join(fm),
                    ok=not src.errors and bool(src.meta), key_lines=src.key_lines,
                    body_line=src.body_line)


def blob_text(repo: git.Repo, commit: str, path: str) -> str | None:
    """The text of `path` at commit `commit` (an id); None when it does not exist there."""
    return blob_texts(repo, [(commit, path)])[0]


def blob_texts(repo: git.Repo, wanted: list[tuple[str, str]]) -> list[str | None]:
    """`blob_text` of many (commit, path) pairs, read at once."""
    return [None if data is None else decode(data)[0]
            for data in read_blobs(repo, [f"{commit}:{path}" for commit, path in wanted])]


def state_at(repo: git.Repo, commit: str, path: str) -> DocState | None:
    """The document `path` at commit `commit` (an id), parsed; None when it is not there."""
    text = blob_text(repo, commit, path)
    return None if text is None else state_from_text(text, path)


def states_at(repo: git.Repo, wanted: list[tuple[str, str]]) -> dict[tuple[str, str],
                                                                      DocState | None]:
    """`state_at` of many (commit, path) pairs, read at once."""
    pairs = list(dict.fromkeys(wanted))
    return {pair: None if text is None else state_from_text(text, pair[1])
            for pair, text in zip(pairs, blob_texts(repo, pairs), strict=True)}


# ---------------------------------------------------------------- blame (build time)


# Blame as the commits record it, whatever the machine's settings: a `blame.ignoreRevsFile`
# (GitHub suggests `.git-blame-ignore-revs`) would credit a listed commit's lines to older
# commits, so two machines building one commit would write different provenance.
# `--ignore-revs-file=` empties the list the settings made.
BLAME_ARGS = ("--line-porcelain", "--ignore-revs-file=")
IGNORE_LIST_MISSING = "could not open object name list"
NO_USER_CONFIG = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def blame_lines(repo_root: Path, rel_path: str, repo: git.Repo | None = None
                ) -> list[LineProvenance]:
    """Per-line provenance of the working-tree file (equal to HEAD when clean).

    Lines not yet committed get commit "uncommitted". Returns [] when `repo_root` is not
    in a Git repository, the file is untracked, or the repository has no commits. `repo`:
    the repository of `repo_root` when the caller has it open (from `open_repo`; left
    open), so that a `gitbatch.batched` block of the caller's serves it.
    """
    own = open_repo(repo_root) if repo is None else None
    repo = repo or own
    if repo is None:
        return []
    with own or nullcontext():
        try:
            path = git_prefix(repo, repo_root) + rel_path
            try:
                out = plain_paths(repo).blame(*BLAME_ARGS, "--", path)
            except git.GitCommandError as exc:
                if IGNORE_LIST_MISSING not in str(exc.stderr):
                    raise
                # a blame.ignoreRevsFile naming a file this repository lacks fails every
                # blame (the option above cannot clear a list git failed to read): without
                # the user's and the system's settings
                out = plain_paths(repo).blame(*BLAME_ARGS, "--", path, env=NO_USER_CONFIG)
            lines = parse_line_porcelain(out)
            # blame prints authors through .mailmap and the user's `mailmap.file`: a mapping
            # in a pull request, or on one machine, would credit lines to someone else
            authors = commit_authors(repo, {p.commit for p in lines} - {UNCOMMITTED})
            cut = shallow_boundary(repo)
        except (git.GitCommandError, ValueError):
            return []
    return [not_fetched(p.line) if p.commit in cut else
            replace(p, author_name=authors[p.commit][0], author_email=authors[p.commit][1])
            if p.commit in authors else p for p in lines]


def not_fetched(line: int) -> LineProvenance:
    """Line `line` of a shallow clone's boundary commit: who wrote it, and when, is unknown."""
    return LineProvenance(line=line, commit=NOT_FETCHED, author_name="", author_email="",
                          authored_at="", committed_ts=0, authored_ts=0)


def parse_line_porcelain(out: str) -> list[LineProvenance]:
    """Per-line provenance of `git blame --line-porcelain` output, in line order, numbered
    as documents are (`corpus.lf_newlines`): Git ends a line at LF only, a document at a
    lone CR too, so a blamed line holding lone CRs is that many more lines of the document,
    each its commit's (a file saved with CR line ends is one line to Git)."""
    blamed: list[tuple[int, str, dict[str, str], str]] = []
    fields: dict[str, str] = {}
    sha, final = "", 0
    for line in out.split("\n"):
        if line.startswith("\t"):
            blamed.append((final, sha, fields, line[1:]))
            fields = {}
            continue
        head = line.split(" ")
        if len(head) >= 3 and is_object_id(head[0]):
            sha, final = head[0], int(head[2])
            continue
        key, _, value = line.partition(" ")
        fields[key] = value
    blamed.sort(key=lambda b: b[0])  # git prints them so; chunk_provenance bisects
    result: list[LineProvenance] = []
    for _, sha, fields, content in blamed:
        # the CR of a CRLF ends the line with its LF; any other CR ends a line of its own
        for _ in range(content.removesuffix("\r").count("\r") + 1):
            result.append(line_provenance(len(result) + 1, sha, fields))
    return result


def is_object_id(word: str) -> bool:
    """A full object id in either of git's hash formats."""
    return len(word) in OBJECT_ID_LENGTHS and set(word) <= HEX_DIGITS


def line_provenance(line: int, sha: str, fields: dict[str, str]) -> LineProvenance:
    if set(sha) == {"0"}:  # the null id: a line not committed yet
        return LineProvenance(line=line, commit=UNCOMMITTED, author_name=UNCOMMITTED,
                              author_email="", authored_at="", committed_ts=0, authored_ts=0)
    when = ""
    authored = int(fields.get("author-time") or 0)
    if fields.get("author-time"):
        tz = fields.get("author-tz", "+0000")
        sign = -1 if tz.startswith("-") else 1
        offset = timedelta(hours=int(tz[1:3]), minutes=int(tz[3:5])) * sign
        when = datetime.fromtimestamp(int(fields["author-time"]), timezone(offset)).isoformat()
    return LineProvenance(line=line, commit=sha, author_name=fields.get("author", ""),
                          author_email=fields.get("author-mail", "").strip("<>"),
                          authored_at=when,
                          committed_ts=int(fields.get("committer-time", "0")),
                          authored_ts=authored)


def chunk_provenance(blame: list[LineProvenance], line_start: int, line_end: int
                     ) -> dict[str, str | None]:
    """The newest commit among lines line_start..line_end (1-based, inclusive).

    {"last_commit", "last_author", "last_changed"}; all None when nothing is known
    (no blame, or only lines of a shallow clone's boundary: `NOT_FETCHED`); last_commit
    "uncommitted" (and last_author "uncommitted", last_changed None) when any of the
    lines is not committed yet. `blame` is in line
    order, as `blame_lines` returns it: the lines are found by bisection, so stamping
    every chunk of a document reads each line once rather than every line per chunk.
    """
    lo = bisect.bisect_left(blame, line_start, key=lambda p: p.line)
    hi = bisect.bisect_right(blame, line_end, lo=lo, key=lambda p: p.line)
    lines = blame[lo:hi]
    if not lines:
        return {"last_commit": None, "last_author": None, "last_changed": None}
    if any(p.commit == UNCOMMITTED for p in lines):
        return {"last_commit": UNCOMMITTED, "last_author": UNCOMMITTED, "last_changed": None}
    lines = [p for p in lines if p.commit != NOT_FETCHED]  # older than any fetched commit
    if not lines:
        return {"last_commit": None, "last_author": None, "last_changed": None}
    # commit time first; commits of one second (a rebase, a "rebase and merge" stamps them
    # all alike) by their author time as an instant: its text orders offsets, not instants
    newest = max(lines, key=lambda p: (p.committed_ts, p.authored_ts))
    return {"last_commit": newest.commit, "last_author": newest.author_name,
            "last_changed": newest.authored_at}
