"""The settings and caches of one `kb check` run (`CheckContext`, built by
`kbtools.check.engine.make_context`), and a file's status as a watcher keeps it between runs
(`file_status`)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kbtools.check import content
from kbtools.check.blocks import Blocks
from kbtools.check.cache import ScanCache
from kbtools.check.codes import FRONT_MATTER_CODES
from kbtools.check.docresult import DocResult
from kbtools.check.fscache import FsCache
from kbtools.check.results_cache import ResultsCache
from kbtools.config import Config
from kbtools.corpus import DEFAULT_MAX_BYTES

# a file changed less than this before its status was taken may change again with the same
# status (file-system timestamps are coarse): its status is not kept (git's "racy" rule)
RACY_NS = 1_000_000_000

FileStatus = tuple[int, int, int, int, int, int]  # device, inode, mode, size, mtime, ctime


def file_status(path: Path) -> tuple[FileStatus, int] | None:
    """The status of the file at `path` (not following a final symlink), and when it was
    taken (ns since the epoch); None when there is no such file."""
    now = time.time_ns()
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns), now


@dataclass
class CheckContext:
    """Settings and caches for one run. Build it with `make_context`."""

    root: Path
    schemas_dir: Path | None
    categories: frozenset[str]
    fs: FsCache
    lenient: bool = False
    schema_checks: bool = True
    max_bytes: int = DEFAULT_MAX_BYTES
    max_table_rows: int = content.DEFAULT_MAX_TABLE_ROWS  # kb.toml [check] max_table_rows
    latex_problem: Callable[[str], str | None] | None = None
    slugs: dict[str, frozenset[str] | None] = field(default_factory=dict)
    blocks: dict[str, Blocks | None] = field(default_factory=dict)  # notes' Obsidian block ids
    scans: ScanCache = field(default_factory=lambda: ScanCache(None))
    history: Config | None = None  # set: check verified documents against Git history
    knowledge: Path | None = None  # the knowledge folder (synonyms file, supersedes targets)
    user_dict: Path | None = None  # the tokenizer's user dictionary (kb.toml bm25.user_dict)
    assets: Path | None = None  # the assets folder (with knowledge: where wikilinks resolve)
    dist: Path | None = None  # the build's output folder (its copies of documents: not checked)
    keep_sources: bool = False  # results carry the document as read (`kb build` indexes it)
    results: ResultsCache | None = None  # per-document results of earlier runs (cache=True)
    # results (with the document as read) of earlier runs of this process (a watcher's), by
    # path, with their results-cache key
    kept: dict[str, tuple[str, DocResult]] | None = None
    # with `kept`: each file's status when it was read (`FileStatus`), by its path, with
    # its rel path, results-cache key and context: a file whose status and context are the
    # same is not read again
    statuses: dict[str, tuple[FileStatus, str, str, str]] | None = None

    def level(self, code: str, level: str) -> str:
        return "warning" if self.lenient and code in FRONT_MATTER_CODES else level


def max_document_bytes(cfg: Config) -> int:
    """The largest document read: kb.toml `[check] max_bytes` (2 MB by default)."""
    return int(cfg.data.get("check", {}).get("max_bytes", DEFAULT_MAX_BYTES))
