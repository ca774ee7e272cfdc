"""The MCP `status` tool: the state of the device the server answers from, as `kb status
--json` reports it (`kbtools.ship.health.report`, one source: same facts, same words).

An agent asks it which release is serving and its source commit, when the device last
synced and how that went (the error of a failed one, a newer release passed over in its
warnings), whether the files verify, and the health ("ok", "degraded" or "refused", with
reasons). A server answering from a build's output or an engine has no device: one line
says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kbtools.config import CONFIG_NAME, find_root
from kbtools.errors import IndexLoadError, UsageError
from kbtools.index.layout import device_of_release
from kbtools.ship.checkout import implicit_checkout, resolve_index_path
from kbtools.ship.device import device_dir, is_device_dir
from kbtools.ship.health import report

STATUS_DOC = """\
The state of the device this server answers from, as `kb status --json` reports it: which
release serves (`served.tag`, `served.source_commit`, `served.created`, `served.age_days`,
`served.stale`, whether its files verify now: `served.verified_now`, its signer), the last
sync (`last_sync`: `at`, `source`, `ok`, `error` of a failed one, `warnings`, among them a
newer release at the source that was not taken and why), the releases kept for rollback
(`releases`), releases rolled back from (`rolled_back`: sync skips them), pinned keys, and
`health`: {"state": "ok"|"degraded"|"refused", "reasons": [...]}. "degraded" still answers
questions (say the reasons when they bear on an answer, e.g. a stale release); "refused"
answers none. For a git checkout of a release: `checkout`, `tag`, `head`, `newer` instead.

Use when a user asks how current the knowledge is, which release or commit answers, or an
answer seems out of date. Do not use to cite a passage (each search result names its
release) or to sync, roll back or change anything: it only reports.
"""

def served_state(index: Path | None, root: Path | None = None, *, quick: bool | None = False,
                 engine: bool = False) -> dict[str, Any]:
    """`kb status --json` of what a server given `index` (None: found as `kb mcp` finds
    it, from `root`) answers from; an engine, a build's output or a knowledge repository's
    own files (no index anywhere) refused in one line. With no index and no repository
    either, the device directory `kb sync` fills (serving nothing yet)."""
    if engine:
        raise UsageError("status: this server answers from a search engine (kb mcp --engine), "
                         "not from a device: there is no sync or rollback to report (kb "
                         "publish moves the engine's alias)")
    where = index if index is not None else implicit_checkout()
    if where is None:  # what `kb mcp` opens: KB_INDEX, ./dist of a repository, the device
        try:
            served = resolve_index_path(None)
        except IndexLoadError:
            if not (find_root(root) / CONFIG_NAME).is_file():
                return report(device_dir(None), check_files=not quick)
            raise UsageError("status: this server reads the knowledge repository's own files "
                             "(no index was found: no device, no build): there is no release, "
                             "sync or rollback to report") from None
        if not is_device_dir(served) and device_of_release(served) is None:
            raise UsageError(f"status: this server answers from the build {served}, not from a "
                             "device synced with `kb sync`: there is no sync, rollback or "
                             "pinned key to report (search results' `release` names its "
                             "source commit)")
        where = served
    return report(device_dir(where), check_files=not quick)
