"""The library entry points, re-exported by `kbtools` (``import kbtools; kbtools.search(…)``).

Each is one call into a stage package; the `kb` commands make the same calls. Errors are
`kbtools.errors.KbError` subclasses whose message names the file, line and what to do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from os import PathLike
from pathlib import Path

from kbtools.agents.named import Named, evaluate_named
from kbtools.build.pipeline import BuildOptions, BuildStats
from kbtools.build.pipeline import build as _build
from kbtools.check.engine import check_paths
from kbtools.config import load_config
from kbtools.decision import TableResult, input_value
from kbtools.decision.documents import as_source
from kbtools.findings import Finding
from kbtools.index.reader import KbIndex
from kbtools.query.results import SearchResponse
from kbtools.query.search import search as _search
from kbtools.ship.checkout import open_index as _open_index

StrPath = str | PathLike[str]


def open_index(path: StrPath | None = None) -> KbIndex:
    """Open a built index for searching: a build output (``dist/``), a release directory, a
    device directory (its served release), or a git checkout of a release (verified, its
    index derived inside its .git on first use). Without `path`: ``$KB_INDEX``, else the repo's
    ``dist/``, else the default device directory. Close it with ``index.close()``."""
    return _open_index(Path(path) if path is not None else None)


def search(index: KbIndex, question: str, *, k: int | None = None, where: Iterable[str] = (),
           verified_only: bool | None = None) -> SearchResponse:
    """Hybrid search with citations. `where` holds filters such as ``"crop=小麦"`` or
    ``"category=equipment"``. The response's ``results`` are cited passages (``.citation``
    names doc, heading path, line range, release and commit); ``no_answer`` is True with a
    ``reason`` when nothing is relevant enough; `k` results at most (default: kb.toml
    ``[query] k`` of the index, else 5). ``.to_dict()`` is `kb query --json`."""
    return _search(index, question, k=k, where=list(where) or None, verified_only=verified_only)


def build_index(repo: StrPath = ".", *, out: StrPath | None = None, corpus: StrPath | None = None,
          lenient: bool = False, progress: bool = False) -> BuildStats:
    """Check and build the knowledge repository at `repo` (its kb.toml) into ``dist/`` (or
    `out`): chunks, vectors, BM25, chunk store and manifest, replacing the output atomically.
    `corpus` indexes another folder of Markdown with the repo's settings."""
    options = BuildOptions(out=Path(out) if out is not None else None,
                           corpus=Path(corpus) if corpus is not None else None,
                           lenient=lenient, progress=progress)
    return _build(load_config(Path(repo)), options)


def check_files(paths: Iterable[StrPath], *, repo: StrPath = ".", lenient: bool = False) -> list[Finding]:
    """`kb check`: findings (schema, paths, links, formulas, tables) for the Markdown files
    under `paths`, sorted, and inside Git a `verification-lapsed` warning for each verified
    document changed after its review. A finding with ``level == "error"`` would fail the
    pre-commit hook."""
    return check_paths([Path(p) for p in paths], load_config(Path(repo)), lenient=lenient,
                       history=True)


def evaluate_table(doc: StrPath, inputs: Mapping[str, object], *,
                   table: str | int | None = None) -> TableResult:
    """Evaluate a decision table in the Markdown document `doc` against `inputs` (column →
    value: the header, with or without its unit; a string, units allowed, or a number). The
    result names the matching row and each cell's reason, or says that no rule matches and a
    person must decide. Values are read as the HTTP API and MCP read them
    (`decision.input_value`: a boolean, NaN or infinity is refused; Traditional script read as
    `agents.named.in_script` says)."""
    return evaluate_named(as_source(Path(doc)), Named(str(doc), str(doc)),
                          {str(k): input_value(v, str(k)) for k, v in inputs.items()}, table)
