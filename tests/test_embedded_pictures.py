"""Pictures a vault only embeds (`![[pump.png]]`, `![[pump.png|300]]`) ship with the release
and show on the page, as those of standard links do (`kbtools.check.wikilinks`: the one file
a wikilink names is among a document's images and files); one no file answers to is a
`kb check` finding at its line, one the release leaves out a warning at its line."""

from __future__ import annotations

from urllib.parse import quote

from starlette.testclient import TestClient

from kbtools.build.pipeline import BuildOptions, build
from kbtools.check.engine import check_paths
from kbtools.config import load_config
from kbtools.index.manifest import load_manifest
from kbtools.serve.app import create_app
from tests.kbfixtures import PAGE
from tests.test_assets import LFS, PNG

BODY = """泵站外观 ![[pump.png]]，缩略 ![[pump.png|300]]。

阀门 ![[阀 门.png|阀门照片|200]] 和 ![剖面](<图/泵 剖面.png>)。

| 部件 | 照片 |
|---|---|
| 叶轮 | ![[叶轮.jpg\\|叶轮]] |

手册 ![[维修手册.pdf]]，指针 ![[pointer.png]]，缺 ![[缺失.png|100]]。
"""


def test_pictures_only_embedded_ship_and_show_and_a_missing_one_is_named(tmp_path, capsys):
    repo = tmp_path / "vault"
    (repo / "knowledge" / "泵站" / "图").mkdir(parents=True)
    (repo / "assets" / "img").mkdir(parents=True)
    (repo / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n'
                                  'languages = { en = "test-hash", zh = "test-hash" }\n')
    for rel in ("assets/img/pump.png", "knowledge/泵站/阀 门.png", "knowledge/泵站/图/泵 剖面.png",
                "assets/叶轮.jpg"):
        (repo / rel).write_bytes(PNG)
    (repo / "assets" / "维修手册.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    (repo / "assets" / "pointer.png").write_bytes(LFS)
    doc = repo / "knowledge" / "泵站" / "巡检.md"
    doc.write_text(PAGE.format(title="巡检", source="me", body=BODY), encoding="utf-8")
    lines = doc.read_text(encoding="utf-8").splitlines()

    def line(text: str) -> int:
        return next(n for n, t in enumerate(lines, 1) if text in t)

    found = check_paths([repo / "knowledge"], load_config(repo))
    said = {(f.line, f.code, f.level) for f in found if f.code != "link-wikilink"}
    assert said == {(line("pointer.png"), "image-lfs-pointer", "warning")}, found
    missing = [f for f in found if "缺失.png" in f.message]
    assert [(f.line, f.col) for f in missing] == [(line("缺失"), lines[line("缺失") - 1]
                                                   .index("![[缺失") + 1)]
    assert "no file '缺失.png'" in missing[0].message
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=True, lenient=True))
    assert f"巡检.md:{line('pointer.png')}:" in capsys.readouterr().err
    shipped = {a for a in load_manifest(repo / "dist")["artifacts"]
               if a.startswith("data/source/") and not a.endswith(".md")}
    assert shipped == {"data/source/assets/img/pump.png", "data/source/knowledge/泵站/阀 门.png",
                       "data/source/knowledge/泵站/图/泵 剖面.png", "data/source/assets/叶轮.jpg",
                       "data/source/assets/维修手册.pdf"}
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as client:
        page = client.get("/doc/" + quote("knowledge/泵站/巡检.md")).text
        for rel in ("assets/img/pump.png", "knowledge/泵站/阀 门.png", "assets/叶轮.jpg"):
            assert f'src="/asset/{quote(rel)}' in page, (rel, page)
            assert client.get(f"/asset/{quote(rel)}").content == PNG
        assert 'width="300"' in page and 'alt="阀门照片"' in page and 'width="200"' in page
        assert f'href="/asset/{quote("assets/维修手册.pdf")}"' in page
        assert "[[" not in page.split("<main")[-1]
