"""Files Git ignores are no part of a knowledge repository: `kb check` and `kb build` never
read one, however it is reached (the walk for documents, a Markdown link or picture, a
committed symlink, the user dictionary). Untracked files Git does not ignore are an author's
work in progress: read, and the build says it is dirty. Real repositories, the real `kb`
CLI in a subprocess (`kbtools.ignored`)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hostile import GOOD_DOC, git, kb, make_repo, tree_bytes

SECRETS = {"txt": "SECRET-TXT-1f", "yaml": "SECRET-YAML-2c", "rsa": "SECRET-RSA-3a",
           "png": "SECRET-PNG-4d", "pdf": "SECRET-PDF-5e", "md": "SECRET-MD-6b",
           "linked": "SECRET-PNG-7c", "dict": "密钥词条九号", "draft": "SECRET-DRAFT-8e"}
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00" \
      b"\x00\x1f\x15\xc4\x89"

USES = GOOD_DOC.replace("# Pump maintenance", "# Pump maintenance\n\n"
                        "![泵](../assets/local.png)\n\n[手册](../assets/manual.pdf)\n\n"
                        "[secrets](../secrets.txt)\n\n[cfg](../config/local.yaml)\n\n"
                        "[key](../id_rsa)\n\n![链接](../assets/pic.png)\n\n"
                        "![ok](../assets/ok.png)\n\n<img src=\"../private/pic.png\" alt=\"p\">"
                        "\n\nSee [the key][k].\n\n[k]: ../private/notes.md")


def ignoring_repo(tmp_path: Path) -> Path:
    """A committed repository whose documents reach ignored files every way the pipeline
    follows: a picture, a linked PDF, linked text files, a committed symlink to a document
    and to a picture in an ignored folder, an ignored user dictionary and an ignored draft
    in the knowledge folder; a control picture that is committed."""
    repo = make_repo(tmp_path / "repo", commit=False, docs={"knowledge/uses.md": USES})
    git(repo, "init", "-q", "-b", "main")
    (repo / ".gitignore").write_text(
        "secrets.txt\nconfig/local.yaml\nid_rsa\nassets/local.png\nassets/manual.pdf\n"
        "private/\nknowledge/drafts/\nknowledge/_dict.txt\n", encoding="utf-8")
    (repo / "secrets.txt").write_text(SECRETS["txt"] + "\n", encoding="utf-8")
    (repo / "config").mkdir()
    (repo / "config" / "local.yaml").write_text(f"password: {SECRETS['yaml']}\n")
    (repo / "id_rsa").write_text(f"-----BEGIN {SECRETS['rsa']}\n", encoding="utf-8")
    (repo / "assets" / "local.png").write_bytes(PNG + SECRETS["png"].encode())
    (repo / "assets" / "manual.pdf").write_bytes(b"%PDF-1.4\n% " + SECRETS["pdf"].encode()
                                                 + b"\n%%EOF\n")
    (repo / "assets" / "ok.png").write_bytes(PNG + b"fine")
    (repo / "private").mkdir()
    (repo / "private" / "notes.md").write_text(
        GOOD_DOC.replace("# Pump maintenance", f"# Pump maintenance\n\n{SECRETS['md']}"),
        encoding="utf-8")
    (repo / "private" / "pic.png").write_bytes(PNG + SECRETS["linked"].encode())
    (repo / "knowledge" / "priv.md").symlink_to("../private/notes.md")
    (repo / "assets" / "pic.png").symlink_to("../private/pic.png")
    (repo / "knowledge" / "drafts").mkdir()
    (repo / "knowledge" / "drafts" / "d.md").write_text(
        GOOD_DOC.replace("# Pump maintenance", f"# Draft\n\n{SECRETS['draft']}"),
        encoding="utf-8")
    (repo / "knowledge" / "_dict.txt").write_text(SECRETS["dict"] + "\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "knowledge reaching ignored files")
    assert "private" not in git(repo, "ls-files")  # Git holds none of them
    return repo


def test_check_names_every_way_to_an_ignored_file(tmp_path: Path) -> None:
    repo = ignoring_repo(tmp_path)
    res = kb(repo, "check", "--json", home=tmp_path / "home")
    assert res.returncode == 1, res.stderr.decode()
    found = json.loads(res.stdout)
    codes: dict[str, list[str]] = {}
    for f in found:
        codes.setdefault(f["path"], []).append(f["code"])
    assert codes["knowledge/priv.md"] == ["path-symlink-escape"], codes
    assert "knowledge/drafts/d.md" not in codes  # an ignored document is no document
    missing = [f["message"] for f in found if f["path"] == "knowledge/uses.md"
               and f["code"] == "path-missing"]
    for name in ("assets/local.png", "assets/manual.pdf", "secrets.txt", "config/local.yaml",
                 "id_rsa", "private/pic.png", "private/notes.md"):  # (html, reference link)
        assert any(name in m and "ignored by Git" in m for m in missing), (name, missing)
    escapes = [f["message"] for f in found if f["code"] == "path-symlink-escape"]
    assert any("private/pic.png, which Git ignores" in m for m in escapes), escapes
    assert any("private/notes.md, which Git ignores" in m for m in escapes), escapes
    assert not any(s in res.stdout.decode() for s in SECRETS.values())


def test_no_byte_of_an_ignored_file_reaches_a_release(tmp_path: Path) -> None:
    repo = ignoring_repo(tmp_path)
    res = kb(repo, "build", "--lenient", "--skip-invalid", "--json", home=tmp_path / "home")
    assert res.returncode == 0, res.stderr.decode()
    assert "user dictionary knowledge/_dict.txt not read: Git ignores it" in res.stderr.decode()
    dist = repo / "dist"
    data = tree_bytes(dist)
    for secret in SECRETS.values():
        assert secret.encode() not in data, secret
    source = dist / "data" / "source"
    assert (source / "assets" / "ok.png").is_file()  # the committed picture ships
    assert not (source / "private").exists() and not (source / "assets" / "pic.png").exists()
    with sqlite3.connect(dist / "index" / "store.sqlite") as con:
        docs = {r[0] for r in con.execute("SELECT DISTINCT doc FROM chunks")}
    assert docs == {"knowledge/good.md", "knowledge/uses.md"}, docs
    # what was read is what the commit holds: a clone builds the same release
    assert json.loads((dist / "manifest.json").read_text())["source"]["dirty"] is False


def test_an_untracked_file_is_read_and_the_build_says_dirty(tmp_path: Path) -> None:
    """Guard: an untracked picture Git does not ignore is an author's work in progress; it
    ships, and the release says it was built from uncommitted files. A file forced into
    the commit (`git add -f`) despite .gitignore is the commit's: read."""
    repo = make_repo(tmp_path / "repo", docs={"knowledge/uses.md": GOOD_DOC.replace(
        "# Pump maintenance", "# Pump maintenance\n\n![新](../assets/new.png)\n\n"
        "![强](../assets/forced.png)")})
    (repo / ".gitignore").write_text("assets/forced.png\n", encoding="utf-8")
    (repo / "assets" / "forced.png").write_bytes(PNG + b"forced")
    git(repo, "add", ".gitignore")
    git(repo, "add", "-f", "assets/forced.png")
    git(repo, "commit", "-q", "-m", "forced picture")
    (repo / "assets" / "new.png").write_bytes(PNG + b"draft")
    res = kb(repo, "build", "--json", home=tmp_path / "home")
    assert res.returncode == 0, res.stderr.decode()
    source = repo / "dist" / "data" / "source" / "assets"
    assert (source / "new.png").is_file() and (source / "forced.png").is_file()
    assert json.loads((repo / "dist" / "manifest.json").read_text())["source"]["dirty"] is True


def test_a_corpus_in_an_ignored_folder_is_a_folder_of_its_own(tmp_path: Path) -> None:
    """Guard: `kb build --corpus DIR` of a folder Git ignores as a whole (corpora downloaded
    into a repository) is no part of that repository: every file of it is read."""
    repo = make_repo(tmp_path / "repo", commit=False)
    git(repo, "init", "-q", "-b", "main")
    (repo / ".gitignore").write_text("corpora/\n", encoding="utf-8")
    corpus = repo / "corpora" / "x"
    (corpus / "sub").mkdir(parents=True)
    (corpus / "a.md").write_text("# Pump\n\nThe pump needs oil every 200 hours.\n")
    (corpus / "sub" / "b.md").write_text("# B\n\nSee [a](../a.md) and ![p](../p.png)\n")
    (corpus / "p.png").write_bytes(PNG)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "corpora ignored")
    res = kb(repo, "build", "--corpus", "corpora/x", "--out", str(tmp_path / "out"),
             "--lenient", "--json", home=tmp_path / "home")
    assert res.returncode == 0, res.stderr.decode()
    source = tmp_path / "out" / "data" / "source"
    assert {p.relative_to(source).as_posix() for p in source.rglob("*") if p.is_file()} == \
        {"a.md", "sub/b.md", "p.png"}


def test_a_long_lived_process_sees_a_file_ignored_since(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """An MCP server or `kb serve` reads the repository for hours without a new run: what
    Git ignores is listed again once the listing is older than `FRESH_SECONDS`."""
    import os

    from kbtools import ignored

    repo = make_repo(tmp_path / "repo")
    root = os.path.realpath(repo)
    secret = os.path.join(root, "secrets.txt")
    (repo / "secrets.txt").write_text("s\n", encoding="utf-8")
    ignored.forget()
    assert ignored.ignored_target(secret, root) is None  # untracked, not ignored
    (repo / ".gitignore").write_text("secrets.txt\n", encoding="utf-8")
    assert ignored.ignored_target(secret, root) is None  # the listing of a moment ago
    monkeypatch.setattr(ignored, "FRESH_SECONDS", 0.0)
    assert ignored.ignored_target(secret, root) == "secrets.txt"
