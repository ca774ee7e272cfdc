"""Review policy: `verified: true` only arrives through a reviewer.

- `reviewers_for(path, cfg)`: CODEOWNERS-style patterns from kb.toml `[review.reviewers]`.
- `judge_doc(...)`: the pure policy over one document's history (a list of `DocChange`).
- `check_range(cfg, base, head)`: `kb review check`, the rule CI runs on pull requests.
- `review_settings(...)`: the [review] settings that judge one review commit (those from
  before it landed), for the build's verdict on history (`kbtools.review.lapse`).

The rules, for every document changed in the range that is verified at `head`:
  review-not-reviewer        verified_by is not a reviewer for the document's path
  review-unverified-change   content changed after the last verification
  review-stale-verification  verified_at is earlier than the last content change
  review-verified-at-future  verified_at is later than the commit that set it
  review-unattested          the verifying commit is not by the reviewer and has no trailer
  review-wrong-trailer       ... it has Reviewed-by trailers, but none names verified_by
  review-self-review         the reviewer authored content they verified (four eyes)
  review-moved-approval      the verifying commit records other content than the document
                             has at it (an approval cherry-picked, rebased or squashed)
  review-unrecorded-approval the verifying commit was rewritten (cherry-picked, rebased,
                             amended) and records no content, in a history that records it
  review-no-history          the commit that set verified: true, or the content it covers,
                             is not in the history (a shallow clone)
"Content" is defined in `kbtools.review.verification`.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from datetime import datetime, timedelta
from functools import lru_cache

import git

from kbtools.config import CONFIG_NAME, DEFAULTS, Config, parse_toml, toml_error
from kbtools.errors import ConfigError, ReviewError
from kbtools.findings import Finding
from kbtools.provenance import (
    DocChange,
    DocState,
    blob_texts,
    changed_docs,
    git_prefix,
    in_nested_repo,
    merge_base,
    require_repo,
    resolve_commit,
    state_at,
    submodules,
)
from kbtools.review.lineage import Lineage, base_of_landing, scan
from kbtools.review.verification import (
    MAILMAP_NAME,
    Mailmap,
    address,
    approved_other_content,
    approved_own_content,
    author_names,
    authored_by,
    commit_author,
    content_changed,
    content_fields_changed,
    covered_changes,
    cut_short,
    diff_lines,
    is_verified,
    last_verification,
    mapped,
    non_content_fields,
    parse_iso,
    parse_mailmap,
    record_reviewers,
    recording_since,
    reviewed_changes,
    rewritten_unrecorded,
    trailer_emails,
    unreviewed_change,
)

FUTURE_SLACK = timedelta(hours=1)  # clock skew allowed between verified_at and its commit

# A rule broken by one document: (front-matter key the finding points at, code, message).
Breach = tuple[str, str, str]

# ---------------------------------------------------------------- reviewers


@lru_cache(maxsize=256)
def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """CODEOWNERS-style glob: `**` any depth, `*`/`?` within one segment; a pattern
    without a slash matches at any depth; a trailing slash means everything below."""
    pat = pattern.strip()
    anchored = "/" in pat.rstrip("/")
    pat = pat.lstrip("/")
    if pat.endswith("/"):
        pat += "**"
    out, i = "", 0
    while i < len(pat):
        if pat.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pat.startswith("**", i):
            out += ".*"
            i += 2
        elif pat[i] == "*":
            out += "[^/]*"
            i += 1
        elif pat[i] == "?":
            out += "[^/]"
            i += 1
        elif pat[i] == "[":
            j = pat.find("]", i)
            if j == -1:
                out += re.escape(pat[i])
                i += 1
            else:
                out += fnmatch.translate(pat[i:j + 1])[4:-3]
                i = j + 1
        else:
            out += re.escape(pat[i])
            i += 1
    prefix = "" if anchored else "(?:.*/)?"
    # a pattern naming a directory covers everything below it, like CODEOWNERS
    return re.compile(f"^{prefix}{out}(?:/.*)?$")


def matches(pattern: str, path: str) -> bool:
    return bool(_pattern_regex(pattern).match(path))


def reviewers_for(path: str, cfg: Config) -> list[str]:
    """Reviewer emails (lower-case) for `path` (relative to the kb root); the last
    matching pattern in kb.toml wins, as in CODEOWNERS. [] when none matches. An entry may
    name a person with their address (`李明 <li.ming@x>`): its address counts (`address`)."""
    found: list[str] = []
    for pattern, emails in cfg.section("review").get("reviewers", {}).items():
        if matches(pattern, path):
            found = [address(e) for e in emails]
    return found


# ---------------------------------------------------------------- the policy (pure)


def judge_doc(path: str, head: DocState, changes: list[DocChange], reviewers: list[str],
              non_content: frozenset[str], mailmap: Mailmap | None = None,
              recorded_since: datetime | None = None) -> list[Finding]:
    """Policy findings for one document that is verified at head. `changes` newest first.
    Who wrote a commit, and whom a trailer names, are read through `mailmap` (the trusted
    revision's `.mailmap`, `trusted_mailmap`), as `git log --use-mailmap` prints them.
    `recorded_since`: when the history began recording approvals' content
    (`verification.recording_since`). Each finding is at the line of the front-matter key
    its breach names (`doc_breaches`), else at the `verified` line."""
    return [Finding(path, head.key_lines.get(key) or head.key_lines.get("verified") or 1, 1,
                    "error", code, message)
            for key, code, message in doc_breaches(path, head, changes, reviewers,
                                                   non_content, mailmap, recorded_since)]


def doc_breaches(path: str, head: DocState, changes: list[DocChange], reviewers: list[str],
                 non_content: frozenset[str], mailmap: Mailmap | None = None,
                 recorded_since: datetime | None = None) -> list[Breach]:
    """The rules `judge_doc` applies, as (front-matter key, code, message): the key lets a
    caller judging another text of the document (`kb check`, the work tree) name the line
    that key has there."""
    raw = head.meta.get("verified_by")
    if raw is not None and not isinstance(raw, str):
        # `[rita@ex.org]`, a number: one finding, not "verified_by ['rita@ex.org'] is not a
        # reviewer" and a missing "Reviewed-by: Name <['rita@ex.org']>" trailer
        said = [x for x in raw if isinstance(x, str)] if isinstance(raw, list) else []
        return [("verified_by", "review-not-reviewer", "verified_by must be one reviewer's "
                 f"email, written as text (verified_by: {(said or reviewers or ['EMAIL'])[0]})"
                 f", not a {type(raw).__name__}")]
    by = mapped(mailmap or {}, "", str(raw or ""))
    breaches = reviewer_breaches(path, by, reviewers)
    v = last_verification(changes)
    cut = cut_short(changes, v)
    if cut is not None:
        # git shows the boundary commit as the document's creation by its author: judging
        # that would blame (or clear) the wrong person
        breaches.append(("verified", "review-no-history",
                         f"the history of {path} stops at {cut.commit.short} (a shallow "
                         "clone): who wrote and who reviewed it cannot be checked; fetch "
                         "the full history (actions/checkout: fetch-depth: 0)"))
    elif v is None:
        breaches.append(("verified", "review-no-history", "cannot find the commit that set "
                         "verified: true (shallow clone? fetch full history)"))
    elif (moved := moved_approval_breach(path, changes[v])) is not None:
        # the approval is of other content: who wrote what it now stands on, and when, are
        # beside the point (a rewrite keeps the reviewer as its author and its dates)
        breaches.append(moved)
    elif (unrecorded := unrecorded_breach(path, changes[v], recorded_since)) is not None:
        breaches.append(unrecorded)  # as for a moved one: its dates say nothing
    elif landed_approval(changes[v], by, mailmap):
        # the commit records the content it holds and the reviewer's trailer beside that
        # record: the pull request they approved, squashed as it was approved
        breaches += freshness_breaches(head, changes, v, non_content, recorded=True)
        breaches += self_review_breaches(head, changes, v, by, non_content, mailmap,
                                         recorded=True)
    elif (squashed := reviewer_squash_breach(changes[v], by, non_content, mailmap)):
        breaches.append(squashed)
    elif (squashed := squash_breach(changes[v], by, mailmap)) is not None:
        # one finding: the commit's author, its date and its lost trailer follow from it
        breaches += [b for b in freshness_breaches(head, changes, v, non_content)
                     if b[1] != "review-stale-verification"]
        breaches.append(squashed)
    else:
        breaches += freshness_breaches(head, changes, v, non_content)
        breaches += attestation_breaches(changes[v], by, mailmap)
        breaches += self_review_breaches(head, changes, v, by, non_content, mailmap)
    return breaches


def moved_approval_breach(path: str, vch: DocChange) -> Breach | None:
    """The verifying commit records the content its reviewer approved
    (`Kb-Reviewed-Content:`, written by `kb review approve`) and the document at that commit
    differs from it: a cherry-pick, rebase or squash put the approval onto text nobody
    reviewed."""
    if not approved_other_content(vch):
        return None
    return ("verified", "review-moved-approval",
            f"the approval in {vch.commit.short} was made for other content than {path} has "
            "at that commit (its Kb-Reviewed-Content differs): it was cherry-picked, rebased "
            "or squashed onto a change its reviewer never saw; a reviewer must approve the "
            f"document as it is (kb review approve {path})")


def unrecorded_breach(path: str, vch: DocChange, recorded_since: datetime | None
                      ) -> Breach | None:
    """The verifying commit was rewritten (a cherry-pick, rebase or amend) and records no
    content, in a history whose approvals record it (`rewritten_unrecorded`). Why: a rewrite
    that dropped the `Kb-Reviewed-Content` line (a reword, a tool rebuilding messages) fell
    back to the date rules, which a rebase onto an earlier-dated edit passes: the reviewer
    was credited with text they never saw, as before the record existed."""
    if not rewritten_unrecorded(vch, recorded_since):
        return None
    commit = vch.commit
    return ("verified", "review-unrecorded-approval",
            f"the approval in {commit.short} was rewritten (authored "
            f"{commit.authored_at.isoformat()}, committed {commit.committed_at.isoformat()}: "
            "a cherry-pick, rebase or amend) and records no Kb-Reviewed-Content (a "
            "verification made by hand gets one from the commit-msg hook kb review record), "
            "as this repository's approvals have since "
            f"{recorded_since.isoformat() if recorded_since else '?'}: nothing shows its "
            f"reviewer saw {path} as it is at that commit; a reviewer must approve the "
            f"document as it is (kb review approve {path})")


def landed_approval(vch: DocChange, by: str, mailmap: Mailmap | None = None) -> bool:
    """The verifying commit is someone else's than the reviewer's, records the content the
    document has at it (`Kb-Reviewed-Content:`), and the paragraph holding that record
    names the reviewer in a `Reviewed-by:` trailer: their approval squashed into the change
    it approved (`git merge --squash`, GitHub's squash merge, a `git rebase -i` squash of
    the edit and the approval). Why: the squash's new author and date made it
    review-unattested and review-stale-verification (or review-self-review through GitHub's
    Co-authored-by trailer), though the record shows the reviewer approved exactly this
    text; a squash that changed it after the approval records other content
    (`review-moved-approval`)."""
    return bool(by) and commit_author(vch, mailmap) != by and approved_own_content(vch) \
        and by in record_reviewers(vch, mailmap)


def reviewer_squash_breach(vch: DocChange, by: str, non_content: frozenset[str],
                           mailmap: Mailmap | None = None) -> Breach | None:
    """The reviewer committed the squash of the change they approved themselves (`git merge
    --squash` makes whoever commits it the author of every line): the record shows they
    approved this text, but the history no longer shows who wrote it, so four eyes cannot
    be told. One finding saying so, not a stale date and a self-review."""
    if not by or commit_author(vch, mailmap) != by or not approved_own_content(vch) \
            or not content_changed(vch, non_content) or by not in record_reviewers(vch, mailmap):
        return None
    return ("verified_by", "review-self-review",
            f"{by} approved this content, then committed it in {vch.commit.short} (a squash "
            "merge makes its committer the author of the whole change, so who wrote it "
            "cannot be told): let the change's author or another maintainer squash-merge it, "
            "or merge with a merge commit; else another reviewer must verify it "
            "(kb review approve)")


def squash_breach(vch: DocChange, by: str, mailmap: Mailmap | None = None) -> Breach | None:
    """The verification is the reviewer's approval squash-merged with the change it
    approves: the verifying commit is someone else's and names the reviewer only in a
    `Co-authored-by:` trailer. Why: such a merge was three errors (self-review, no
    Reviewed-by trailer since the squash's message keeps it above its last paragraph, and
    verified_at before the squash's date), each with its own advice, for one cause."""
    if not by or commit_author(vch, mailmap) == by or by in trailer_emails(vch, mailmap) \
            or not authored_by(vch, by, mailmap):
        return None
    return ("verified_by", "review-self-review",
            f"{by}'s verification was squash-merged into {vch.commit.short} by "
            f"{vch.commit.author_email}: a squash merge makes the reviewer a co-author of the "
            "whole change (which they may not verify) and drops their commit, its date and "
            "its Reviewed-by trailer; merge reviewed pull requests with a merge commit; "
            "another reviewer must verify it now (kb review approve)")


def reviewer_breaches(path: str, by: str, reviewers: list[str]) -> list[Breach]:
    """verified_by must be set and name a reviewer for `path`."""
    if not by:
        return [("verified", "review-not-reviewer", "verified: true without verified_by")]
    if not reviewers:
        return [("verified_by", "review-not-reviewer",
                 f"verified_by {by} is not a reviewer: no reviewers are configured for {path} "
                 "in kb.toml [review.reviewers]")]
    if by not in reviewers:
        # a name alone (`verified_by: 李明`) is no one's address: say what to write
        what = "names no email address" if "@" not in by else "is not a reviewer"
        return [("verified_by", "review-not-reviewer",
                 f"verified_by {by} {what} for {path} (reviewers: {', '.join(reviewers)})")]
    return []


def freshness_breaches(head: DocState, changes: list[DocChange], v: int,
                       non_content: frozenset[str], recorded: bool = False) -> list[Breach]:
    """No content change after the verification at index `v`; verified_at neither before
    the last content change nor after the commit that set it. `recorded`: the verifying
    commit records the content it holds (`landed_approval`), so its own date is not the
    content's: verified_at is judged against the changes before it."""
    out: list[Breach] = []
    vch = changes[v]
    last = unreviewed_change(changes, non_content)  # after the verification at `v`
    if last is not None:
        fields = (content_fields_changed(last.after, last.before, non_content)
                  if last.before and last.after else [])
        what = ", ".join(fields) or "content"
        # at the changed field's line when a front-matter field changed (the body, or a
        # field since removed, has none: the verified line then)
        key = next((f for f in fields if f != "body" and f in head.key_lines), "verified")
        where = body_changes(vch.after, head) if vch.after is not None else ""
        out.append((key, "review-unverified-change",
                    f"{what} changed in {last.commit.short} by {last.commit.author_email} after "
                    f"the verification in {vch.commit.short}{where}; needs fresh verification "
                    "(kb review approve)"))
    at_raw = head.meta.get("verified_at")
    at = parse_iso(at_raw)
    if at is None:
        out.append(("verified_at", "review-stale-verification",
                    f"verified_at {at_raw!r} is not an ISO 8601 timestamp with offset"))
        return out
    # judged against the content the verification covers: a change after it is the
    # finding above already, not a second one (a merge's date would make it one)
    covered = next((ch for ch in changes[v + recorded:] if content_changed(ch, non_content)),
                   None)
    zone = zone_hint(at, vch.commit.committed_at)
    if covered is not None and at < covered.commit.authored_at:
        out.append(("verified_at", "review-stale-verification",
                    f"verified_at {at_raw} is earlier than the last content change it covers "
                    f"({covered.commit.authored_at.isoformat()} in {covered.commit.short})"
                    + zone))
    if at > vch.commit.committed_at + FUTURE_SLACK:
        out.append(("verified_at", "review-verified-at-future",
                    f"verified_at {at_raw} is later than the commit that set it "
                    f"({vch.commit.committed_at.isoformat()} in {vch.commit.short})" + zone))
    return out


def zone_hint(at: datetime, committed: datetime) -> str:
    """What to write when `at` (verified_at) is the verifying commit's clock time under
    another offset (`10:00:00Z` for a commit at 10:00 +08:00: the reviewer's local time
    with `Z`), else "". Why: "verified_at 2026-02-02T10:00:00Z is later than the commit that
    set it (2026-02-02T10:00:00+08:00)" showed one clock time twice, not the offset."""
    local = at.replace(tzinfo=committed.tzinfo)
    if at.utcoffset() == committed.utcoffset() or abs(local - committed) > FUTURE_SLACK:
        return ""
    return (f": its offset is not the commit's ({committed.isoformat()[19:]}): written in "
            f"local time? write verified_at: \"{local.isoformat()}\"")


MAX_RUNS = 5  # changed runs of lines a finding lists before "…"


def body_changes(reviewed: DocState, head: DocState) -> str:
    """Which body lines of `head` differ from the `reviewed` text, numbered in the file as
    `head` holds it: " (lines 16-18, 20)", " (lines deleted after line 15)", "" when the
    body is the same. What a reviewer looks at, as `kb check` names it."""
    if reviewed.body == head.body:
        return ""
    changed, deleted = diff_lines(reviewed.body, head.body)
    first = head.body_line - 1  # body line n is file line first + n
    runs: list[list[int]] = []
    for n in sorted(changed):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    if not runs:
        return f" (lines deleted after line {first + deleted[0] - 1})" if deleted else ""
    said = [f"{first + a}" if a == b else f"{first + a}-{first + b}" for a, b in runs]
    more = ", …" if len(said) > MAX_RUNS else ""
    plural = "s" if len(runs) > 1 or runs[0][0] != runs[0][1] else ""
    return f" (line{plural} {', '.join(said[:MAX_RUNS])}{more})"


def attestation_breaches(vch: DocChange, by: str, mailmap: Mailmap | None = None
                         ) -> list[Breach]:
    """The verifying commit is the reviewer's own or carries their Reviewed-by trailer."""
    trailers = trailer_emails(vch, mailmap)
    if commit_author(vch, mailmap) == by or by in trailers:
        return []
    if trailers:
        return [("verified_by", "review-wrong-trailer",
                 f"commit {vch.commit.short} sets verified_by {by} but its Reviewed-by "
                 f"trailer names {', '.join(trailers)}")]
    return [("verified_by", "review-unattested",
             f"commit {vch.commit.short} sets verified_by {by} but was authored by "
             f"{vch.commit.author_email} and has no 'Reviewed-by: Name <{by}>' trailer")]


def self_review_breaches(head: DocState, changes: list[DocChange], v: int, by: str,
                         non_content: frozenset[str], mailmap: Mailmap | None = None,
                         recorded: bool = False) -> list[Breach]:
    """Four eyes: the reviewer authored none of the content they verified. `recorded`: the
    verifying commit is their approval squashed into the change (`landed_approval`): a
    `Co-authored-by:` naming them there is what their approval commit left (GitHub's
    squash names every commit's author), not authorship; the commits before it count."""
    own = [ch for ch in covered_changes(changes, v, non_content)
           if authored_by(ch, by, mailmap) and not (recorded and ch is changes[v])]
    if own:
        # named only by a Co-authored-by trailer: a squash merge writes one for every
        # author of the pull request's commits, the reviewer's approval commit included
        co = [c.commit.short for c in own if commit_author(c, mailmap) != by]
        why = (f"; {', '.join(co)} names them in a Co-authored-by trailer (a squash merge "
               "names every commit's author so: merge reviewed pull requests with a merge "
               "commit)") if co else ""
        return [("verified_by", "review-self-review",
                 f"{by} verifies content they authored "
                 f"({', '.join(c.commit.short for c in own)}){why}; another reviewer must "
                 "verify it")]
    if author_names(head.meta.get("author"), by):
        return [("verified_by", "review-self-review",
                 f"{by} verifies a document whose author field names them; another reviewer "
                 "must verify it")]
    return []


# ---------------------------------------------------------------- kb review check


def trusted_settings(cfg: Config, repo: git.Repo, start: str, head: str, prefix: str
                     ) -> tuple[Config, list[Finding]]:
    """The [review] settings to enforce: those of kb.toml at the merge base, so a pull
    request cannot appoint its own reviewers. Falls back to head's kb.toml (then the
    working tree's) when the base has none, with a warning either way it matters.
    `start` and `head` are commit ids."""
    name = prefix + CONFIG_NAME
    base_text, head_text = blob_texts(repo, [(start, name), (head, name)])
    notes: list[Finding] = []
    text = base_text
    if base_text is None:
        text = head_text
        if head_text is not None:
            notes.append(Finding(CONFIG_NAME, 1, 1, "warning", "review-config-unbased",
                                 "kb.toml is not in the base revision; its reviewers "
                                 "come from the change under review"))
    if text is None:
        return cfg, notes
    try:
        section = parse_toml(text).get("review", {})
    except tomllib.TOMLDecodeError as exc:
        message, line = toml_error(exc, text)
        raise ConfigError(f"cannot parse at {start[:10]}: {message}", path=CONFIG_NAME,
                          line=line) from None
    if base_text is not None and head_text is not None and base_text != head_text:
        try:
            changed = parse_toml(head_text).get("review", {}) != section
        except tomllib.TOMLDecodeError:
            changed = True
        if changed:
            notes.append(Finding(CONFIG_NAME, 1, 1, "warning", "review-config-changed",
                                 "[review] settings change in this range; the base "
                                 "revision's reviewers were applied"))
    data = dict(cfg.data)
    data["review"] = {**DEFAULTS["review"], **section}
    return Config(root=cfg.root, data=data), notes


def trusted_mailmap(repo: git.Repo, base: str) -> Mailmap:
    """The `.mailmap` at the top of the repository at trusted commit `base` (what a pull
    request starts from, as for kb.toml): a mapping the change under review adds could make
    anyone's commit the reviewer's. Neither the work tree's file nor the user's
    `mailmap.file` counts, so every machine judges alike."""
    return parse_mailmap(blob_texts(repo, [(base, MAILMAP_NAME)])[0] or "")


def review_settings(repo: git.Repo, cfg: Config, review: str, head: str, prefix: str,
                    lineage: Lineage | None = None) -> Config:
    """The [review] settings that judge the review in commit `review` (as reached from
    `head`): kb.toml as it stood before that commit landed (`provenance.landing_base`: the
    pull request's base, or the parent of a direct push), so no commit can appoint its own
    reviewer or declare a field non-content for itself. A repository's first commit, or a
    base without kb.toml, is judged by the review commit's own kb.toml (the first policy)."""
    base = base_of_landing(repo, review, head, lineage)
    trusted, _ = trusted_settings(cfg, repo, base.sha if base is not None else review, review,
                                  prefix)
    return trusted


def check_range(cfg: Config, base: str, head: str = "HEAD") -> tuple[list[Finding], int]:
    """Run the review policy over the documents changed in base...head.

    Returns (findings sorted by path/line/code, number of documents examined)."""
    repo = require_repo(cfg.root)
    with repo:
        base_c, head_c = resolve_commit(repo, base), resolve_commit(repo, head)
        start = merge_base(repo, base_c, head_c)
        prefix = git_prefix(repo, cfg.root)
        knowledge = prefix + cfg.data["paths"]["knowledge"].strip("/")
        nested = submodules(repo, head_c.sha, knowledge)
        if nested:  # its documents' changes are not in this range: none could be judged
            raise ReviewError(in_nested_repo(nested[0][len(prefix):]))
        cfg, findings = trusted_settings(cfg, repo, start.sha, head_c.sha, prefix)
        nc = non_content_fields(cfg)
        docs = changed_docs(repo, start, head_c, knowledge)
        lineage = scan(repo, head_c.sha, work_tree=False) if docs else None
        mailmap = trusted_mailmap(repo, start.sha)
        for gpath in docs:
            rel = gpath[len(prefix):]
            state = state_at(repo, head_c.sha, gpath)
            if state is None or not state.ok or not is_verified(state.meta):
                continue  # unverified docs need no reviewer; `kb check` reports bad ones
            changes = reviewed_changes(repo, head_c.sha, gpath, nc, lineage)
            findings += judge_doc(rel, state, changes, reviewers_for(rel, cfg), nc, mailmap,
                                  recording_since(lineage))
    findings.sort(key=lambda f: (f.path, f.line, f.col, f.code))
    return findings, len(docs)
