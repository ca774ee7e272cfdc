"""Citations an agent can trust: the cited lines of the cited file hold the passage, its
heading path is the chain of headings above those lines, and the commit named is the one
whose file holds them.

The property is checked independently of the chunker: the file is read back as bytes (line
ends and a BOM as Git stores them), its headings found with a plain CommonMark parser, and
every chunk and every read of a chunk's range compared with what the lines hold."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

from click.testing import CliRunner
from markdown_it import MarkdownIt
from starlette.testclient import TestClient

from kbtools.agents.read import Knowledge, read_section
from kbtools.build import history
from kbtools.build.chunk import chunk_document
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.corpus import read_doc
from kbtools.index.manifest import load_manifest
from kbtools.index.reader import open_index
from kbtools.serve.app import create_app
from tests.hostile import GOOD_DOC, git, make_repo

FM = GOOD_DOC.split("# Pump maintenance")[0]
FILL = "这段补充文字让章节足够长，使分块器把每个小节分成独立的块，以检验标题路径和行号。" * 8
PUMP = f"""# 水泵维护

第一段在任何二级标题之前，说明水泵的用途。{FILL}

## 日常检查

检查油位、油温和密封是否渗漏。{FILL}

### 注意

日常检查时不要触碰旋转部件。{FILL}

## 季度保养

更换机械密封，检查轴承间隙。{FILL}

### 注意

季度保养必须断电并上锁挂牌。{FILL}
"""
# hostile but realistic documents: name -> bytes as the author's editor wrote them
HOSTILE: dict[str, bytes] = {
    "crlf.md": (FM + PUMP).replace("\n", "\r\n").encode(),
    "cr.md": (FM + PUMP).replace("\n", "\r").encode(),
    "bom.md": ("\ufeff" + FM + PUMP).encode(),
    "block-scalar.md": (FM.replace("verified: false\n", "verified: false\nnotes: |\n  a\n"
                                   "  ---\n  b\n") + PUMP).encode(),
    "setext.md": (FM + f"水泵维护\n====\n\n开头。{FILL}\n\n日常检查\n----\n\n检查油位。{FILL}\n\n"
                  f"季度保养\n----\n\n更换密封。{FILL}\n").encode(),
    "nested.md": (FM + f"# 结构\n\n## 列表\n\n- 第一项。{FILL}\n  ## 列表里的标题\n  文字。\n"
                  f"- 第二项。{FILL}\n\n## 引用\n\n> ## 引用里的标题\n> 引用正文。{FILL}\n\n"
                  f"> [!NOTE]\n> ### 提示\n> 提示正文。{FILL}\n\n"
                  f"> [!warning]- 断电挂牌^[依据 GB 4285]\n> 检修前断电。{FILL}\n\n"
                  "## 表格和代码\n\n1. 准备：\n\n"
                  "   | 工具 | 数量 |\n   | --- | --- |\n   | 扳手 | 2 |\n   | 螺丝刀 | 1 |\n\n"
                  "2. 运行：\n\n   ```bash\n   systemctl restart pump\n   ```\n\n"
                  f"## HTML\n\n<div>\n<p>高压危险。</p>\n</div>\n\n正文引用脚注[^1]。{FILL}\n\n"
                  f"## 其他\n\n其他内容。{FILL}\n\n[^1]: 见 GB 4285 第 3 节。\n").encode(),
    "no-heading.md": (FM + f"没有标题的文档。{FILL}\n\n第二段。{FILL}\n\n第三段。\n").encode(),
    "long-line.md": (FM + "# 长行\n\n" + "很长的一行。" * 700 + "\n\n## 之后\n\n之后。\n").encode(),
    "tabs-zw.md": (FM + f"#\t制表\u200b符\n\n\t缩进代码\n\n段落\t制表符\u200d。{FILL}\n\n"
                   f"## 第\u200b二节   \n\n内容。{FILL}   \n\n\n   \n").encode(),
    "separators.md": (FM + f"# 分隔\n\n行分隔\u2028继续，NEL\u0085换页\x0c。{FILL}\n\n## 二\n\n"
                      f"段落\u2029分隔。{FILL}\n").encode(),
    "obsidian.md": (FM + f"# 黑曜石\n\n[TOC]\n\n%%注释%%\n\n正文。{FILL}\n\n## 真标题\n\n"
                    f"内容。{FILL}\n").encode(),
}

_MD = MarkdownIt("commonmark", {"html": True}).enable("table")
_LINK = re.compile(r"\]\((?:[^()]|\([^()]*\))*\)")
_MARKUP = re.compile(r"[\s#*`_>|\-\[\]()!~=:.\\<>/\"'{}$^%\u200b\u200d\ufeff]")


# what chunk text leaves out of a line: HTML tags, footnote labels (`[^1]`, `[^1]:`), a
# line of Typora's `[TOC]`, a callout's marker before its title (`[!warning]- 标题`) and
# Obsidian's `%% comments %%`
_LEFT_OUT = re.compile(r"<[^<>\n]*>|\[\^[^\]\s]+\]:?|^[ \t]*\[toc\][ \t]*$"
                       r"|\[![A-Za-z][\w-]*\][+-]?(?=[ \t]*\S)|%%[^%]*%%", re.M | re.I)


def _norm(text: str) -> str:
    text = _LEFT_OUT.sub("", _LINK.sub("]", text))
    return _MARKUP.sub("", unicodedata.normalize("NFKC", text))


def file_lines(raw: bytes) -> list[str]:
    """The lines of a file as an editor numbers them (CRLF, CR and LF end a line)."""
    text = raw.decode("utf-8").removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def heading_chains(lines: list[str]) -> list[tuple[str, ...]]:
    """For each line (0-based), the headings above it, outermost first: the document's own
    headings only (not those inside a list or a quote), front matter blanked out."""
    body = list(lines)
    if lines and lines[0].rstrip() == "---":
        end = next(i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "..."))
        body[:end + 1] = [""] * (end + 1)
    tokens = _MD.parse("\n".join(body))
    heads = [(t.map[0], int(t.tag[1]), "".join(c.content for c in tokens[i + 1].children or ()
                                                  if c.type in ("text", "code_inline")))
             for i, t in enumerate(tokens) if t.type == "heading_open" and t.level == 0 and t.map]
    chains: list[tuple[str, ...]] = []
    stack: list[tuple[int, str]] = []
    for n in range(len(lines)):
        while heads and heads[0][0] <= n:
            _, level, text = heads.pop(0)
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, text))
        chains.append(tuple(_norm(t) for _, t in stack))
    return chains


def expected_path(lines: list[str], a: int, b: int) -> tuple[str, ...]:
    """The heading path lines `a`-`b` (1-based) lie under: the chain all their non-blank lines
    share (a chunk merged from sibling sections lies under their parent)."""
    chains = heading_chains(lines)
    held = [chains[n - 1] for n in range(a, b + 1) if lines[n - 1].strip()] or [chains[a - 1]]
    common = held[0]
    for chain in held[1:]:
        k = 0
        while k < min(len(common), len(chain)) and common[k] == chain[k]:
            k += 1
        common = common[:k]
    return common


def cited_problems(raw: bytes, kind: str, text: str, heading_path: list[str] | tuple[str, ...],
                   a: int, b: int) -> list[str]:
    """What is wrong with citing lines `a`-`b` of the file `raw` for `text` (empty: nothing)."""
    lines = file_lines(raw)
    if not 1 <= a <= b <= len(lines):
        return [f"lines {a}-{b} outside a file of {len(lines)} lines"]
    held = "\n".join(lines[a - 1:b])
    out = []
    if kind == "table_row":
        values = [line.split(": ", 1)[-1] for line in text.split("\n")]
        out += [f"row value {v!r} not on line {a}" for v in values if _norm(v) not in _norm(held)]
    elif _norm(text) not in _norm(held):
        out.append(f"text {text[:40]!r} not in lines {a}-{b}")
    path = tuple(_norm(h) for h in heading_path if not h.startswith("(h"))
    if path != expected_path(lines, a, b):
        out.append(f"heading path {list(heading_path)} is not the one above lines {a}-{b}: "
                   f"{list(expected_path(lines, a, b))}")
    return out


def test_every_chunk_and_every_read_of_it_cites_lines_that_hold_it(tmp_path):
    """Chunks of hostile documents (line ends, BOM, front matter with `---`, setext, headings
    in lists and quotes, repeated headings, tables and code in list items, footnotes, long
    lines, tabs, zero-width and separator characters) cite lines that hold their text under
    the headings above them; reading a chunk's range back returns those lines under the same
    heading path."""
    root = tmp_path / "repo"
    (root / "knowledge").mkdir(parents=True)
    kn = Knowledge(root, root / "knowledge", "repository")
    problems, split = [], 0
    for name, raw in HOSTILE.items():
        path = root / "knowledge" / name
        path.write_bytes(raw)
        chunks = chunk_document(read_doc(path, root))
        split += len(chunks) > 1
        for c in chunks:
            where = f"{name}:{c.line_start}-{c.line_end} {c.kind}"
            problems += [f"{where}: {p}" for p in cited_problems(
                raw, c.kind, c.text, c.heading_path, c.line_start, c.line_end)]
            got = read_section(kn, f"knowledge/{name}", line_start=c.line_start,
                               line_end=c.line_end)
            if (got.line_start, got.line_end, got.heading_path) != \
                    (c.line_start, c.line_end, tuple(c.heading_path)):
                problems.append(f"{where}: read back as {got.citation()}")
    assert problems == []
    assert split >= len(HOSTILE) - 3  # most documents are cut into several chunks


def test_a_line_range_read_is_cited_under_the_sections_it_spans(tmp_path):
    """Lines from one section into the next were cited under the first one's heading path
    (`§ 水泵维护 > 日常检查 > 注意` for lines reaching into `季度保养`): a read's heading path
    is the one all its lines lie under, as a merged chunk's is."""
    root = tmp_path / "repo"
    (root / "knowledge").mkdir(parents=True)
    (root / "knowledge" / "pump.md").write_text(FM + PUMP, encoding="utf-8")
    kn = Knowledge(root, root / "knowledge", "repository")
    lines = file_lines((root / "knowledge" / "pump.md").read_bytes())
    note, quarterly = lines.index("### 注意") + 1, lines.index("## 季度保养") + 1
    reads = {(note, quarterly + 2): ("水泵维护",),
             (note, note + 2): ("水泵维护", "日常检查", "注意"),
             (quarterly - 4, quarterly - 2): ("水泵维护", "日常检查", "注意"),
             (quarterly, quarterly + 6): ("水泵维护", "季度保养"),
             (1, note): ()}
    for (a, b), path in reads.items():
        got = read_section(kn, "knowledge/pump.md", line_start=a, line_end=b)
        assert (got.line_start, got.line_end, got.heading_path) == (a, b, path), (a, b)
        assert cited_problems((root / "knowledge" / "pump.md").read_bytes(), "section",
                              got.markdown, got.heading_path, a, b) == []


def test_a_build_of_uncommitted_files_says_so_wherever_it_names_its_commit(tmp_path):
    """Lines inserted above a section and built before committing: the citations give the
    working tree's lines, which the commit the release names does not hold. `kb query`
    named that commit as its source without a word (`[local build @ <commit>]`, a JSON
    release of tag and commit only), so an agent cited "lines 15-17 at <commit>" for lines
    that, at that commit, are elsewhere."""
    doc = FM + PUMP
    repo = make_repo(tmp_path / "repo", docs={"knowledge/pump.md": doc})
    commit = git(repo, "rev-parse", "HEAD").strip()
    cfg = load_config(repo)
    runner = CliRunner()

    def ask() -> tuple[dict, str]:
        build(cfg, BuildOptions(out=repo / "dist", progress=False))
        args = ["query", "--index", str(repo / "dist"), "-k", "1", "季度保养 上锁挂牌"]
        as_json = runner.invoke(main, [*args, "--json"])
        text = runner.invoke(main, args)
        assert as_json.exit_code == 0 and text.exit_code == 0, as_json.output + text.output
        return json.loads(as_json.output), text.output

    clean, shown = ask()
    assert clean["release"] == {"tag": None, "source_commit": commit}
    assert f"[local build @ {commit[:12]}]" in shown
    hit = clean["results"][0]
    committed = git(repo, "show", f"{commit}:knowledge/pump.md").encode()
    assert cited_problems(committed, hit["kind"], hit["text"], hit["heading_path"],
                          hit["line_start"], hit["line_end"]) == []

    head, rest = doc.split("# 水泵维护", 1)
    (repo / "knowledge" / "pump.md").write_text(head + "插入一。\n\n插入二。\n\n\n# 水泵维护" + rest,
                                                encoding="utf-8")
    dirty, shown = ask()
    hit = dirty["results"][0]
    assert hit["line_start"] == clean["results"][0]["line_start"] + 5
    assert cited_problems(committed, hit["kind"], hit["text"], hit["heading_path"],
                          hit["line_start"], hit["line_end"]) != []  # not the commit's lines
    assert cited_problems((repo / "knowledge" / "pump.md").read_bytes(), hit["kind"],
                          hit["text"], hit["heading_path"], hit["line_start"],
                          hit["line_end"]) == []
    assert dirty["release"] == {"tag": None, "source_commit": commit, "dirty": True}
    assert f"[local build @ {commit[:12]} + uncommitted changes]" in shown
    assert open_index(repo / "dist").release.dirty is True
    with TestClient(create_app(repo / "dist"), base_url="http://127.0.0.1") as client:
        page = client.get("/", params={"q": "季度保养", "lang": "en"})
        api = client.get("/api/search", params={"q": "季度保养"})
    assert page.status_code == 200 and "with uncommitted changes" in page.text
    assert api.json()["release"]["dirty"] is True

    git(repo, "commit", "-qam", "insert lines")
    after, shown = ask()
    assert after["release"] == {"tag": None, "source_commit": git(repo, "rev-parse",
                                                                   "HEAD").strip()}
    assert (after["results"][0]["line_start"], after["results"][0]["line_end"]) == \
        (hit["line_start"], hit["line_end"])



def test_a_commit_while_a_build_reads_leaves_it_dirty_of_the_commit_it_started_from(
        tmp_path, monkeypatch):
    """A long build read the documents, someone committed lines inserted above a section
    meanwhile, and the manifest named the new commit, clean: its citations were the old
    lines, five lines off from what the commit it named holds."""
    repo = make_repo(tmp_path / "repo", docs={"knowledge/pump.md": FM + PUMP})
    started = git(repo, "rev-parse", "HEAD").strip()
    real = history.blame_documents

    def commit_meanwhile(root: Path, rels: list[str]) -> object:
        head, rest = (FM + PUMP).split("# 水泵维护", 1)
        (repo / "knowledge" / "pump.md").write_text(head + "插入。\n\n\n\n\n# 水泵维护" + rest,
                                                    encoding="utf-8")
        git(repo, "commit", "-qam", "insert lines")
        return real(root, rels)

    monkeypatch.setattr(history, "blame_documents", commit_meanwhile)
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    assert git(repo, "rev-parse", "HEAD").strip() != started
    assert load_manifest(repo / "dist")["source"] == {"commit": started, "tree": "dirty",
                                                      "dirty": True}
    assert open_index(repo / "dist").release.commit_text() == \
        f"{started[:12]} + uncommitted changes"
