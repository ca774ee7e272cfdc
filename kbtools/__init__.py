"""kbtools: a Git-native knowledge repository for AI agents — the library behind `kb`.

The entry points (`kbtools.api`), loaded on first use so that ``import kbtools.errors`` and
``kb --version`` stay fast::

    import kbtools
    index = kbtools.open_index("dist")  # a build, release or device dir, or a git checkout
    for hit in kbtools.search(index, "E17 报警后怎么复位？", k=3).results:
        print(hit.citation.display(), hit.verified)
    kbtools.build_index(".")                               # knowledge/ → dist/
    kbtools.check_files(["knowledge/"])                    # → list of findings
    kbtools.evaluate_table("knowledge/crops/wheat-scab.md", {"温度": "22", "相对湿度": "90"})

The stage packages (see docs/architecture.md): `markdown`, `check`, `build`, `render`,
`embed`, `index`, `query`, `decision`, `ship`, `review`, `agents`; shared modules `config`,
`corpus`, `schemas`, `findings`, `provenance`, `errors`, `fsutil`; the CLI in `cli` and
`commands`. This package imports nothing at import time but the version. (The entry points are not
named `build`/`check`: those are the stage packages `kbtools.build` and `kbtools.check`.)
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "build_index", "check_files", "evaluate_table", "open_index", "search"]

_API = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> Any:
    if name in _API:
        return getattr(importlib.import_module("kbtools.api"), name)
    raise AttributeError(f"module 'kbtools' has no attribute {name!r}")
