"""A sparse checkout of a release is a checkout of it: ``git sparse-checkout set --no-cone
'/data/'`` (a technician keeping only what he reads on a small card) leaves release.json,
manifest.json and release.sig out of the work tree, where `CheckoutLayout` looks for them,
so the clone read as "no index here" given as --index, and from inside it `kb query`
answered from <KB_HOME>/device, another device, unseen.

What a release needs to be verified is its commit's files as git objects (the manifest,
the release file and its signature, every artifact's bytes, read from HEAD's tree by
`kbtools.ship.install`), never the work tree, which is only checked to differ from HEAD in
nothing (`git status`, which lists no file a sparse checkout leaves out). So a sparse
checkout is served as a full one is, when git's index lists both top-level release files
and each is in the work tree or marked skip-worktree (left out by the sparse patterns: git
``ls-files -t`` tag ``S``). A release file deleted by hand is not skip-worktree: that
checkout stays a damaged one, refused by name (`kbtools.index.reader`). Objects a partial
clone (``--filter``) lacks are fetched when read, or named when its remote is out of reach
(`kbtools.ship.checkout`).

Finding one runs git, so it is asked only of a folder whose ``.git`` has a sparse-checkout
file (`sparse_file`): a plain repository costs two ``stat`` calls."""

from __future__ import annotations

from pathlib import Path

from kbtools.index.layout import GIT_DIR, CheckoutLayout, ReleaseLayout
from kbtools.ship.gitrun import run_plain

SPARSE_FILE = ("info", "sparse-checkout")  # under a work tree's own git directory
_GITDIR_LINE = "gitdir:"  # a linked work tree's (or submodule's) .git file


def sparse_file(top: Path) -> Path | None:
    """The sparse-checkout patterns file of the work tree whose top is `top` (in its own
    git directory: a linked work tree, `git worktree add`, has one of its own), or None
    when `top` has no ``.git`` or names none. Nothing but the file system is read."""
    dot = top / GIT_DIR
    try:
        if dot.is_dir():
            git_dir = dot
        elif dot.is_file():
            line = dot.read_text(encoding="utf-8", errors="replace").strip()
            if not line.startswith(_GITDIR_LINE):
                return None
            git_dir = Path(line[len(_GITDIR_LINE):].strip())
            git_dir = git_dir if git_dir.is_absolute() else top / git_dir
        else:
            return None
        found = git_dir.joinpath(*SPARSE_FILE)
        return found if found.is_file() else None
    except OSError:
        return None


def is_sparse_release(top: Path) -> bool:
    """Whether `top` is the top of a sparse checkout of a release that leaves a top-level
    release file out of the work tree (see the module's text). False for a folder whose top
    holds both (`CheckoutLayout.holds_release` takes it) and for any folder that is no
    sparse checkout, without running git."""
    if CheckoutLayout.holds_release(top) or sparse_file(top) is None:
        return False
    rel = ReleaseLayout(top)
    names = {p.name: p for p in (rel.release_json, rel.manifest)}
    proc = run_plain("-C", str(top), "--no-optional-locks", "ls-files", "-t", "-z", "--",
                     *names)
    if proc.returncode != 0:
        return False
    tags = {}
    for rec in proc.stdout.split(b"\0"):
        if len(rec) > 2 and rec[1:2] == b" ":
            tags[rec[2:].decode("utf-8", "surrogateescape")] = rec[:1].decode("ascii", "replace")
    return set(tags) == set(names) and all(
        tags[name] == "S" or path.is_file() for name, path in names.items())


def is_checkout_top(path: Path) -> bool:
    """`CheckoutLayout.looks_like_checkout`, or a sparse checkout of a release (no git run
    unless `path` is a sparse checkout lacking a release file)."""
    return CheckoutLayout.looks_like_checkout(path) or is_sparse_release(path)
