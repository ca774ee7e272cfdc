"""The knowledge folder of a knowledge base, or why there is none.

Git keeps no empty folder: the commit deleting a knowledge base's last document takes
`knowledge/` with it, and a clone (CI, a colleague's) has none. That knowledge base has no
document, as one whose folder is there and empty: `kb check` passes saying what to do, and
`kb build` makes a release of nothing (whose queries answer "the index is empty"). A folder
kb.toml names that never existed is another thing, a misspelt `paths.knowledge`
(`knowlege`, `docs/kb/knowledge` from the wrong folder): an error naming that kb.toml line.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import git

from kbtools.config import (
    CONFIG_NAME,
    DEFAULTS,
    Config,
    did_you_mean,
    key_line,
    parse_toml,
    portable_path,
)
from kbtools.errors import ConfigError, KbError, plural
from kbtools.pathspecs import literal
from kbtools.provenance import open_repo


def knowledge_folder(cfg: Config) -> Path | None:
    """`cfg`'s knowledge folder; None when it is missing and Git agrees the knowledge base
    has no document (see the module). A KbError when its files are deleted from the work
    tree but not from Git's index (a `rm -r`, a move: not a deletion Git records); a
    ConfigError naming kb.toml's `paths.knowledge` line when kb.toml names a file, or a
    folder that no commit ever held."""
    folder = cfg.path("knowledge")
    if folder.is_dir():
        return folder
    toml = cfg.root / CONFIG_NAME
    text = _config_text(toml)
    # a value of its own (kb init writes the default's): possibly misspelt
    named = text is not None and portable_path(str(_paths_table(text).get(
        "knowledge", DEFAULTS["paths"]["knowledge"]))) != DEFAULTS["paths"]["knowledge"]
    value = str(cfg.get("paths.knowledge"))
    where = {"path": str(toml), "line": key_line(text, ["paths", "knowledge"])} \
        if text is not None and named else {"path": str(folder)}
    if folder.exists():
        raise ConfigError(f"paths.knowledge: {value!r} is a file, not a folder: name the "
                          f"folder of the knowledge base's documents, relative to "
                          f"{CONFIG_NAME}", **where)
    repo = open_repo(cfg.root)
    rel = _in_repo(repo, folder)
    if repo is not None and rel is not None:
        with repo:
            indexed = _indexed(repo, rel)
            if indexed:
                raise KbError(
                    f"knowledge folder not found: {value}/ is not there, but Git's index "
                    f"holds {plural(indexed, 'file')} under it: restore it (`git checkout "
                    f"-- {value}`), or delete them in a commit (`git rm -r {value}`) for a "
                    "knowledge base of no document", path=str(folder))
            ever = _ever_held(repo, rel)
            shallow = os.path.exists(os.path.join(repo.git_dir, "shallow"))
    else:
        ever = shallow = False
    if text is not None and (not named or ever):
        return None
    siblings = sorted(p.name for p in folder.parent.iterdir() if p.is_dir()) \
        if folder.parent.is_dir() else []
    history = (" (this clone is shallow: the commit deleting its last document may be "
               "beyond it; `git fetch --unshallow` fetches the whole history)" if shallow
               else "")
    raise ConfigError(f"paths.knowledge: the knowledge folder {value!r} does not exist and "
                      f"no commit ever held it{history}{did_you_mean(folder.name, siblings)}: "
                      f"name the folder of the knowledge base's documents, relative to "
                      f"{CONFIG_NAME}", **where)


def _config_text(toml: Path) -> str | None:
    try:
        return toml.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _paths_table(text: str) -> dict[str, object]:
    try:
        paths = parse_toml(text).get("paths", {})
    except tomllib.TOMLDecodeError:  # load_config read it already: not reached
        return {}
    return paths if isinstance(paths, dict) else {}


def _in_repo(repo: git.Repo | None, folder: Path) -> str | None:
    """`folder` as a path of `repo`'s work tree (None: no repository, or outside it)."""
    if repo is None or repo.working_tree_dir is None:
        return None
    try:
        rel = folder.resolve().relative_to(Path(repo.working_tree_dir).resolve()).as_posix()
    except ValueError:
        return None
    return rel if rel != "." else None


def _indexed(repo: git.Repo, rel: str) -> int:
    """How many files Git's index holds under `rel` (the commit being made, or HEAD's)."""
    out = repo.git.ls_files("-z", "--", literal(rel))
    return len([n for n in out.split("\0") if n])


def _ever_held(repo: git.Repo, rel: str) -> bool:
    """Whether a commit of `repo` ever held a file under `rel` (the commit deleting its
    last document took the folder away)."""
    try:
        out = repo.git.log("-1", "--all", "--format=%H", "--", literal(rel))
    except git.GitCommandError:  # no commit yet
        return False
    return bool(out.strip())
