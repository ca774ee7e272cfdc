"""Search → read → cite, as an agent does it over `kb mcp`: every result's citation read
back gives the lines the release holds at that citation (its `source_commit`), in Chinese
and English, for passages of tables, formulas and images; also once the work tree has been
edited after the build (the index's copy is read, not the changed file)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from mcpfixtures import data, session

QUESTIONS = ["小麦赤霉病 扬花期 用药", "E17 故障码 含义", "稀释倍数 计算公式", "病情指数 计算",
             "玉米南方锈病 症状 图片", "What does fault code E17 mean?",
             "token_expired error response", "how is the dilution amount calculated",
             "fall armyworm damage photo", "hydraulic oil grade"]


def committed_lines(repo: Path, commit: str, doc: str, a: int, b: int) -> str:
    text = subprocess.run(["git", "show", f"{commit}:{doc}"], cwd=repo, check=True,
                          capture_output=True, text=True).stdout
    return "\n".join(text.split("\n")[a - 1:b])


def cite_loop(repo: Path) -> list[tuple[dict, dict, dict]]:
    """(hit, its lines read back, its citation read back) for every result of QUESTIONS."""
    async def scenario(c):
        out = []
        for question in QUESTIONS:
            found = data(await c.call_tool("search", {"query": question, "k": 6}))
            for hit in found["results"]:
                lines = data(await c.call_tool("read", {
                    "doc": hit["doc"], "line_start": hit["line_start"],
                    "line_end": hit["line_end"]}))
                cited = data(await c.call_tool("read", {"doc": hit["citation"]}))
                out.append(({**hit, "release": found["release"]}, lines, cited))
        return out

    return session(repo, scenario=scenario)


def assert_cited_as_released(repo: Path, loop: list[tuple[dict, dict, dict]]) -> None:
    kinds = set()
    for hit, lines, cited in loop:
        commit = hit["release"]["source_commit"]
        released = committed_lines(repo, commit, hit["doc"], hit["line_start"], hit["line_end"])
        assert (lines["line_start"], lines["line_end"]) == (hit["line_start"], hit["line_end"])
        assert lines["markdown"].strip() == released.strip(), hit["citation"]
        assert cited["doc"] == hit["doc"]
        assert cited["line_start"] <= hit["line_start"] and hit["line_end"] <= cited["line_end"]
        assert released.strip() in cited["markdown"], hit["citation"]
        assert lines["release"] == cited["release"] == hit["release"]
        kinds.add(hit["kind"])
    assert {"formula", "table_row"} <= kinds, kinds  # the loop met what it is meant to
    assert any("![" in c["markdown"] for _, _, c in loop)  # and a section with an image


def test_every_citation_reads_back_as_the_release_holds_it(example_index):
    repo = example_index.parent
    assert_cited_as_released(repo, cite_loop(repo))
    for doc in (repo / "knowledge").rglob("*.md"):  # edits after the build shift every line
        text = doc.read_text(encoding="utf-8")
        cut = text.index("\n---\n", 4) + 5
        doc.write_text(text[:cut] + "\n新加的一行。\n\nAn added line.\n" + text[cut:],
                       encoding="utf-8")
    assert_cited_as_released(repo, cite_loop(repo))


FILL_ZH = "这一段说明现场操作的注意事项，技术员应逐项核对并记录结果。" * 12
FILL_EN = "The technician checks each item in the field and records the result. " * 10


def test_headings_in_the_other_language_are_cited_as_written_and_read_back(tmp_path: Path):
    """A Chinese page with English headings (and one holding the `>` and `§` a citation
    writes between its parts, and `@` before a release), an English page with a Chinese
    heading: each hit cites its heading path as the author wrote it, and `read` takes the
    citation, the path as a list, joined with " > ", and its last heading alone."""
    from kbfixtures import titled_page

    from kbtools.agents.mcp_server import Context, tool_read, tool_search
    from kbtools.build.pipeline import BuildOptions, build
    from kbtools.config import load_config
    from tests.hostile import make_repo

    pump = titled_page("液压泵维护规程", (
        f"## 3. Inlet > outlet pressure\n\n{FILL_ZH}\n\n### 3.2 Relief valve § setting\n\n"
        f"安全阀开启压力调到 21 MPa，用压力表核对三次。{FILL_ZH}\n\n## 4. Pump @ 3000 rpm\n\n"
        f"转速超过 3000 转时检查轴承温度。{FILL_ZH}\n"))
    nozzle = titled_page("Sprayer nozzle care", (
        f"## 1. Overview\n\n{FILL_EN}\n\n## 2. 喷头清洗\n\nSoak the nozzle tips in warm water "
        f"for 20 minutes. {FILL_EN}\n"))
    repo = make_repo(tmp_path / "r", docs={"knowledge/pump.md": pump,
                                           "knowledge/nozzle.md": nozzle})
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    ctx = Context(index=repo / "dist", root=repo)
    expected = {"安全阀开启压力 21 MPa": ["液压泵维护规程", "3. Inlet > outlet pressure",
                                    "3.2 Relief valve § setting"],
                "转速超过 3000 转 轴承温度": ["液压泵维护规程", "4. Pump @ 3000 rpm"],
                "soak nozzle tips warm water 20 minutes": ["Sprayer nozzle care", "2. 喷头清洗"]}
    for question, path in expected.items():
        with ctx.call():
            hit = tool_search(ctx, question, 3)["results"][0]
        assert hit["heading_path"] == path, (question, hit["citation"])
        assert hit["citation"].endswith(" § " + " > ".join(path)), hit["citation"]
        for ask in (hit["citation"], path, " > ".join(path), path[-1]):
            with ctx.call():
                got = tool_read(ctx, hit["doc"] if ask != hit["citation"] else ask,
                                None if ask == hit["citation"] else ask)
            assert got["heading_path"] == path, (ask, got["heading_path"])
            assert got["line_start"] <= hit["line_start"] <= hit["line_end"] <= got["line_end"]
