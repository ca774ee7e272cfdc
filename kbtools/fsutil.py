r"""Atomic writes (a temp file in the same directory, fsync, rename) and JSON Lines.

JSON Lines files (data/chunks/*.jsonl, data/docs.jsonl, `kb query --batch --json` and
`kb watch --json` output) hold one record per ``\n``-terminated line whatever the text holds:
`json_line` writes UTF-8 as ``json.dumps(ensure_ascii=False)`` does, but escapes the
characters that other readers take for a line break and JSON leaves raw (NEL, U+2028, U+2029;
the C0 controls \r, \v, \f, \x1c-\x1e are escaped by JSON itself), and `read_json_lines`
splits on ``b"\n"`` only, never `str.splitlines`. Text without those characters is written
byte for byte as before, so existing releases stay reproducible.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from kbtools.errors import KbError

# Line breaks for str.splitlines (and, U+2028/U+2029, for JavaScript) that JSON keeps raw.
_RAW_BREAKS = re.compile("[\x85\u2028\u2029]")
# A lone surrogate (a str from `surrogateescape`/`surrogatepass` or a YAML "\ud800" escape)
# cannot be UTF-8; it is stored as U+FFFD, as undecodable bytes in a document are.
_SURROGATE = re.compile("[\ud800-\udfff]")


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if path.exists():
            shutil.copymode(path, tmp)
        else:  # mkstemp creates 0600; artifacts and documents are ordinary files
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def replace_dir(staging: Path, target: Path) -> None:
    """Move a fully written `staging` directory to `target`, replacing any old one.

    The old directory is renamed aside first, so `target` is either the old or the new
    tree at any moment, never a half-written one.
    """
    target = target.resolve()
    old = target.with_name(f".{target.name}.old")
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        os.replace(target, old)
    os.replace(staging, target)
    if old.exists():
        shutil.rmtree(old, ignore_errors=True)


def json_line(obj: Any, *, sort_keys: bool = True,
              default: Callable[[Any], Any] | None = None) -> str:
    """`obj` as one JSON Lines record (without the newline): never holds a line break."""
    line = json.dumps(obj, ensure_ascii=False, sort_keys=sort_keys, default=default)
    if not line.isascii():  # the raw characters can only sit inside JSON strings
        line = _RAW_BREAKS.sub(lambda m: f"\\u{ord(m[0]):04x}", line)
        line = _SURROGATE.sub("\ufffd", line)
    return line


def json_lines(rows: Iterable[Any], *, default: Callable[[Any], Any] | None = None) -> bytes:
    """The bytes of a JSON Lines file: one `json_line` (sorted keys) per row, each ending in \\n."""
    return "".join(json_line(r, default=default) + "\n" for r in rows).encode("utf-8")


def read_json_lines(path: Path, *, error: type[KbError] = KbError) -> list[Any]:
    """The records of a JSON Lines file, split on \\n only; blank lines are skipped.

    A line that is not JSON raises `error` naming the file and line.
    """
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 at byte {exc.start}; rebuild or re-fetch it",
                    path=str(path)) from None
    rows = []
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise error(f"not a JSON record ({exc.msg}, column {exc.colno}); rebuild or "
                        "re-fetch it", path=str(path), line=n) from None
    return rows
