"""Drafts: unverified documents written back by people or agents, on their own branch.

`create_draft` writes one schema-valid Markdown document with `verified: false` as a
single commit on a new branch `draft/<YYYY-MM-DD>-<slug>`. It builds the blob, tree and
commit objects through a private temporary index, so the user's checked-out branch,
index and working tree are never touched, and nothing is ever committed to main.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import shutil
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import git
from git.util import Actor

from kbtools.check.content import raw_problems
from kbtools.check.engine import check_document, make_context, max_document_bytes
from kbtools.check.fscache import FsCache
from kbtools.config import CONFIG_NAME, Config, load_config
from kbtools.corpus import parse_source
from kbtools.errors import KbError, UsageError, bidi_control, valid_unicode
from kbtools.fsutil import exclusive_lock, staging_dir
from kbtools.gitobjects import (
    CommitInfo,
    commit_paths,
    exists,
    git_reason,
    read_commit,
    write_blob,
)
from kbtools.pathspecs import literal
from kbtools.provenance import (
    git_identity,
    git_prefix,
    in_nested_repo,
    nested_repo,
    plain_paths,
    require_repo,
)
from kbtools.review.drafts import remote_branch, remote_names
from kbtools.review.verification import VERIFICATION_FIELDS
from kbtools.schemas import categories, schema_path, validator_for

DEFAULT_SOURCE = "field report"
SLUG_MAX = 48
DRAFT_INDEX_DIR = "kb/draft-index"  # under the git dir: where drafts' private indexes live
# under the common git dir (one for every worktree: `git worktree add` shares the branches
# drafts are filed on): held while a draft is looked for and filed
DRAFT_LOCK = "kb/draft.lock"
DRAFT_COMMIT_CONFIG = "i18n.commitEncoding=UTF-8"  # `_commit_with_index`: its message's bytes
KEY_TRAILER = "Draft-Key"  # the commit message's trailer naming what was filed (`draft_key`)
KEY_CHARS = 16
# fields the call sets (a body's front matter gives author, source, location only when the
# call does not; timestamp never), besides title, category and the verification fields
CALL_FIELDS = ("author", "source", "location", "timestamp")
MAX_NAME_TRIES = 100  # branch names tried when drafts of one title are filed at once

def argument_name(name: str) -> str:
    """How an error names an argument of `create_draft` to its caller: as the library and the
    MCP tool take it (the CLI passes its flags, `--location`)."""
    return f"the {name} argument"


CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


@dataclass(frozen=True)
class Draft:
    branch: str
    path: str  # relative to the repo (kb) root
    commit: str
    existing: bool = False  # filed before by a call with the same inputs (a retry)
    merged: bool = False  # ... and merged since: the base it would be filed on holds it

    def to_dict(self) -> dict[str, str | bool]:
        return {"branch": self.branch, "path": self.path, "commit": self.commit,
                "existing": self.existing, "merged": self.merged}


def slugify(title: str) -> str:
    """ASCII slug from a title; non-ASCII titles get a short hash (CJK-safe, stable)."""
    ascii_part = re.sub(r"[^a-z0-9]+", "-", title.lower().encode("ascii", "ignore").decode())
    ascii_part = ascii_part.strip("-")[:SLUG_MAX].strip("-")
    if title.isascii() and ascii_part:
        return ascii_part
    digest = hashlib.sha256(title.encode("utf-8")).hexdigest()[:8]
    return f"{ascii_part}-{digest}" if ascii_part else digest


def _yaml_scalar(value: Any) -> str:
    import yaml

    dumped = yaml.safe_dump(value, allow_unicode=True, default_flow_style=True, width=10_000)
    dumped = dumped.strip().removesuffix("...").strip()
    if len(dumped.splitlines()) > 1:  # one line: every string double-quoted, breaks escaped
        dumped = yaml.safe_dump(value, allow_unicode=True, default_flow_style=True,
                                default_style='"', width=10_000).strip()
    return dumped


def render_document(meta: dict[str, Any], body: str) -> str:
    """The document: `meta` as front matter, a line a field (the key quoted as YAML needs
    it, so a key holding a newline or a colon stays one key), then `body`."""
    lines = ["---"] + [f"{_yaml_scalar(k)}: {_yaml_scalar(v)}" for k, v in meta.items()]
    return "\n".join([*lines, "---", ""]) + body.strip("\n") + "\n"


def lines_said(meta: dict[str, Any], body: str, text: str) -> Callable[[int], str]:
    """How an error names line `n` of the draft `render_document(meta, text)` makes, to the
    caller who sent `body` (the draft's `text` after its own front matter, if any): a line
    of the text as the line of `body` it came from ("line 3 of the body (line 13 of the
    draft)"), a line of the front matter the call wrote as such. An agent was told "line
    13" of a document it never saw and looked for it in its three-line body."""
    first = len(meta) + 3  # ---, a line a field, ---: then the text, stripped of blank lines
    given = body.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")
    written = text.strip("\n")
    end = len(given.rstrip("\n"))
    at = end - len(written)
    body_at = given.count("\n", 0, at) + 1 if written and at >= 0 and given[at:end] == written \
        else None

    def said(n: int) -> str:
        if n < first:
            return f"line {n} of the draft's front matter"
        if body_at is None:
            return f"line {n}"
        return f"line {body_at + n - first} of the body (line {n} of the draft)"
    return said


def _written_as_meant(cfg: Config, rel: str, document: str, meta: dict[str, Any]) -> None:
    """Refuse a rendered draft whose front matter does not read back as `meta` (with
    `verified: false`): nothing a body or a field brings may end the front matter early or
    add fields of its own."""
    src = parse_source(document, cfg.root / rel, rel)
    if src.errors or src.meta != meta or src.meta.get("verified") is not False:
        raise UsageError("draft front matter cannot be written as given (a field name or "
                         "value would change the front matter's fields)", path=rel)


# what shows a one-line value (a title, an author, a location) on two lines or drives a
# terminal: the C1 controls (NEL U+0085 among them, CSI U+009B) and Unicode's line and
# paragraph separators, which YAML escapes and every reader of the front matter gets back
ONE_LINE_BREAKS = "\u2028\u2029"


def _check_text(name: str, value: str | None, *, multiline: bool) -> None:
    """Refuse text a document cannot hold: NUL and other control characters (a body keeps
    tabs and newlines; a one-line value no C1 control or line separator either,
    `ONE_LINE_BREAKS`), and undecodable bytes or lone surrogates (not valid UTF-8)."""
    if value is None:
        return
    if not isinstance(value, str):
        raise UsageError(f"draft {name} must be text, not {type(value).__name__}")
    if valid_unicode(value) != value:
        raise UsageError(f"draft {name} is not valid UTF-8 text (undecodable bytes or lone "
                         "surrogates)")
    allowed = "\t\n\r" if multiline else ""
    bad = next((ch for ch in value if ord(ch) < 32 and ch not in allowed or ch == "\x7f"
                or not multiline and (0x80 <= ord(ch) <= 0x9f or ch in ONE_LINE_BREAKS)), None)
    if bad is not None:
        raise UsageError(f"draft {name} contains the control character {bad!r}; "
                         + ("only tabs and newlines are allowed" if multiline
                            else "it must be one line of text"))
    if not multiline and (bidi := bidi_control(value)) is not None:
        # a title, author or location is shown as one line everywhere (file name, results,
        # citations): "\u202egnp.exe" would read as exe.png. A body may hold the isolates
        # of right-to-left prose; `kb check` warns of each line that does.
        raise UsageError(f"draft {name} contains the bidirectional control character "
                         f"{bidi[1]}, which shows the text in another order than it is "
                         "written; remove it")


BLANK_LINES = re.compile(r"(?:[ \t]*\n)*")  # the empty lines a body may open with


def split_body(body: str, argument: Callable[[str], str] = argument_name
               ) -> tuple[dict[str, Any], str]:
    """A body may bring its own front matter: keep its fields, drop verification ones. A
    block between two `---` lines at its top that is not YAML fields is refused, naming the
    line (kept as text, its fields were lost without a word); a `---` never closed opens
    the text with a rule. Line breaks become LF: a client's CRLF or bare CR (old Mac text,
    some forms and terminals) made a draft `kb check` warns of, read as one line by other
    tools. A byte-order mark and blank lines before the block do not hide it: the body is
    written without them, so the block was a rule and a heading "key: value" in the draft
    and its fields were lost."""
    text = body.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")
    top = BLANK_LINES.match(text)
    if top is not None and text[top.end():].startswith("---"):
        text = text[top.end():]  # the document starts there: its body is written stripped
    if not text.startswith("---"):
        return {}, text
    src = parse_source(text, Path("draft.md"), "draft.md")
    if not src.fm_end_line:
        return {}, text
    bad = [e for e in src.errors if e.code != "fm-empty"]
    if bad:
        raise UsageError(f"{argument('body')} opens with a front-matter block (lines 1-"
                         f"{src.fm_end_line}) that is not YAML fields: line {bad[0].line}: "
                         f"{bad[0].message}; write them as `key: value` lines between the "
                         "two `---` lines")
    meta = {k: v for k, v in src.meta.items() if k not in VERIFICATION_FIELDS}
    return meta, src.body


def _validate(cfg: Config, rel: str, text: str, category: str,
              argument: Callable[[str], str]) -> None:
    src = parse_source(text, cfg.root / rel, rel)
    schemas_dir = cfg.path("schemas")
    for name in ("frontmatter", f"categories/{category}"):
        for err in validator_for(name, schemas_dir).iter_errors(src.meta):
            where = ".".join(str(p) for p in err.absolute_path) or "(front matter)"
            missing = [k for k in err.validator_value if k not in err.instance] if (
                err.validator == "required" and isinstance(err.instance, dict)) else []
            hint = (f" (pass {argument('location')})" if "location" in missing else
                    f" (give `{missing[0]}:` in a front-matter block at the top of "
                    f"{argument('body')})" if missing else _as_list(err, where))
            raise UsageError(f"draft front matter is invalid: {where}: {_reason(err)}{hint}",
                             path=rel)


QUOTED_MAX = 60  # characters of a refused value an error quotes
_LISTED = str.maketrans(dict.fromkeys("，、;；", ","))  # what separates a list typed as text


def _as_list(err: Any, where: str) -> str:
    """How to write a field the schema takes as a list that was given as one text (`crop:
    小麦、玉米`, `tags: a, b`): the list it reads as, for the caller to send; else nothing."""
    wanted = err.validator_value if err.validator == "type" else None
    if not isinstance(err.instance, str) or not (wanted == "array" or isinstance(
            wanted, list) and "array" in wanted):
        return ""
    items = [i.strip() for i in err.instance.translate(_LISTED).split(",") if i.strip()]
    return f" (write it as a list: `{where}: [{', '.join(items)}]`)" if items else ""


def _reason(err: Any) -> str:
    """A schema error's message with the value it quotes shortened: a 5,000-character title
    filled the one-line error an agent reads, so "is too long" was cut off (and its limit
    was never said)."""
    value = err.instance
    message: str = err.message
    if isinstance(value, str) and len(value) > QUOTED_MAX:
        message = message.replace(repr(value), repr(value[:QUOTED_MAX]) + "…", 1)
    if err.validator in ("maxLength", "minLength"):
        bound = "at most" if err.validator == "maxLength" else "at least"
        message += f" ({bound} {err.validator_value} characters)"
    return message


def _passes_check(cfg: Config, rel: str, document: str, committed: frozenset[str],
                  said: Callable[[int], str] = lambda n: f"line {n}") -> None:
    """Refuse a draft that `kb check` would fail (a link to a file that does not exist, a
    formula that does not render, a malformed decision table…): its first error, in one line.
    Checked as on its branch: a link target counts only when the base commit holds it
    (`committed`, from `commit_paths`), not a file only this work tree has; and its bytes as
    `kb check` reads a file's (its size within kb.toml `[check] max_bytes`). A line is
    named as `said` names it (`lines_said`: the body's line the caller sent)."""
    found, _ = raw_problems(document.encode("utf-8"), max_document_bytes(cfg))
    raw = [p for p in found if p[1] == "error"]
    if raw:
        code, _, line, _, message = raw[0]
        where = said(line) if line > 1 else f"line {line}"  # line 1: the whole file's
        raise UsageError(f"the draft would fail kb check: {where}: {code}: {message}",
                         path=rel)
    src = parse_source(document, cfg.root / rel, rel)
    parts = rel.split("/")
    own = {"/".join(parts[:n]) for n in range(1, len(parts) + 1)}  # the draft and its folders
    fs = FsCache(cfg.root, tracked=committed | own,
                 untracked="is not committed, and a draft is based on the last commit")
    ctx = replace(make_context(cfg), fs=fs)
    errors = [f for f in check_document(src, ctx) if f.level == "error"]
    if not errors:
        return
    first = errors[0]
    hint = (f"; a link is relative to the draft's folder {posixpath.dirname(rel)}/"
            if first.code.startswith("path-") else "")
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    raise UsageError(f"the draft would fail kb check: {said(first.line)}: {first.code}: "
                     f"{first.message}{hint}{more}", path=rel)


def _free_name(repo: git.Repo, base: CommitInfo | None, branch: str, gpath: str
               ) -> tuple[str, str]:
    """The first branch name and path from `branch`/`gpath` (then `-2`, `-3`, …) that no
    branch here or at a remote fetched from (`origin/draft/...`: a draft another clone
    filed and pushed; a remote's name may hold a slash, `team/origin`) holds, and no file
    of `base`: a draft of the same title filed the same day elsewhere would otherwise
    refuse this one's push, or conflict when merged."""
    remote = repo.git.for_each_ref("--format=%(refname)", "refs/remotes/").split("\n")
    remotes = remote_names(repo)
    existing = {h.name for h in repo.heads} | {
        remote_branch(ref, remotes) for ref in remote if ref}
    stem, n = gpath.removesuffix(".md"), 1
    while True:
        suffix = "" if n == 1 else f"-{n}"
        b, p = branch + suffix, f"{stem}{suffix}.md"
        taken = b in existing or (base is not None and exists(repo, base.sha, p))
        if not taken:
            return b, p
        n += 1


def create_draft(repo_root: Path, category: str, title: str, body: str, *,
                 author: str | None = None, location: str | None = None,
                 extra_meta: dict[str, Any] | None = None, source: str | None = None,
                 base: str = "HEAD", now: datetime | None = None,
                 argument: Callable[[str], str] = argument_name) -> Draft:
    """Commit a new unverified document on a new `draft/...` branch based on `base`.

    Front matter: title, category, source, author (argument, else Git user name),
    timestamp (now, with offset), verified: false, location when given, plus
    `extra_meta` and any front matter the body carries (verification fields and timestamp
    dropped; its author, source and location only where the call gives none).
    The same inputs filed again the same day (a retry after a timeout) file nothing: the
    draft filed first is returned, `existing=True`.
    Raises UsageError for an unknown category or a result that fails the schema; an error
    that asks for an argument names it as `argument` spells it (the CLI: its flag).
    """
    for name, value in (("category", category), ("title", title), ("body", body),
                        ("author", author), ("location", location), ("source", source)):
        _check_text(name, value, multiline=name == "body")
    cfg = draft_config(repo_root)
    known = categories(cfg.path("schemas"))
    if category not in known or schema_path(f"categories/{category}", cfg.path("schemas")) is None:
        raise UsageError(f"unknown category {category!r} (known: {', '.join(known)})")
    if not title.strip():
        raise UsageError("a draft needs a non-empty title")
    repo = require_repo(cfg.root)
    with repo:
        name, email = git_identity(repo)
        body_meta, text = split_body(body, argument)
        # the call's own author, source and location win over a body's; the timestamp is
        # when it is filed: a body could otherwise pass an agent's report off as a manual's
        fill = {k: body_meta.pop(k) for k in CALL_FIELDS if k in body_meta}
        who = author or fill.get("author") or name or email
        who = who.strip() if isinstance(who, str) else who
        if not who:
            raise UsageError(f"no author: pass {argument('author')} or set git config "
                             "user.name")
        # a blank location is none (a field report that needs one is refused for the lack),
        # as a blank title or author is: "  " was filed as the report's location
        location = location or fill.get("location")
        location = location.strip() if isinstance(location, str) else location
        when = (now or datetime.now().astimezone()).isoformat(timespec="seconds")
        meta: dict[str, Any] = {"title": title.strip(), "category": category,
                                "source": source or fill.get("source") or DEFAULT_SOURCE,
                                "author": who, "timestamp": when}
        if location:
            meta["location"] = location
        if "lang" not in body_meta and not (extra_meta or {}).get("lang"):
            meta["lang"] = "zh" if CJK.search(title + text) else "en"
        for extra in (body_meta, extra_meta or {}):
            meta.update({k: v for k, v in extra.items()
                         if k not in VERIFICATION_FIELDS and k not in ("title", "category")})
        meta["verified"] = False  # never anything else, whatever the inputs said
        folder = (cfg.section("categories").get(category, {}).get("folder")
                  or cfg.data["paths"]["drafts"]).strip("/")
        if (nested := nested_repo(cfg.root, f"{folder}/draft.md")) is not None:
            raise KbError(in_nested_repo(nested), path=folder)
        day = when[:10]
        slug = slugify(title)
        prefix = git_prefix(repo, cfg.root)
        if base == "HEAD":
            settled_head(repo)
        base_commit = read_commit(repo, base)  # None for HEAD in a repository without
        if base_commit is None and base != "HEAD":  # commits: the draft is the root
            raise UsageError(f"unknown Git revision {base!r}")
        document = render_document(meta, text)
        key = draft_key(meta, text)
        message = (f"Draft: {meta['title']}\n\nUnverified {category} written with "
                   f"kb draft new; needs review before it can be verified.\n\n"
                   f"{KEY_TRAILER}: {key}\n")
        try:
            lock = _filing_lock(repo)
        except OSError as exc:
            raise write_failure(repo, exc) from None
        with lock:  # a retried call waits for the one it repeats, then finds its draft
            if (filed := _filed_before(repo, f"draft/{day}-{slug}", key, prefix)) is not None:
                return filed
            if base_commit is not None and (merged := _merged_before(
                    repo, base_commit.sha, f"{prefix}{folder}/{day}-{slug}", key)) is not None:
                return replace(merged, path=merged.path[len(prefix):])
            committed = commit_paths(repo, base_commit.sha if base_commit else None, prefix)
            return _file(repo, cfg, base_commit, f"draft/{day}-{slug}",
                         f"{prefix}{folder}/{day}-{slug}.md", prefix, document, meta, message,
                         argument, Actor(name or who, email or "kb-draft@localhost"),
                         committed, lines_said(meta, body, text))


# what a file in a worktree's git dir says is under way there, and how to end it: HEAD is then
# a commit the operation is still writing (a rebase's rewritten one), not a branch's
IN_PROGRESS = (("rebase-merge", "a rebase", "git rebase --continue or git rebase --abort"),
               ("rebase-apply", "a rebase", "git rebase --continue or git rebase --abort"),
               ("MERGE_HEAD", "a merge", "commit it or git merge --abort"),
               ("CHERRY_PICK_HEAD", "a cherry-pick",
                "git cherry-pick --continue or git cherry-pick --abort"),
               ("REVERT_HEAD", "a revert", "git revert --continue or git revert --abort"),
               ("BISECT_LOG", "a bisect", "git bisect reset"))


def settled_head(repo: git.Repo) -> None:
    """Refuse to base a draft on HEAD while HEAD is no branch's commit: during a rebase,
    merge, cherry-pick, revert or bisect (it is a commit the operation is still writing, or
    an old one), or detached at a commit no branch (local or fetched) holds. A draft is based
    on HEAD, so merging one filed there brought that commit into main with it."""
    git_dir = Path(repo.git_dir)
    for name, what, end in IN_PROGRESS:
        if (git_dir / name).exists():
            raise UsageError(f"{what} is in progress in this repository, so HEAD is not a "
                             f"branch's commit and a draft based on it would carry {what}'s "
                             f"unfinished work: finish it first ({end}); nothing was filed",
                             path=str(repo.working_tree_dir))
    try:
        repo.git.symbolic_ref("-q", "HEAD")
        return  # on a branch
    except git.GitCommandError:
        pass
    head = repo.git.rev_parse("--verify", "-q", "HEAD")
    if repo.git.for_each_ref("--count=1", "--contains", head, "refs/heads", "refs/remotes"):
        return  # detached at a commit a branch holds (a tag, CI's checkout): a clean base
    raise UsageError(f"HEAD is detached at {head[:12]}, a commit no branch holds: a draft "
                     "based on it would bring that commit along when merged; check out a "
                     "branch first (git switch main); nothing was filed",
                     path=str(repo.working_tree_dir))


def _file(repo: git.Repo, cfg: Config, base_commit: CommitInfo | None, branch_name: str,
          path: str, prefix: str, document: str, meta: dict[str, Any], message: str,
          argument: Callable[[str], str], actor: Actor, committed: frozenset[str],
          said: Callable[[int], str]) -> Draft:
    """Check `document` at the first free name from `branch_name`/`path` and commit it there."""
    category = meta["category"]
    for _ in range(MAX_NAME_TRIES):
        branch, gpath = _free_name(repo, base_commit, branch_name, path)
        rel = gpath[len(prefix):]
        _written_as_meant(cfg, rel, document, meta)
        _validate(cfg, rel, document, category, argument)
        _passes_check(cfg, rel, document, committed, said)
        try:
            sha = _commit_file(repo, base_commit, gpath, document.encode("utf-8"), message,
                               actor)
            made = _create_branch(repo, branch, sha)
        except (OSError, git.GitCommandError) as exc:
            raise write_failure(repo, exc) from None
        if made:
            return Draft(branch=branch, path=rel, commit=sha)
    raise UsageError(f"no free draft branch name for {branch_name!r} after {MAX_NAME_TRIES} "
                     "tries (drafts with this title are being filed at the same time)")


def draft_key(meta: dict[str, Any], text: str) -> str:
    """What makes two calls one draft: everything the document says but its timestamp (a
    retry after a timeout comes seconds later), as a hash kept in the commit message."""
    same = {k: v for k, v in meta.items() if k != "timestamp"}
    return hashlib.sha256(render_document(same, text).encode("utf-8")).hexdigest()[:KEY_CHARS]


def _filing_lock(repo: git.Repo) -> AbstractContextManager[None]:
    """One draft filed at a time in a repository, by any process in any of its worktrees:
    looking for an identical draft and filing a new one cannot interleave with another
    call's. The lock is in the common git dir, beside the branches every worktree shares (a
    worktree's own git dir would give each worktree a lock of its own)."""
    return exclusive_lock(Path(repo.common_dir).resolve() / DRAFT_LOCK)


def _filed_before(repo: git.Repo, branch: str, key: str, prefix: str) -> Draft | None:
    """The draft on `branch` (or one of its numbered twins) that a call with the same inputs
    filed (its tip carries `key`), e.g. before the caller's timeout and retry; or None. A
    remote's branch counts too (`origin/draft/...`: pushed for review and deleted here),
    named as the branch it is there."""
    remotes = remote_names(repo)
    twin = re.compile(re.escape(branch) + r"(-[0-9]+)?")
    pushed = [ref for ref in repo.git.for_each_ref("--format=%(refname)", "refs/remotes/"
                                                   ).split("\n")
              if ref and twin.fullmatch(remote_branch(ref, remotes))]
    listed = repo.git.for_each_ref("--format=%(refname)%00%(objectname)%00%(contents)%00",
                                   f"refs/heads/{branch}", f"refs/heads/{branch}-*", *pushed)
    fields = listed.split("\0")
    for ref, sha, contents in zip(fields[0::3], fields[1::3], fields[2::3], strict=False):
        if f"{KEY_TRAILER}: {key}" not in contents.splitlines():
            continue
        ref = ref.strip()
        name = (ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/")
                else remote_branch(ref, remotes))
        changed = repo.git.diff_tree("--root", "--no-commit-id", "--name-only", "-r", "-z", sha)
        paths = [p for p in changed.split("\0") if p.startswith(prefix) and p.endswith(".md")]
        if len(paths) == 1:
            return Draft(branch=name.strip(), path=paths[0][len(prefix):], commit=sha,
                         existing=True)
    return None


def _merged_before(repo: git.Repo, base: str, stem: str, key: str) -> Draft | None:
    """The draft a call with the same inputs filed today whose branch is gone because it was
    merged: `base` holds the file (`stem`.md or a numbered twin, repository paths) and, in
    its history, the commit that carries `key` (the draft's own, or a squash quoting its
    message). None when there is none, or the file was removed since (filed again)."""
    folder = posixpath.dirname(stem)
    found = plain_paths(repo).log(base, "-1", "--format=%H", "--fixed-strings",
                                  f"--grep={KEY_TRAILER}: {key}", "--", literal(folder)).strip()
    if not found:
        return None
    added = repo.git.diff_tree("--root", "--no-commit-id", "--name-only", "-r", "-z",
                               "--diff-filter=A", found).split("\0")
    own = re.compile(re.escape(stem) + r"(-[0-9]+)?\.md")
    for path in added:
        if own.fullmatch(path) and exists(repo, base, path):
            name = posixpath.basename(path).removesuffix(".md")
            return Draft(branch=f"draft/{name}", path=path, commit=found, existing=True,
                         merged=True)
    return None


def write_failure(repo: git.Repo, exc: OSError | git.GitCommandError) -> KbError:
    """The one line for a draft Git could not store (the disk full, the repository read-only):
    no branch was made, so nothing was filed."""
    return KbError(f"cannot write the draft into the repository: {git_reason(exc)}; nothing "
                   "was filed", path=str(repo.git_dir))


def draft_config(root: Path) -> Config:
    """The configuration of the knowledge repository at or above `root`, where drafts are
    filed: a Git repository holding kb.toml or the knowledge folder. Anything else (a device's
    synced release, a checkout of a release, an unrelated repository) is refused in one line:
    a draft committed there would be filed where no reviewer looks."""
    cfg = load_config(root)
    knowledge = cfg.data["paths"]["knowledge"]
    if not (cfg.root / CONFIG_NAME).is_file() and not cfg.path("knowledge").is_dir():
        raise UsageError(f"not a knowledge repository (no {CONFIG_NAME}, no {knowledge}/ "
                         "folder): drafts are filed as commits in the knowledge repository, "
                         "so work in a clone of it", path=str(cfg.root))
    with require_repo(cfg.root) as repo:
        try:  # Git may refuse the repository itself (owned by another user: safe.directory)
            repo.git.rev_parse("--git-dir")
        except git.GitCommandError as exc:
            raise KbError(f"Git cannot work in this repository: {git_reason(exc)}",
                          path=str(cfg.root)) from None
    return cfg


def _create_branch(repo: git.Repo, branch: str, sha: str) -> bool:
    """Create `branch` at `sha` only if no branch of that name exists (one atomic
    `git update-ref`); False when it does exist, e.g. because a draft of the same title was
    filed at the same moment by another call or process."""
    try:
        repo.git.update_ref(f"refs/heads/{branch}", sha, "0" * len(sha))  # null: must not exist
    except git.GitCommandError:
        if not repo.git.for_each_ref(f"refs/heads/{branch}"):
            raise  # not a name taken meanwhile: a real failure
        return False
    return True


def _commit_file(repo: git.Repo, base: CommitInfo | None, gpath: str, data: bytes,
                 message: str, actor: Actor) -> str:
    """Write one file on top of `base` as a new commit object; returns its sha. Uses a
    private index file so the repository's own index and work tree stay untouched: in a
    locked staging directory under the repository's git dir (`DRAFT_INDEX_DIR`), so the
    one a killed run leaves (it held the whole tree's index) is removed by the next draft."""
    with staging_dir(Path(repo.git_dir) / DRAFT_INDEX_DIR) as private:
        try:
            return _commit_with_index(repo, base, gpath, data, message, actor,
                                      str(private / "index"))
        finally:
            shutil.rmtree(private, ignore_errors=True)


def _commit_with_index(repo: git.Repo, base: CommitInfo | None, gpath: str, data: bytes,
                       message: str, actor: Actor, index: str) -> str:
    """`_commit_file` with the private index file `index`."""
    env = {"GIT_INDEX_FILE": index}
    if base is not None:
        repo.git.read_tree(base.sha, env=env)
    blob = write_blob(repo, data)
    repo.git.update_index("--add", "--cacheinfo", f"100644,{blob},{gpath}", env=env)
    tree = repo.git.write_tree(env=env)
    cenv = {"GIT_AUTHOR_NAME": actor.name, "GIT_AUTHOR_EMAIL": actor.email,
            "GIT_COMMITTER_NAME": actor.name, "GIT_COMMITTER_EMAIL": actor.email}
    args = [tree] + (["-p", base.sha] if base is not None else [])
    # the tool's commit of what it wrote, not one the user composed: the message is UTF-8
    # whatever i18n.commitEncoding says (a GBK label made it mojibake), and it is never
    # signed (commit.gpgSign with no key, or a passphrase prompt no agent can answer, would
    # fail or hang the draft; the reviewer's merge is what a signing policy signs)
    commit: str = repo.git(c=DRAFT_COMMIT_CONFIG).commit_tree(*args, "--no-gpg-sign", "-m",
                                                               message, env=cenv)
    return commit.strip()
