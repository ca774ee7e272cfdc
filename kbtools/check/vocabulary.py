"""Checks of the knowledge's vocabulary and freshness that reach past one front matter.

- The synonyms file (``_synonyms.txt`` in the knowledge folder, `kbtools.index.synonyms`):
  checked whenever a run covers it (the knowledge folder, a folder above it, or the file
  named); each bad line is one finding at ``file:line``. It is no knowledge document:
  Markdown checks never see it.
- ``supersedes:``: every document it names must exist (a path from the repository root as
  results show it, or from the knowledge folder; ``.md`` may be left out), and not be the
  declaring document itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from kbtools.corpus import SourceDoc, decode, read_source, rel_path
from kbtools.errors import SourceError
from kbtools.findings import Finding, finding
from kbtools.index import synonyms

# finding code → what it means (merged into `kbtools.check.engine.CODES`)
CODES: dict[str, str] = {
    "synonyms-not-a-group": "a line of _synonyms.txt that is not two or more terms "
                            "separated by '='",
    "synonyms-empty-term": "an empty term in a line of _synonyms.txt",
    "synonyms-term-too-long": "a term of _synonyms.txt longer than 64 characters",
    "synonyms-duplicate": "a term of _synonyms.txt that is already in another group",
    "synonyms-repeated": "a term repeated inside one group of _synonyms.txt (warning)",
    "synonyms-unreadable": "_synonyms.txt cannot be read or is not UTF-8",
    "supersedes-missing": "`supersedes:` names a document that does not exist (or the "
                          "document itself)",
}
WARNINGS = frozenset({"synonyms-repeated"})


def synonyms_file(knowledge: Path) -> Path:
    return knowledge / synonyms.SOURCE_NAME


def is_synonyms_file(path: Path) -> bool:
    return path.name == synonyms.SOURCE_NAME


def covered(paths: Iterable[Path], knowledge: Path) -> bool:
    """Whether a run over `paths` covers the knowledge folder's synonyms file."""
    target = os.path.realpath(synonyms_file(knowledge))
    for p in paths:
        real = os.path.realpath(p)
        if real == target or (Path(p).is_dir() and target.startswith(real.rstrip(os.sep) + os.sep)):
            return True
    return False


def synonyms_findings(knowledge: Path, root: Path, max_bytes: int) -> list[Finding]:
    """One finding per problem of the synonyms file (none when there is no file)."""
    path = synonyms_file(knowledge)
    if not (path.exists() or path.is_symlink()):
        return []
    rel = rel_path(path, root)
    try:
        text, problems = decode(read_source(path, root, max_bytes))
    except SourceError as exc:
        return [finding(rel, 1, 1, "error", "synonyms-unreadable", exc.message)]
    if "not-utf8" in problems:
        line = next(n for n, ln in enumerate(text.split("\n"), 1) if "\ufffd" in ln)
        return [finding(rel, line, 1, "error", "synonyms-unreadable",
                        "bytes that are not valid UTF-8 (save the file as UTF-8)")]
    return [finding(rel, line, 1, "warning" if code in WARNINGS else "error", code, message)
            for line, code, message in synonyms.parse(text)[1]]


def supersedes_targets(meta: dict[str, object]) -> list[str]:
    """The documents a front matter says it supersedes, as written (str or list)."""
    value = meta.get("supersedes")
    items = value if isinstance(value, list) else [value]
    return [v.strip() for v in items if isinstance(v, str) and v.strip()]


def resolve_doc(name: str, root: Path, knowledge: Path) -> str | None:
    """The repository-relative path of the document `name` means, when it exists."""
    clean = name.strip().removeprefix("./")
    for base in (root, knowledge):
        for candidate in (clean, clean + ".md"):
            path = base / candidate
            rel = rel_path(path, root)
            if path.suffix == ".md" and not rel.startswith(("/", "../")) and path.is_file():
                return rel
    return None


def supersedes_findings(src: SourceDoc, root: Path, knowledge: Path) -> list[Finding]:
    """`supersedes-missing` for each named document that is not there (or is `src`)."""
    out = []
    line = src.key_lines.get("supersedes", 2)
    for name in supersedes_targets(src.meta):
        target = resolve_doc(name, root, knowledge)
        if target is None:
            out.append(finding(src.rel, line, 1, "error", "supersedes-missing",
                               f"supersedes {name!r}: no such document (give its path, e.g. "
                               f"{_example(src.rel)})"))
        elif target == src.rel:
            out.append(finding(src.rel, line, 1, "error", "supersedes-missing",
                               f"supersedes {name!r}: a document cannot supersede itself"))
    return out


def _example(rel: str) -> str:
    return rel.rsplit("/", 1)[0] + "/old-version.md" if "/" in rel else "knowledge/old-version.md"
