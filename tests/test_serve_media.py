"""A video or a sound written as HTML on a device's page (issue 13).

`<audio controls>\\n<source src="x.mp3">\\n</audio>` and `<video controls src="assets/a.mp4">`
were shown as their escaped source. The page shows the browser's own player of a file the
release ships, with `controls`, a shipped `poster` and a size in pixels only; a remote file
or one the release lacks is said, never played; a `javascript:` source is dropped."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.serve.app import create_app
from kbtools.serve.docview import render_markdown
from kbtools.serve.passes import RenderContext
from tests.kbfixtures import PAGE
from tests.test_linked_files import FILES

SHIPPED = {"knowledge/eq/x.mp3", "assets/a.mp4", "assets/a.png"}
CTX = RenderContext(doc="knowledge/eq/pump.md", has_asset=lambda rel: rel in SHIPPED,
                    missing_file="本设备上没有")


@pytest.mark.parametrize(("written", "shown"), [
    ('<audio controls>\n<source src="x.mp3" type="audio/mpeg">\n</audio>',
     '<p data-lines="1-3"><audio controls preload="metadata"><source src="/asset/knowledge/eq/'
     'x.mp3" type="audio/mpeg"></audio></p>'),
    ('<video controls src="../../assets/a.mp4" poster="../../assets/a.png" width=320 '
     'onplay="alert(1)" autoplay style="x">',
     '<p data-lines="1-1"><video controls poster="/asset/assets/a.png" width="320" '
     'preload="metadata"><source src="/asset/assets/a.mp4"></video></p>'),
    ('<center>\n<VIDEO SRC="../../assets/a.mp4">\n您的浏览器不支持视频\n</VIDEO>\n</center>',
     '<p data-lines="1-5" class="centred"><video controls preload="metadata"><source '
     'src="/asset/assets/a.mp4"></video></p>'),
    ('拆卸过程 <video controls src="../../assets/a.mp4" onerror="x()"></video> 见上',
     '<p data-lines="1-1">拆卸过程 <video controls preload="metadata"><source '
     'src="/asset/assets/a.mp4"></video> 见上</p>'),
])
def test_a_shipped_video_or_sound_is_the_browser_s_player(written, shown):
    assert render_markdown(f"{written}\n", CTX) == shown + "\n"


@pytest.mark.parametrize(("written", "shown"), [
    ('<audio controls>\n<source src="https://e.com/x.mp3">\n</audio>',
     '<p data-lines="1-3"><span class="missing-file"><a href="https://e.com/x.mp3" rel="noopener '
     'noreferrer nofollow" class="external">https://e.com/x.mp3</a></span> <span '
     'class="missing-note">(本设备上没有)</span></p>'),
    ('<video controls src="b.mp4"></video>',
     '<p data-lines="1-1"><span class="missing-file">b.mp4</span> <span class="missing-note">'
     "(本设备上没有)</span></p>"),
    ('<video controls>\n<source src="javascript:alert(1)">\n</video>', '<p data-lines="1-3"></p>'),
    ('<video controls>\n<source src="x.mp3">\n<script>alert(1)</script>\n</video>',
     '<pre class="raw-html">&lt;video controls&gt;\n&lt;source src=&quot;x.mp3&quot;&gt;\n'
     "&lt;script&gt;alert(1)&lt;/script&gt;\n&lt;/video&gt;\n</pre>"),
])
def test_a_remote_or_missing_file_is_said_and_a_script_is_its_source(written, shown):
    html = render_markdown(f"{written}\n", CTX)
    assert html == shown + "\n" and "<video" not in html and "<audio" not in html


def test_a_device_s_page_says_a_video_the_release_does_not_ship_and_plays_no_remote_one(tmp_path):
    """Through the real build and app: a release ships no video (`kb check` warns
    `file-not-shipped`), so the page names the file and says it is not on the device, as a
    remote sound is said; neither is escaped source, nor a player."""
    root = tmp_path / "kb"
    (root / "knowledge" / "pumps").mkdir(parents=True)
    (root / "assets").mkdir()
    (root / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n'
                                  'languages = { en = "test-hash", zh = "test-hash" }\n')
    (root / "assets" / "video.mp4").write_bytes(FILES["video.mp4"][0])
    body = ('# 水泵演示\n\n<video controls src="../../assets/video.mp4" onplay="alert(1)">\n'
            '</video>\n\n<audio controls>\n<source src="https://e.com/警报.mp3">\n</audio>\n')
    (root / "knowledge" / "pumps" / "demo.md").write_text(
        PAGE.format(title="水泵演示", source="设备科", body=body), encoding="utf-8")
    build(load_config(root), BuildOptions(out=root / "dist", progress=False))
    with TestClient(create_app(root / "dist"), base_url="http://127.0.0.1") as client:
        page = client.get("/doc/knowledge/pumps/demo.md?lang=zh").text
    assert "&lt;video" not in page and "&lt;audio" not in page and "onplay" not in page
    assert "<video" not in page and "<audio" not in page
    assert '<span class="missing-file">../../assets/video.mp4</span>' in page
    assert 'href="https://e.com/%E8%AD%A6%E6%8A%A5.mp3"' in page or "e.com/警报.mp3" in page
    assert page.count('class="missing-note"') == 2


@pytest.mark.parametrize("written", [
    '<video controls src="../../assets/a.mp4"><track kind="captions" src="a.vtt" srclang="zh">'
    "</video>",
    '<video controls><source src="../../assets/a.mp4" type="video/mp4"><track src="a.vtt">'
    "</video>",
    '拆卸 <VIDEO controls><Source src="../../assets/a.mp4"><track src="a.vtt"></VIDEO> 见上',
])
def test_a_one_line_player_with_captions_shows_no_tag_as_text(written):
    """A player written on one line with its `<source>` and `<track>` (no HTML block, so
    its tags are inline): the captions' tag was shown as escaped source after the player,
    and a player naming its file in a `<source>` was all escaped source. The page shows the
    player of a shipped file, or says the file is not on the device; no tag as text."""
    played = render_markdown(f"{written}\n", CTX)
    assert '<source src="/asset/assets/a.mp4"' in played and "&lt;" not in played, played
    said = render_markdown(f"{written}\n", RenderContext(doc=CTX.doc, has_asset=lambda _: False,
                                                         missing_file="本设备上没有"))
    assert '<span class="missing-file">../../assets/a.mp4</span>' in said, said
    assert "&lt;" not in said and "<video" not in said and "<track" not in said, said


@pytest.mark.parametrize("written", [
    "拆卸过程 <video controls></video> 见上",
    '拆卸过程 <video controls width="320"><source type="video/mp4"><track src="a.vtt"></video> 见上',
    "<video controls>\n</video>",
    '<audio controls src=" ">\n<source type="audio/mpeg">\n</audio>',
    "拆卸过程 <video controls> 见上",  # never closed: said where its line's text ends
    '拆卸 <audio controls>\n<source type="audio/mpeg"> 见上',
    "| 步骤 | 视频 |\n|---|---|\n| 拆卸 | <video controls> |",
])
def test_a_player_naming_no_file_is_said_in_its_place(written):
    """`<video controls></video>` with no `src` and no `<source src>` showed nothing at all
    (an empty paragraph, or the words around a gap): the page says, in the reader's language,
    that the player names no file; no tag as text, no empty player. One never closed (no
    `</video>`) is said where the text it stands in ends."""
    ctx = RenderContext(doc=CTX.doc, has_asset=lambda _: True, no_media_file="没有写明文件")
    html = render_markdown(f"{written}\n", ctx)
    assert html.count('<span class="missing-note">(没有写明文件)</span>') == 1, html
    assert "&lt;" not in html and "<video" not in html and "<audio" not in html, html
    played = render_markdown(f"{written.replace('<video controls', '<video controls src=a.mp4')}\n",
                             ctx)
    assert "没有写明文件" not in played or "<audio" in written, played
