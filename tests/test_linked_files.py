"""Files a document links that are no pictures (a maintenance manual as PDF, a spare-parts
list as .xlsx, a wiring diagram as .dwg, a video): a PDF ships beside the document in
`data/source/` and the web app opens it; any other file, or a PDF the release cannot ship,
gets a `kb check` warning at its link that devices will not have it, the build says the
same, and the page says so instead of showing a dead link."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from kbtools.build.pipeline import BuildOptions, build
from kbtools.check.engine import check_paths
from kbtools.config import load_config
from kbtools.index.manifest import load_manifest
from kbtools.render.images import MAX_FILE_BYTES
from kbtools.serve.app import create_app
from kbtools.ship.changes import diff_dirs
from tests.kbfixtures import PAGE

PDF = b"%PDF-1.7\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
LFS = ("version https://git-lfs.github.com/spec/v1\noid sha256:" + "4d7a" * 16
       + "\nsize 48213\n").encode()
# what a field repository links, and what check says of each (None: shipped)
FILES: dict[str, tuple[bytes, bool]] = {
    "维护手册.pdf": (PDF, True),
    "parts.xlsx": (b"PK\x03\x04" + bytes(16), False),
    "wiring.dwg": (b"AC1032" + bytes(16), False),
    "video.mp4": (b"\x00\x00\x00\x18ftypmp42" + bytes(8), False),
    "lfs.pdf": (LFS, False),
    "page.pdf": (b"<html><script>alert(1)</script></html>", False),
    "empty.pdf": (b"", False),
    "huge.pdf": (PDF, False),  # made sparse past the limit
}


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "kb"
    (root / "knowledge" / "pumps").mkdir(parents=True)
    (root / "assets" / "manuals").mkdir(parents=True)
    (root / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n'
                                  'languages = { en = "test-hash", zh = "test-hash" }\n')
    for name, (data, _) in FILES.items():
        (root / "assets" / "manuals" / name).write_bytes(data)
    with open(root / "assets" / "manuals" / "huge.pdf", "r+b") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)
    body = "更换密封前请阅读：\n\n" + "\n\n".join(
        f"- [{name} 资料](../../assets/manuals/{name})" for name in FILES)
    body += "\n\n拆卸步骤见[手册第 12 页](../../assets/manuals/维护手册.pdf#page=12)。\n"
    (root / "knowledge" / "pumps" / "seal.md").write_text(
        PAGE.format(title="水泵密封", source="设备科", body=body), encoding="utf-8")
    return root


def line_of(root: Path, name: str) -> int:
    text = (root / "knowledge" / "pumps" / "seal.md").read_text(encoding="utf-8")
    return next(i for i, t in enumerate(text.splitlines(), 1) if f"/{name})" in t)


def test_check_warns_at_each_linked_file_devices_will_not_have(repo):
    findings = check_paths([repo / "knowledge"], load_config(repo))
    got = {(f.path, f.line, f.code) for f in findings}
    want = {("knowledge/pumps/seal.md", line_of(repo, name), "file-not-shipped")
            for name, (_, ships) in FILES.items() if not ships}
    assert got == want
    assert all(f.level == "warning" and "devices will not have it" in f.message
               for f in findings)
    by_line = {f.line: f.message for f in findings}
    assert "'.xlsx' file" in by_line[line_of(repo, "parts.xlsx")]
    assert "Git LFS pointer" in by_line[line_of(repo, "lfs.pdf")]
    assert "50 MiB" in by_line[line_of(repo, "huge.pdf")]
    assert "not a PDF" in by_line[line_of(repo, "page.pdf")]


def test_the_build_ships_the_pdf_and_warns_at_the_rest(repo, capsys):
    out = repo / "dist"
    build(load_config(repo), BuildOptions(out=out, progress=True))
    source = out / "data" / "source" / "assets" / "manuals"
    assert sorted(p.name for p in source.iterdir()) == ["维护手册.pdf"]
    assert (source / "维护手册.pdf").read_bytes() == PDF
    assert "data/source/assets/manuals/维护手册.pdf" in load_manifest(out)["artifacts"]
    err = capsys.readouterr().err
    warned = {int(m) for m in re.findall(r"seal\.md:(\d+):\d+: warning: file-not-shipped", err)}
    assert warned == {line_of(repo, n) for n, (_, ships) in FILES.items() if not ships}


def test_the_web_app_opens_the_pdf_and_says_which_files_the_device_lacks(repo):
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as client:
        page = client.get("/doc/knowledge/pumps/seal.md?lang=en").text
        hrefs = [html.unescape(h) for h in re.findall(r'<a href="(/asset/[^"]+)"', page)]
        assert len(hrefs) == 2 and hrefs[0].endswith(".pdf")
        assert hrefs[1] == hrefs[0] + "#page=12"  # the viewer opens the page the text names
        got = client.get(hrefs[0])
        assert got.status_code == 200 and got.content == PDF
        assert got.headers["content-type"] == "application/pdf"
        assert got.headers["x-content-type-options"] == "nosniff"
        assert "sandbox" in got.headers["content-security-policy"]
        assert got.headers["content-disposition"].startswith("inline; filename*=UTF-8''")
        missing = re.findall(r'<span class="missing-file"[^>]*>([^<]*)</span> '
                             r'<span class="missing-note"(?: lang="en")?>\(([^)]*)\)</span>', page)
        assert len(missing) == len(FILES) - 1
        assert all("this device does not have the file" in note for _, note in missing)
        assert client.get("/asset/assets/manuals/parts.xlsx").status_code == 404
        zh = client.get("/doc/knowledge/pumps/seal.md?lang=zh").text
        assert "本设备上没有" in zh


def test_a_replaced_manual_is_a_change_between_releases(repo):
    """Only the PDF changed: `kb sync`, `kb diff` and the release page said "no changes",
    so nobody on the device learnt that the manual was replaced."""
    cfg = load_config(repo)
    build(cfg, BuildOptions(out=repo / "r1", progress=False))
    (repo / "assets" / "manuals" / "维护手册.pdf").write_bytes(PDF.replace(b"1.7", b"2.0"))
    build(cfg, BuildOptions(out=repo / "r2", progress=False))
    diff = diff_dirs(repo / "r1", repo / "r2")
    assert diff.documents_changed == () and not diff.empty
    assert diff.files_changed == ("assets/manuals/维护手册.pdf",)
    assert diff.summary() == "files: 1 changed"
    assert diff.to_dict()["files"] == ["assets/manuals/维护手册.pdf"]
    assert diff_dirs(repo / "r2", repo / "r2").empty


RAW_AND_REFERENCE = """更换密封前请阅读<a href="../../assets/manuals/raw.pdf" target="_blank">原厂手册</a>。

配件见[配件清单][parts]，接线见<a href='../../assets/manuals/wiring.dwg'>接线图</a>，
拆卸步骤见[维修手册][manual]。

[parts]: ../../assets/manuals/parts.xlsx
[manual]: ../../assets/manuals/ref.pdf
"""


def raw_and_reference_repo(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    (root / "knowledge" / "pumps").mkdir(parents=True)
    (root / "assets" / "manuals").mkdir(parents=True)
    (root / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n'
                                  'languages = { en = "test-hash", zh = "test-hash" }\n')
    for name in ("raw.pdf", "ref.pdf"):
        (root / "assets" / "manuals" / name).write_bytes(PDF)
    (root / "assets" / "manuals" / "parts.xlsx").write_bytes(FILES["parts.xlsx"][0])
    (root / "assets" / "manuals" / "wiring.dwg").write_bytes(FILES["wiring.dwg"][0])
    (root / "knowledge" / "pumps" / "seal.md").write_text(
        PAGE.format(title="水泵密封", source="设备科", body=RAW_AND_REFERENCE), encoding="utf-8")
    return root


def test_raw_html_and_reference_links_ship_and_warn_as_check_says(tmp_path, capsys):
    """A PDF linked only as raw HTML (`<a href>`) never reached devices, though `kb check`
    checked the link; the build warned of a reference link's file at the line that uses it
    (column 1) while `kb check` warned at its definition (the line to edit)."""
    root = raw_and_reference_repo(tmp_path)
    text = (root / "knowledge" / "pumps" / "seal.md").read_text(encoding="utf-8").splitlines()
    checked = check_paths([root / "knowledge"], load_config(root))
    assert {(f.line, f.code) for f in checked} == {
        (text.index("[parts]: ../../assets/manuals/parts.xlsx") + 1, "file-not-shipped"),
        (next(i for i, t in enumerate(text, 1) if "wiring.dwg" in t), "file-not-shipped")}

    build(load_config(root), BuildOptions(out=root / "dist", progress=True))
    warned = [line.removeprefix("kb build: ") for line in capsys.readouterr().err.splitlines()
              if ": warning: " in line]
    assert warned == [f.format() for f in checked]  # the same lines and columns as check
    artifacts = load_manifest(root / "dist")["artifacts"]
    assert {a for a in artifacts if a.startswith("data/source/assets/")} == {
        "data/source/assets/manuals/raw.pdf", "data/source/assets/manuals/ref.pdf"}


def test_the_web_app_shows_a_raw_html_link_as_a_link(tmp_path):
    """`<a href="manual.pdf">` in a paragraph was shown as escaped text, though check
    checks it and the build ships the PDF."""
    root = raw_and_reference_repo(tmp_path)
    build(load_config(root), BuildOptions(out=root / "dist", progress=False))
    with TestClient(create_app(root / "dist"), base_url="http://127.0.0.1") as client:
        page = client.get("/doc/knowledge/pumps/seal.md?lang=en").text
    assert "&lt;a" not in page and "target=" not in page  # a link, its other attributes dropped
    hrefs = [html.unescape(h) for h in re.findall(r'<a href="(/asset/[^"]+)"', page)]
    assert [h.rsplit("/", 1)[1] for h in hrefs] == ["raw.pdf", "ref.pdf"]
    assert '<a href="/asset/assets/manuals/raw.pdf">原厂手册</a>' in page
    missing = re.findall(r'<span class="missing-file"[^>]*>([^<]*)</span>', page)
    assert missing == ["配件清单", "接线图"]



# what devices have (a video warned of, its cover and the framed PDFs shipped), then what
# is missing; each `<…>` as Typora, Obsidian or a hand writes it
MEDIA = """# 水泵演示

<video src="../../assets/manuals/video.mp4" poster="../../assets/manuals/cover.png" controls>
</video>

<center><embed src="../../assets/manuals/embed.pdf" type="application/pdf"></center>

<iframe src="../../assets/manuals/frame.pdf"></iframe>

<object data="../../assets/manuals/object.pdf"></object>
"""
MEDIA_MISSING = """
<audio controls>
  <source src="../../assets/manuals/gone.mp3" type="audio/mpeg">
</audio>

拆卸步骤 <video src="../../assets/manuals/gone.mp4"></video> 见下。

<video src="../../assets/manuals/gone.webm" poster="../../assets/manuals/nocover.png"></video>
"""


def test_media_and_frames_written_as_html_are_checked_and_shipped_as_links(tmp_path):
    """A Typora or Obsidian author's `<video src>`, `<audio>`'s `<source src>`, a framed
    PDF (`<embed src>`, `<iframe src>`, `<object data>`) and a video's cover (`poster`)
    were never read: a missing file passed `kb check`, a video got no word that devices
    lack it, and a PDF shown only in a frame never shipped. Each is a link's destination
    now (a cover an image's): checked, warned of, and shipped as one."""
    root = tmp_path / "kb"
    (root / "knowledge" / "pumps").mkdir(parents=True)
    (root / "assets" / "manuals").mkdir(parents=True)
    (root / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n'
                                  'languages = { en = "test-hash", zh = "test-hash" }\n')
    (root / "assets" / "manuals" / "video.mp4").write_bytes(FILES["video.mp4"][0])
    (root / "assets" / "manuals" / "cover.png").write_bytes(
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06"
        b"\x00\x00\x00\x1f\x15\xc4\x89")
    for name in ("embed.pdf", "frame.pdf", "object.pdf"):
        (root / "assets" / "manuals" / name).write_bytes(PDF)
    doc = root / "knowledge" / "pumps" / "demo.md"
    doc.write_text(PAGE.format(title="水泵演示", source="设备科", body=MEDIA + MEDIA_MISSING),
                   encoding="utf-8")
    text = doc.read_text(encoding="utf-8").splitlines()

    def line(needle: str) -> int:
        return next(i for i, t in enumerate(text, 1) if needle in t)

    checked = check_paths([root / "knowledge"], load_config(root))
    assert sorted((f.line, f.code, f.message.split("'")[1]) for f in checked) == sorted([
        (line("video.mp4"), "file-not-shipped", ".mp4"),
        *((line(name), "path-missing", f"../../assets/manuals/{name}")
          for name in ("gone.mp3", "gone.mp4", "gone.webm", "nocover.png"))]), checked

    doc.write_text(PAGE.format(title="水泵演示", source="设备科", body=MEDIA), encoding="utf-8")
    build(load_config(root), BuildOptions(out=root / "dist", progress=False))
    artifacts = load_manifest(root / "dist")["artifacts"]
    assert {a for a in artifacts if a.startswith("data/source/assets/")} == {
        f"data/source/assets/manuals/{name}"
        for name in ("cover.png", "embed.pdf", "frame.pdf", "object.pdf")}


def test_a_remote_video_or_frame_is_said_not_to_play_offline(tmp_path):
    """`<video src="https://…">`, a framed YouTube page or a sound from a server passed
    `kb check` silently, though a field device is offline: each is a `media-remote` warning
    at its line, as a remote picture `![](https://…)` is `image-remote`; a remote link
    (`<a href>`, `[…](https://…)`) the reader chooses to follow is no finding."""
    root = tmp_path / "kb"
    (root / "knowledge").mkdir(parents=True)
    (root / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n'
                                  'languages = { en = "test-hash", zh = "test-hash" }\n')
    body = ('拆卸演示：<video src="https://cdn.example.com/拆卸.mp4" controls></video>\n\n'
            '<iframe width="560" src="https://www.youtube.com/embed/abc123"></iframe>\n\n'
            '<AUDIO controls><SOURCE SRC="//media.example.com/alarm.mp3"></AUDIO>\n\n'
            '![外观](https://example.com/pump.png) 见 <a href="https://example.com/">官网</a>，'
            '[手册](https://example.com/m.pdf)。\n')
    doc = root / "knowledge" / "demo.md"
    doc.write_text(PAGE.format(title="水泵演示", source="设备科", body=body), encoding="utf-8")
    text = doc.read_text(encoding="utf-8").splitlines()

    def line(needle: str) -> int:
        return next(i for i, t in enumerate(text, 1) if needle in t)

    checked = check_paths([root / "knowledge"], load_config(root))
    assert sorted((f.line, f.code, f.level) for f in checked) == sorted([
        (line("cdn.example.com"), "media-remote", "warning"),
        (line("youtube"), "media-remote", "warning"),
        (line("alarm.mp3"), "media-remote", "warning"),
        (line("pump.png"), "image-remote", "warning")])
    assert all("offline devices" in f.message for f in checked)
