"""What a draft must pass before it is committed (`kbtools.agents.draft`): its front matter
reads back as meant, it is valid against the front-matter and category schemas (an error
saying what to send), and `kb check` would pass it on its branch."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import git

from kbtools.agents.citation_text import narrow_width
from kbtools.agents.draft_anchors import cited_doc, path_start
from kbtools.agents.draft_text import argument_name
from kbtools.check.content import raw_problems
from kbtools.check.engine import check_document, make_context, max_document_bytes
from kbtools.check.fscache import FsCache
from kbtools.config import Config
from kbtools.corpus import parse_source
from kbtools.errors import UsageError, plural
from kbtools.gitobjects import read_blob
from kbtools.schemas import validator_for


def written_as_meant(cfg: Config, rel: str, document: str, meta: dict[str, Any]) -> None:
    """Refuse a rendered draft whose front matter does not read back as `meta` (with
    `verified: false`): nothing a body or a field brings may end the front matter early or
    add fields of its own."""
    src = parse_source(document, cfg.root / rel, rel)
    if src.errors or src.meta != meta or src.meta.get("verified") is not False:
        raise UsageError("draft front matter cannot be written as given (a field name or "
                         "value would change the front matter's fields)", path=rel)


def validate(cfg: Config, rel: str, text: str, category: str,
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


def passes_check(cfg: Config, rel: str, document: str, committed: frozenset[str],
                  said: Callable[[int], str] = lambda n: f"line {n}",
                  argument: Callable[[str], str] = argument_name) -> None:
    """Refuse a draft that `kb check` would fail (a link to a file that does not exist, a
    formula that does not render, a malformed decision table…): its first error, in one line.
    Checked as on its branch: a link target counts only when the base commit holds it
    (`committed`, from `commit_paths`), not a file only this work tree has; and its bytes as
    `kb check` reads a file's (its size within kb.toml `[check] max_bytes`). A line is
    named as `said` names it (`lines_said`: the body's line the caller sent); a draft too
    large names the argument that made it so, as `argument` spells it."""
    found, _ = raw_problems(document.encode("utf-8"), max_document_bytes(cfg))
    raw = [p for p in found if p[1] == "error"]
    if raw:
        code, _, line, _, message = raw[0]
        if code == "file-too-large":  # the whole file's: what the caller sent made it so
            raise UsageError(f"the draft would fail kb check: {code}: {message}; shorten "
                             f"{argument('body')}, or file it as several reports", path=rel)
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


# a textual citation's lines after its document's name (`x.md:65-73`): the path before it is
# read back from there (`draft_anchors.path_start`)
_CITED_LINES = re.compile(r"\.(?:md|markdown):(\d{1,9})(?:-(\d{1,9}))?", re.IGNORECASE)
_DASHES = str.maketrans(dict.fromkeys("~〜–—", "-"))  # a range's, one character for one


def cited_past_end(repo: git.Repo, cfg: Config, base: str, prefix: str, folder: str,
                   committed: frozenset[str], text: str) -> None:
    """Refuse a draft whose `text` cites lines past the end of a document as its base commit
    `base` holds it (``pump.md:900-910`` of a 40-line file): such a citation reads nothing,
    and a reviewer cannot tell what it meant. A citation written with an input method's
    full-width colon, digits or dash is read as the ASCII one; one of a document the base
    does not hold is left to the reviewer; a superscript after the lines is a footnote's mark,
    no digit of them (``a.md:40²``: `narrow_width`)."""
    narrow = narrow_width(text).translate(_DASHES)
    knowledge = cfg.path("knowledge").relative_to(cfg.root).as_posix()
    for m in _CITED_LINES.finditer(narrow):
        start = path_start(narrow, m.start())
        path = narrow[start:m.start() + m.group(0).index(":")]
        doc = cited_doc(path, knowledge, folder, committed)
        if doc is None:
            continue
        data = read_blob(repo, f"{base}:{prefix}{doc}")
        if data is None:
            continue
        lines = data.decode("utf-8", "replace")
        count = lines.count("\n") + (0 if lines.endswith("\n") or not lines else 1)
        last = max(int(m.group(1)), int(m.group(2) or m.group(1)))
        if last > count:
            raise UsageError(f"the draft cites {text[start:m.end()]}, past the end of {doc} "
                             f"({plural(count, 'line')} at its base {base[:12]}); cite lines "
                             "it has, as a search result's citation gives them")
