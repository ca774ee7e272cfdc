"""What Obsidian vaults and Typora folders hold beside plain notes: an Excalidraw drawing
saved as Markdown (`x.excalidraw.md`) is one `kb check` finding saying what to do, and a
lenient build indexes its Text Elements' words alone, never its banner, file links or
compressed drawing data; a picture Typora writes `/img/x.png` under the document's
`typora-root-url` is refused with the relative path of the file Typora shows, which
`kb check --fix` writes."""

from __future__ import annotations

import base64
import json
import sqlite3
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.api import open_index, search
from kbtools.build.chunk import chunk_document
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.corpus import parse_source
from tests.hostile import make_repo
from tests.kbfixtures import GOOD_FM

FM_LINES = GOOD_FM.count("\n")  # the body starts on line FM_LINES + 1

BANNER = ("==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠== "
          "You can decompress Drawing data with the command palette: 'Decompress current "
          "Excalidraw file'. For more info check in plugin settings under 'Saving'")


def _compressed() -> str:
    """A drawing's JSON as the plugin stores it: compressed, base64, in 256-character lines
    with blank lines between (the real layout of a `compressed-json` fence)."""
    scene = {"type": "excalidraw", "version": 2, "source": "https://github.com/zsviczian",
             "elements": [{"id": f"el{i}", "type": "text", "x": i * 13, "y": i * 7,
                           "text": "液压泵站"} for i in range(80)]}
    payload = base64.b64encode(zlib.compress(json.dumps(scene).encode())).decode()
    return "\n\n".join(payload[i:i + 256] for i in range(0, len(payload), 256))


def drawing(data: str, fence: str = "compressed-json") -> str:
    """An Excalidraw plugin 2.x drawing, byte for byte as it writes one (`fence`: `json`
    when saved uncompressed)."""
    return ("---\n\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n\n---\n" + BANNER + "\n\n\n"
            "# Excalidraw Data\n\n## Text Elements\n液压泵站 ^aB3dE6fG\n\n"
            "安全阀 压力 16 MPa\n超压时先泄压 ^xY12ab34\n\nPressure relief valve ^Qw9kLm2p\n\n"
            "## Element Links\nQw9kLm2p: [[安全阀说明]]\n\n"
            "## Embedded Files\n8f2a1b3c4d5e6f708192a3b4c5d6e7f8091a2b3c: "
            "[[Pasted image 20240101.png]]\n\n"
            f"%%\n## Drawing\n```{fence}\n" + data + "\n```\n%%")


# the plugin's 1.x layout: H1 sections, the drawing as plain JSON outside any comment
OLD_DRAWING = ("---\nexcalidraw-plugin: parsed\n---\n" + BANNER + "\n\n\n# Text Elements\n"
               "Hopper ^k1\n\nConveyor belt ^k2\n\n# Drawing\n```json\n"
               '{"type": "excalidraw", "elements": [{"id": "k1", "text": "Hopper"}]}\n```\n')


def _chunks(text: str, rel: str) -> list[tuple[tuple[str, ...], str, str, int, int]]:
    src = parse_source(text, Path("/r") / rel, rel)
    return [(c.heading_path, c.text, c.embed_text, c.line_start, c.line_end)
            for c in chunk_document(src)]


def test_a_drawing_yields_its_text_elements_alone():
    """Indexed as a document, the banner was a chunk, the Embedded Files' `[[Pasted image …]]`
    and the heading `Excalidraw Data` were chunk text, and a drawing saved by the 1.x
    plugin (no `%%` around its data) had its JSON chunked too."""
    compressed = _compressed()
    got = _chunks(drawing(compressed), "knowledge/图/泵站示意.excalidraw.md")
    assert got == [(("泵站示意",), "液压泵站\n\n安全阀 压力 16 MPa\n超压时先泄压\n\n"
                    "Pressure relief valve", "泵站示意\n液压泵站\n\n安全阀 压力 16 MPa\n"
                    "超压时先泄压\n\nPressure relief valve", 13, 18)]
    old = _chunks(OLD_DRAWING, "knowledge/plant.excalidraw.md")
    assert [(c[0], c[1]) for c in old] == [(("plant",), "Hopper\n\nConveyor belt")]
    uncompressed = _chunks(drawing('{"type": "excalidraw", "elements": []}', "json"),
                           "knowledge/a.excalidraw.md")
    assert [c[1] for c in uncompressed] == ["液压泵站\n\n安全阀 压力 16 MPa\n超压时先泄压\n\n"
                                           "Pressure relief valve"]


def test_kb_check_says_a_drawing_is_no_document_and_what_to_do(kb: Path):
    """Before: eight findings about the plugin's front matter and its file list (missing
    title, author …, unknown key `excalidraw-plugin`, a wikilink), none saying what the file
    is. Now: one, at the plugin's key, naming the export and the move."""
    (kb / "knowledge" / "泵站示意.excalidraw.md").write_text(drawing(_compressed()),
                                                             encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.exit_code == 1, res.output
    said = [line for line in res.output.splitlines() if line.startswith("knowledge/")]
    assert len(said) == 1, res.output
    assert said[0].startswith("knowledge/泵站示意.excalidraw.md:3:1: error: doc-drawing: ")
    assert "Excalidraw drawing" in said[0] and "Export image" in said[0]
    assert "泵站示意.svg" in said[0] and "out of the knowledge folder" in said[0]
    res = CliRunner().invoke(main, ["check", "--no-cache", "--lenient"])
    assert res.exit_code == 0 and "warning: doc-drawing" in res.output, res.output


def test_a_lenient_build_indexes_a_drawings_words_not_its_data(tmp_path: Path):
    compressed = _compressed()
    repo = make_repo(tmp_path / "vault", docs={
        "knowledge/图/泵站示意.excalidraw.md": drawing(compressed)})
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False, lenient=True))
    with sqlite3.connect(repo / "dist" / "index" / "store.sqlite") as con:
        rows = con.execute("SELECT heading_path, text, embed_text FROM chunks WHERE doc = ?",
                           ("knowledge/图/泵站示意.excalidraw.md",)).fetchall()
    assert len(rows) == 1 and json.loads(rows[0][0]) == ["泵站示意"], rows
    assert "液压泵站" in rows[0][1] and "Pressure relief valve" in rows[0][1], rows
    every = "\n".join(t for row in rows for t in row)
    for gone in ("EXCALIDRAW VIEW", "Excalidraw Data", "Pasted image", "安全阀说明",
                 "compressed-json", compressed[:40], "^aB3dE6fG"):
        assert gone not in every, gone


def test_a_drawing_is_listed_and_cited_under_its_name(tmp_path: Path):
    """A drawing has no front-matter `title`: its `docs` row's title was empty and a search
    cited it under its path; now under its name, as its heading path already was."""
    rel = "knowledge/图/泵站示意.excalidraw.md"
    repo = make_repo(tmp_path / "vault", docs={rel: drawing(_compressed())})
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False, lenient=True))
    with sqlite3.connect(repo / "dist" / "index" / "store.sqlite") as con:
        [(title,)] = con.execute("SELECT title FROM docs WHERE doc = ?", (rel,)).fetchall()
    assert title == "泵站示意"
    hits = [r for r in search(open_index(repo / "dist"), "安全阀 泄压", k=5).results
            if r.citation.doc == rel]
    assert hits and hits[0].title == "泵站示意", hits


TYPORA_DOC = GOOD_FM.replace("verified: false\n", "verified: false\ntypora-root-url: {root}\n") \
    + "\n# 泵站\n\n泵站照片：\n\n![泵站](/img/pump.png)\n\nSee ![valve](/img/valve%20v2.png).\n"


def test_typora_root_url_gives_the_picture_typora_shows(kb: Path):
    """`typora-root-url: ../../assets` and `![泵站](/img/pump.png)`: the picture is
    assets/img/pump.png, as Typora shows it. Before, the path was read from the disk's root
    (a file outside the repository), with no fix, and no hint when two pictures share the
    name; now the finding and `--fix` give the path relative to the document."""
    for rel in ("assets/img/pump.png", "assets/old/pump.png", "assets/img/valve v2.png"):
        (kb / rel).parent.mkdir(parents=True, exist_ok=True)
        (kb / rel).write_bytes(b"\x89PNG\r\n\x1a\n")
    doc = kb / "knowledge" / "设备" / "泵站.md"
    doc.parent.mkdir()
    doc.write_text(TYPORA_DOC.format(root="../../assets"), encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    said = [line for line in res.output.splitlines() if ": path-absolute: " in line]
    assert said == [
        "knowledge/设备/泵站.md:16:7: error: path-absolute: absolute path '/img/pump.png' "
        "(read from typora-root-url '../../assets', as Typora shows it): use "
        "'../../assets/img/pump.png'",
        "knowledge/设备/泵站.md:18:14: error: path-absolute: absolute path "
        "'/img/valve v2.png' (read from typora-root-url '../../assets', as Typora shows "
        "it): use '../../assets/img/valve%20v2.png'"], res.output
    assert "delete it once `kb check --fix` has rewritten" in res.output
    res = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    text = doc.read_text(encoding="utf-8")
    assert "![泵站](../../assets/img/pump.png)" in text, res.output
    assert "![valve](../../assets/img/valve%20v2.png)" in text
    assert "path-absolute" not in CliRunner().invoke(main, ["check", "--no-cache"]).output
    # the folder written as Typora writes it on the author's machine: absolute
    doc.write_text(TYPORA_DOC.format(root=(kb / "assets").as_posix()), encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    assert "![泵站](../../assets/img/pump.png)" in doc.read_text(encoding="utf-8"), res.output
    # a root naming no folder with that file: the finding as before, nothing written
    doc.write_text(TYPORA_DOC.format(root="../../pictures"), encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    assert "![泵站](/img/pump.png)" in doc.read_text(encoding="utf-8")
    assert "absolute path '/img/pump.png': a file outside the repository" in res.output


@pytest.mark.parametrize("root", [
    "..\\..\\assets", "C:\\Users\\x\\kb\\assets", "D:\\work\\kb\\assets\\", "C:/Users/x/kb/assets",
    "file:///C:/Users/x/kb/assets", "/Users/x/Documents/kb/assets", "C:\\Users\\x\\kb"])
def test_typora_root_url_of_the_authors_disk_gives_the_picture(kb: Path, root: str):
    """`typora-root-url` as Typora wrote it on the author's Windows or Mac disk: the folder
    named by its trailing parts that the repository holds (`assets`, or the repository
    itself) is the one Typora showed the picture from. Before, a drive or a folder this disk
    lacks gave "a file outside the repository" and no `--fix`."""
    (kb / "assets" / "img").mkdir(parents=True)
    (kb / "assets" / "img" / "pump.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (kb / "img").mkdir()
    (kb / "img" / "pump.png").write_bytes(b"\x89PNG\r\n\x1a\n")  # the repository's root
    doc = kb / "knowledge" / "设备" / "泵站.md"
    doc.parent.mkdir()
    doc.write_text(TYPORA_DOC.format(root="'" + root + "'"), encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    want = "../../img/pump.png" if root.endswith("kb") else "../../assets/img/pump.png"
    assert f"![泵站]({want})" in doc.read_text(encoding="utf-8"), res.output


@pytest.mark.parametrize("root", ["C:\\Users\\x\\kb\\pictures", "https://example.org/assets"])
def test_typora_root_url_naming_no_folder_here_is_no_fix(kb: Path, root: str):
    (kb / "assets" / "img").mkdir(parents=True)
    (kb / "assets" / "img" / "pump.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    doc = kb / "knowledge" / "泵站.md"
    doc.write_text(TYPORA_DOC.format(root="'" + root + "'"), encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    assert "![泵站](/img/pump.png)" in doc.read_text(encoding="utf-8")
    assert "absolute path '/img/pump.png': a file outside the repository" in res.output


EMBEDS = ("# 巡检\n\n巡检前读 ![[泵站检修]]，步骤见 ![[泵站检修#停机 步骤]] 和 "
          "[[泵站检修#停机 步骤|停机步骤]]，规则 [[泵站检修#^leak-rule]]。\n\n"
          "图：![[pump.png|300]]\n\n"
          "Shell 判断写 `[[ -f x ]]`：\n\n```bash\nif [[ -f /etc/kb ]]; then echo ok; fi\n```\n"
          "\n| 设备 | 规程 |\n|---|---|\n| 泵 | ![[泵站检修#停机 步骤]] |\n| 阀 | `[[x]]` |\n"
          "| 闸 | [[泵站检修\\|检修规程]] &amp; 记录 |\n")


def test_a_lenient_build_reads_embeds_as_their_text_not_markup():
    """`![[泵站检修#停机 步骤]]` was chunk text as written: its `![[`, and the search term
    `泵站检修#停机` joining a note and its heading. It reads `泵站检修 > 停机 步骤` now, a
    label as the label, a block id left out; a picture's embed, a code span and code keep
    their `[[`."""
    src = parse_source(GOOD_FM + EMBEDS, Path("/r/knowledge/巡检.md"), "knowledge/巡检.md")
    chunks = chunk_document(src)
    section = chunks[0]
    assert section.kind == "section" and section.line_start == FM_LINES + 1
    assert section.text.splitlines()[2] == ("巡检前读 泵站检修，步骤见 泵站检修 > 停机 步骤 和 "
                                            "停机步骤，规则 泵站检修。")
    assert "![[pump.png|300]]" in section.text and "`[[ -f x ]]`" in section.text
    assert "if [[ -f /etc/kb ]]; then" in section.text
    code = next(c for c in chunks if c.kind == "code")
    assert "if [[ -f /etc/kb ]]" in code.text
    rows = [c.text for c in chunks if c.kind == "table_row"]
    assert rows == ["设备: 泵\n规程: 泵站检修 > 停机 步骤", "设备: 阀\n规程: [[x]]",
                    "设备: 闸\n规程: 检修规程 & 记录"]
    # a cell's label written after `\|`, as Obsidian has it in a table: read where written
    table = next(c for c in chunks if c.kind == "table")
    assert table.text.splitlines()[-1] == "| 闸 | 检修规程 & 记录 |"
    assert section.text.splitlines()[-1] == "| 闸 | 检修规程 & 记录 |"


def test_a_notes_embed_says_to_link_or_copy_its_text(kb: Path):
    (kb / "knowledge" / "泵站检修.md").write_text(GOOD_FM + "\n# 泵站检修\n\n## 停机 步骤\n\n断电。\n",
                                               encoding="utf-8")
    (kb / "assets").mkdir()
    (kb / "assets" / "manual.pdf").write_bytes(b"%PDF-1.4\n")
    (kb / "knowledge" / "巡检.md").write_text(
        GOOD_FM + "\n# 巡检\n\n读 ![[泵站检修#停机 步骤]] 和 ![[manual.pdf]]。\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    said = [line for line in res.output.splitlines() if "link-wikilink" in line]
    assert len(said) == 2, res.output
    assert ("`kb check --fix` writes '[泵站检修 > 停机 步骤](泵站检修.md#停机-步骤)', a link (no "
            "page shows another note inside it; to have this page show the note's text, "
            "copy that text in instead)") in said[0]
    assert "`kb check --fix` writes '[manual.pdf](../assets/manual.pdf)' (so that" in said[1]


def test_a_drawings_embed_says_to_export_the_picture(kb: Path):
    """`![[泵站示意.excalidraw]]` (Obsidian's embed of a drawing): `--fix` wrote a link to
    the `.excalidraw.md`, which no page shows; now the finding says to export a picture and
    link that, and nothing is written."""
    (kb / "knowledge" / "图").mkdir()
    (kb / "knowledge" / "图" / "泵站示意.excalidraw.md").write_text(drawing(_compressed()),
                                                                   encoding="utf-8")
    doc = kb / "knowledge" / "巡检.md"
    doc.write_text(GOOD_FM + "\n# 巡检\n\n见图 ![[泵站示意.excalidraw]]\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    said = [line for line in res.output.splitlines() if "link-wikilink" in line]
    assert len(said) == 1 and "it shows an Excalidraw drawing" in said[0], res.output
    assert "Export image" in said[0] and "`![泵站示意](…/泵站示意.svg)`" in said[0]
    assert doc.read_text(encoding="utf-8").endswith("见图 ![[泵站示意.excalidraw]]\n")
