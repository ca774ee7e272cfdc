"""Images as field knowledge has them: `kb check` and the build say at each link why the
release leaves a picture out (`kbtools.render.images.left_out`, `kbtools.check.assets`), and
the web app shows every picture it ships."""

from __future__ import annotations

import asyncio
import html
import re
import struct
import zlib
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from starlette.testclient import TestClient

from kbtools.build.pipeline import BuildOptions, build
from kbtools.check.engine import check_paths
from kbtools.config import load_config
from kbtools.index.manifest import load_manifest
from kbtools.render.images import MAX_IMAGE_BYTES
from kbtools.render.pixels import svg_size
from kbtools.serve.app import create_app
from tests.kbfixtures import PAGE

PNG = b"\x89PNG\r\n\x1a\n" + bytes(32)
LFS = ("version https://git-lfs.github.com/spec/v1\noid sha256:" + "4d7a" * 16
       + "\nsize 48213\n").encode()
# the pictures a field repository really holds, by file name, and what check says of each
FILES: dict[str, tuple[bytes, str | None]] = {
    "leaf.png": (PNG, None),
    "named-wrong.jpg": (PNG, None),  # a PNG saved as .jpg: browsers show it
    "phone.avif": (b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf", None),
    "anim.gif": (b"GIF89a\x01\x00\x01\x00", None),
    "shot.webp": (b"RIFF\x24\x00\x00\x00WEBPVP8 " + bytes(16), None),
    "lfs.png": (LFS, "image-lfs-pointer"),
    "iphone.heic": (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic", "image-format"),
    "iphone-renamed.jpg": (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic",
                           "image-not-picture"),
    "diagram.svg": (b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
                    "image-format"),
    "scan.tiff": (b"II*\x00" + bytes(16), "image-format"),
    "empty.png": (b"", "image-not-picture"),
    "page.png": (b"<html><script>alert(1)</script></html>", "image-not-picture"),
    "huge.jpg": (b"\xff\xd8\xff\xe0", "image-too-large"),  # made sparse past the limit
}


def make_repo(root: Path) -> Path:
    (root / "knowledge").mkdir(parents=True)
    (root / "assets").mkdir()
    (root / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n'
                                  'languages = { en = "test-hash", zh = "test-hash" }\n')
    for name, (data, _) in FILES.items():
        (root / "assets" / name).write_bytes(data)
    with open(root / "assets" / "huge.jpg", "r+b") as fh:
        fh.truncate(MAX_IMAGE_BYTES + 1)
    body = "Photos of the pump:\n\n" + "\n\n".join(
        f"![{name}](../assets/{name})" if i % 2 else f'<img src="../assets/{name}" alt="{name}" width="50%">'
        for i, name in enumerate(FILES))
    (root / "knowledge" / "pump.md").write_text(PAGE.format(title="Pump", source="me",
                                                            body=body), encoding="utf-8")
    return root


def line_of(root: Path, name: str) -> int:
    text = (root / "knowledge" / "pump.md").read_text(encoding="utf-8")
    return next(i for i, t in enumerate(text.splitlines(), 1) if f"/{name}" in t)


@pytest.fixture
def repo(tmp_path) -> Path:
    return make_repo(tmp_path / "kb")


def test_check_warns_at_each_image_the_release_leaves_out(repo):
    findings = check_paths([repo / "knowledge"], load_config(repo))
    got = {(f.line, f.code) for f in findings}
    want = {(line_of(repo, name), code) for name, (_, code) in FILES.items() if code}
    assert got == want
    assert all(f.level == "warning" for f in findings)
    by_code = {f.code: f.message for f in findings}
    assert "git lfs pull" in by_code["image-lfs-pointer"]
    assert "20.1 MiB" in by_code["image-too-large"] and "resize" in by_code["image-too-large"]


def test_the_build_ships_what_check_passes_and_warns_at_the_rest(repo, tmp_path, capsys):
    build(load_config(repo), BuildOptions(out=tmp_path / "dist", progress=True))
    shipped = {a.removeprefix("data/source/assets/")
               for a in load_manifest(tmp_path / "dist")["artifacts"]
               if a.startswith("data/source/assets/")}
    assert shipped == {name for name, (_, code) in FILES.items() if code is None}
    err = capsys.readouterr().err
    for name, (_, code) in FILES.items():
        if code:
            assert re.search(rf"knowledge/pump\.md:{line_of(repo, name)}:\d+: warning: {code}: "
                             rf"assets/{re.escape(name)} ", err)
    # where `kb check` says it, to the column
    assert [line.removeprefix("kb build: ") for line in err.splitlines() if ": warning: " in line] \
        == [f.format() for f in check_paths([repo / "knowledge"], load_config(repo))]


def test_a_picture_replaced_by_its_lfs_pointer_is_found_by_a_cached_check(repo):
    """The document is unchanged (its results come from the cache); the file is not."""
    cfg = load_config(repo)
    assert check_paths([repo / "knowledge"], cfg, cache=True)
    (repo / "assets" / "leaf.png").write_bytes(LFS)
    again = check_paths([repo / "knowledge"], cfg, cache=True)
    assert (line_of(repo, "leaf.png"), "image-lfs-pointer") in {(f.line, f.code) for f in again}


NAMES = ["a b.png", "a%20b.png", "小麦 病害(1).png", "100%.png"]


def test_the_web_app_serves_each_picture_by_the_url_its_page_gives(tmp_path):
    """Names with spaces, Chinese, parentheses and a literal `%` (a file saved from a web
    page keeps `a%20b.png`: its page linked it, its URL answered 404)."""
    repo = tmp_path / "kb"
    (repo / "knowledge").mkdir(parents=True)
    (repo / "assets").mkdir()
    (repo / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n'
                                  'languages = { en = "test-hash", zh = "test-hash" }\n')
    for name in [*NAMES, "phone.avif"]:
        (repo / "assets" / name).write_bytes(FILES["phone.avif"][0] if name.endswith(".avif")
                                             else PNG)
    body = "\n\n".join(f"![p{i}](<../assets/{quote(n)}>)" for i, n in enumerate(NAMES))
    body += '\n\n<img src="../assets/phone.avif" alt="phone" style="zoom:50%">\n'
    (repo / "knowledge" / "pump.md").write_text(PAGE.format(title="Pump", source="me",
                                                            body=body), encoding="utf-8")
    assert not check_paths([repo / "knowledge"], load_config(repo))
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    app = create_app(repo / "dist")

    async def fetch(url: str) -> httpx.Response:
        # a server decodes the path once (uvicorn; Starlette's TestClient decodes it twice)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                     base_url="http://127.0.0.1") as c:
            return await c.get(url)

    with TestClient(app, base_url="http://127.0.0.1") as client:  # runs the app's lifespan
        page = client.get("/doc/knowledge/pump.md").text
        urls = [html.unescape(u) for u in re.findall(r'<img class="photo" src="([^"]+)"', page)]
        assert len(urls) == len(NAMES) + 1 and "missing-image" not in page
        for url in urls:
            got = asyncio.run(fetch(url))
            assert got.status_code == 200, url
            assert got.headers["content-type"] == \
                ("image/avif" if url.endswith(".avif") else "image/png")


def test_a_picture_only_linked_ships_and_its_link_works_on_the_device(tmp_path, capsys):
    """`![thumb](small.png)` then `[原图](full.png)`: only shown pictures were shipped, so
    the web page dropped the link to the full-size photo (its text stayed, linking nowhere);
    and a linked LFS pointer was never reported."""
    repo = tmp_path / "kb"
    (repo / "knowledge").mkdir(parents=True)
    (repo / "assets").mkdir()
    (repo / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n'
                                  'languages = { en = "test-hash", zh = "test-hash" }\n')
    for name in ("small.png", "full.png", "table-cell.jpg"):
        (repo / "assets" / name).write_bytes(PNG)
    (repo / "assets" / "pointer.png").write_bytes(LFS)
    body = ("![缩略图](../assets/small.png) [原图](../assets/full.png)\n\n"
            "| 部件 | 照片 |\n|---|---|\n| 泵 | [看](../assets/table-cell.jpg) |\n\n"
            "[指针](../assets/pointer.png)\n")
    (repo / "knowledge" / "pump.md").write_text(PAGE.format(title="Pump", source="me",
                                                            body=body), encoding="utf-8")
    found = check_paths([repo / "knowledge"], load_config(repo))
    assert [(f.line, f.code) for f in found] == [(line_of(repo, "pointer.png"),
                                                  "image-lfs-pointer")]
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=True))
    assert f"pump.md:{line_of(repo, 'pointer.png')}:{found[0].col}: warning: image-lfs-pointer" \
        in capsys.readouterr().err
    shipped = {a for a in load_manifest(repo / "dist")["artifacts"] if "/assets/" in a}
    assert shipped == {f"data/source/assets/{n}"
                       for n in ("small.png", "full.png", "table-cell.jpg")}
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as client:
        page = client.get("/doc/knowledge/pump.md").text
    assert '<a href="/asset/assets/full.png">原图</a>' in page
    assert '<a href="/asset/assets/table-cell.jpg">看</a>' in page
    assert '<td lang="en">' not in page  # a Chinese cell, whatever its link's address


def test_a_folder_of_pictures_is_resolved_once_per_check_and_escapes_still_refused(
        tmp_path, monkeypatch):
    """A warm `kb check` of 2,000 linked pictures spent most of its picture time resolving
    each one's path twice (`realpath`: an `lstat` per path component); the folder and the
    root are resolved once per pass now. Every file is still looked at (a picture swapped
    for its LFS pointer is found), and a symlink leading out of the repository, as a file
    or as a folder, is still no file of it."""
    from kbtools.check import assets
    from kbtools.render import images

    root = tmp_path / "kb"
    (root / "assets" / "many").mkdir(parents=True)
    names = [f"p{i}.png" for i in range(50)]
    for name in names:
        (root / "assets" / "many" / name).write_bytes(PNG)
    (root / "assets" / "many" / "p7.png").write_bytes(LFS)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.png").write_bytes(LFS)
    (root / "assets" / "many" / "out.png").symlink_to(outside / "secret.png")
    (root / "assets" / "away").symlink_to(outside, target_is_directory=True)
    calls: list[str] = []
    real = images.os.path.realpath
    monkeypatch.setattr(images.os.path, "realpath", lambda p: calls.append(str(p)) or real(p))
    links = [(i + 1, 3, f"assets/many/{n}") for i, n in enumerate([*names, "out.png"])]
    links.append((99, 3, "assets/away/secret.png"))
    found = assets.image_findings([("knowledge/a.md", links)], root, lambda code, level: level)
    assert [(f.line, f.code) for f in found] == [(names.index("p7.png") + 1, "image-lfs-pointer")]
    assert len(calls) <= 4  # root, assets/many, the out.png symlink, assets/away


def _png(width: int, height: int) -> bytes:
    ihdr = b"IHDR" + struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + ihdr
            + struct.pack(">I", zlib.crc32(ihdr)) + bytes(16))


def _jpeg(width: int, height: int) -> bytes:
    """A JPEG whose frame header follows a 30 kB EXIF block (as a phone photo's does)."""
    exif = b"Exif\x00\x00" + bytes(30_000)
    sof = b"\x08" + struct.pack(">HH", height, width) + b"\x03" + bytes(9)
    return (b"\xff\xd8\xff\xe1" + struct.pack(">H", len(exif) + 2) + exif
            + b"\xff\xc0" + struct.pack(">H", len(sof) + 2) + sof + b"\xff\xda")


def _avif(width: int, height: int) -> bytes:
    ispe = b"ispe" + bytes(4) + struct.pack(">II", width, height)
    return b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf" + bytes(200) + \
        struct.pack(">I", len(ispe) + 4) + ispe


# pictures of a few bytes that declare more pixels than a browser should decode, and the
# same formats at a size a camera takes (shipped)
BOMBS: dict[str, tuple[bytes, bool]] = {
    "bomb.png": (_png(100_000, 100_000), True),
    "bomb.gif": (b"GIF89a" + struct.pack("<HH", 65_535, 65_535) + bytes(8), True),
    "bomb.webp": (b"RIFF\x24\x00\x00\x00WEBPVP8X" + bytes(8)
                  + (99_999).to_bytes(3, "little") * 2, True),
    "bomb.jpg": (_jpeg(60_000, 60_000), True),
    "bomb.avif": (_avif(50_000, 50_000), True),
    "photo.png": (_png(4000, 3000), False),
    "photo.jpg": (_jpeg(8000, 6000), False),
    "photo.avif": (_avif(4032, 3024), False),
}


def test_a_picture_declaring_too_many_pixels_is_not_shipped(tmp_path, capsys):
    """A decompression bomb (a small file declaring 100,000 × 100,000 pixels) would take the
    browser of the device showing its page down: check warns, the build leaves it out."""
    repo = tmp_path / "kb"
    (repo / "knowledge").mkdir(parents=True)
    (repo / "assets").mkdir()
    (repo / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n'
                                  'languages = { en = "test-hash", zh = "test-hash" }\n')
    for name, (data, _) in BOMBS.items():
        (repo / "assets" / name).write_bytes(data)
    body = "\n\n".join(f"![{n}](../assets/{n})" for n in BOMBS)
    (repo / "knowledge" / "pump.md").write_text(PAGE.format(title="Pump", source="me",
                                                            body=body), encoding="utf-8")
    cfg = load_config(repo)
    findings = {f.message.split(" ")[0].removeprefix("assets/"): f
                for f in check_paths([repo / "knowledge"], cfg)}
    assert set(findings) == {n for n, (_, bomb) in BOMBS.items() if bomb}
    assert {f.code for f in findings.values()} == {"image-too-large"}
    assert "100,000 × 100,000 pixels" in findings["bomb.png"].message
    assert "100 megapixels" in findings["bomb.png"].message
    build(cfg, BuildOptions(out=tmp_path / "dist", progress=False))
    shipped = {a.removeprefix("data/source/assets/")
               for a in load_manifest(tmp_path / "dist")["artifacts"]
               if a.startswith("data/source/assets/")}
    assert shipped == {n for n, (_, bomb) in BOMBS.items() if not bomb}


@pytest.mark.parametrize(("svg", "size"), [
    (b"<?xml version='1.0'?>\n<svg xmlns='http://www.w3.org/2000/svg' width='33.423pt' "
     b"height='10.604pt' viewBox='0 0 33.423 10.604'><path d='M0 0'/></svg>",
     (33.423 * 4 / 3, 10.604 * 4 / 3)),
    (b"<svg width='120' height=' 30px '/>", (120.0, 30.0)),
    (b"<svg width='1in' height='2.54cm'/>", (96.0, 96.0)),
    (b"<svg width='2em' height='10'/>", None),  # relative to the page: no size of its own
    (b"<svg width='100%' height='10'/>", None),
    (b"<svg width='-3' height='10'/>", None),
    (b"<svg width='nan' height='10'/>", None),
    (b"<svg viewBox='0 0 3 4'/>", None),
    (b"not xml at all", None),
])
def test_svg_size_is_the_roots_absolute_size_in_css_pixels(svg, size):
    """What the web app gives a formula picture as its width and height before it loads."""
    got = svg_size(svg)
    assert got == size if size is None else got == pytest.approx(size)


def test_the_files_a_srcset_names_are_checked_and_shipped(tmp_path):
    """`<picture><source srcset="a.png 1x, a@2x.png 2x"><img src="a.png"></picture>` and
    `<img srcset>`: a phone or a retina tablet shows the `srcset`'s larger file, but neither
    `kb check` nor the build read it: a missing one passed, a present one never shipped."""
    repo = tmp_path / "kb"
    (repo / "knowledge").mkdir(parents=True)
    (repo / "assets").mkdir()
    (repo / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n'
                                  'languages = { en = "test-hash", zh = "test-hash" }\n')
    for name in ("a.png", "a@2x.png", "wide.png", "b.png", "b-800.png"):
        (repo / "assets" / name).write_bytes(PNG)
    body = ('<picture>\n<source media="(min-width: 800px)" srcset="../assets/wide.png">\n'
            '<source srcset="../assets/a.png 1x, ../assets/a@2x.png 2x">\n'
            '<img src="../assets/a.png" alt="泵">\n</picture>\n\n'
            '泵的外观 <img src="../assets/b.png" srcset="../assets/b-800.png 800w,'
            '../assets/gone.png 1600w" alt="外观">。\n')
    (repo / "knowledge" / "pump.md").write_text(PAGE.format(title="Pump", source="me",
                                                            body=body), encoding="utf-8")
    found = check_paths([repo / "knowledge"], load_config(repo))
    assert [(f.line, f.code) for f in found] == [(line_of(repo, "gone.png"), "path-missing")]
    (repo / "assets" / "gone.png").write_bytes(PNG)
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    shipped = {a for a in load_manifest(repo / "dist")["artifacts"] if "/assets/" in a}
    assert shipped == {f"data/source/assets/{n}" for n in
                       ("a.png", "a@2x.png", "wide.png", "b.png", "b-800.png", "gone.png")}
