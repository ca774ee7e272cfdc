"""A content-addressed cache of Markdown scans, so unchanged documents are not re-parsed.

The scan of a body depends only on its text and the parser versions, so the key is a hash
of exactly those. Path, schema and anchor checks always run fresh (they depend on the
filesystem and the schemas). The cache is plain JSON in `<cache dir>/check-scans.json`;
a missing, unreadable or unwritable cache just means parsing again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import markdown_it
import mdit_py_plugins

from kbtools.fsutil import atomic_write_text
from kbtools.markdown.frontend import Ref, Scan, TableShape

FORMAT = 2  # bump when `scan` reads the same text differently (2: the shared parser)
FILE_NAME = "check-scans.json"
MAX_ENTRIES = 50_000
SALT = f"{FORMAT}:{markdown_it.__version__}:{mdit_py_plugins.__version__}"


def key_for(body: str, body_line: int) -> str:
    return hashlib.blake2b(f"{SALT}\0{body_line}\0{body}".encode("utf-8", "surrogatepass"),
                           digest_size=16).hexdigest()


def to_json(scan: Scan) -> dict[str, Any]:
    return {
        "refs": [[r.kind, r.target, r.line, r.col, r.raw] for r in scan.refs],
        "headings": scan.headings,
        "ids": sorted(scan.html_ids),
        "tables": [[t.line, t.header_cells, [list(r) for r in t.rows]] for t in scan.tables],
        "math": scan.math,
        "dollars": scan.stray_dollars,
        "csv": scan.csv_names,
    }


def from_json(data: dict[str, Any]) -> Scan:
    return Scan(
        refs=[Ref(*r) for r in data["refs"]],
        headings=[(int(a), str(b)) for a, b in data["headings"]],
        html_ids=set(data["ids"]),
        tables=[TableShape(a, b, tuple((int(x), int(y)) for x, y in rows))
                for a, b, rows in data["tables"]],
        math=[(int(a), str(b)) for a, b in data["math"]],
        stray_dollars=[(int(a), int(b)) for a, b in data["dollars"]],
        csv_names=[(int(a), str(b)) for a, b in data["csv"]],
    )


@dataclass
class ScanCache:
    path: Path | None
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    new: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, cache_dir: Path | None) -> ScanCache:
        if cache_dir is None:
            return cls(None)
        path = cache_dir / FILE_NAME
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("salt") == SALT and isinstance(data.get("scans"), dict):
                return cls(path, data["scans"])
        except (OSError, ValueError, AttributeError):
            pass
        return cls(path)

    def get(self, key: str) -> Scan | None:
        data = self.entries.get(key)
        if data is None:
            return None
        try:
            return from_json(data)
        except (KeyError, TypeError, ValueError):
            return None

    def put(self, key: str, scan: Scan) -> None:
        self.new[key] = to_json(scan)

    def save(self, new: dict[str, dict[str, Any]]) -> None:
        """Merge `new` entries (from this process or workers) and write, best effort."""
        if self.path is None or not new:
            return
        merged = {**self.entries, **new}
        if len(merged) > MAX_ENTRIES:  # keep the newest entries
            merged = dict(list(merged.items())[-MAX_ENTRIES:])
        try:
            atomic_write_text(self.path, json.dumps({"salt": SALT, "scans": merged},
                                                    ensure_ascii=False, separators=(",", ":")))
        except (OSError, UnicodeEncodeError):  # a lone surrogate cannot be UTF-8: not cached
            pass
        self.entries = merged
