"""A field report carrying the photos a technician took (issues 8 and 17, session 40): MCP
`draft_report` with pictures as base64 over a real stdio server, and `kb draft new --photo`.
The draft and its photos are one commit on the draft branch, checked by their bytes, linked
relatively from the draft, and `kb check` passes the branch as it is."""

from __future__ import annotations

import base64
import struct
import subprocess
import sys
import zlib
from pathlib import Path

from mcpfixtures import committed_repo, data, error_text, git, session

from kbtools.agents.draft_text import slugify

BODY = "# 水泵叶轮损坏\n\n二号泵停机，叶轮有裂纹。\n"


def png(width: int = 4, height: int = 3) -> bytes:
    """A whole, valid PNG (grey, 8 bits): what a phone's screenshot is."""
    def chunk(kind: bytes, payload: bytes) -> bytes:
        return (struct.pack(">I", len(payload)) + kind + payload
                + struct.pack(">I", zlib.crc32(kind + payload)))
    rows = b"".join(b"\x00" + bytes(range(width)) for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0,
                                                                0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"
HEIC = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(64)


def photo(name: str, raw: bytes, caption: str | None = None) -> dict[str, str]:
    item = {"name": name, "data": base64.b64encode(raw).decode()}
    return item if caption is None else {**item, "caption": caption}


def kb(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kbtools", *args], cwd=cwd,
                          capture_output=True, text=True)


def checked_out(repo: Path, branch: str, where: Path) -> Path:
    """The draft branch as a reviewer checks it out: a worktree of it."""
    git(repo, "worktree", "add", "-q", str(where), branch)
    return where


def test_a_field_report_carries_its_photos_in_one_commit_that_kb_check_passes(tmp_path):
    """An agent holding photos of the failed part could not attach them: the report said
    "see photo" and the photo stayed on the device. `photos` commits each under the assets
    folder beside the draft's name, its extension as its bytes say (a JPEG sent as .png is
    stored as .jpg), the draft ending with a section that shows each by a relative link with
    its caption; `kb check` passes the branch. A retry files nothing new; a picture a
    release would not ship (a HEIC photo, an HTML page named .jpg) or data that is no
    base64 is refused in one line naming the photo, and nothing is filed (both or neither)."""
    repo = committed_repo(tmp_path / "kb")
    pictures = [photo("叶轮 裂纹.png", png(), "叶轮裂纹特写"), photo("pump.png", JPEG)]
    call = {"category": "field-report", "title": "水泵叶轮损坏", "location": "二号泵房",
            "body": BODY, "photos": pictures}

    async def scenario(c):
        first = data(await c.call_tool("draft_report", call))
        again = data(await c.call_tool("draft_report", call))
        refused = [await c.call_tool("draft_report", {**call, "title": title, "photos": p})
                   for title, p in (
                       ("HEIC", [photo("IMG_1.HEIC", HEIC)]),
                       ("HTML", [photo("a.png", png()), photo("b.jpg", b"<html></html>")]),
                       ("base64", [{"name": "c.jpg", "data": "not base64!"}]),
                       ("many", [photo(f"{n}.png", png()) for n in range(9)]))]
        return first, again, refused

    first, again, refused = session(repo, "--allow-write", scenario=scenario)
    assert again["existing"] and again["commit"] == first["commit"]
    files = git(repo, "diff-tree", "--root", "--no-commit-id", "--name-only", "-r",
                first["commit"]).split()
    stem = Path(first["path"]).stem
    shown = [f"assets/field_reports/{stem}/1-{slugify('叶轮 裂纹')}.png",
             f"assets/field_reports/{stem}/2-pump.jpg"]
    assert sorted(files) == sorted([first["path"], *shown]), files
    stored = subprocess.run(["git", "show", f"{first['commit']}:{shown[1]}"], cwd=repo,
                            capture_output=True, check=True).stdout
    assert stored == JPEG
    text = git(repo, "show", f"{first['commit']}:{first['path']}")
    assert text.endswith(f"## 照片\n\n![叶轮裂纹特写](../../{shown[0]})\n\n"
                         f"![pump](../../{shown[1]})\n"), text
    tree = checked_out(repo, first["branch"], tmp_path / "review")
    check = kb(tree, "check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "image-" not in check.stdout + check.stderr

    heic, html, not_b64, many = (error_text(r) for r in refused)
    assert heic.endswith("photo 1 cannot be attached: IMG_1.HEIC is a HEIF/HEIC photo, which "
                         "devices' browsers do not show (save it as PNG, JPEG or WebP)"), heic
    assert "photo 2 cannot be attached: b.jpg is not a PNG, JPEG, GIF, WebP or AVIF" in html
    assert "photo 1 (c.jpg): `data` is not base64" in not_b64
    assert many.endswith("9 photos: a draft carries at most 8"), many
    assert all("\n" not in t for t in (heic, html, not_b64, many))
    assert git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/draft/"
               ).split() == [first["branch"]]


def test_kb_draft_new_attaches_photo_files(tmp_path):
    """`kb draft new --photo FILE` (repeatable) files the photos with the draft as the MCP
    tool does; a file that is no picture is refused naming it, and no branch is made."""
    repo = committed_repo(tmp_path / "kb")
    (tmp_path / "body.md").write_text("# Cracked impeller\n\nPump 2 stopped.\n",
                                      encoding="utf-8")
    (tmp_path / "impeller.png").write_bytes(png())
    (tmp_path / "notes.txt").write_text("not a picture", encoding="utf-8")
    args = ("draft", "new", "--category", "field-report", "--title", "Cracked impeller",
            "--location", "Pump house 2", "--from", str(tmp_path / "body.md"), "--json")
    bad = kb(repo, *args, "--photo", str(tmp_path / "notes.txt"))
    assert bad.returncode != 0 and not git(repo, "branch", "--list", "draft/*")
    assert "photo 1 cannot be attached: notes.txt is a '.txt' file" in bad.stderr, bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    done = kb(repo, *args, "--photo", str(tmp_path / "impeller.png"))
    assert done.returncode == 0, done.stderr
    branch = git(repo, "branch", "--list", "draft/*").split()[-1]
    path = git(repo, "diff-tree", "--root", "--no-commit-id", "--name-only", "-r", branch)
    stem = branch.removeprefix("draft/")
    assert sorted(path.split()) == [f"assets/field_reports/{stem}/1-impeller.png",
                                    f"knowledge/field_reports/{stem}.md"]
    text = git(repo, "show", f"{branch}:knowledge/field_reports/{stem}.md")
    assert text.endswith(f"## Photos\n\n![impeller](../../assets/field_reports/{stem}/"
                         "1-impeller.png)\n"), text
    check = kb(checked_out(repo, branch, tmp_path / "review"), "check")
    assert check.returncode == 0, check.stdout + check.stderr
