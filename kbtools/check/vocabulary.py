"""Checks of the knowledge's vocabulary and freshness that reach past one front matter.

- The synonyms file (``_synonyms.txt`` in the knowledge folder, `kbtools.index.synonyms`):
  checked whenever a run covers it (the knowledge folder, a folder above it, or the file
  named); each bad line is one finding at ``file:line``. It is no knowledge document:
  Markdown checks never see it.
- The user dictionary (kb.toml ``bm25.user_dict``, ``knowledge/_dict.txt`` by default): checked
  when a run covers it or the knowledge folder; a line that is not ``word [frequency] [tag]``
  is one finding at ``file:line`` (`kbtools.index.tokenize.user_dict_problems`).
- ``supersedes:``: every document it names must exist (a path from the repository root as
  results show it, or from the knowledge folder; ``.md`` may be left out), and not be the
  declaring document itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from kbtools.corpus import SourceDoc, decode, read_source, rel_path
from kbtools.errors import SourceError
from kbtools.findings import Finding, finding
from kbtools.index import synonyms
from kbtools.index.tokenize import user_dict_problems, user_dict_unused

# finding code → what it means (merged into `kbtools.check.codes.CODES`)
CODES: dict[str, str] = {
    "synonyms-not-a-group": "a line of _synonyms.txt that is not two or more terms "
                            "separated by '='",
    "synonyms-empty-term": "an empty term in a line of _synonyms.txt",
    "synonyms-term-too-long": "a term of _synonyms.txt longer than 64 characters",
    "synonyms-duplicate": "a term of _synonyms.txt that is already in another group",
    "synonyms-repeated": "a term repeated inside one group of _synonyms.txt (warning)",
    "synonyms-unreadable": "_synonyms.txt cannot be read or is not UTF-8",
    "dict-bad-line": "a line of the user dictionary (_dict.txt) that is not "
                     "'word [frequency] [tag]'",
    "dict-term-unused": "a word of the user dictionary (_dict.txt) the tokenizer cannot use "
                        "(Latin letters or digits, no Chinese, one character; warning)",
    "dict-unreadable": "the user dictionary (_dict.txt) cannot be read or is not UTF-8",
    "supersedes-missing": "`supersedes:` names a document that does not exist (or the "
                          "document itself)",
}
WARNINGS = frozenset({"synonyms-repeated", "dict-term-unused"})


def synonyms_file(knowledge: Path) -> Path:
    return knowledge / synonyms.SOURCE_NAME


def is_synonyms_file(path: Path) -> bool:
    return path.name == synonyms.SOURCE_NAME


def is_data_file(path: Path, user_dict: Path | None) -> bool:
    """Whether `path` is the synonyms file or the user dictionary: data, not a document."""
    return is_synonyms_file(path) or (
        user_dict is not None and os.path.realpath(path) == os.path.realpath(user_dict))


def data_file_findings(paths: list[Path], knowledge: Path, user_dict: Path | None, root: Path,
                       max_bytes: int) -> list[Finding]:
    """The findings of the synonyms file and the user dictionary a run over `paths` covers
    (the dictionary also when the run covers the knowledge folder, wherever it lies)."""
    out = []
    if covered(paths, synonyms_file(knowledge)):
        out.extend(synonyms_findings(knowledge, root, max_bytes))
    if user_dict is not None and (covered(paths, user_dict) or covered(paths, knowledge)):
        out.extend(user_dict_findings(user_dict, root, max_bytes))
    return out


def covered(paths: Iterable[Path], file: Path) -> bool:
    """Whether a run over `paths` covers `file` (named, or in a folder named)."""
    target = os.path.realpath(file)
    for p in paths:
        real = os.path.realpath(p)
        if real == target or (Path(p).is_dir() and target.startswith(real.rstrip(os.sep) + os.sep)):
            return True
    return False


def synonyms_findings(knowledge: Path, root: Path, max_bytes: int) -> list[Finding]:
    """One finding per problem of the synonyms file (none when there is no file)."""
    path = synonyms_file(knowledge)
    rel = rel_path(path, root)
    text = _read(path, root, max_bytes, "synonyms-unreadable")
    if not isinstance(text, str):
        return text
    return [finding(rel, line, 1, "warning" if code in WARNINGS else "error", code, message)
            for line, code, message in synonyms.parse(text)[1]]


def user_dict_findings(path: Path, root: Path, max_bytes: int) -> list[Finding]:
    """One `dict-bad-line` per line of the user dictionary that is not
    `word [frequency] [tag]`, and a `dict-term-unused` warning per word the tokenizer cannot
    use (none when there is no file)."""
    text = _read(path, root, max_bytes, "dict-unreadable")
    if not isinstance(text, str):
        return text
    rel = rel_path(path, root)
    found = [(line, "dict-bad-line", message) for line, message in user_dict_problems(text)]
    found += [(line, "dict-term-unused", message) for line, message in user_dict_unused(text)]
    return [finding(rel, line, 1, "warning" if code in WARNINGS else "error", code, message)
            for line, code, message in sorted(found)]


def _read(path: Path, root: Path, max_bytes: int, unreadable: str) -> str | list[Finding]:
    """The text of a data file of the repository, or the finding (`unreadable`) that it could
    not be read (an empty list when there is no file)."""
    if not (path.exists() or path.is_symlink()):
        return []
    rel = rel_path(path, root)
    try:
        text, problems = decode(read_source(path, root, max_bytes))
    except SourceError as exc:
        return [finding(rel, 1, 1, "error", unreadable, exc.message)]
    if "not-utf8" in problems:
        line = next(n for n, ln in enumerate(text.split("\n"), 1) if "\ufffd" in ln)
        return [finding(rel, line, 1, "error", unreadable,
                        "bytes that are not valid UTF-8 (save the file as UTF-8)")]
    return text


def supersedes_targets(meta: dict[str, object]) -> list[str]:
    """The documents a front matter says it supersedes, as written (str or list)."""
    value = meta.get("supersedes")
    items = value if isinstance(value, list) else [value]
    return [v.strip() for v in items if isinstance(v, str) and v.strip()]


def resolve_doc(name: str, root: Path, knowledge: Path,
                committed: Callable[[str], bool] = lambda rel: True) -> str | None:
    """The repository-relative path of the document `name` means, when it exists (and
    `committed` holds it: `FsCache.committed`, for `kb check --staged` and drafts)."""
    clean = name.strip().removeprefix("./")
    for base in (root, knowledge):
        for candidate in (clean, clean + ".md"):
            path = base / candidate
            rel = rel_path(path, root)
            if path.suffix == ".md" and not rel.startswith(("/", "../")) and path.is_file() \
                    and committed(rel):
                return rel
    return None


def supersedes_findings(src: SourceDoc, root: Path, knowledge: Path,
                        committed: Callable[[str], bool] = lambda rel: True,
                        not_staged: Callable[[str], str] | None = None) -> list[Finding]:
    """`supersedes-missing` for each named document that is not there (or is `src`);
    `committed` as `resolve_doc` takes it; `not_staged` says what to do of a document on
    disk `committed` lacks (`FsCache.not_staged`: the `git add` to run)."""
    out = []
    line = src.key_lines.get("supersedes", 2)
    for name in supersedes_targets(src.meta):
        target = resolve_doc(name, root, knowledge, committed)
        on_disk = resolve_doc(name, root, knowledge) if target is None else None
        if on_disk is not None:
            said = not_staged(on_disk) if not_staged is not None else "is not committed"
            out.append(finding(src.rel, line, 1, "error", "supersedes-missing",
                               f"supersedes {name!r}: not in the commit ({on_disk} {said})"))
        elif target is None:
            out.append(finding(src.rel, line, 1, "error", "supersedes-missing",
                               f"supersedes {name!r}: no such document (give its path, e.g. "
                               f"{_example(src.rel)})"))
        elif target == src.rel:
            out.append(finding(src.rel, line, 1, "error", "supersedes-missing",
                               f"supersedes {name!r}: a document cannot supersede itself"))
    return out


def _example(rel: str) -> str:
    return rel.rsplit("/", 1)[0] + "/old-version.md" if "/" in rel else "knowledge/old-version.md"
