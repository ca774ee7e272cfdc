"""Git provenance and review coverage kept between a watcher's builds.

A build reads every document's blame (`kbtools.build.blame`) and judges every `verified:
true` document's review against the history (`kbtools.build.verified`). A watcher builds
the same index a `kb build` of the same tree builds (blame, `verified` and all), but a
save changes one document's bytes, not the history, so it keeps both between builds:

- a document's blame is a function of HEAD, the work tree's `.mailmap`, whether the index
  tracks the path and the document's bytes (`blame.blame_state`: one `git rev-parse` and
  one `git ls-files` per build), so only documents whose bytes or tracking changed are
  blamed again (one `git blame` each; many at once, after a commit or a checkout, as a
  build blames them);
- a review's coverage is a function of HEAD (the history and the review policy in it),
  the settings, the document's text and its blame, so only the saved verified document is
  judged again; the history is read once per HEAD (`lineage.scan`).

Anything that moves HEAD or `.mailmap` (a commit, a checkout, a pull) starts afresh. A
miss is just the work a build does.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path

import git

from kbtools.blame_runs import BlameRuns
from kbtools.build import verified
from kbtools.build.blame import blame_documents, blame_state
from kbtools.build.reuse import history_key
from kbtools.config import Config
from kbtools.corpus import SourceDoc
from kbtools.gitbatch import batched
from kbtools.provenance import blame_lines, open_repo
from kbtools.review.lapse import ReviewCoverage, review_coverage
from kbtools.review.lineage import Lineage, scan
from kbtools.review.verification import is_verified

# More changed documents than this are blamed as a build blames them (one `git log` of the
# history finds those one commit wrote); fewer, with one `git blame` each.
BLAME_ONE_BY_ONE = 8

Blame = dict[str, BlameRuns]


@dataclass
class HistoryMemo:
    """A watcher's blame and review coverages, valid while HEAD and `.mailmap` stay
    (`state`); `blamed` and `judged` count the documents blamed and judged."""

    state: tuple[str, str] | None = None
    blames: dict[str, tuple[tuple[bool, str], BlameRuns]] = field(default_factory=dict)
    coverages: dict[str, tuple[str, ReviewCoverage]] = field(default_factory=dict)
    lineage: list[Lineage | None] = field(default_factory=list)  # [scan(HEAD)] once read
    keys: dict[str, tuple[BlameRuns, str]] = field(default_factory=dict)
    blamed: int = 0
    judged: int = 0

    def _start(self, state: tuple[str, str] | None) -> None:
        if state != self.state:
            self.state = state
            self.blames.clear()
            self.coverages.clear()
            self.lineage.clear()
            self.keys.clear()


def document_provenance(memo: HistoryMemo | None, root: Path, raw: dict[str, bytes]) -> Blame:
    """`blame_documents(root, documents)` of the documents `raw` holds (path → bytes as the
    build read them), from `memo` where a document's blame cannot have changed."""
    if memo is None:
        return blame_documents(root, sorted(raw))
    found = blame_state(root)
    memo._start(found[:2] if found is not None else None)
    if found is None:
        return {}
    tracked = found[2]
    keys = {rel: (rel in tracked, hashlib.sha256(data).hexdigest()) for rel, data in raw.items()}
    for table in (memo.blames, memo.keys):
        for rel in set(table) - keys.keys():
            del table[rel]
    todo = sorted(rel for rel, key in keys.items()
                  if (got := memo.blames.get(rel)) is None or got[0] != key)
    if len(todo) > BLAME_ONE_BY_ONE:
        fresh = blame_documents(root, todo)
    else:
        fresh = {rel: BlameRuns(blame_lines(root, rel)) for rel in todo}
    memo.blamed += len(todo)
    for rel in todo:
        memo.blames[rel] = (keys[rel], fresh.get(rel) or BlameRuns())
    return {rel: blame for rel, (_, blame) in sorted(memo.blames.items()) if blame}


def blame_key(memo: HistoryMemo | None, rel: str, blame: BlameRuns | None) -> str:
    """`reuse.history_key(blame)` of document `rel`, kept in `memo` for the very same blame
    (digesting every line of 1,200 documents at each save cost more than the save)."""
    if memo is None or not blame:
        return history_key(blame)
    got = memo.keys.get(rel)
    if got is None or got[0] is not blame:
        got = (blame, history_key(blame))
        memo.keys[rel] = got
    return got[1]


def review_coverages(memo: HistoryMemo | None, cfg: Config, sources: list[SourceDoc],
                     blame: Blame, unchecked_reason: str | None) -> dict[str, ReviewCoverage]:
    """`verified.coverages(cfg, sources, blame, unchecked_reason)`, judging again only the
    documents whose text, blame or settings changed while HEAD stayed (`memo`)."""
    if memo is None or unchecked_reason is not None or memo.state is None:
        return verified.coverages(cfg, sources, blame, unchecked_reason)
    claimed = [s for s in sources if is_verified(s.meta)]
    settings = f"{cfg.root}:{cfg.fingerprint()}"
    keys = {s.rel: hashlib.sha256("\0".join(
        (settings, s.text, blame_key(memo, s.rel, blame.get(s.rel)))).encode("utf-8", "surrogatepass")
    ).hexdigest() for s in claimed}
    for rel in set(memo.coverages) - keys.keys():
        del memo.coverages[rel]
    todo = [s for s in claimed if (got := memo.coverages.get(s.rel)) is None
            or got[0] != keys[s.rel]]
    if todo:
        repo = open_repo(cfg.root)
        if repo is None:
            return verified.coverages(cfg, sources, blame, unchecked_reason)
        with repo, batched(repo):
            if not memo.lineage:
                memo.lineage.append(scan(repo))  # the history, once per HEAD
            for s in todo:
                memo.coverages[s.rel] = (keys[s.rel], _judge(repo, cfg, s, blame, memo.lineage[0]))
        memo.judged += len(todo)
    return {s.rel: memo.coverages[s.rel][1] for s in claimed}


def _judge(repo: git.Repo, cfg: Config, src: SourceDoc, blame: Blame,
           lineage: Lineage | None) -> ReviewCoverage:
    """The review coverage of `src`. The kept lineage's clean files are those of the work
    tree when it was read, which is all the coverage asks of it where the document has no
    blame: such a document is judged with a lineage that calls no file clean (blamed)."""
    doc_blame = blame.get(src.rel)
    if lineage is not None and doc_blame is None:  # its clean files may be stale
        lineage = replace(lineage, clean=frozenset())
    return review_coverage(repo, cfg, src.rel, src.text, doc_blame, lineage)
