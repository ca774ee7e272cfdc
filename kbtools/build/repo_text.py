"""The text files of a repository a build reads besides its documents: the user dictionary
(kb.toml ``bm25.user_dict``) and the knowledge folder's ``_synonyms.txt``.

Each is read like a document (`kbtools.corpus.read_source`: inside the root, a regular
file, bounded, not by a symlink into a hidden entry or a file Git ignores), and never when
Git ignores the file itself (`kbtools.ignored`): a clone of the commit has none, so the
release would differ from the one CI builds. A UTF-8 byte-order mark (Windows Notepad)
is left out as `kb check` leaves it out: kept, it became part of the first word.
"""

from __future__ import annotations

import codecs
import os
import sys
from pathlib import Path

from kbtools.config import Config
from kbtools.corpus import read_source
from kbtools.errors import ConfigError, SourceError
from kbtools.findings import display_path
from kbtools.ignored import ignored_target
from kbtools.index import synonyms
from kbtools.index.synonyms import Synonyms


def user_dictionary(cfg: Config, lenient: bool, progress: bool) -> str:
    """The text of the user dictionary (kb.toml bm25.user_dict), read before anything costly
    so that a bad file fails the build at its start."""
    return repo_text(cfg, cfg.root / str(cfg.get("bm25.user_dict")), "user dictionary",
                     lenient, progress)


def synonym_groups(cfg: Config, lenient: bool, progress: bool) -> Synonyms:
    """The valid synonym groups of the knowledge folder's _synonyms.txt (`kb check` has
    reported its bad lines: they stop a strict build before this is read)."""
    text = repo_text(cfg, cfg.path("knowledge") / synonyms.SOURCE_NAME, "synonyms file",
                     lenient, progress)
    return synonyms.parse(text)[0]


def repo_text(cfg: Config, path: Path, what: str, lenient: bool, progress: bool) -> str:
    """A text file of the repository (empty when there is none); with `lenient`
    (--lenient/--skip-invalid) one that may not be read is left out with a warning
    (`progress`: said on stderr), else it stops the build (ConfigError)."""
    if not (path.exists() or path.is_symlink()):
        return ""
    shown = display_path(path.relative_to(cfg.root).as_posix()) \
        if path.is_relative_to(cfg.root) else str(path)
    try:
        data = _read(path, cfg.root)
    except SourceError as exc:
        if not lenient:
            raise ConfigError(f"{what} not read: {exc.message}", path=str(path)) from None
        if progress:
            print(f"kb build: warning: {what} {shown} not read: {exc.message}", file=sys.stderr)
        return ""
    body = data.removeprefix(codecs.BOM_UTF8)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = exc.start + len(data) - len(body)  # counted in the file's bytes
        raise ConfigError(f"{what} is not UTF-8 (byte {at}); save it as UTF-8",
                          path=str(path)) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def ignored_file(path: Path, root: Path) -> bool:
    """Whether Git ignores the file `path` of the repository at `root` (by its name: a
    symlink to an ignored file `read_source` refuses)."""
    real_root = os.path.realpath(root)
    named = os.path.join(real_root, os.path.relpath(os.path.abspath(path), os.path.abspath(root)))
    return ignored_target(os.path.normpath(named), real_root) is not None


def _read(path: Path, root: Path) -> bytes:
    if ignored_file(path, root):
        raise SourceError("path-ignored", "Git ignores it (.gitignore): no clone of the "
                          "repository has it, and a build reads only what the repository holds")
    return read_source(path, root)
