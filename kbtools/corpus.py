"""Corpus: find the knowledge documents, read them safely, split front matter from body.

Pure helpers (`split_front_matter`), the documents of a folder read (`iter_documents`, over
`kbtools.docfiles.find_markdown`'s walk) and the one way a knowledge file is read
(`read_source`). Line numbers are 1-based and count
from the top of the original file, front matter included.

Reading author files is defensive: a file is read only when its real path (symlinks
resolved) lies inside the repository root and no symlink leads it into a hidden entry there
(`.git`, `.env`: `kbtools.linkscope`), it is a regular file (checked on the open file
descriptor, opened without following a final symlink and without blocking, so a FIFO or a
device never hangs the reader) and it is no larger than the size limit. Anything else raises
`SourceError` carrying the `kb check` finding code, and nothing of the file is read.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kbtools.docfiles import conflicted_copy, find_markdown, misnamed_markdown, misnamed_message
from kbtools.errors import SourceError
from kbtools.ignored import barred_link
from kbtools.linkscope import is_inside

FENCE = re.compile(r"^---[ \t]*$")
END_FENCE = re.compile(r"^(---|\.\.\.)[ \t]*$")
MAX_YAML_NODES = 20_000  # a front matter expanding beyond this is an alias bomb
DEFAULT_MAX_BYTES = 2 * 1024 * 1024  # kb.toml [check] max_bytes: the largest document read
# the smallest limit kb.toml [check] max_bytes (the schema's minimum) and `kb check
# --max-size` accept: one rule for both
MIN_MAX_BYTES = 1024
_READ_CHUNK = 1 << 16
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


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
    if node is getattr(loader, "top", None):
        return _construct_top(loader, node, deep)
    seen: dict[Any, int] = {}
    for key_node, value in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            hash(key)
        except TypeError:
            continue  # SafeConstructor.construct_mapping reports unhashable keys
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, _duplicate(key, seen[key], value), key_node.start_mark)
        try:
            seen[key] = key_node.start_mark.line
        except TypeError:
            pass
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


def _duplicate(key: Any, first: int, value: yaml.Node) -> str:
    """What a key written twice is told (`first`: the 0-based line of its first, as renumbered
    by `load_yaml`; `value`: the second's): YAML would keep either, so it keeps none. Two
    lists are written as one; a `title:` twice was told that too, now the value meant."""
    both = (f"with what both lines say (two lists as one: {key}: [a, b])"
            if isinstance(value, yaml.SequenceNode) else "with the value meant")
    return (f"duplicate key {key!r} (first on line {first + 1}): YAML holds one value per "
            f"key, so the front matter is not read; write {str(key)!r} once, {both}")


def _construct_top(loader: _LineLoader, node: yaml.MappingNode, deep: bool) -> dict[Any, Any]:
    """The front matter's own mapping, each key named as written: `no:` is "no", not False,
    `0x1:` is "0x1", not 1 (and not the same key as `yes:`, True), so a finding names the
    key the author wrote. Keys merged in (`<<: *base`) come first; the mapping's own win."""
    seen: dict[Any, int] = {}
    for key_node, value in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = _written(loader, key_node, deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, _duplicate(key, seen[key], value), key_node.start_mark)
        seen[key] = key_node.start_mark.line
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        out[_written(loader, key_node, deep)] = loader.construct_object(value_node, deep=deep)
    return out


def _written(loader: _LineLoader, key_node: yaml.Node, deep: bool) -> Any:
    """A top-level key as written; a key that is not a scalar must be hashable."""
    if isinstance(key_node, yaml.ScalarNode):
        return str(key_node.value)
    key = loader.construct_object(key_node, deep=deep)
    try:
        hash(key)
    except TypeError:
        raise yaml.constructor.ConstructorError(
            None, None, "found an unhashable key", key_node.start_mark) from None
    return key


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
MAX_BASE60_CHARS = 64  # YAML 1.1 reads 1:30:00 as a base-60 integer, in quadratic time


def _construct_int(loader: _LineLoader, node: yaml.ScalarNode) -> Any:
    """PyYAML's integers, except that a base-60 one (``1:1:1…``) of more than
    MAX_BASE60_CHARS characters is an error rather than seconds of big-number arithmetic."""
    text = str(loader.construct_scalar(node))
    if ":" in text and len(text) > MAX_BASE60_CHARS:
        raise yaml.constructor.ConstructorError(
            None, None, f"a base-60 number of {len(text):,} characters (quote the value)",
            node.start_mark)
    return yaml.SafeLoader.construct_yaml_int(loader, node)


_LineLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
# Timestamps stay strings: the schema checks their format, and JSON output stays simple.
_LineLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.copy().items()
}


class _TooManyNodes(yaml.YAMLError):
    """Front matter of more than MAX_YAML_NODES nodes (as expanded: an alias bomb, or just
    very many keys or list items)."""


def _count_nodes(node: yaml.Node, budget: list[int], seen: set[int]) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooManyNodes(f"front matter has more than {MAX_YAML_NODES:,} YAML nodes (keys, "
                            "values and list items, an alias counted at each use)")
    if isinstance(node, yaml.SequenceNode):
        for child in node.value:
            _count_nodes(child, budget, seen)
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            _count_nodes(k, budget, seen)
            _count_nodes(v, budget, seen)


def _anchor_problem(exc: yaml.MarkedYAMLError, text: str, first_line: int) -> str | None:
    """What an alias naming no anchor, or an anchor written twice, is, in words naming it
    (None for other errors). Why: libyaml says "found undefined alias" without its name,
    and of a second `&x` only "second occurrence"."""
    if not isinstance(exc, yaml.composer.ComposerError) or exc.problem_mark is None:
        return None
    mark = exc.problem_mark
    lines = text.split("\n")
    written = lines[mark.line][mark.column:] if mark.line < len(lines) else ""
    name = written[1:].split()[0].rstrip(",]}") if written[:1] in "&*" and written[1:] else "?"
    if "undefined alias" in str(exc.problem):
        return (f"the alias *{name} names no anchor &{name} written before it: write "
                f"&{name} at the value it repeats, above this line, or the value itself")
    if "duplicate anchor" in str(exc.context) and exc.context_mark is not None:
        return (f"the anchor &{name} is written twice (first on line "
                f"{exc.context_mark.line + first_line}): rename one, and the aliases *{name} "
                "meaning it")
    return None


def load_yaml(text: str, first_line: int) -> tuple[Any, dict[str, int], list[FrontMatterError]]:
    """Parse front-matter YAML. Returns (data, key -> file line, errors).

    A mapping's top-level keys are named as written (`no:` is "no", not False; `0x1:` is
    "0x1", not 1), in `data` and in the key lines alike, so findings name the key the author
    wrote, on its own line."""
    try:
        loader = _LineLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None, {}, []
            _count_nodes(node, [MAX_YAML_NODES], set())
            loader.top = node  # its keys are named as written (`_construct_top`)
            data = loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark, problem = _unclosed(exc) or (exc.problem_mark or exc.context_mark,
                                           _anchor_problem(exc, text, first_line)
                                           or str(exc.problem or exc).strip())
        line = first_line + (mark.line if mark else 0)
        col = (mark.column + 1) if mark else 1
        code = "duplicate-key" if "duplicate key" in str(exc.problem) else "yaml-syntax"
        if code == "duplicate-key":  # the constructor counts lines within the YAML text
            problem = re.sub(r"first on line (\d+)",
                             lambda m: f"first on line {int(m.group(1)) + first_line - 1}", problem)
        return None, {}, [FrontMatterError(code, problem, line, col)]
    except _TooManyNodes as exc:
        return None, {}, [FrontMatterError("yaml-bomb", str(exc), first_line)]
    except yaml.YAMLError as exc:
        return None, {}, [FrontMatterError("yaml-syntax", str(exc).strip(), first_line)]
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


def wide_encoding(raw: bytes) -> str | None:
    """The encoding's name when `raw` is UTF-16 or UTF-32 text (Windows Notepad saves
    "Unicode" as UTF-16 with a byte-order mark), else None: a byte-order mark, or first
    ASCII characters each with a NUL byte beside it (a front-matter fence). Such a file is
    refused as binary data is, but named for what it is."""
    if raw.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16"
    head = raw[:4]
    if len(head) == 4 and head.count(0) == 2 \
            and (head[1] == head[3] == 0 or head[0] == head[2] == 0) \
            and all(b < 0x80 for b in head):
        return "UTF-16"
    return None


def wide_message(encoding: str) -> str:
    """What `kb check` (`encoding-utf16`) and the commands reading one file say of it."""
    return (f"file is {encoding} text (as Windows Notepad saves \"Unicode\"), not UTF-8: save "
            "it as UTF-8")


def lf_newlines(raw: bytes) -> bytes:
    """`raw` with CRLF and lone CR as LF, the newlines `decode` reads them as. A document's
    copy in a release is written so: the same for every checkout of a commit, whatever line
    endings Git gave the work tree (core.autocrlf, `eol` attributes). (A CR byte is never
    part of a multi-byte UTF-8 character.)"""
    return raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in raw else raw


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symlink loop")):
        if test(mode):
            return name
    return "not a regular file"


def read_source(path: Path, root: Path | None,
                max_bytes: int | None = DEFAULT_MAX_BYTES) -> bytes:
    """The bytes of one knowledge file, read only when that is safe (see the module doc).

    `root` is the repository (or corpus) root the file's real path must stay inside; None
    skips that test (a file named explicitly outside any repository). Raises SourceError
    with the finding code: path-symlink-escape, file-not-regular, file-too-large or
    file-unreadable. Reads at most `max_bytes` + 1 bytes.
    """
    name = os.fspath(path)
    try:
        real = os.path.realpath(name)
        if root is not None and not is_inside(real, os.path.realpath(root)):
            raise SourceError("path-symlink-escape",
                              "document is a symlink leading outside the repository; not read")
        named = None if root is None else os.path.relpath(os.path.abspath(name),
                                                          os.path.abspath(root))
        barred = None if named is None or root is None else barred_link(
            named, real, os.path.realpath(root))
        if barred is not None:
            raise SourceError("path-symlink-escape", f"document is a symlink leading {barred}; "
                              "not read")
        st = os.lstat(real)
    except SourceError:
        raise
    except (OSError, ValueError) as exc:  # a dangling symlink, a vanished file, a NUL byte
        dangling = os.path.islink(name)
        raise SourceError("file-unreadable", "a symlink to nothing (dangling); not read"
                          if dangling else f"cannot read: {_reason(exc)}") from None
    if not stat.S_ISREG(st.st_mode):
        raise SourceError("file-not-regular", f"{_kind(st.st_mode)}, not a regular file; not read")
    try:
        fd = os.open(real, _OPEN_FLAGS)
    except OSError as exc:
        raise SourceError("file-unreadable", f"cannot read: {_reason(exc)}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped after the lstat above
            raise SourceError("file-not-regular",
                              f"{_kind(st.st_mode)}, not a regular file; not read")
        limit = max_bytes if max_bytes is not None else st.st_size
        if st.st_size > limit:
            raise SourceError("file-too-large", _too_large(st.st_size, limit))
        parts: list[bytes] = []
        size = 0
        while size <= limit:
            part = os.read(fd, min(_READ_CHUNK, limit + 1 - size))
            if not part:
                break
            parts.append(part)
            size += len(part)
        if max_bytes is not None and size > max_bytes:  # it grew while we read it
            raise SourceError("file-too-large", _too_large(size, max_bytes))
        return b"".join(parts)
    except OSError as exc:
        raise SourceError("file-unreadable", f"cannot read: {_reason(exc)}") from None
    finally:
        os.close(fd)


def _reason(exc: BaseException) -> str:
    return str(getattr(exc, "strerror", None) or exc)


def _too_large(size: int, limit: int) -> str:
    return f"file is {size:,} bytes; the limit is {limit:,} (split it into several documents)"


def load_source(path: Path, root: Path,
                max_bytes: int | None = DEFAULT_MAX_BYTES) -> tuple[SourceDoc, bytes]:
    """Read one file safely (`read_source`) and split it; returns (document, raw bytes).
    Raises SourceError when the file is not read; bad content is in `.errors`."""
    raw = read_source(path, root, max_bytes)
    text, _ = decode(raw)
    return parse_source(text, path, rel_path(path, root)), raw


def load_named(path: Path, root: Path, max_bytes: int | None = DEFAULT_MAX_BYTES) -> SourceDoc:
    """A file named on the command line (`kb chunks FILE`), read as `kb check` reads it: its
    real path must stay inside `root` unless the name itself lies outside it, and it must be
    a regular `.md` file within the size limit. Raises SourceError naming the file and the
    finding `kb check` gives it (`path-symlink-escape`, `file-not-regular`, …)."""
    rel = rel_path(path, root)
    try:
        if misnamed_markdown(path):
            raise SourceError("file-extension", misnamed_message(path))
        raw = read_source(path, None if rel.startswith("/") else root, max_bytes)
        wide = wide_encoding(raw)
        if wide is not None:
            raise SourceError("encoding-utf16", wide_message(wide) + "; not read")
        if b"\x00" in raw:  # `kb check`'s file-binary: its text would be NULs and mojibake
            raise SourceError("file-binary", "file contains NUL bytes: binary data, not "
                              "Markdown; not read")
    except SourceError as exc:
        raise SourceError(exc.code, f"{exc.code}: {exc.message}", path=rel) from None
    text, _ = decode(raw)
    return parse_source(text, path, rel)


def read_doc(path: Path, root: Path, max_bytes: int | None = DEFAULT_MAX_BYTES) -> SourceDoc:
    """Read one file (see `load_source`). Never raises for bad content: problems are in
    `.errors`; SourceError when the file may not be read at all."""
    return load_source(path, root, max_bytes)[0]


# what YAML was reading (`MarkedYAMLError.context`) → what an author opened and left open
_OPENED = {"while scanning a quoted scalar": ("a quote", "the same quote"),
           "while parsing a flow sequence": ("'['", "']'"),
           "while parsing a flow mapping": ("'{'", "'}'")}


_STREAM_END = re.compile(r"end of stream|<stream end>")  # YAML's words for the text's end


def _unclosed(exc: yaml.MarkedYAMLError) -> tuple[Any, str] | None:
    """A quote, `[` or `{` left open in a value (YAML reads on to the end of the front
    matter or into the next key's line) as its mark and what to do, else None."""
    opened = _OPENED.get(str(exc.context))
    start, end = exc.context_mark, exc.problem_mark
    # read on to a line below, or to the end of the front matter (its last line left open)
    if opened is None or start is None or end is None or (
            end.line <= start.line and not _STREAM_END.search(str(exc.problem))):
        return None
    return start, f"{opened[0]} opened here is never closed: end the value with {opened[1]}"


Front = tuple[dict[str, Any], dict[str, int]]  # front matter as loaded: (meta, key lines)


def parse_source(text: str, path: Path, rel: str, front: Front | None = None) -> SourceDoc:
    """The document of `text`; `front`: its front matter as an earlier parse of these very
    bytes loaded it without errors (`kbtools.check.results_cache`), so the YAML is not
    loaded again."""
    fm, body, body_line, fence_line = split_front_matter(text)
    errors: list[FrontMatterError] = []
    meta: dict[str, Any] = {}
    key_lines: dict[str, int] = {}
    if front is not None and fm is not None and fence_line != -1:
        meta, key_lines = front
    elif fm is None:
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


def entry_spelling(root: Path, rel: str) -> str | None:
    """`rel` (a posix path below `root`) spelt as the directory entries spell it, when each
    part names an entry exactly or, failing that, exactly one entry equal to it in composed
    Unicode (NFC): a name typed composed for a file macOS wrote decomposed (NFD), or the
    other way round. None when some part names no entry."""
    folder, parts = root, []
    for part in rel.split("/"):
        if part in ("", "."):
            continue
        try:
            names = os.listdir(folder)
        except OSError:
            return None
        if part not in names:
            same = [n for n in names
                    if unicodedata.normalize("NFC", n) == unicodedata.normalize("NFC", part)]
            if len(same) != 1:
                return None
            part = same[0]
        parts.append(part)
        folder = folder / part
    return "/".join(parts)


def rel_path(path: Path, root: Path) -> str:
    """The posix path of `path` relative to `root`, as findings and the index name it.

    Lexical (a symlink inside the repo keeps its own name); when the path lies outside the
    root lexically, the path with its folders resolved, or else its real path, when that is
    inside; else the absolute path.
    """
    absolute = os.path.abspath(path)
    rel = os.path.relpath(absolute, root)
    if rel == ".." or rel.startswith(".." + os.sep):
        # its folders resolved, not its own name (a root reached through a symlinked folder:
        # a link inside the repo is still judged as one)
        named = os.path.join(os.path.realpath(os.path.dirname(absolute)),
                             os.path.basename(absolute))
        rel = os.path.relpath(named, os.path.realpath(root))
        if not (rel == ".." or rel.startswith(".." + os.sep)):
            return Path(rel).as_posix()
        real = os.path.relpath(os.path.realpath(absolute), os.path.realpath(root))
        outside = real == ".." or real.startswith(".." + os.sep)
        return Path(absolute).as_posix() if outside else Path(real).as_posix()
    return Path(rel).as_posix()


def iter_documents(root: Path, knowledge: Path,
                   max_bytes: int | None = DEFAULT_MAX_BYTES) -> Iterator[SourceDoc]:
    """Every document under `knowledge` that may be read (those `read_source` refuses and
    misnamed ones are left out: `kb check` reports them)."""
    for path in find_markdown([knowledge]):
        if misnamed_markdown(path) or conflicted_copy(path.name):
            continue
        try:
            yield read_doc(path, root, max_bytes)
        except SourceError:
            continue
