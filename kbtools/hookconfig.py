"""kb's hooks in a project's own .pre-commit-config.yaml: added to it (`merge_hooks`), and an
earlier `kb init`'s hooks brought to the current one (`upgrade_hooks`) and given the
commit-msg hook (`add_review_hook`). Each edits the file's text, never re-dumps it: the
project's other hooks, comments and formatting stay as written. What an earlier `kb init`
wrote, and how it is recognised, is `earlier_hooks`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

from kbtools.earlier_hooks import (
    comment,
    comments,
    folder_of,
    is_current,
    read_earlier,
    written_by_kb,
)

OUR_HOOKS = ("kb-check", "kb-check-links")
REVIEW_HOOK = "kb-review-record"  # the commit-msg hook, added beside them (`add_review_hook`)


def merge_hooks(ours: bytes, theirs: bytes) -> bytes | None:
    """`theirs` (a project's own .pre-commit-config.yaml) with the repository entry of our
    hooks appended to its `repos:` (and our `default_install_hook_types` when it names
    none), its own text, comments and hooks kept; None when it has our hooks already.
    Why: `kb init` in a project using pre-commit (black, ruff) refused its config, and
    `--force` replaced the project's hooks with ours. Raises ValueError for a file this
    cannot extend safely (not YAML, `repos:` in flow style): `kb init` then refuses it,
    and `--force` overwrites it, as before."""
    text = theirs.decode("utf-8")
    eol = "\r\n" if "\r\n" in text else "\n"
    text = text.replace("\r\n", "\n")
    config = yaml.safe_load(text) or {}
    repos = config.get("repos", []) if isinstance(config, dict) else None
    if not isinstance(repos, list):
        raise ValueError("not a pre-commit configuration")
    if has_our_hooks(config):
        return None
    template = ours.decode()
    entry = template[template.index("\nrepos:\n") + len("\nrepos:\n"):]
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if re.match(r"repos:[ \t]*(#.*)?$", line)),
              None)
    if at is None:
        if "repos" in config:  # `repos: []`, or another flow style
            raise ValueError("its repos: list is not a block list")
        lines += ["repos:"]
        at = len(lines) - 1
    end = next((i for i in range(at + 1, len(lines)) if lines[i][:1] not in ("", " ", "-", "#")),
               len(lines))
    while end > at + 1 and (not lines[end - 1].strip() or lines[end - 1].startswith("#")):
        end -= 1  # before the blank and comment lines that end the list
    item = next((line for line in lines[at + 1:end] if line.strip()
                 and not line.lstrip().startswith("#")), "  -")
    indent = " " * (len(item) - len(item.lstrip()))
    added = [indent + line[2:] if line.startswith("  ") else line
             for line in entry.rstrip("\n").split("\n")]
    lines[end:end] = added
    lines, _said = _commit_msg_installed(lines, config, template)
    merged = "\n".join(lines) + "\n"
    check = yaml.safe_load(merged)
    if check.get("repos", [])[:len(repos)] != repos or len(check["repos"]) != len(repos) + 1:
        raise ValueError("its repos: list could not be extended")
    return merged.replace("\n", eol).encode("utf-8")


@dataclass(frozen=True)
class _Hook:
    """One hook of ours in the file: its values, and the lines its item spans."""
    values: dict[str, Any]
    first: int  # the line of its `-`
    last: int  # its last line holding a key or a value


def upgrade_hooks(template: str, theirs: bytes, force: bool = False
                  ) -> tuple[bytes | None, str | None]:
    """`theirs` (a .pre-commit-config.yaml holding hooks with kb's ids) with the hooks an
    earlier `kb init` wrote (`earlier-hooks.yaml`: `language: system` with `entry: kb
    check`, which fails in a Git app whose PATH lacks kb's virtualenv; or a staged-files
    hook beside a whole-folder one, each finding reported twice) replaced by the one hook of
    `template` (`kb init`'s own configuration), at the first one's place; and one line
    saying what changed. (None, None) when there is nothing to change. A hook with kb's id
    that kb did not write so (the project edited it) is left alone, with a line saying so,
    unless `force`, which replaces it too. Only those lines change: the project's other
    hooks, its comments and its formatting are kept."""
    text = theirs.decode("utf-8")
    eol = "\r\n" if "\r\n" in text else "\n"
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    config = yaml.safe_load(text)
    new_item, new_hook = _template_hook(template)
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    found = [] if root is None else _find_ours(root, config, lines)
    if not found:
        return None, None
    ids = ", ".join(dict.fromkeys(h.values.get("id", "") for h in found))
    groups: dict[str | None, list[_Hook]] = {}  # by the folder each checks: one hook each
    for hook in found:
        groups.setdefault(folder_of(hook.values), []).append(hook)
    earlier = read_earlier()
    if len(groups) == len(found) and all(is_current(h.values, new_hook) for h in found):
        return _refreshed(lines, found, new_item, earlier, config, ids, eol)
    edited = [h for h in found if not written_by_kb(h.values, earlier)]
    if edited and not force:
        if len(groups) == len(found) and all(h.values.get("entry") == new_hook["entry"]
                                             for h in found):
            # the current hooks with the project's own options
            return _refreshed(lines, found, new_item, earlier, config, ids, eol)
        return None, (f"kept kb's hooks ({ids}) as they are: "
                      f"{', '.join(str(h.values.get('id')) for h in edited)} is not as kb init "
                      "wrote it: copy the kb-check hook of a new kb init, or run kb init "
                      "--force, which also overwrites every file of the skeleton")
    unplaced = (f"kept kb's hooks ({ids}) as they are: they could not be rewritten in place; "
                "copy the kb-check hook of a new kb init's .pre-commit-config.yaml")
    at = next((i for i, line in enumerate(lines) if re.match(r"repos:[ \t]*(#.*)?$", line)),
              None)
    if at is None or any(not re.match(r"[ \t]*-([ \t]|$)", lines[h.first]) for h in found):
        return None, unplaced  # `repos:` or a hook in flow style (`[{id: kb-check, …}]`)
    # each folder's hooks (a monorepo's knowledge bases: `kb init docs/a`, `kb init docs/b`)
    # become one hook at the place of its first
    firsts = {group[0].first: folder for folder, group in groups.items()}
    known = earlier["comments"] | comments(new_item)
    out = list(lines)
    for hook in sorted(found, key=lambda h: h.first, reverse=True):
        start = hook.first
        while start > 0 and comment(out[start - 1]) in known:
            start -= 1  # kb's own comment lines above the hook go with it
        out[start:hook.last + 1] = (_item(new_item, lines[hook.first], firsts[hook.first])
                                    if hook.first in firsts else [])
    added_types = isinstance(config, dict) and "default_install_hook_types" not in config
    if added_types:
        out.insert(at, _install_types(template))  # `repos:` is above every hook
    upgraded = "\n".join(out)
    try:
        after = yaml.safe_load(upgraded)
    except yaml.YAMLError:  # e.g. a project's hook used an anchor of kb's hook (`*kb-entry`)
        return None, unplaced
    if not _same_but_ours(config, after, [{**new_hook, **(
            {"args": [folder]} if folder is not None else {})} for folder in groups]):
        return None, unplaced
    was = ("`kb check` from PATH" if any(h.values.get("entry") in ("kb check", None)
                                         or str(h.values.get("entry")).startswith("kb ")
                                         for h in found)
           else "a staged-files hook beside a whole-folder one")
    said = (f"kb's hooks ({ids}; {was}) are now one kb-check hook "
            + (f"for each of {len(groups)} knowledge folders " if len(groups) > 1 else "")
            + "that finds kb without PATH and reports each finding once")
    if added_types:
        said += ("; default_install_hook_types added: run pre-commit install again to check "
                 "merges too")
    return upgraded.replace("\n", eol).encode("utf-8"), said


def _refreshed(lines: list[str], found: list[_Hook], new_item: list[str],
               earlier: dict[str, Any], config: Any, ids: str, eol: str
               ) -> tuple[bytes | None, str | None]:
    """The file with kb's current hooks (`found`) under an earlier `kb init`'s comment lines
    given the template's (`new_item`) in their place, and one line saying so; (None, None)
    when none is stale. Why: session 37 wrote today's hook values under a comment saying
    "cached: ~1 s", measured since at ~0.9 s; the values being current, `kb init` again
    changed nothing and the stale claim stayed. A run of comment lines is kb's when each of
    its lines is one kb wrote (`earlier-hooks.yaml` or the template), stale when one of them
    is not the template's any more: only such a run is replaced, by the template's run above
    the same key (none: removed); one the project wrote a line into is left as it is. The
    project's own comment lines, keys and values stay."""
    current = comments(new_item)
    known = earlier["comments"] | current
    runs = _comment_runs(new_item)
    out = list(lines)
    changed = False
    for hook in sorted(found, key=lambda h: h.first, reverse=True):
        for at in range(hook.last, hook.first - 1, -1):
            anchor = _anchor(out[at])
            if anchor is None or (at > hook.first and anchor == "-"):
                continue
            start = at
            while start > 0 and comment(out[start - 1]) in known:
                start -= 1
            texts = [comment(line) for line in out[start:at]]
            if not any(text not in current for text in texts):
                continue
            above = start
            while above > 0 and comment(out[above - 1]) is not None:
                above -= 1  # the project's comment lines above kb's: none between kb's
            if any(comment(line) in known for line in out[above:start]):
                continue
            out[start:at] = _item(runs.get(anchor, []), lines[hook.first], None)
            changed = True
    if not changed:
        return None, None
    refreshed = "\n".join(out)
    try:
        if yaml.safe_load(refreshed) != config:
            return None, None
    except yaml.YAMLError:
        return None, None
    return refreshed.replace("\n", eol).encode("utf-8"), (
        f"the comment lines kb wrote about its hooks ({ids}) now say what the current hook "
        "does and costs (they were an earlier kb init's)")


def _anchor(line: str) -> str | None:
    """What a line of a hook item starts: "-" (the item), a key's name, or None (a comment,
    a blank line, a continued value)."""
    stripped = line.strip()
    if stripped.startswith("-"):
        return "-"
    match = re.match(r"([\w-]+)[ \t]*:", stripped)
    return match.group(1) if match else None


def _comment_runs(item: list[str]) -> dict[str, list[str]]:
    """The template item's comment lines, by the anchor (`_anchor`) of the line below them."""
    runs: dict[str, list[str]] = {}
    run: list[str] = []
    for line in item:
        if comment(line) is not None:
            run.append(line)
            continue
        anchor = _anchor(line)
        if anchor is not None and run:
            runs.setdefault(anchor, run)
        run = []
    return runs


def add_folder_hook(ours: bytes, theirs: bytes) -> tuple[bytes | None, str | None]:
    """`theirs` (a .pre-commit-config.yaml holding kb's current hooks) with the kb-check
    hook of `ours` (`kb init`'s for a knowledge base in a subfolder: its `args:` name that
    folder's knowledge/) added after the last of kb's hooks, when none checks that folder
    yet; and one line saying so. (None, None) when one does, or when kb's hooks are not
    all current (`upgrade_hooks` says what to do of those). Why: in a monorepo, `kb init
    docs/b` after `kb init docs/a` (its hooks moved to the root, as kb init says) left the
    root's hooks as they were: commits to docs/b were never checked, and nothing said so."""
    text = theirs.decode("utf-8")
    eol = "\r\n" if "\r\n" in text else "\n"
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    config = yaml.safe_load(text)
    new_item, new_hook = _template_hook(ours.decode("utf-8"))
    args = new_hook.pop("args", None)
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    found = [] if root is None else _find_ours(root, config, lines)
    if not found or not all(h.values.get("entry") == new_hook["entry"] for h in found) \
            or not isinstance(args, list) or len(args) != 1:
        return None, None
    if any(folder_of(h.values) == args[0].rstrip("/") for h in found):
        return None, None
    last = max(found, key=lambda h: h.last)
    if not re.match(r"[ \t]*-([ \t]|$)", lines[last.first]):
        return None, None  # a hook in flow style: left as it is
    item = _item([line for line in new_item if comment(line) is None and
                  not line.lstrip().startswith("args:")], lines[last.first], args[0])
    added = lines[:last.last + 1] + item + lines[last.last + 1:]
    merged = "\n".join(added)
    mine = [h.values for h in found] + [{**new_hook, "args": args}]
    if not _same_but_ours(config, yaml.safe_load(merged), mine):
        return None, None
    return merged.replace("\n", eol).encode("utf-8"), (
        f"kb's hooks now check {args[0]} too (a kb-check hook of its own, after the one for "
        f"{', '.join(dict.fromkeys(folder_of(h.values) or 'the root' for h in found))})")


def add_review_hook(ours: bytes, theirs: bytes) -> tuple[bytes | None, str | None]:
    """`theirs` (a .pre-commit-config.yaml holding kb's check hooks) with the
    kb-review-record hook of `ours` (`kb init`'s) added after the last of kb's hooks when
    none records its knowledge base, and commit-msg among the hook types `pre-commit install` installs; and one
    line saying so. (None, None) when one does, or kb's hooks are in flow style or
    not the current ones (the project edited them: `upgrade_hooks` left them, saying so).
    Why: `kb init` wrote one hook; a knowledge base it made never recorded what a
    verification by hand approves, and a rebase of that commit lost the approval. A hook of
    the project's without `stages:` ran at every installed hook type: the file gets
    `default_stages` (the types it installed before) when it names none, so commit-msg runs
    the review hook alone. The project's own lines are kept as written; a block-style
    `default_install_hook_types:` lacking commit-msg is left, with a line saying so. One
    hook per knowledge base (`--kb` naming its folder): a monorepo's `kb init docs/b` after
    `kb init docs/a` adds docs/b's after docs/a's, whose `--kb` left docs/b unrecorded."""
    text = theirs.decode("utf-8")
    eol = "\r\n" if "\r\n" in text else "\n"
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    config = yaml.safe_load(text)
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    found = [] if root is None else _find_ours(root, config, lines)
    _item_lines, check = _template_hook(ours.decode("utf-8"))
    check.pop("args", None)  # a subfolder's: each hook names its own
    template = ours.decode("utf-8")
    item, values = _template_item(template, REVIEW_HOOK)
    recorded = [_kb_of(hook) for repo in config.get("repos") or [] if isinstance(repo, dict)
                for hook in repo.get("hooks") or [] if isinstance(hook, dict)
                and hook.get("id") == REVIEW_HOOK]
    if not found or not all(is_current(h.values, check) for h in found) \
            or _kb_of(values) in recorded:
        return None, None
    reviews = [] if root is None else _find_ours(root, config, lines, (REVIEW_HOOK,))
    last = max(reviews or found, key=lambda h: h.last)  # after the other knowledge bases'
    if not re.match(r"[ \t]*-([ \t]|$)", lines[last.first]):
        return None, None  # a hook in flow style: left as it is
    if recorded:  # kb's comment lines are above the first one's
        item = [line for line in item if comment(line) is None]
    out = lines[:last.last + 1] + _item(item, lines[last.first], None) + lines[last.last + 1:]
    out, said = _commit_msg_installed(out, config, template)
    merged = "\n".join(out)
    after = yaml.safe_load(merged)
    expected = [list(repo.get("hooks") or []) for repo in config["repos"]]
    hooks = expected[_repo_of(config, last.values)]
    hooks.insert(hooks.index(last.values) + 1, values)
    if [repo.get("hooks") or [] for repo in after.get("repos") or []] != expected:
        return None, None
    note = ("kb's kb-review-record hook added (a commit verifying a document by hand records "
            "what it approves" + (f" in {_kb_of(values) or 'the root'}" if recorded else "") + ")"
            + (f"; {said}" if said else "")
            + ": run pre-commit install again to install it")
    return merged.replace("\n", eol).encode("utf-8"), note


def _kb_of(hook: dict[str, Any]) -> str | None:
    """The knowledge base a kb-review-record hook records: its `--kb` folder, without a
    final `/` (None: the one kb.toml at the root names)."""
    args = [str(a) for a in hook.get("args") or [] if isinstance(a, str | int)]
    for at, arg in enumerate(args):
        folder = (args[at + 1] if arg == "--kb" and at + 1 < len(args)
                  else arg[len("--kb="):] if arg.startswith("--kb=") else None)
        if folder is not None:
            return folder.rstrip("/") or None
    return None


def _repo_of(config: dict[str, Any], hook: dict[str, Any]) -> int:
    """The index of the repos: entry holding `hook` (by identity of its values)."""
    return next(i for i, repo in enumerate(config["repos"]) if isinstance(repo, dict)
                and any(h == hook for h in repo.get("hooks") or []))


def _commit_msg_installed(lines: list[str], config: Any, template: str
                          ) -> tuple[list[str], str | None]:
    """`lines` with commit-msg among `default_install_hook_types` (the template's line when
    the file names none; appended to a one-line flow list lacking it) and, when the file
    names no `default_stages`, one naming the types it installed before (so its hooks
    without `stages:` do not run again on the commit message); and what was changed, or
    what to do when the list could not be extended."""
    if not isinstance(config, dict):
        return lines, None
    at = next((i for i, line in enumerate(lines) if re.match(r"repos:[ \t]*(#.*)?$", line)),
              len(lines))
    types = config.get("default_install_hook_types")
    ours = yaml.safe_load(template)
    before = [t for t in (types if isinstance(types, list) else ours["default_stages"])
              if isinstance(t, str) and t not in ("commit-msg", "prepare-commit-msg")]
    said = []
    out = list(lines)
    if types is None:
        line = next(line for line in template.splitlines()
                    if line.startswith("default_install_hook_types:"))
        out.insert(at, line)
        at += 1
        said.append("default_install_hook_types added")
    elif isinstance(types, list) and "commit-msg" not in types:
        where = next((i for i, line in enumerate(out) if re.match(
            r"default_install_hook_types:[ \t]*\[[^\]#]*\][ \t]*(#.*)?$", line)), None)
        if where is None:
            return out, ("add commit-msg to its default_install_hook_types for "
                         "kb-review-record to run")
        end = out[where].index("]")  # the list's end: it holds no `]`
        out[where] = out[where][:end].rstrip(" \t") + ", commit-msg" + out[where][end:]
        said.append("commit-msg added to default_install_hook_types")
    if "default_stages" not in config:
        out.insert(at, "default_stages: [" + ", ".join(before or ["pre-commit"]) + "]")
        said.append("default_stages added (its hooks without stages: run where they ran)")
    return out, "; ".join(said) or None


def _item(template_item: list[str], first_line: str, folder: str | None) -> list[str]:
    """The lines of the template's hook item at the indentation of a hook's first line
    (`first_line`), its `args:` naming `folder` (None: the one kb.toml names)."""
    indent = first_line[:len(first_line) - len(first_line.lstrip())]
    item = [indent + line[6:] if line.startswith("      ") else line for line in template_item]
    if folder is not None:
        item.append(indent + "  args: [" + _json_str(folder) + "]")
    return item


def has_our_hooks(config: Any) -> bool:
    """Whether a loaded .pre-commit-config.yaml has a hook with one of kb's ids."""
    repos = config.get("repos") if isinstance(config, dict) else None
    return isinstance(repos, list) and any(
        hook.get("id") in OUR_HOOKS for repo in repos if isinstance(repo, dict)
        for hook in repo.get("hooks") or () if isinstance(hook, dict))


def _install_types(template: str) -> str:
    return next(line for line in template.splitlines()
                if line.startswith("default_install_hook_types:"))


def _template_hook(template: str) -> tuple[list[str], dict[str, Any]]:
    """The lines of the template's hook item (its comments above it included) and its
    values."""
    return _template_item(template, "kb-check")


def _template_item(template: str, hook_id: str) -> tuple[list[str], dict[str, Any]]:
    """The lines of the template's hook `hook_id` (the comment lines above it included, up
    to the next hook's) and its values."""
    lines = template.rstrip("\n").split("\n")
    hooks = yaml.safe_load(template)["repos"][0]["hooks"]
    root = yaml.compose(template, Loader=yaml.SafeLoader)
    repos = _value(root, "repos") if root is not None else None
    hooks_node = _value(repos.value[0], "hooks") if isinstance(repos, yaml.SequenceNode) \
        else None
    if not isinstance(hooks_node, yaml.SequenceNode):
        raise AssertionError("kb init's template: repos[0].hooks, a block list")
    nodes = hooks_node.value
    starts = [next(i for i, line in enumerate(lines) if line.strip() == "hooks:") + 1]
    for node in nodes[1:]:
        start = node.start_mark.line
        while comment(lines[start - 1]) is not None:
            start -= 1
        starts.append(start)
    starts.append(len(lines))
    at = next(i for i, hook in enumerate(hooks) if hook.get("id") == hook_id)
    return lines[starts[at]:starts[at + 1]], dict(hooks[at])


def _find_ours(root: yaml.Node, config: Any, lines: list[str],
               ids: tuple[str, ...] = OUR_HOOKS) -> list[_Hook]:
    """kb's hooks (by id: `ids`, in `repo: local` entries) in file order, with their line
    spans."""
    found: list[_Hook] = []
    repos = _value(root, "repos")
    if not isinstance(repos, yaml.SequenceNode):
        return found
    for r, repo in enumerate(repos.value):
        hooks = _value(repo, "hooks")
        if _scalar(_value(repo, "repo")) != "local" or not isinstance(hooks, yaml.SequenceNode):
            continue
        for h, hook in enumerate(hooks.value):
            values = config["repos"][r]["hooks"][h]
            if not isinstance(hook, yaml.MappingNode) or not isinstance(values, dict) \
                    or values.get("id") not in ids:
                continue
            first = hook.start_mark.line
            if not lines[first].lstrip().startswith("-") and first > 0 \
                    and lines[first - 1].strip() == "-":
                first -= 1  # `-` alone on the line above
            last = max(_last_line(value) for _key, value in hook.value)
            while last > first and (not lines[last].strip()
                                    or lines[last].lstrip().startswith("#")):
                last -= 1
            found.append(_Hook(values, first, last))
    return found


def _value(node: yaml.Node, key: str) -> yaml.Node | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    return next((v for k, v in node.value if _scalar(k) == key), None)


def _scalar(node: yaml.Node | None) -> str | None:
    return node.value if isinstance(node, yaml.ScalarNode) else None


def _last_line(node: yaml.Node) -> int:
    """The last line holding `node`'s text (a block scalar's end mark is past its end)."""
    end = node.end_mark
    return end.line if end.column > 0 or end.line == node.start_mark.line else end.line - 1


def _json_str(text: str) -> str:
    """A YAML double-quoted scalar (a JSON string is one): a folder with spaces, `#` or
    `: ` stays one value."""
    return json.dumps(text, ensure_ascii=False)


def _same_but_ours(before: Any, after: Any, new_hooks: list[dict[str, Any]]) -> bool:
    """Whether `after` is `before` with kb's hooks replaced by `new_hooks` and, at most,
    `default_install_hook_types` added: nothing of the project's changed."""
    if not isinstance(after, dict) or not isinstance(before, dict):
        return False

    def strip(config: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        repos = []
        mine = []
        for repo in config.get("repos") or []:
            hooks = [h for h in repo.get("hooks") or [] if h.get("id") not in OUR_HOOKS]
            mine += [h for h in repo.get("hooks") or [] if h.get("id") in OUR_HOOKS]
            repos.append({**repo, "hooks": hooks} if "hooks" in repo else repo)
        rest = {k: v for k, v in config.items()
                if k not in ("repos", "default_install_hook_types")}
        return {"repos": repos, **rest}, mine

    kept_before, _ = strip(before)
    kept_after, mine = strip(after)
    types = before.get("default_install_hook_types")
    return (kept_before == kept_after and mine == new_hooks
            and (types is None or after.get("default_install_hook_types") == types)
            and all(repo.get("hooks") for repo in after.get("repos") or []
                    if "hooks" in repo))
