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
GIT_INDEX = "index"  # git's index, in a work tree's own git directory (none before a checkout)
_GITDIR_LINE = "gitdir:"  # a linked work tree's (or submodule's) .git file


def git_dir_named(top: Path) -> Path | None:
    """The git directory of the work tree whose top is `top`: its ``.git`` directory, or
    the one its ``.git`` file names (a linked work tree, `git worktree add`, or a
    submodule), which may not exist; None when there is neither. File system only."""
    dot = top / GIT_DIR
    try:
        if dot.is_dir():
            return dot
        if not dot.is_file():
            return None
        line = dot.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not line.startswith(_GITDIR_LINE):
        return None
    named = Path(line[len(_GITDIR_LINE):].strip())
    return named if named.is_absolute() else top / named


def sparse_file(top: Path) -> Path | None:
    """The sparse-checkout patterns file of the work tree whose top is `top` (in its own
    git directory: a linked work tree has one of its own), or None when it has none."""
    git_dir = git_dir_named(top)
    found = git_dir.joinpath(*SPARSE_FILE) if git_dir is not None else None
    try:
        return found if found is not None and found.is_file() else None
    except OSError:
        return None


def is_sparse_release(top: Path) -> bool:
    """Whether `top` is the top of a checkout of a release whose work tree leaves a top-level
    release file out: a sparse checkout (see the module's text), or a clone with nothing
    checked out yet (``git clone --no-checkout``, sparse patterns set before the first
    checkout: no git index at all), which is then refused naming the files missing and
    `git reset --hard kb-rN`, where it answered from <KB_HOME>/device. False for a folder
    whose top holds both (`CheckoutLayout.holds_release` takes it) and, without running
    git, for a folder with neither a sparse-checkout file nor a git directory lacking its
    index."""
    git_dir = git_dir_named(top)
    if git_dir is None or CheckoutLayout.holds_release(top):
        return False
    rel = ReleaseLayout(top)
    names = {p.name: p for p in (rel.release_json, rel.manifest)}
    try:
        unchecked = git_dir.is_dir() and not (git_dir / GIT_INDEX).exists()
    except OSError:
        return False
    if unchecked:
        listed = run_plain("-C", str(top), "ls-tree", "-z", "--name-only", "HEAD", "--", *names)
        return listed.returncode == 0 and set(listed.stdout.split(b"\0")) - {b""} == {
            n.encode() for n in names}
    if sparse_file(top) is None:
        return False
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


def checkout_containing(path: Path) -> Path | None:
    """The top of the git checkout of a release that `path` is, or lies in (sparse or
    not), or None: a device command given a clone's folder (``--to CLONE/data``) acted on
    it as on an empty device (`kb status` "serving nothing yet", `kb trust add` wrote
    trusted_keys/ into the clone's work tree). Above `path`, both release files count (or
    a sparse checkout of them), as a clone is found from the current directory: a
    repository with a manifest.json of its own (a web app's) holds devices."""
    here = path.absolute()
    if is_checkout_top(here):
        return here
    for top in here.parents:
        if CheckoutLayout.holds_release(top) or is_sparse_release(top):
            # in its git directory, not its work tree: a device there changes no release
            return None if here.relative_to(top).parts[:1] == (GIT_DIR,) else top
    return None
