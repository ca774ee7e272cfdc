"""`kb init`: the skeleton of a new knowledge repository, and writing it.

The skeleton is kb.toml, schemas/ (the package's own), knowledge/ with one example
document, assets/, .pre-commit-config.yaml, .github/workflows/ and .gitignore; templates
live under ``kbtools/data/init``. A repository is initialised with Git when the target is
not already inside one, on the branch the workflows run on (`BRANCH`), whatever git's
``init.defaultBranch`` says (unset, git starts on ``master``, and the release workflow,
which runs on pushes to ``main``, never ran).
"""

from __future__ import annotations

import contextlib
import json
import os
from importlib import resources
from pathlib import Path

import git as gitpython  # GitPython
import yaml

from kbtools.config import CONFIG_NAME, load_config
from kbtools.errors import KbError
from kbtools.fsutil import atomic_write_bytes
from kbtools.hookconfig import (
    OUR_HOOKS,
    add_folder_hook,
    add_review_hook,
    has_our_hooks,
    merge_hooks,
    upgrade_hooks,
)
from kbtools.schemas import PACKAGE_SCHEMAS

# the branch a new repository starts on: the one the scaffold's workflows run on pushes to
BRANCH = "main"
TEMPLATES = Path(str(resources.files("kbtools") / "data" / "init"))
TEMPLATE_HOOKS = TEMPLATES / "pre-commit-config.yaml"
# template file (under kbtools/data/init) -> path in the new repository
LAYOUT: dict[str, str] = {
    "kb.toml": "kb.toml",
    "gitignore": ".gitignore",
    "pre-commit-config.yaml": ".pre-commit-config.yaml",
    "workflows/kb-check.yml": ".github/workflows/kb-check.yml",
    "workflows/kb-release.yml": ".github/workflows/kb-release.yml",
    "knowledge/getting-started.md": "knowledge/getting-started.md",
    "knowledge/_synonyms.txt": "knowledge/_synonyms.txt",
}


def plan(target: Path) -> dict[Path, bytes]:
    """Every file `kb init` writes (absolute path -> bytes), schemas included. Inside a
    bigger repository the hooks and workflows are written for its root (`for_subfolder`),
    into `target` to be moved there; those the root has already (`_moved_to_root`) are
    left to it, its .pre-commit-config.yaml holding kb's hooks taken as the one to bring up
    to date."""
    outer = enclosing_root(target)
    prefix = (target.resolve().relative_to(outer.resolve()).as_posix()
              if outer is not None else "")
    branch = workflow_branch(target)
    files: dict[Path, bytes] = {}
    for template, dest in LAYOUT.items():
        data = (TEMPLATES / template).read_bytes()
        if prefix and template in AT_GIT_ROOT:
            data = for_subfolder(template, data.decode(), prefix).encode()
            if outer is not None and _moved_to_root(outer / dest):
                if template == "pre-commit-config.yaml":
                    files[outer / dest] = data
                continue
        if branch != BRANCH and template.startswith("workflows/"):
            data = data.replace(f"branches: [{BRANCH}]".encode(), (
                "branches: [" + json.dumps(branch, ensure_ascii=False) + "]").encode())
        files[target / dest] = data
    for schema in sorted(PACKAGE_SCHEMAS.rglob("*.schema.json")):
        files[target / "schemas" / schema.relative_to(PACKAGE_SCHEMAS)] = schema.read_bytes()
    files[target / "assets" / ".gitkeep"] = b""
    return files


def _moved_to_root(path: Path) -> bool:
    """Whether the repository's root has the file `path` of the skeleton already: a workflow
    of that name, or a .pre-commit-config.yaml holding kb's hooks. Why: after moving them
    there as `kb init docs/kb` says to, `kb init docs/kb` again wrote a new, inert copy of
    each into docs/kb, and the root's hooks (an earlier kb init's) were never updated."""
    if path.name != ".pre-commit-config.yaml":
        return path.is_file()
    try:
        return path.is_file() and has_our_hooks(yaml.safe_load(path.read_bytes()))
    except (ValueError, yaml.YAMLError):
        return False


# the templates Git and GitHub read at a repository's root only, where pre-commit runs its
# hooks and a workflow's steps start
AT_GIT_ROOT = ("pre-commit-config.yaml", "workflows/kb-check.yml", "workflows/kb-release.yml")


def for_subfolder(template: str, text: str, prefix: str) -> str:
    """Template `template` for a knowledge base in the folder `prefix` of its repository (a
    posix path from the Git root, `docs/kb`): the pre-commit hook's `files:` pattern and the
    whole-folder check's `args:` name the folder's knowledge/ (pre-commit runs hooks from the
    Git root, where no kb.toml is: `kb check` there refuses), and each workflow job runs in
    the folder, its cache path (relative to the workspace, whatever the working directory)
    under it.
    The release runs only when the folder changed. Paths are YAML double-quoted scalars (a
    JSON string is one), so a folder named with spaces, `#` or `: ` stays one value."""
    def swap(old: str, new: str) -> str:
        if old not in text:  # a template edited without this function: fail loudly in tests
            raise AssertionError(f"{template}: {old!r} not found")
        return text.replace(old, new)

    if template == "pre-commit-config.yaml":
        run = "        pass_filenames: false\n        always_run: true\n"
        text = swap(run, run + "        args: [" + json.dumps(prefix + "/knowledge",
                                                           ensure_ascii=False) + "]\n")
        stage = "        stages: [commit-msg]\n"  # kb-review-record: the folder of kb.toml
        return swap(stage, stage + "        args: [--kb, " + json.dumps(
            prefix, ensure_ascii=False) + "]\n")
    folder = json.dumps(prefix, ensure_ascii=False)
    text = swap("    runs-on: ubuntu-latest\n", "    runs-on: ubuntu-latest\n    defaults:\n"
                f"      run:\n        working-directory: {folder}\n")
    text = swap("path: .kb-cache", "path: " + json.dumps(prefix + "/.kb-cache",
                                                         ensure_ascii=False))
    if template == "workflows/kb-release.yml":
        text = swap("    branches: [main]\n", "    branches: [main]\n    paths: ["
                    + json.dumps(prefix + "/**", ensure_ascii=False) + "]\n")
        # the step before the checkout: the folder is not there yet (a step in a missing
        # working directory fails), the workspace is
        text = swap("      - name: Artifacts repository\n",
                    "      - name: Artifacts repository\n        working-directory: .\n")
    return text


# files of the skeleton a project already has for its own ends: merged, never overwritten
MERGED = (".gitignore", ".pre-commit-config.yaml")


def merge_lines(ours: bytes, theirs: bytes) -> bytes | None:
    """`theirs` (a file the project already had) with the lines of `ours` it lacks appended,
    or None when it lacks none. Why: a README-and-.gitignore repository made `kb init` refuse
    its .gitignore, and `--force` then replaced the project's ignores with ours; a comment
    line of ours is kept only before a line that is appended."""
    have = {line.strip() for line in theirs.decode("utf-8", "replace").splitlines()}
    added: list[str] = []
    comment: list[str] = []
    for line in ours.decode().splitlines():
        if line.startswith("#"):
            comment.append(line)
        elif line.strip() and line.strip() not in have:
            added += [*comment, line]
            comment = []
        else:
            comment = []
    if not added:
        return None
    eol = b"\r\n" if b"\r\n" in theirs else b"\n"  # a Windows editor's file stays CRLF
    sep = b"" if not theirs or theirs.endswith(b"\n") else eol
    return theirs + sep + eol.join(line.encode() for line in added) + eol


def scaffold(target: Path, force: bool = False) -> tuple[list[Path], bool, list[str]]:
    """Write the skeleton into `target`. Returns (files written, whether git init ran, one
    line for each change made to a project's own file beyond adding lines).

    A file named in `MERGED` the target already has gets our lines it lacks (it is left
    alone when it lacks none), with or without `force`: it is the project's, not ours; in
    a .pre-commit-config.yaml holding the hooks an earlier `kb init` wrote, those hooks
    are brought to the current one (`upgrade_hooks`; with `force`, kb's hooks the project
    edited too). A file already holding what would be written is left alone (not written,
    not refused). Other files of the skeleton that exist are refused, nothing written,
    unless `force` (overwritten); in a knowledge base already (`_a_knowledge_base`) they
    are left as they are, with a line naming them."""
    if target.exists() and not target.is_dir():
        raise KbError("exists and is not a directory", path=str(target))
    files = plan(target)
    kept: set[Path] = set()  # the project's own files, merged with ours
    notes = _workflows_of_another_folder(target)
    for path in [p for p in files if p.name in MERGED]:
        if path.is_file() and not path.is_symlink():
            hooks = path.name == ".pre-commit-config.yaml"
            try:
                theirs = path.read_bytes()
                merged = (merge_hooks if hooks else merge_lines)(files[path], theirs)
                if merged is None and hooks:
                    merged, note = upgrade_hooks(TEMPLATE_HOOKS.read_text(encoding="utf-8"),
                                                 theirs, force)
                    notes += [f"{path}: {note}"] if note else []
                    added, note = add_folder_hook(files[path], merged or theirs)
                    merged = added or merged
                    notes += [f"{path}: {note}"] if note else []
                    added, note = add_review_hook(files[path], merged or theirs)
                    merged = added or merged
                    notes += [f"{path}: {note}"] if note else []
                    for ours in _other_bases(enclosing_root(target) or target,
                                             merged or theirs):
                        added, note = add_review_hook(ours, merged or theirs)
                        merged = added or merged
                        notes += [f"{path}: {note}"] if note else []
            except (ValueError, yaml.YAMLError):  # not one to extend: refused, or --force
                continue
            kept.add(path)
            del files[path]
            if merged is not None:
                files[path] = merged
    for path in [p for p, data in files.items() if p not in kept and _holds(p, data)]:
        del files[path]  # already there as kb init writes it: `kb init` again is no error
    for path in files:
        if path.is_relative_to(target):  # else the root's own file, merged
            _refuse_in_the_way(target, path)
    existing = [p for p in files if p not in kept and (p.exists() or p.is_symlink())]
    if existing and not force:
        if not _a_knowledge_base(target):
            raise KbError("already exists; use --force to overwrite", path=str(existing[0]))
        for path in existing:
            del files[path]
        named = ", ".join(p.relative_to(target).as_posix() for p in existing[:6]) + (
            f" and {len(existing) - 6} more" if len(existing) > 6 else "")
        notes.append(f"left as they are (not as kb init writes them; --force overwrites "
                     f"them): {named}")
    _write_all(files, kept)
    return sorted(files), _git_init(target), notes


def _other_bases(root: Path, config: bytes) -> list[bytes]:
    """The hooks `kb init` writes (the root's .pre-commit-config.yaml) for each knowledge
    base that one of kb's check hooks in `config` checks (pre-commit runs them at the
    repository's root `root`): the nearest folder holding a kb.toml from the one its
    `args:` name up (the root's own kb.toml for a hook without `args:`). `add_review_hook`
    adds the review hook of each that lacks one. Why: a folder initialised before
    kb-review-record existed got none when `kb init` made a second one (only its own `kb
    init` again gave it one), and its verifications by hand were never recorded."""
    loaded = yaml.safe_load(config)
    repos = loaded.get("repos") if isinstance(loaded, dict) else None
    template = TEMPLATE_HOOKS.read_text(encoding="utf-8")
    out: list[bytes] = []
    for hook in [h for repo in repos or [] if isinstance(repo, dict)
                 for h in repo.get("hooks") or [] if isinstance(h, dict)]:
        args = hook.get("args")
        if hook.get("id") not in OUR_HOOKS or not (
                args is None or isinstance(args, list) and len(args) == 1
                and isinstance(args[0], str)):
            continue
        folder = root / args[0] if args else root
        base = _base_of(root, folder) if folder.is_dir() else None
        if base is not None:
            prefix = base.relative_to(root.resolve()).as_posix()
            out.append((for_subfolder("pre-commit-config.yaml", template, prefix)
                        if prefix != "." else template).encode())
    return out


def _base_of(root: Path, folder: Path) -> Path | None:
    """The nearest folder from `folder` up to `root` holding a kb.toml, or None."""
    try:
        here = folder.resolve()
        top = root.resolve()
    except (OSError, RuntimeError):
        return None
    if not here.is_relative_to(top):
        return None  # `args:` leading out of the repository
    while True:
        if (here / CONFIG_NAME).is_file():
            return here
        if here == top:
            return None
        here = here.parent


def _workflows_of_another_folder(target: Path) -> list[str]:
    """One line for each workflow of the skeleton the repository's root has already (so
    `plan` leaves it to the root) that runs in another folder than `target`: a monorepo's
    second knowledge base (`kb init docs/b` after `kb init docs/a`). Why: it was left as it
    was with nothing said, and docs/b was never checked or released by CI."""
    outer = enclosing_root(target)
    if outer is None:
        return []
    prefix = target.resolve().relative_to(outer.resolve()).as_posix()
    notes = []
    for template in AT_GIT_ROOT:
        path = outer / LAYOUT[template]
        if not template.startswith("workflows/") or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        written = (json.dumps(prefix, ensure_ascii=False), prefix, f"'{prefix}'")
        if not any(f"working-directory: {form}\n" in text for form in written):
            notes.append(f"{path}: left as it is: its jobs run in another folder, not in "
                         f"{prefix}; for CI to check and release {prefix} too, copy them with "
                         f"`working-directory: {prefix}`")
    return notes


def _a_knowledge_base(target: Path) -> bool:
    """Whether `target` holds a knowledge base already: its kb.toml and the knowledge folder
    that names. There `kb init` again leaves the files of the skeleton the project has
    changed (kb.toml, the workflows, the example) as they are, and still writes what is
    missing and brings kb's hooks up to date. Why: it refused the whole run for an edited
    kb.toml or workflow, the state of every repository an earlier `kb init` made, so its
    hooks were never updated, and `--force` would have replaced the project's kb.toml."""
    if not (target / CONFIG_NAME).is_file():
        return False
    try:
        cfg = load_config(target)
    except KbError:
        return False
    return cfg.root.resolve() == target.resolve() and cfg.path("knowledge").is_dir()


def _holds(path: Path, data: bytes) -> bool:
    """Whether `path` is a regular file (not a symlink) holding exactly `data`. Why: `kb
    init` run again in the repository it made refused its own untouched kb.toml ("already
    exists; use --force"), and `--force` then rewrote every file."""
    try:
        return path.is_file() and not path.is_symlink() and path.read_bytes() == data
    except OSError:
        return False


def _refuse_in_the_way(target: Path, path: Path) -> None:
    """Refuse, before anything is written, a file `path` of the skeleton that cannot be
    written because it or a folder above it (up to `target`) exists as the other kind: a
    file named `knowledge` once left half a skeleton behind and "cannot write: File
    exists", and every later `kb init` then refused the half as already there."""
    if path.is_dir() and not path.is_symlink():
        raise KbError("exists and is a folder, where kb init writes a file", path=str(path))
    for folder in path.relative_to(target).parents:
        here = target / folder
        if here != target and here.exists() and not here.is_dir():
            raise KbError("exists and is not a folder, where kb init writes one",
                          path=str(here))


def _write_all(files: dict[Path, bytes], kept: set[Path]) -> None:
    """Write `files`, all or none: when one cannot be written (a read-only folder, a full
    disk), the files and folders this call made are removed again and the project's own
    (`kept`) files are left as they were, so the same `kb init` can run again once the cause
    is fixed."""
    mode = _file_mode()
    made: list[Path] = []  # files and folders that were not there before, in creation order
    before = {path: path.read_bytes() for path in kept if path in files}
    try:
        for path, data in files.items():
            made += [d for d in reversed([path.parent, *path.parent.parents])
                     if not d.exists() and d not in made]
            new = not path.exists()
            atomic_write_bytes(path, data)
            if new:
                made.append(path)
            if path not in kept:
                path.chmod(mode)  # atomic writes start from a private temp file (0600)
    except OSError as exc:
        for done in reversed(made):
            with contextlib.suppress(OSError):
                done.rmdir() if done.is_dir() else done.unlink()
        for path, data in before.items():
            with contextlib.suppress(OSError):
                atomic_write_bytes(path, data)
        raise KbError(f"cannot write: {exc.strerror or exc}; nothing was written",
                      path=str(path)) from None


def _file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def enclosing_root(target: Path) -> Path | None:
    """The work tree of the Git repository `target` lies inside, when that is not `target`
    itself: there the scaffold's .pre-commit-config.yaml and .github/workflows/ do nothing
    (git and GitHub read them at a repository's root only)."""
    here = _nearest_folder(target)
    try:
        root = gitpython.Repo(here, search_parent_directories=True).working_tree_dir
    except (gitpython.InvalidGitRepositoryError, gitpython.NoSuchPathError):
        return None
    if root is None or Path(root).resolve() == target.resolve():
        return None
    return Path(root)


def _nearest_folder(target: Path) -> Path:
    """`target`, or when it is not made yet the nearest folder above it that is."""
    here = target.absolute()
    while not here.is_dir() and here != here.parent:
        here = here.parent
    return here


def workflow_branch(target: Path) -> str:
    """The branch the workflows should run on pushes to: the default branch of the `origin`
    remote of the repository `target` lies in, else that repository's current branch, else
    (no repository yet: `kb init` makes one on it) `BRANCH`. Why: written for `main` into a
    project on `master`, the release workflow never ran and no release was ever made."""
    here = _nearest_folder(target)
    try:
        repo = gitpython.Repo(here, search_parent_directories=True)
    except (gitpython.InvalidGitRepositoryError, gitpython.NoSuchPathError):
        return BRANCH
    for ref, strip in (("refs/remotes/origin/HEAD", "refs/remotes/origin/"),
                       ("HEAD", "refs/heads/")):
        try:
            name = str(repo.git.symbolic_ref("-q", ref)).strip()
        except gitpython.GitCommandError:  # not set, or a detached HEAD
            continue
        if name.startswith(strip) and name != strip:
            return name.removeprefix(strip)
    return BRANCH


def ignored(target: Path, paths: list[Path]) -> list[Path]:
    """Those of `paths` (files `kb init` wrote in `target`) that Git ignores: a project's own
    .gitignore (`*.json`, `schemas/`, `.github/`) kept them out of every commit, and CI and
    every other clone failed on what only the author's disk held."""
    try:
        repo = gitpython.Repo(target, search_parent_directories=True)
    except (gitpython.InvalidGitRepositoryError, gitpython.NoSuchPathError):
        return []
    root = repo.working_tree_dir
    if root is None:
        return []
    # untracked and ignored, NUL-separated paths from the work tree's root (no quoting)
    out = repo.git.ls_files("--others", "--ignored", "--exclude-standard", "-z", "--",
                            *(str(p.absolute()) for p in paths))
    named = {(Path(root) / name).resolve() for name in str(out).split("\0") if name}
    return [p for p in paths if p.resolve() in named]


def _git_init(target: Path) -> bool:
    try:
        gitpython.Repo(target, search_parent_directories=True)
        return False
    except (gitpython.InvalidGitRepositoryError, gitpython.NoSuchPathError):
        pass
    try:
        repo = gitpython.Repo.init(target)
        # `git init --initial-branch` needs git 2.28; an unborn HEAD can be pointed anywhere
        repo.git.symbolic_ref("HEAD", f"refs/heads/{BRANCH}")
    except gitpython.GitCommandError as exc:  # e.g. git missing from PATH
        stderr = str(exc.stderr).strip()
        raise KbError(f"git init failed: {stderr or exc}", path=str(target)) from None
    return True
