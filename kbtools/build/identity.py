"""What a build indexed, as the manifest's ``source``: the commit, the knowledge folder's tree
at that commit, and whether the files the build read differ from it (``dirty``).

A release claims to be its commit (`kb status`, citations): a build that read anything the
commit does not hold must say so. Besides a changed tracked file, that is a document, image,
dictionary or synonyms file the build read that Git does not track: such a file is in the
release but in no clone of the commit. (One Git ignores, by .gitignore,
``.git/info/exclude`` or ``core.excludesFile``, is never read: `kbtools.ignored`.) So is a
file of the commit that the build could not read: a
document or image a sparse checkout (``git sparse-checkout``) left out of the work tree.

A picture in a git submodule below the assets folder (a shared image library checked out
there) is no file of the commit: the commit records only which commit of the other repository
the folder is. Such files are read and shipped like any other, and the source names each
submodule the build read from with the commit recorded for it (``"submodules": {"assets/lib":
"<sha>"}``), so the release says what it holds beyond its commit; the build is dirty when the
submodule has another commit checked out, or a file the build read is changed, untracked or
ignored there (asked of the submodule itself: ``submodule.<name>.ignore = all`` hides nothing).

A shallow clone (``git clone --depth``, actions/checkout's default) holds the commit but
not the history a build reads: who last changed each passage, and the reviews of verified
documents. Its build is of the same commit but not the same release as a full clone's
(passages without a last change, verified documents served as unverified), so the source
says ``"shallow": true`` and `kb build` and `kb release` warn
(`kbtools.index.manifest.history_warnings`). A full
clone's source has no such key (its manifest is what it always was).

Which knowledge base the release is of (``base``): the first commit of the history HEAD
descends from by first parents, and the knowledge base's folder in the repository when its
kb.toml is not at the top (``<sha>:<folder>``), so releases of one knowledge base share it
however its history grows and two knowledge bases (two repositories, or two folders of one)
differ. A search engine holding releases of several uses it to keep them apart
(`kbtools.engine.publish`). A shallow clone's first commit is where it was cut, not the
history's: its source has no ``base`` (not known), nor has a build without a commit. A
knowledge base named in kb.toml (``[release] knowledge_base``) carries its name in its base
(`kbtools.base_identity`), which tells apart two that share a first commit and outlives a
rewritten history.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import git

from kbtools.base_identity import base_of
from kbtools.gitobjects import tree_id
from kbtools.pathspecs import top_literal
from kbtools.provenance import (
    git_prefix,
    head_commit,
    open_repo,
    plain_paths,
    shallow_boundary,
)

NO_SOURCE = {"commit": "none", "tree": "none", "dirty": True}


def head_sha(root: Path) -> str | None:
    """The commit HEAD is in the repository around `root` (None: no repository, no commit)."""
    repo = open_repo(root)
    if repo is None:
        return None
    with repo:
        head = head_commit(repo)
    return head.sha if head is not None else None


def source_identity(root: Path, sub: Path, read: Iterable[str] = (),
                    inputs: Iterable[Path] = (), started: str | None = None,
                    name: str | None = None) -> dict[str, Any]:
    """Commit, tree hash of the knowledge folder `sub`, and whether the build's inputs
    differ from HEAD: a tracked file changed (added, deleted) below `sub` or one of the
    folders `inputs` (the assets), an untracked file below `sub`, or an untracked or
    ignored file among `read` (paths relative to `root`), or a file of the commit below
    those folders that a sparse checkout left out of the work tree.

    `started`: the commit HEAD was in when the build began reading (`head_sha`). When HEAD
    has moved since (a commit, a pull, a checkout while a long build ran), the files were
    read from a tree that is now neither commit's: the build is dirty, of the commit it
    started from, never clean at the new one. ``"shallow": true`` when the clone's history
    is cut short (see above). `name`: kb.toml's ``[release] knowledge_base``, which the
    base carries (`kbtools.base_identity`; then known from a shallow clone too)."""
    repo = open_repo(root)
    unknown = {**NO_SOURCE, **({"base": base_of(None, name)} if name else {})}
    if repo is None or repo.working_tree_dir is None:  # (a bare repository has no files)
        return unknown
    with repo:
        head = head_commit(repo)
        if head is None:  # no commit yet
            return unknown
        if started is not None and head.sha != started:
            return {"commit": started, "tree": "dirty", "dirty": True}
        top = Path(repo.working_tree_dir).resolve()
        rel = sub.resolve().relative_to(top).as_posix()
        tree_sha = tree_id(repo, head.sha, "" if rel == "." else rel) or "none"
        dirs = [rel or "."] + [p.resolve().relative_to(top).as_posix() for p in inputs
                               if p.is_dir() and p.resolve().is_relative_to(top)]
        prefix = git_prefix(repo, root)
        links = gitlinks(repo, head.sha, dirs)
        read_paths = {prefix + r for r in read}
        dirty = _differs(repo, dirs, read_paths, "" if rel == "." else rel, links)
        modules = {path: sha for path, sha in links.items()
                   if any(r.startswith(path + "/") for r in read_paths)}
        dirty = any([dirty, *(_module_differs(top / path, sha, read_paths, path)
                              for path, sha in modules.items())])
        shallow = bool(shallow_boundary(repo))
        base = base_of(None if shallow else knowledge_base(repo, head.sha, prefix), name)
    out: dict[str, Any] = {"commit": head.sha, "tree": "dirty" if dirty else tree_sha,
                           "dirty": dirty}
    if modules:
        out["submodules"] = dict(sorted(modules.items()))
    if base is not None:
        out["base"] = base
    return {**out, "shallow": True} if shallow else out


def knowledge_base(repo: git.Repo, commit: str, prefix: str) -> str | None:
    """The ``base`` of a release of `commit` (see the module docstring): the first commit
    of its first-parent history, with `prefix` (`git_prefix`: "" or "sub/dir/") after a
    colon when there is one; None when Git cannot tell."""
    try:
        roots = repo.git.rev_list("--max-parents=0", "--first-parent", commit).split()
    except git.GitCommandError:
        return None
    if len(roots) != 1:
        return None
    return f"{roots[0]}:{prefix.rstrip('/')}" if prefix else roots[0]


def gitlinks(repo: git.Repo, commit: str, dirs: list[str]) -> dict[str, str]:
    """{path: commit} of the submodules `commit` records below `dirs` (gitlinks, mode
    160000): folders whose files are in another repository's commit, not in `commit`."""
    specs = [top_literal("" if d == "." else d) for d in dirs]
    listed = plain_paths(repo).ls_tree("-r", "-z", "--full-tree", commit, "--", *specs)
    out: dict[str, str] = {}
    for record in listed.split("\0"):
        meta, _, path = record.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[0] == "160000":
            out[path] = parts[2]
    return out


def _module_differs(work: Path, recorded: str, read: set[str], path: str) -> bool:
    """Whether the files of the submodule at `path` (checked out in `work`) the build read
    are not those of the commit its superproject records: another commit checked out (or
    none), or a file read that is changed, untracked or ignored there. Asked of the
    submodule itself, so `submodule.<name>.ignore` and `diff.ignoreSubmodules` hide
    nothing."""
    mine = sorted(r[len(path) + 1:] for r in read if r.startswith(path + "/"))
    try:
        sub = git.Repo(work)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return True
    with sub:
        if sub.working_tree_dir is None or Path(sub.working_tree_dir).resolve() != work.resolve():
            return True
        try:
            if sub.head.commit.hexsha != recorded:
                return True
            out = plain_paths(sub).status("--porcelain=v1", "-z", "--untracked-files=all",
                                          "--ignored=traditional", "--",
                                          *(top_literal(m) for m in mine))
        except (ValueError, git.GitCommandError):  # (no commit checked out)
            return True
    return bool(out.strip("\0"))


def _differs(repo: git.Repo, dirs: list[str], read: set[str], knowledge: str,
             links: dict[str, str]) -> bool:
    # folders as literal pathspecs: a knowledge folder `kn*` (or one under a kb root `:kb`)
    # handed to git bare also matched `kn1/...` (or named `kb/...`), whose edits made the
    # build dirty while its own went unseen
    specs = [top_literal("" if d == "." else d) for d in dirs]
    # a sparse checkout leaves files of the commit out of the work tree (skip-worktree: `git
    # status` is silent about them), so the build indexed only part of the commit
    listed = repo.git.ls_files("-t", "-z", "--", *specs)
    if any(entry.startswith("S ") for entry in listed.split("\0")):
        return True
    out = repo.git.status("--porcelain=v1", "-z", "--no-renames", "--untracked-files=all",
                          "--ignored=traditional", "--", *specs)
    for record in out.split("\0"):
        if len(record) < 4:
            continue
        code, path = record[:2], record[3:]
        if path.rstrip("/") in links:  # a submodule: its files are asked of it
            continue
        if code == "!!" and path not in read:
            continue  # ignored and not read (editor files, .DS_Store)
        if code == "??" and path not in read and not _below(path, knowledge):
            continue  # untracked, not read, not a document
        return True
    return False


def _below(path: str, folder: str) -> bool:
    return not folder or path.startswith(folder.rstrip("/") + "/")
