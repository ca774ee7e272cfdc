"""What an earlier `kb init` wrote in a project's .pre-commit-config.yaml: the hooks with
kb's ids it wrote (`earlier-hooks.yaml`: their names, entries, `files:` patterns and
comments), whether a hook holds only that (`written_by_kb`) or is the current one already
(`is_current`), and the knowledge folder one checks (`folder_of`). `hookconfig` edits the
file by these.
"""

from __future__ import annotations

import re
import shlex
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

EARLIER = Path(str(resources.files("kbtools") / "data" / "init" / "earlier-hooks.yaml"))


def read_earlier() -> dict[str, Any]:
    data = yaml.safe_load(EARLIER.read_text(encoding="utf-8"))
    return {"names": {key: set(value) for key, value in data["names"].items()},
            "entries": set(data["entries"]), "files": list(data["files"]),
            "comments": set(data["comments"])}


def comment(line: str) -> str | None:
    stripped = line.strip()
    return stripped.lstrip("#").strip() if stripped.startswith("#") else None


def comments(item: list[str]) -> set[str]:
    return {text for text in map(comment, item) if text is not None}


def written_by_kb(values: dict[str, Any], earlier: dict[str, Any]) -> bool:
    """Whether a hook with kb's id holds only what some `kb init` wrote (`earlier`)."""
    hook_id = str(values.get("id"))
    links = hook_id == "kb-check-links"
    allowed = {"id", "name", "entry", "language", "files", "pass_filenames", "always_run",
               "args"}
    if set(values) - allowed or values.get("language") != "system" \
            or values.get("name") not in earlier["names"].get(hook_id, ()):
        return False
    entry = values.get("entry")
    folder_entry = (isinstance(entry, str) and len(_words(entry)) == 3
                    and _words(entry)[:2] == ["kb", "check"])
    if entry not in earlier["entries"] and not (links and folder_entry):
        return False
    whole = values.get("pass_filenames") is False and values.get("always_run") is True
    if "files" in values:  # a staged-files hook
        if links or "pass_filenames" in values or "always_run" in values or "args" in values \
                or _files_folder(values["files"], earlier["files"]) is None:
            return False
    elif not whole:
        return False
    args = values.get("args")
    return args is None or (isinstance(args, list) and len(args) == 1
                            and isinstance(args[0], str))


def is_current(values: dict[str, Any], new: dict[str, Any]) -> bool:
    return {k: v for k, v in values.items() if k != "args"} == new and (
        values.get("args") is None or (isinstance(values["args"], list)
                                       and len(values["args"]) == 1))


def _words(entry: str) -> list[str]:
    try:
        return shlex.split(entry)
    except ValueError:
        return []


def _files_folder(pattern: Any, known: list[str]) -> str | None:
    """The folder a kb-written `files:` pattern names ("" at the root), else None."""
    if pattern in known:
        return ""
    for root in known:
        tail = root.removeprefix("(?i)").removeprefix("^")
        if isinstance(pattern, str) and pattern.startswith("(?i)^") and pattern.endswith(tail):
            escaped = pattern[len("(?i)^"):len(pattern) - len(tail)]
            folder = re.sub(r"\\(.)", r"\1", escaped)
            if folder.endswith("/") and re.escape(folder) == escaped:
                return folder.rstrip("/")
    return None


def _folder(hooks: list[dict[str, Any]]) -> str | None:
    """The knowledge folder kb's earlier hooks named from the Git root (`args:`, `kb check
    FOLDER`, a subfolder's `files:` pattern), or None for the one kb.toml names."""
    for values in hooks:
        args = values.get("args")
        if isinstance(args, list) and args:
            return str(args[0])
        words = _words(str(values.get("entry", "")))
        if values.get("id") == "kb-check-links" and len(words) == 3 \
                and words[:2] == ["kb", "check"] and not words[2].startswith("-"):
            return None if words[2] in ("knowledge", "knowledge/") else words[2]
    for values in hooks:
        prefix = _files_folder(values.get("files"), read_earlier()["files"])
        if prefix:
            return prefix + "/knowledge"
    return None


def folder_of(values: dict[str, Any]) -> str | None:
    """The knowledge folder one of kb's hooks checks (`_folder`), without a final `/`."""
    folder = _folder([values])
    return folder.rstrip("/") or None if folder is not None else None
