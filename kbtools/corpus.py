"""Corpus: find the knowledge documents and split each into front matter and body.

Pure helpers (`split_front_matter`) plus the file walk (`iter_documents`). Line numbers
are 1-based and count from the top of the original file, front matter included.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

FENCE = re.compile(r"^---[ \t]*$")
END_FENCE = re.compile(r"^(---|\.\.\.)[ \t]*$")
MAX_YAML_NODES = 20_000  # a front matter expanding beyond this is an alias bomb


@dataclass(frozen=True)
class FrontMatterError:
    code: str
    message: str
    line: int
    col: int = 1


@dataclass(frozen=True)
class SourceDoc:
    """One Markdown file as read from disk."""

    path: Path  # absolute
    rel: str  # posix path relative to the repo (or corpus) root
    text: str  # the whole file, decoded, newlines normalised to \n
    meta: dict[str, Any] = field(default_factory=dict)
    body: str = ""  # text after the front matter
    body_line: int = 1  # 1-based line number of the body's first line in the file
    fm_end_line: int = 0  # line of the closing fence (0 when there is no front matter)
    key_lines: dict[str, int] = field(default_factory=dict)  # top-level key -> line
    errors: tuple[FrontMatterError, ...] = ()


_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: ~5x faster


class _LineLoader(_BaseLoader):  # type: ignore[misc,valid-type]
    """SafeLoader that records key lines, rejects duplicate keys and counts nodes."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode,
                       deep: bool = False) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            hash(key)
        except TypeError:
            continue  # SafeConstructor.construct_mapping reports unhashable keys
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first on line {seen[key] + 1})",
                key_node.start_mark)
        try:
            seen[key] = key_node.start_mark.line
        except TypeError:
            pass
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
# Timestamps stay strings: the schema checks their format, and JSON output stays simple.
_LineLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.copy().items()
}


def _count_nodes(node: yaml.Node, budget: list[int], seen: set[int]) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise yaml.YAMLError("front matter expands to too many nodes (alias bomb?)")
    if isinstance(node, yaml.SequenceNode):
        for child in node.value:
            _count_nodes(child, budget, seen)
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            _count_nodes(k, budget, seen)
            _count_nodes(v, budget, seen)


def load_yaml(text: str, first_line: int) -> tuple[Any, dict[str, int], list[FrontMatterError]]:
    """Parse front-matter YAML. Returns (data, key -> file line, errors)."""
    try:
        loader = _LineLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None, {}, []
            _count_nodes(node, [MAX_YAML_NODES], set())
            data = loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first_line + (mark.line if mark else 0)
        col = (mark.column + 1) if mark else 1
        code = "duplicate-key" if "duplicate key" in str(exc.problem) else "yaml-syntax"
        problem = str(exc.problem or exc).strip()
        if code == "duplicate-key":  # the constructor counts lines within the YAML text
            problem = re.sub(r"first on line (\d+)",
                             lambda m: f"first on line {int(m.group(1)) + first_line - 1}", problem)
        return None, {}, [FrontMatterError(code, problem, line, col)]
    except yaml.YAMLError as exc:
        code = "yaml-bomb" if "too many nodes" in str(exc) else "yaml-syntax"
        return None, {}, [FrontMatterError(code, str(exc).strip(), first_line)]
    except RecursionError:
        return None, {}, [FrontMatterError("yaml-bomb", "front matter nests too deeply", first_line)]
    except Exception as exc:  # PyYAML constructors fail oddly on bad tagged values (!!timestamp x)
        return None, {}, [FrontMatterError("yaml-syntax", f"cannot load: {type(exc).__name__}: {exc}",
                                           first_line)]
    key_lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, _ in node.value:
            key_lines[str(key_node.value)] = first_line + key_node.start_mark.line
    return data, key_lines, []


def split_front_matter(text: str) -> tuple[str | None, str, int, int]:
    """Return (yaml_text or None, body, body_line, closing_fence_line).

    yaml_text is None when the file has no front matter; closing_fence_line is -1 when the
    block is opened but never closed.
    """
    lines = text.split("\n")
    if not lines or not FENCE.match(lines[0]):
        return None, text, 1, 0
    for i in range(1, len(lines)):
        if END_FENCE.match(lines[i]):
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1:]), i + 2, i + 1
    return "\n".join(lines[1:]), "", len(lines) + 1, -1


def decode(raw: bytes) -> tuple[str, list[str]]:
    """Decode file bytes to text with \n newlines. Returns (text, problems)."""
    problems = []
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
        problems.append("bom")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        problems.append("not-utf8")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        problems.append("crlf")
    return text, problems


def read_doc(path: Path, root: Path) -> SourceDoc:
    """Read one file. Never raises for bad content: problems are in `.errors`."""
    text, _ = decode(path.read_bytes())
    return parse_source(text, path, _rel(path, root))


def parse_source(text: str, path: Path, rel: str) -> SourceDoc:
    fm, body, body_line, fence_line = split_front_matter(text)
    errors: list[FrontMatterError] = []
    meta: dict[str, Any] = {}
    key_lines: dict[str, int] = {}
    if fm is None:
        errors.append(FrontMatterError("fm-missing", "no front matter block (--- ... ---)", 1))
    elif fence_line == -1:
        errors.append(FrontMatterError("fm-unterminated", "front matter is never closed by ---", 1))
        body_line = 2
        body = "\n".join(text.split("\n")[1:])
    else:
        data, key_lines, errs = load_yaml(fm, 2)
        errors.extend(errs)
        if data is None and not errs:
            errors.append(FrontMatterError("fm-empty", "front matter is empty", 1))
        elif data is not None and not isinstance(data, dict):
            kind = type(data).__name__
            errors.append(FrontMatterError("fm-not-mapping", f"front matter is a {kind}, not a mapping", 2))
        elif isinstance(data, dict):
            meta = {str(k): v for k, v in data.items()}
    return SourceDoc(path=path, rel=rel, text=text, meta=meta, body=body, body_line=body_line,
                     fm_end_line=max(fence_line, 0), key_lines=key_lines, errors=tuple(errors))


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def find_markdown(paths: list[Path]) -> list[Path]:
    """Markdown files under the given files/dirs, sorted, skipping hidden dirs."""
    out: set[Path] = set()
    for p in paths:
        if p.is_dir():
            for f in p.rglob("*.md"):
                rel_parts = f.relative_to(p).parts
                if any(part.startswith(".") for part in rel_parts) or f.name.startswith("_"):
                    continue
                if f.is_file():
                    out.add(f)
        elif p.suffix.lower() in (".md", ".markdown") or p.is_file():
            out.add(p)
    return sorted(out)


def iter_documents(root: Path, knowledge: Path) -> Iterator[SourceDoc]:
    for path in find_markdown([knowledge]):
        yield read_doc(path, root)
