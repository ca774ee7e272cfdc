"""Drafts: unverified documents written back by people or agents, on their own branch.

`create_draft` writes one schema-valid Markdown document with `verified: false` as a
single commit on a new branch `draft/<YYYY-MM-DD>-<slug>`. It builds the blob, tree and
commit objects through a private temporary index, so the user's checked-out branch,
index and working tree are never touched, and nothing is ever committed to main.

Its parts: the text (`draft_text`: slug, front matter, the body's own block), what the draft
must pass (`draft_checks`: schemas, `kb check`), and the filing in Git (`draft_git`).
"""

from __future__ import annotations

import difflib
import hashlib
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import git
from git.util import Actor

from kbtools.agents.draft_anchors import cited_missing_heading
from kbtools.agents.draft_checks import (
    cited_past_end,
    passes_check,
    validate,
    written_as_meant,
)
from kbtools.agents.draft_git import (
    KEY_TRAILER,
    Draft,
    ReleaseRead,
    commit_file,
    create_branch,
    filed_before,
    filing_lock,
    free_name,
    merged_before,
    merged_into,
    settled_head,
    write_failure,
)
from kbtools.agents.draft_photos import Carried, Photo, carried, photos_key, with_photos
from kbtools.agents.draft_text import (
    CJK,
    argument_name,
    check_text,
    lines_said,
    render_document,
    slugify,
    split_body,
)
from kbtools.config import CONFIG_NAME, Config, key_line, load_config, portable_path
from kbtools.errors import ConfigError, KbError, UsageError, one_line, unpadded
from kbtools.gitobjects import CommitInfo, commit_paths, git_reason, read_commit
from kbtools.provenance import git_identity, git_prefix, in_nested_repo, nested_repo, require_repo
from kbtools.review.verification import VERIFICATION_FIELDS
from kbtools.schemas import categories, schema_path

DEFAULT_SOURCE = "field report"
KEY_CHARS = 16
# fields the call sets (a body's front matter gives author, source, location only when the
# call does not; timestamp never), besides title, category and the verification fields
CALL_FIELDS = ("author", "source", "location", "timestamp")
NAMED_ONCE = ("title", "category")  # the call names them; a body may repeat them
MAX_NAME_TRIES = 100  # branch names tried when drafts of one title are filed at once


def create_draft(repo_root: Path, category: str, title: str, body: str, *,
                 author: str | None = None, location: str | None = None,
                 extra_meta: dict[str, Any] | None = None, source: str | None = None,
                 base: str = "HEAD", now: datetime | None = None,
                 argument: Callable[[str], str] = argument_name,
                 photos: Sequence[Photo] = (), read_from: ReleaseRead | None = None) -> Draft:
    """Commit a new unverified document on a new `draft/...` branch based on `base`.

    Front matter: title, category, source, author (argument, else Git user name),
    timestamp (now, with offset), verified: false, location when given, plus
    `extra_meta` and any front matter the body carries (verification fields and timestamp
    dropped; its author, source and location only where the call gives none).
    `photos` (at most `draft_photos.MAX_PHOTOS` pictures, checked by their bytes) are
    committed with it under the assets folder and shown by a section its text ends with.
    The same inputs filed again the same day (a retry after a timeout) file nothing: the
    draft filed first is returned, `existing=True`. `read_from`: the release the report's
    citations were read from (MCP: the one `kb mcp` serves); when it was built from another
    commit than the draft's base (the branch moved since the device synced), the commit
    message says so, and the draft's `read_from` names it.
    Raises UsageError for an unknown category or a result that fails the schema; an error
    that asks for an argument names it as `argument` spells it (the CLI: its flag).
    """
    for name, value in (("category", category), ("title", title), ("body", body),
                        ("author", author), ("location", location), ("source", source)):
        check_text(name, value, multiline=name == "body")
    cfg = draft_config(repo_root)
    carry = carried(photos, str(cfg.data["paths"]["assets"]))
    known = categories(cfg.path("schemas"))
    category = known_category(category, known)
    if schema_path(f"categories/{category}", cfg.path("schemas")) is None:
        raise UsageError(f"unknown category {category!r} (known: {', '.join(known)})")
    body_meta, text = split_body(body, argument)
    title = named_once(body_meta, "title", title, argument)
    named_once(body_meta, "category", category, argument)
    if not unpadded(title):  # spaces, or a zero-width space alone: no title
        raise UsageError(f"a draft needs a non-empty title: pass {argument('title')}")
    repo = require_repo(cfg.root)
    with repo:
        name, email = git_identity(repo)
        # the call's own author, source and location win over a body's; the timestamp is
        # when it is filed: a body could otherwise pass an agent's report off as a manual's
        fill = {k: body_meta.pop(k) for k in CALL_FIELDS if k in body_meta}
        who = author or fill.get("author") or name or email
        who = unpadded(who) if isinstance(who, str) else who
        if not who:
            raise UsageError(f"no author: pass {argument('author')} or set git config "
                             "user.name")
        # a blank location is none (a field report that needs one is refused for the lack),
        # as a blank title or author is: "  " was filed as the report's location
        location = location or fill.get("location")
        location = unpadded(location) if isinstance(location, str) else location
        when = (now or datetime.now().astimezone()).isoformat(timespec="seconds")
        meta: dict[str, Any] = {"title": unpadded(title), "category": category,
                                "source": source or fill.get("source") or DEFAULT_SOURCE,
                                "author": who, "timestamp": when}
        if location:
            meta["location"] = location
        if "lang" not in body_meta and not (extra_meta or {}).get("lang"):
            meta["lang"] = "zh" if CJK.search(title + text) else "en"
        for extra in (body_meta, extra_meta or {}):
            meta.update({k: v for k, v in extra.items()
                         if k not in VERIFICATION_FIELDS and k not in NAMED_ONCE})
        meta["verified"] = False  # never anything else, whatever the inputs said
        folder = drafts_folder(cfg, category)
        if (nested := nested_repo(cfg.root, f"{folder}/draft.md")) is not None:
            raise KbError(in_nested_repo(nested), path=folder)
        day = when[:10]
        slug = slugify(meta["title"])
        prefix = git_prefix(repo, cfg.root)
        if base == "HEAD":
            settled_head(repo)
        base_commit = read_commit(repo, base)  # None for HEAD in a repository without
        if base_commit is None and base != "HEAD":  # commits: the draft is the root
            raise UsageError(f"unknown Git revision {base!r}")
        key = draft_key(meta, text, photos)
        other = read_from if read_from is not None and base_commit is not None and \
            read_from.differs(base_commit.sha) else None
        message = (f"Draft: {meta['title']}\n\nUnverified {category} written with "
                   f"kb draft new; needs review before it can be verified.\n\n"
                   + (f"{other.said(base_commit.sha)}\n\n" if other and base_commit else "")
                   + f"{KEY_TRAILER}: {key}\n")
        try:
            lock = filing_lock(repo)
        except OSError as exc:
            raise write_failure(repo, exc) from None
        with lock:  # a retried call waits for the one it repeats, then finds its draft
            if (filed := filed_before(repo, f"draft/{day}-{slug}", key, prefix)) is not None:
                return filed
            # merged into the base, or where the base's branch stands now (fetched, not
            # pulled: a retry from a clone behind the one whose draft was merged)
            for tip in ([base_commit.sha] if base_commit else []) + merged_into(repo, base_commit):
                if (merged := merged_before(repo, tip, f"{prefix}{folder}/{day}-{slug}",
                                            key)) is not None:
                    return replace(merged, path=merged.path[len(prefix):])
            committed = commit_paths(repo, base_commit.sha if base_commit else None, prefix)
            if base_commit is not None and other is None:  # lines read where the base has them
                cited_past_end(repo, cfg, base_commit.sha, prefix, folder, committed, text)
                cited_missing_heading(repo, cfg, base_commit.sha, prefix, folder, committed,
                                      text)
            made = _file(repo, cfg, base_commit, f"draft/{day}-{slug}",
                         f"{prefix}{folder}/{day}-{slug}.md", prefix, text, carry, meta,
                         message, argument, Actor(name or who, email or "kb-draft@localhost"),
                         committed, lines_said(meta, body, text))
            return replace(made, read_from=other)


def _file(repo: git.Repo, cfg: Config, base_commit: CommitInfo | None, branch_name: str,
          path: str, prefix: str, text: str, carry: Carried, meta: dict[str, Any],
          message: str, argument: Callable[[str], str], actor: Actor,
          committed: frozenset[str], said: Callable[[int], str]) -> Draft:
    """Check the draft of `meta` and `text` at the first free name from `branch_name`/`path`
    and commit it there, with the photos it carries (their section ends its text)."""
    category = meta["category"]
    for _ in range(MAX_NAME_TRIES):
        branch, gpath = free_name(repo, base_commit, branch_name, path, lambda g: [
            prefix + q for q in carry.paths(g[len(prefix):])])
        rel = gpath[len(prefix):]
        stored = carry.paths(rel)
        document = render_document(meta, with_photos(text, carry.photos, stored, rel,
                                                     meta.get("lang", "en")))
        written_as_meant(cfg, rel, document, meta)
        validate(cfg, rel, document, category, argument)
        # the photos' links name files of this commit, not of the work tree: the text the
        # caller sent is what `kb check` is asked of (the photos checked by their bytes)
        passes_check(cfg, rel, render_document(meta, text) if stored else document,
                     committed, said, argument)
        files = [(gpath, document.encode("utf-8")),
                 *((prefix + q, photo.data) for q, photo in zip(stored, carry.photos,
                                                                 strict=True))]
        try:
            sha = commit_file(repo, base_commit, files, message, actor)
            made = create_branch(repo, branch, sha)
        except (OSError, git.GitCommandError) as exc:
            raise write_failure(repo, exc) from None
        if made:
            return Draft(branch=branch, path=rel, commit=sha)
    raise UsageError(f"no free draft branch name for {branch_name!r} after {MAX_NAME_TRIES} "
                     "tries (drafts with this title are being filed at the same time)")


def named_once(body_meta: dict[str, Any], field: str, given: str,
               argument: Callable[[str], str]) -> str:
    """The draft's `field` (its title or category): the call's (`given`), or the body's own
    front matter's when the call's is blank. A body naming another one than the call is
    refused, naming both: the body's was dropped without a word, and the draft filed under
    a title its author never gave it."""
    said = body_meta.get(field)
    if said is None or (isinstance(said, str) and not unpadded(said)):
        return given
    if not isinstance(said, str):
        raise UsageError(f"the front matter of {argument('body')} gives {field} as "
                         f"{type(said).__name__} {one_line(str(said), 80)!r}; give the "
                         f"{field} as {argument(field)}")
    if not unpadded(given):
        return unpadded(said)
    if " ".join(said.split()) != " ".join(given.split()):
        raise UsageError(f"the front matter of {argument('body')} gives {field} "
                         f"{one_line(said, 80)!r} and {argument(field)} "
                         f"{one_line(given, 80)!r}: give the {field} once, as "
                         f"{argument(field)}")
    return given


def draft_key(meta: dict[str, Any], text: str, photos: Sequence[Photo] = ()) -> str:
    """What makes two calls one draft: everything the document says but its timestamp (a
    retry after a timeout comes seconds later) and the photos' bytes, as a hash kept in the
    commit message."""
    same = {k: v for k, v in meta.items() if k != "timestamp"}
    said = render_document(same, text) + photos_key(photos)
    return hashlib.sha256(said.encode("utf-8")).hexdigest()[:KEY_CHARS]


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


def category_key(category: str) -> str:
    """A category as two spellings of it compare: NFKC (full-width letters and `－`), case
    folded, its words joined by one hyphen whether typed with blanks, `_` or `-`."""
    words = unicodedata.normalize("NFKC", category).casefold().replace("_", " ")
    return "-".join(words.replace("-", " ").split())


def known_category(category: str, known: list[str]) -> str:
    """The one of `known` that `category` names: itself, or the one it spells but for case,
    width and word separators (``Field-Report``, ``field report``: ``field-report``).
    UsageError for another, saying the known one it is closest to (a misspelling)."""
    if category in known:
        return category
    same = [k for k in known if category_key(k) == category_key(category)]
    if len(same) == 1:
        return same[0]
    keys = {category_key(k): k for k in known}
    close = difflib.get_close_matches(category_key(category), list(keys), n=2, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(keys[c]) for c in close)}?" if close else ""
    raise UsageError(f"unknown category {one_line(category, 80)!r}{hint} (known: "
                     f"{', '.join(known)})")


def drafts_folder(cfg: Config, category: str) -> str:
    """The folder drafts of `category` are filed in, relative to the repository root: kb.toml
    ``[categories.<category>] folder``, else ``[paths] drafts``, read as every kb.toml path
    is (`portable_path`; a leading ``/`` means the root). One outside the knowledge folder is
    a ConfigError naming kb.toml's line: ``../notes`` crashed the filing with Git's "is
    outside repository" and a traceback, and ``notes`` or ``assets`` filed the draft where
    no build, check or review reads knowledge, without a word."""
    named = cfg.section("categories").get(category, {}).get("folder")
    raw = str(named if named else cfg.data["paths"]["drafts"])
    folder = portable_path(raw.strip().strip("/\\"))
    knowledge = portable_path(str(cfg.data["paths"]["knowledge"]).strip().strip("/"))
    inside = knowledge in ("", ".") or folder == knowledge or \
        folder.startswith(knowledge + "/")
    parts = folder.split("/")
    if inside and folder not in ("", ".") and ".." not in parts and ".git" not in parts:
        return folder
    keys = ["categories", category, "folder"] if named else ["paths", "drafts"]
    config = cfg.root / CONFIG_NAME
    try:
        line = key_line(config.read_text(encoding="utf-8-sig"), keys)
    except (OSError, UnicodeDecodeError):
        line = None
    where = f"[categories.{category}] folder" if named else "[paths] drafts"
    raise ConfigError(f"{where} = {one_line(raw, 80)!r} is no folder inside the knowledge "
                      f"folder {knowledge}/, where drafts are filed (a draft elsewhere is "
                      f"never checked, built or reviewed as knowledge): name one under "
                      f"{knowledge}/", path=str(config), line=line)
