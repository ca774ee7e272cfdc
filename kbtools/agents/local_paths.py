"""What `kb mcp` tells an agent names no absolute path of the machine it runs on.

A failed call's line carried the library's own wording for a person at a terminal, where an
absolute path helps: ``/home/ann/.kb/device: no index here …``, ``/tmp/…/dist: this is a
build output …``, an unexpected error's ``[Errno 13] Permission denied: '/srv/kb/…'``. An
agent has no use for them and passes them on (to a user, to a log, to another service),
telling where the device's KB_HOME, the user's home and the temporary folder lie. Each such
place is said by its name instead (`places`): a path inside the knowledge repository as
its repo-relative path (the repository itself as ``.``), KB_HOME as ``$KB_HOME``, the
temporary folder as ``$TMPDIR``, the home folder as ``~``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from kbtools.config import kb_home

# what may come right before a path in a message (not part of a longer path) and right after
# its last folder (the path ends there, or goes on below it with "/")
_PATH_CHARS = "._-~/"


def places(root: Path | None = None, *more: tuple[Path | None, str]) -> list[tuple[str, str]]:
    """The local places a message may name, as (absolute path, what to say instead), the
    longest first so that a path is said by the nearest place holding it: the knowledge
    repository `root` (said relatively), `more` (a path and its name), KB_HOME, the
    temporary folder and the home folder; each as given and resolved (a symlinked /tmp)."""
    named: list[tuple[Path | None, str]] = [(root, ""), *more, (kb_home(), "$KB_HOME"),
                                            (Path(tempfile.gettempdir()), "$TMPDIR"),
                                            (_home(), "~")]
    found: dict[str, str] = {}
    for path, name in named:
        if path is None:
            continue
        for form in (path.absolute(), _resolved(path)):
            text = str(form).rstrip(os.sep) or os.sep
            if form.is_absolute() and text != os.sep and text not in found:
                found[text] = name
    return sorted(found.items(), key=lambda p: -len(p[0]))


def unlocated(text: str, known: Iterable[tuple[str, str]]) -> str:
    """`text` with each absolute path inside one of the `known` places (`places`) said by
    the place's name: ``/tmp/x/kb/dist`` as ``dist`` inside the repository ``/tmp/x/kb``,
    ``/home/ann/.kb/device`` as ``$KB_HOME/device``. A place's path counts only whole:
    ``/tmp/kb`` is not in the middle of ``/var/tmp/kb`` nor the start of ``/tmp/kb2``."""
    for prefix, name in known:
        out, i = [], 0
        while (at := text.find(prefix, i)) != -1:
            end = at + len(prefix)
            after = text[end:end + 1]
            whole = (at == 0 or not (text[at - 1].isalnum() or text[at - 1] in _PATH_CHARS)) \
                and (after in ("", "/") or not (after.isalnum() or after in _PATH_CHARS))
            if not whole:
                out.append(text[i:end])
            elif name == "" and after == "/":  # inside the repository: its relative path
                out.append(text[i:at])
                end += 1
            else:
                out.append(text[i:at] + (name or "."))
            i = end
        text = "".join(out) + text[i:]
    return text


def unlocated_values(value: Any, known: Sequence[tuple[str, str]]) -> Any:
    """`value` (a tool's JSON result; lists, tuples and dicts of values) with every string
    in it `unlocated`."""
    if isinstance(value, str):
        return unlocated(value, known)
    if isinstance(value, (list, tuple)):
        return type(value)(unlocated_values(v, known) for v in value)
    if isinstance(value, dict):
        return {k: unlocated_values(v, known) for k, v in value.items()}
    return value


# the fields of a `read` or `evaluate_table` result in our own words, which may name a
# place (a pruned release's git clone: `git clone /srv/kb/art.git DIR`); the others are the
# knowledge's own text, said as written
OUR_FIELDS = ("release_gone", "release_note")


def unlocated_fields(result: dict[str, Any], known: Sequence[tuple[str, str]]
                     ) -> dict[str, Any]:
    """`result` with its `OUR_FIELDS` `unlocated`."""
    return {k: unlocated_values(v, known) if k in OUR_FIELDS else v for k, v in result.items()}


def _home() -> Path | None:
    try:
        return Path.home()
    except RuntimeError:  # no home folder to find (no $HOME, no passwd entry)
        return None


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path.absolute()
