"""`kb init`: the skeleton of a new knowledge repository, and writing it.

The skeleton is kb.toml, schemas/ (the package's own), knowledge/ with one example
document, assets/, .pre-commit-config.yaml, .github/workflows/ and .gitignore; templates
live under ``kbtools/data/init``. A repository is initialised with Git when the target is
not already inside one, on the branch the workflows run on (`BRANCH`), whatever git's
``init.defaultBranch`` says (unset, git starts on ``master``, and the release workflow,
which runs on pushes to ``main``, never ran).
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import git as gitpython  # GitPython

from kbtools.errors import KbError
from kbtools.fsutil import atomic_write_bytes
from kbtools.schemas import PACKAGE_SCHEMAS

# the branch a new repository starts on: the one the scaffold's workflows run on pushes to
BRANCH = "main"
TEMPLATES = Path(str(resources.files("kbtools") / "data" / "init"))
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
    """Every file `kb init` writes (absolute path -> bytes), schemas included."""
    files: dict[Path, bytes] = {}
    for template, dest in LAYOUT.items():
        files[target / dest] = (TEMPLATES / template).read_bytes()
    for schema in sorted(PACKAGE_SCHEMAS.rglob("*.schema.json")):
        files[target / "schemas" / schema.relative_to(PACKAGE_SCHEMAS)] = schema.read_bytes()
    files[target / "assets" / ".gitkeep"] = b""
    return files


def scaffold(target: Path, force: bool = False) -> tuple[list[Path], bool]:
    """Write the skeleton into `target`. Returns (files written, whether git init ran)."""
    if target.exists() and not target.is_dir():
        raise KbError("exists and is not a directory", path=str(target))
    files = plan(target)
    if not force:
        for path in files:
            if path.exists() or path.is_symlink():
                raise KbError("already exists; use --force to overwrite", path=str(path))
    mode = _file_mode()
    for path, data in files.items():
        try:
            atomic_write_bytes(path, data)
            path.chmod(mode)  # atomic writes start from a private temp file (0600)
        except OSError as exc:
            raise KbError(f"cannot write: {exc.strerror or exc}", path=str(path)) from None
    return sorted(files), _git_init(target)


def _file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def enclosing_root(target: Path) -> Path | None:
    """The work tree of the Git repository `target` lies inside, when that is not `target`
    itself: there the scaffold's .pre-commit-config.yaml and .github/workflows/ do nothing
    (git and GitHub read them at a repository's root only)."""
    try:
        root = gitpython.Repo(target, search_parent_directories=True).working_tree_dir
    except (gitpython.InvalidGitRepositoryError, gitpython.NoSuchPathError):
        return None
    if root is None or Path(root).resolve() == target.resolve():
        return None
    return Path(root)


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
