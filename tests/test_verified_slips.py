"""`verified: true` may not slip past the reviewer by the way it is written or committed:
a byte-order mark and CRLF line ends (the policy and the build read the front matter
alike), the verification set by a non-reviewer in a merge commit, a non-reviewer's document
renamed onto a verified one's path with its verification copied, and an Obsidian embed
(`![[note]]`: nothing is transcluded, so a note edited later never speaks with a verified
document's voice). Each was checked before any code changed (session 35): guards, with
controls that stay verified. Real repositories, the real CLI (`kb build`, `kb review
check`)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from hostile import kb, make_repo
from test_review_trust import ALICE, MALLORY, REV, commit, doc, git, lapsed_docs, toml

G = "knowledge/general"


def crlf_bom(text: str) -> str:
    return "\ufeff" + text.replace("\n", "\r\n")


def verified_chunks(dist: Path, doc: str) -> list[tuple[str, int]]:
    with sqlite3.connect(dist / "index" / "store.sqlite") as con:
        return [(r[0], r[1]) for r in con.execute(
            "SELECT text, verified FROM chunks WHERE doc = ? ORDER BY num", (doc,))]


def test_verification_slips_are_caught_and_reviews_kept(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", docs={
        f"{G}/merged.md": doc("merged"), f"{G}/target.md": doc("target"),
        f"{G}/bom_ok.md": crlf_bom(doc("泵的维护 bom ok")),
        f"{G}/note.md": doc("Side note").replace("Replace the mechanical seal",
                                                 "Check the seal")})
    git(repo, "rm", "-q", "knowledge/good.md")
    commit(repo, ALICE, "policy", {"kb.toml": toml([REV])})
    base = git(repo, "rev-parse", "HEAD").strip()
    commit(repo, REV, "review", {
        f"{G}/bom_ok.md": crlf_bom(doc("泵的维护 bom ok", REV)),  # Alice's, reviewed: stays
        f"{G}/target.md": doc("target", REV)})
    # a non-reviewer names the reviewer in a file saved with a BOM and CRLF
    commit(repo, MALLORY, "self verified", {f"{G}/bom.md": crlf_bom(doc("泵 bom", REV))})
    # ... sets the verification in the merge commit of her own branch
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, MALLORY, "edit", {f"{G}/merged.md": doc("merged").replace("2000", "9000")})
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "--no-commit", "side", who=MALLORY)
    (repo / G / "merged.md").write_text(doc("merged", REV).replace("2000", "9000"),
                                        encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "merge side", who=MALLORY)
    # ... renames her own document onto the verified one, its verification copied
    reviewed = (repo / G / "target.md").read_text(encoding="utf-8")
    fields = reviewed.split("verified: true", 1)[1].split("---", 1)[0]
    mine = doc("target").replace("Replace the mechanical seal", "Never replace the seal")
    commit(repo, MALLORY, "mine", {f"{G}/mine.md": mine})
    git(repo, "rm", "-q", f"{G}/target.md")
    git(repo, "mv", f"{G}/mine.md", f"{G}/target.md")
    (repo / G / "target.md").write_text(
        mine.replace("verified: false", "verified: true" + fields.rstrip("\n")),
        encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "rename onto target", who=MALLORY)
    # ... and edits the note the verified document embeds
    commit(repo, MALLORY, "note", {f"{G}/note.md": doc("Side note").replace(
        "Replace the mechanical seal", "MALICIOUS never replace the seal")})

    lapsed = lapsed_docs(repo, tmp_path / "home")
    assert set(lapsed) == {"general/bom.md", "general/merged.md", "general/target.md"}, lapsed
    dist = repo / "dist"
    assert all(v == 1 for _t, v in verified_chunks(dist, f"{G}/bom_ok.md"))
    for name in ("bom", "merged", "target"):
        assert not any(v for _t, v in verified_chunks(dist, f"{G}/{name}.md")), name
    assert not any(v for _t, v in verified_chunks(dist, f"{G}/note.md"))

    res = kb(repo, "review", "check", "--base", base, "--json", home=tmp_path / "home")
    assert res.returncode == 1, res.stdout.decode() + res.stderr.decode()
    flagged = {f["path"] for f in json.loads(res.stdout)
               if f["level"] == "error"}
    assert {f"{G}/bom.md", f"{G}/merged.md", f"{G}/target.md"} <= flagged, flagged
    assert f"{G}/bom_ok.md" not in flagged, flagged

    # a reviewed document embedding the note: an embed is no transclusion but an error the
    # build stops at, so the note's text never ships under the document's review
    embeds = doc("embeds", REV).replace("Replace the", "![[note]]\n\nReplace the")
    commit(repo, REV, "embeds", {f"{G}/embeds.md": embeds})
    res = kb(repo, "build", "-q", home=tmp_path / "home")
    assert res.returncode == 1 and b"embeds.md" in res.stderr and b"link-wikilink" in res.stderr
    res = kb(repo, "build", "-q", "--skip-invalid", home=tmp_path / "home")
    assert res.returncode == 0, res.stderr.decode()
    shipped = [t for t, v in verified_chunks(dist, f"{G}/note.md") + verified_chunks(
        dist, f"{G}/embeds.md") if "MALICIOUS" in t]
    assert shipped and not any(v for _t, v in verified_chunks(dist, f"{G}/note.md"))
    assert not verified_chunks(dist, f"{G}/embeds.md")


def test_a_link_to_a_verified_document_carries_no_review(tmp_path: Path) -> None:
    """A symbolic link in knowledge/ to a reviewed document (and one in another reviewers'
    folder) shows the reviewed text, front matter and all, but Git holds only the link's
    history: served as unverified, and every tool says why at the link's `verified` line
    (it said "verified: true without verified_by" beside the verified_by line, and `kb
    review pending` "changed since verification", a lapse no approval could clear)."""
    repo = make_repo(tmp_path / "repo", docs={f"{G}/seal.md": doc("泵 seal")})
    commit(repo, ALICE, "policy", {"kb.toml": toml([REV])})
    commit(repo, REV, "review", {f"{G}/seal.md": doc("泵 seal", REV)})
    (repo / "knowledge" / "other").mkdir()
    for link, target in (("alias.md", "seal.md"), ("../other/密封.md", "../general/seal.md")):
        (repo / G / link).symlink_to(target)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "links", who=MALLORY)
    home = tmp_path / "home"
    line = doc("泵 seal", REV).splitlines().index("verified: true") + 1

    lapsed = lapsed_docs(repo, home)
    assert set(lapsed) == {"general/alias.md", "other/密封.md"}, lapsed
    assert lapsed["general/alias.md"].startswith(f"a symbolic link to {G}/seal.md: "), lapsed
    assert lapsed["other/密封.md"].startswith(f"a symbolic link to {G}/seal.md: "), lapsed
    dist = repo / "dist"
    assert verified_chunks(dist, f"{G}/seal.md") and all(
        v == 1 for _t, v in verified_chunks(dist, f"{G}/seal.md"))
    assert not any(v for _t, v in verified_chunks(dist, f"{G}/alias.md"))

    res = kb(repo, "check", "--json", home=home)
    warned = {(f["path"], f["line"]): f["message"] for f in json.loads(res.stdout)
              if f["code"] == "verification-lapsed"}
    assert set(warned) == {(f"{G}/alias.md", line), ("knowledge/other/密封.md", line)}, warned
    message = warned[(f"{G}/alias.md", line)]
    assert "symbolic link to knowledge/general/seal.md" in message
    assert "without verified_by" not in message and "approves it again" not in message

    res = kb(repo, "review", "pending", "--json", home=home)
    waiting = {e["doc"]: (e["reason"], e["line"]) for e in json.loads(res.stdout)
               if e["doc"] != "knowledge/good.md"}  # never verified
    assert waiting == {f"{G}/alias.md": ("verification-lapsed", line),
                       "knowledge/other/密封.md": ("verification-lapsed", line)}, waiting
