"""Drafts: one commit on a new draft/ branch, never on main, never verified."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import git
import pytest
from click.testing import CliRunner
from hostile import KB, env

from kbtools.agents.draft import create_draft, render_document, slugify
from kbtools.agents.mcp_server import Context, tool_draft
from kbtools.cli import main
from kbtools.corpus import parse_source
from kbtools.errors import KbError, UsageError
from kbtools.schemas import validator_for

NOW = datetime(2026, 11, 29, 22, 5, tzinfo=timezone(timedelta(hours=8)))


@pytest.fixture
def repo(tmp_path: Path) -> git.Repo:
    root = tmp_path / "kb"
    r = git.Repo.init(root, initial_branch="main")
    (root / "kb.toml").write_text('[categories.engineering]\nfolder = "knowledge/engineering/notes"\n')
    (root / "knowledge").mkdir()
    (root / "knowledge" / "a.md").write_text("committed\n")
    r.index.add(["kb.toml", "knowledge/a.md"])
    r.index.commit("init")
    # the user's own state: a staged change, an unstaged change, an untracked file
    (root / "staged.txt").write_text("staged\n")
    r.index.add(["staged.txt"])
    (root / "knowledge" / "a.md").write_text("edited, not committed\n")
    (root / "untracked.txt").write_text("u\n")
    r.git.status()  # let git refresh the index's stat data now, not during the test
    return r


def snapshot(r: git.Repo) -> tuple:
    root = Path(r.working_tree_dir)
    files = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
             if p.is_file() and ".git" not in p.parts}
    index = hashlib.sha256((Path(r.git_dir) / "index").read_bytes()).hexdigest()
    return r.head.ref.name, r.head.commit.hexsha, index, files, r.git.status("--porcelain")


def test_draft_never_touches_main_head_index_or_worktree(repo: git.Repo) -> None:
    before = snapshot(repo)
    main_sha = repo.heads.main.commit.hexsha
    body = "---\nverified: true\nverified_by: boss@ex.org\ntags: [e17]\n---\nE17 on line 3.\n"
    d = create_draft(Path(repo.working_tree_dir), "field-report", "E17 alarm on line 3", body,
                     author="Tech Wu", location="Plant 2", now=NOW)
    assert snapshot(repo) == before
    assert repo.heads.main.commit.hexsha == main_sha
    assert d.branch == "draft/2026-11-29-e17-alarm-on-line-3"
    assert d.path == "knowledge/field_reports/2026-11-29-e17-alarm-on-line-3.md"
    commit = repo.commit(d.branch)
    assert commit.hexsha == d.commit and [p.hexsha for p in commit.parents] == [main_sha]
    assert list(commit.stats.files) == [d.path]  # one file, nothing else of the user's
    text = (commit.tree / d.path).data_stream.read().decode()
    src = parse_source(text, Path(d.path), d.path)
    assert src.errors == () and src.meta["verified"] is False
    assert "verified_by" not in src.meta and src.meta["tags"] == ["e17"]
    assert src.meta | {} == {"title": "E17 alarm on line 3", "category": "field-report",
                             "source": "field report", "author": "Tech Wu",
                             "timestamp": "2026-11-29T22:05:00+08:00", "location": "Plant 2",
                             "lang": "en", "tags": ["e17"], "verified": False}
    assert src.body == "E17 on line 3.\n"
    assert not list(validator_for("frontmatter").iter_errors(src.meta))
    # the draft's content is not in the user's index or work tree
    assert not (Path(repo.working_tree_dir) / d.path).exists()


def test_draft_cjk_title_collision_and_category_folder(repo: git.Repo) -> None:
    root = Path(repo.working_tree_dir)
    d1 = create_draft(root, "field-report", "三号机 E17 报警", "三号机早班报 E17。", location="二车间",
                      now=NOW)
    digest = hashlib.sha256("三号机 E17 报警".encode()).hexdigest()[:8]
    assert d1.branch == f"draft/2026-11-29-e17-{digest}"
    meta = parse_source((repo.commit(d1.branch).tree / d1.path).data_stream.read().decode(),
                        Path(d1.path), d1.path).meta
    assert meta["lang"] == "zh" and meta["author"] == "Test Author"  # from the git identity
    d2 = create_draft(root, "field-report", "三号机 E17 报警", "again", location="x", now=NOW)
    assert d2.branch == d1.branch + "-2" and d2.path.endswith(f"e17-{digest}-2.md")
    d3 = create_draft(root, "engineering", "Retry budget", "Use 3 retries.",
                      extra_meta={"project": "api", "verified": True,
                                  "verified_by": "x@ex.org"}, now=NOW)
    meta3 = parse_source((repo.commit(d3.branch).tree / d3.path).data_stream.read().decode(),
                         Path(d3.path), d3.path).meta
    assert meta3["verified"] is False and "verified_by" not in meta3
    assert d3.path == "knowledge/engineering/notes/2026-11-29-retry-budget.md"
    assert repo.head.ref.name == "main"


def test_slugify() -> None:
    assert slugify("Deploy: API 502s!") == "deploy-api-502s"
    assert slugify("赤霉病") == hashlib.sha256("赤霉病".encode()).hexdigest()[:8]
    assert len(slugify("x" * 300)) <= 48
    for title, words in (("Ｐｕｍｐ　Ｐ－１０１ 密封泄漏", "pump-p-101"), ("Réglage pompe", "reglage-pompe")):
        digest = hashlib.sha256(title.encode()).hexdigest()[:8]
        assert slugify(title) == f"{words}-{digest}", title  # the words kept, as read


def test_draft_errors(repo: git.Repo, tmp_path: Path) -> None:
    root = Path(repo.working_tree_dir)
    heads = {h.name for h in repo.heads}
    with pytest.raises(UsageError, match="unknown category 'memo'"):
        create_draft(root, "memo", "T", "b")
    with pytest.raises(UsageError, match="'location' is a required property "
                                         r"\(pass the location argument\)$"):
        create_draft(root, "field-report", "T", "b")
    with pytest.raises(UsageError, match="non-empty title"):
        create_draft(root, "field-report", "  ", "b", location="x")
    for blank in ("  ", "\u3000", "\u00a0"):  # a blank location is none: it was filed as given
        with pytest.raises(UsageError, match=r"\(pass the location argument\)$"):
            create_draft(root, "field-report", "T", "b", location=blank)
        with pytest.raises(UsageError, match=r"\(pass the location argument\)$"):
            create_draft(root, "field-report", "T", f"---\nlocation: '{blank}'\n---\nb")
    with pytest.raises(UsageError, match="urgency"):
        create_draft(root, "field-report", "T", "b", location="x", extra_meta={"urgency": "meh"})
    assert {h.name for h in repo.heads} == heads  # nothing created on failure
    plain = tmp_path / "plain"  # knowledge without Git
    (plain / "knowledge").mkdir(parents=True)
    with pytest.raises(Exception, match="not inside a Git repository"):
        create_draft(plain, "field-report", "T", "b", location="x")


def test_a_category_spelled_otherwise_is_the_one_it_names(repo: git.Repo) -> None:
    """`Field-Report`, `field report` or `ｆｉｅｌｄ＿ｒｅｐｏｒｔ` (as agents and people type the
    category) was "unknown category" with no hint; it is the category it spells. A
    misspelling is refused naming the category meant."""
    root = Path(repo.working_tree_dir)
    for n, spelt in enumerate(("Field-Report", "field report", "ｆｉｅｌｄ＿ｒｅｐｏｒｔ")):
        d = create_draft(root, spelt, f"Seal leak {n}", "Seal leaked.", author="Tech Wu",
                         location="Plant 2", now=NOW)
        text = (repo.commit(d.branch).tree / d.path).data_stream.read().decode()
        assert parse_source(text, Path(d.path), d.path).meta["category"] == "field-report"
    with pytest.raises(UsageError, match=r"^unknown category 'feild-report'; did you mean "
                                         r"'field-report'\? \(known: "):
        create_draft(root, "feild-report", "T", "b", location="x")


def test_a_citation_past_the_end_of_its_document_is_refused(repo: git.Repo) -> None:
    """A report citing `knowledge/a.md:900-910` of a one-line document was filed as it was
    written: the citation reads nothing. It is refused, naming the citation and the
    document's length; full-width digits and dash are read; lines it has are filed."""
    root = Path(repo.working_tree_dir)
    heads = {h.name for h in repo.heads}
    # (a path relative to the draft's folder as a link writes it, as a heading's citation)
    up = "../" * (len(Path(create_draft(root, "field-report", "Where", "b", author="Tech Wu",
                                        location="P2", now=NOW).path).parts) - 2)
    heads = {h.name for h in repo.heads}
    for cited in ("knowledge/a.md:900-910", "see a.md：２－９．", "(knowledge/a.md:1-2)",
                  f"see {up}a.md:900"):
        with pytest.raises(UsageError, match=r"^the draft cites .*a\.md.*, past the end of "
                                             r"knowledge/a\.md \(1 line at its base "):
            create_draft(root, "field-report", "Leak", f"Seal leaked; {cited}",
                         author="Tech Wu", location="P2", now=NOW)
    assert {h.name for h in repo.heads} == heads
    d = create_draft(root, "field-report", "Leak", "Seal leaked; knowledge/a.md:1 and "
                     "other.md:900", author="Tech Wu", location="P2", now=NOW)
    assert d.branch.startswith("draft/")


def test_a_superscript_after_a_citations_lines_is_no_digit_of_them(repo: git.Repo) -> None:
    """``a.md:1²`` (line 1, footnote 2) was read as line 12 of a one-line document, NFKC
    making the superscript a digit, and the draft refused; it is filed now, while a
    full-width ``１２`` is still read as 12."""
    root = Path(repo.working_tree_dir)
    d = create_draft(root, "field-report", "Leak", "Seal leaked; see knowledge/a.md:1².",
                     author="Tech Wu", location="P2", now=NOW)
    assert d.branch.startswith("draft/")
    with pytest.raises(UsageError, match=r"^the draft cites knowledge/a\.md:１２, past the end"):
        create_draft(root, "field-report", "Leak 2", "Seal leaked; see knowledge/a.md:１２.",
                     author="Tech Wu", location="P2", now=NOW)


def test_a_draft_refuses_bidi_controls_where_they_disguise_text(repo: git.Repo) -> None:
    """create_draft(..., "\u202egnp.exe", ...) was committed: the title reads as exe.png."""
    root = Path(repo.working_tree_dir)
    heads = {h.name for h in repo.heads}
    with pytest.raises(UsageError, match=r"draft title contains the bidirectional control "
                                         r"character U\+202E"):
        create_draft(root, "field-report", "\u202egnp.exe", "b", location="x", now=NOW)
    with pytest.raises(UsageError, match="draft location contains the bidirectional"):
        create_draft(root, "field-report", "T", "b", location="line \u2066 3", now=NOW)
    with pytest.raises(UsageError, match=r"line 1 of the body \(line \d+ of the draft\): "
                                         r"text-bidi: .* in a heading"):
        create_draft(root, "field-report", "T", "# Steps \u202e1 2\n\ntext\n", location="x",
                     now=NOW)
    assert {h.name for h in repo.heads} == heads  # nothing created
    # right-to-left prose keeps its isolates: `kb check` warns of the line, no more
    ok = create_draft(root, "field-report", "T", "said \u2067שלום\u2069 twice\n", location="x",
                      now=NOW)
    assert ok.branch.startswith("draft/")


def test_an_agent_is_told_the_argument_a_cli_user_the_flag(repo: git.Repo, monkeypatch) -> None:
    """MCP `draft_report` without `location` told the agent to "pass --location", a flag it
    has no way to pass; `author` likewise."""
    root = Path(repo.working_tree_dir)
    ctx = Context(root=root)
    with pytest.raises(UsageError) as missing:
        tool_draft(ctx, "field-report", "T", "b")
    assert missing.value.message.endswith("(pass the location argument)")
    assert "--" not in missing.value.message
    monkeypatch.setattr("kbtools.agents.draft.git_identity", lambda repo: ("", ""))  # no user
    with pytest.raises(UsageError, match="^no author: pass the author argument or set git"):
        tool_draft(ctx, "field-report", "T", "b", location="x")
    monkeypatch.chdir(root)
    res = CliRunner().invoke(main, ["draft", "new", "--category", "field-report", "--title", "T",
                                    "--location", "x", "--from", "-"], input="b\n")
    assert res.exit_code == 2 and "no author: pass --author or set git" in res.stderr


def test_draft_in_repository_without_commits(tmp_path: Path) -> None:
    r = git.Repo.init(tmp_path / "new", initial_branch="main")
    (tmp_path / "new" / "kb.toml").write_text("")  # as `kb init` leaves it, not committed yet
    d = create_draft(Path(r.working_tree_dir), "field-report", "First", "b", location="x", now=NOW)
    assert repo_commit_parents(r, d.branch) == []
    assert not r.head.is_valid()  # main still has no commits


def repo_commit_parents(r: git.Repo, ref: str) -> list[str]:
    return [p.hexsha for p in r.commit(ref).parents]


def test_cli_draft_new(repo: git.Repo, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(repo.working_tree_dir)
    runner = CliRunner()
    out = runner.invoke(main, ["draft", "new", "--category", "field-report", "--title",
                               "Rust spots", "--location", "Field 7", "--from", "-", "--json"],
                        input="Orange pustules on leaves.\n")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["branch"].startswith("draft/") and data["branch"].endswith("-rust-spots")
    text = (repo.commit(data["branch"]).tree / data["path"]).data_stream.read().decode()
    assert text.endswith("---\nOrange pustules on leaves.\n")
    body = tmp_path / "body.md"
    body.write_text("From a file.\n")
    out = runner.invoke(main, ["draft", "new", "--category", "field-report", "--title", "From file",
                               "--location", "x", "--from", str(body), "--source", "phone call"])
    assert out.exit_code == 0 and out.stdout.startswith("draft/")
    missing = runner.invoke(main, ["draft", "new", "--category", "field-report", "--title", "T",
                                   "--from", str(tmp_path / "none.md")])
    assert missing.exit_code == 2 and "no such file" in missing.stderr.lower()
    noloc = runner.invoke(main, ["draft", "new", "--category", "field-report", "--title", "T",
                                 "--from", str(body)])
    assert noloc.exit_code == 2 and "pass --location" in noloc.stderr
    notitle = runner.invoke(main, ["draft", "new", "--category", "field-report"])
    assert notitle.exit_code == 2 and "--title" in notitle.stderr


def test_a_draft_says_how_to_give_what_its_category_requires(repo: git.Repo, monkeypatch,
                                                            tmp_path: Path) -> None:
    """`kb draft new` documented "default: empty body", which kb check always refuses
    (body-empty), and a category's required field other than location (engineering's
    `project`) was named with no word on how to give it: no flag takes it."""
    monkeypatch.chdir(repo.working_tree_dir)
    runner = CliRunner()
    args = ["draft", "new", "--category", "engineering", "--title", "Seal leak"]
    nobody = runner.invoke(main, args)
    assert nobody.exit_code == 2 and "Missing option '--from'" in nobody.stderr
    body = tmp_path / "body.md"
    body.write_text("The seal leaks after 1500 hours.\n", encoding="utf-8")
    noproject = runner.invoke(main, [*args, "--from", str(body)])
    assert noproject.exit_code == 2
    assert noproject.stderr.rstrip().endswith(
        "'project' is a required property (give `project:` in a front-matter block at the "
        "top of --from FILE)"), noproject.stderr
    with pytest.raises(UsageError, match=r"at the top of the body argument\)$"):
        tool_draft(Context(root=Path(repo.working_tree_dir)), "engineering", "Seal", "b")
    body.write_text("---\nproject: pumps\n---\nThe seal leaks after 1500 hours.\n",
                    encoding="utf-8")
    done = runner.invoke(main, [*args, "--from", str(body), "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    text = (repo.commit(data["branch"]).tree / data["path"]).data_stream.read().decode()
    assert "project: pumps" in text and text.endswith("---\nThe seal leaks after 1500 hours.\n")


def test_draft_body_is_read_as_utf8_whatever_the_locale(repo: git.Repo, tmp_path: Path) -> None:
    """A body from stdin in a Latin-1 locale was decoded as Latin-1 and committed as mojibake;
    a body file that is not UTF-8 failed with 'unexpected error' (exit 3)."""
    root = Path(repo.working_tree_dir)
    args = [*KB, "draft", "new", "--category", "field-report", "--location", "三号机"]
    latin1 = {**env(tmp_path / "home"), "PYTHONIOENCODING": "latin-1"}
    res = subprocess.run([*args, "--title", "报警", "--from", "-", "--json"], cwd=root,
                         env=latin1, input="\ufeff风扇停转，已更换。\n".encode(),
                         capture_output=True, timeout=120)
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    text = (repo.commit(data["branch"]).tree / data["path"]).data_stream.read().decode()
    assert text.endswith("---\n风扇停转，已更换。\n")

    bad = tmp_path / "body 正文.md"
    bad.write_bytes("第一行\n第二行 ".encode() + b"\xff\n")
    branches = {b.name for b in repo.branches}
    for source, name in ((str(bad), str(bad)), ("-", "<stdin>")):
        res = subprocess.run([*args, "--title", "坏", "--from", source], cwd=root,
                             env=env(tmp_path / "home"), input=bad.read_bytes(),
                             capture_output=True, timeout=120)
        assert res.returncode == 2, res.stderr
        assert res.stderr.decode().splitlines() == [
            f"kb: error: {name}:2: not UTF-8 (byte 11 of the line); save the file as UTF-8"]
    assert {b.name for b in repo.branches} == branches


def test_body_front_matter_cannot_smuggle_fields_through_a_key(repo: git.Repo) -> None:
    """A quoted YAML key holding newlines and `---` once wrote itself out as several lines
    of front matter, `verified: true` among them, and ended the front matter early."""
    key = ('urgency: high\nverified: true\nverified_by: li@ex.org\n'
           'verified_at: "2026-01-01T00:00:00+08:00"\n---\ny')
    body = f"---\n{json.dumps(key)}: 1\n---\nE17 on line 3.\n"
    heads = {h.name for h in repo.heads}
    with pytest.raises(UsageError, match="unexpected"):  # one odd key, refused by the schema
        create_draft(Path(repo.working_tree_dir), "field-report", "smuggle", body,
                     author="Tech Wu", location="Plant 2", now=NOW)
    assert {h.name for h in repo.heads} == heads


@pytest.mark.parametrize("text", ["a: b\nverified: true", "x\u2028y", "---", "a\r\nb",
                                  "'quoted'", "# not a comment", "- item", "!!python/name"])
def test_rendered_fields_read_back_as_written(text: str) -> None:
    meta = {"title": text, text: text, "tags": [text, "b"], "verified": False}
    document = render_document(meta, "body\n---\nverified: true\n")
    src = parse_source(document, Path("d.md"), "d.md")
    assert not src.errors and src.meta == meta
    assert src.body.strip().endswith("verified: true")  # the body stays body


def test_a_draft_that_would_read_back_otherwise_is_never_committed(repo: git.Repo, monkeypatch
                                                                   ) -> None:
    """The read-back guard, against a renderer that writes keys raw as the first one did."""
    import kbtools.agents.draft as draft
    import kbtools.agents.draft_text as draft_text

    def raw(meta: dict, body: str) -> str:
        return "---\n" + "".join(f"{k}: {draft_text.yaml_scalar(v)}\n" for k, v in meta.items()) \
            + "---\n" + body
    monkeypatch.setattr(draft, "render_document", raw)
    heads = {h.name for h in repo.heads}
    body = '---\n"tags: [x]\\nverified: true\\n---\\nz": 1\n---\nE17 on line 3.\n'
    with pytest.raises(UsageError, match="cannot be written as given"):
        create_draft(Path(repo.working_tree_dir), "field-report", "guard", body,
                     author="Tech Wu", location="Plant 2", now=NOW)
    assert {h.name for h in repo.heads} == heads


def test_drafts_are_filed_only_in_a_knowledge_repository(tmp_path: Path, monkeypatch) -> None:
    """On a device with only a release (a git checkout of one, or a synced directory), a draft
    went into whatever Git repository held it, or the one around the working directory: a
    `draft/...` branch in the release checkout (or any project), with kb.toml's defaults,
    where no reviewer looks. `kb mcp --allow-write` offered `draft_report` there all the same."""
    release = tmp_path / "release"  # a checkout of a release: manifest and data, no knowledge
    (release / "data").mkdir(parents=True)
    (release / "manifest.json").write_text("{}\n")
    (release / "data" / "docs.jsonl").write_text("")
    r = git.Repo.init(release, initial_branch="artifacts")
    r.index.add(["manifest.json", "data/docs.jsonl"])
    r.index.commit("release")
    with pytest.raises(UsageError, match="release: not a knowledge repository "
                                         r"\(no kb.toml, no knowledge/ folder\)"):
        create_draft(release, "field-report", "T", "b", location="x", author="a")
    assert [h.name for h in r.heads] == ["artifacts"]
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["mcp", "--index", str(release), "--allow-write"], input="")
    assert res.exit_code == 2 and res.stderr.count("\n") == 1, res.output
    assert "--allow-write files drafts in the knowledge repository" in res.stderr
    assert "not a knowledge repository" in res.stderr and not res.stdout
    for marker in ("kb.toml", "knowledge"):  # either makes one
        root = tmp_path / f"with-{marker}"
        root.mkdir()
        if marker == "kb.toml":
            (root / marker).write_text("")
        else:
            (root / marker).mkdir()
        git.Repo.init(root).close()
        assert create_draft(root, "field-report", "T", "b", location="x", author="a").path


def test_a_body_cannot_pass_an_agents_report_off_as_another_source(repo: git.Repo) -> None:
    """A body's own front matter replaced what the call set: an agent's report (`source:
    agent report via kb mcp`) filed as `source: vendor manual`, under a reviewer's name,
    backdated, at another location; results and reviews show those fields."""
    root = Path(repo.working_tree_dir)
    body = ("---\nsource: HX260 vendor manual rev 3\nauthor: li.ming@agri.example.org\n"
            "timestamp: '2020-01-01T00:00:00+08:00'\nlocation: HQ\ntags: [seal]\n---\n"
            "Replaced the seal.\n")
    d = tool_draft(Context(root=root), "field-report", "Seal", body, author="agent-7",
                   location="bay 2")
    text = repo.git.show(f"{d['branch']}:{d['path']}")
    meta = parse_source(text + "\n", root / d["path"], d["path"]).meta
    assert meta["source"] == "agent report via kb mcp" and meta["author"] == "agent-7"
    assert meta["location"] == "bay 2" and meta["tags"] == ["seal"]
    assert not meta["timestamp"].startswith("2020")
    # a call that gives none takes the body's author, source and location (a person's file)
    d2 = create_draft(root, "field-report", "Seal 2", body, now=NOW)
    text = repo.git.show(f"{d2.branch}:{d2.path}")
    meta = parse_source(text + "\n", root / d2.path, d2.path).meta
    assert (meta["source"], meta["author"], meta["location"]) == (
        "HX260 vendor manual rev 3", "li.ming@agri.example.org", "HQ")
    assert meta["timestamp"] == NOW.isoformat(timespec="seconds")


@pytest.mark.parametrize(("body", "said"), [
    ("---\ntags: [seal\nurgency: high\n---\nSeal replaced.\n", "lines 1-4) that is not YAML"),
    ("---\n- seal\n- pump\n---\nSeal replaced.\n", "line 2: front matter is a list, not"),
    ("---\nurgent\n---\nSeal replaced.\n", "line 2: front matter is a str, not a mapping"),
])
def test_a_body_front_matter_that_is_not_fields_is_refused(repo: git.Repo, body: str,
                                                           said: str) -> None:
    """A front-matter block at the body's top that YAML could not read as fields was kept as
    text: the draft went in with its `---` block as prose and its fields (tags, urgency) lost,
    and the agent was told it had filed them."""
    root = Path(repo.working_tree_dir)
    with pytest.raises(UsageError, match="^the body argument opens with a front-matter block"
                                         ) as refused:
        create_draft(root, "field-report", "Seal", body, location="bay 2", now=NOW)
    assert said in refused.value.message and "\n" not in refused.value.message
    assert not repo.git.branch("--list", "draft/*")
    # an empty block adds nothing, a `---` never closed is a rule opening the text
    for ok, text in (("---\n---\nSeal replaced.\n", "Seal replaced."),
                     ("---\n\nSeal replaced.\n", "---\n\nSeal replaced.")):
        d = create_draft(root, "field-report", "Seal", ok, location="bay 2", now=NOW)
        assert repo.git.show(f"{d.branch}:{d.path}").split("\n---\n", 1)[1] == text


def test_a_draft_is_checked_as_its_branch_holds_it(repo: git.Repo, tmp_path: Path) -> None:
    """The draft's links were checked against the work tree while its branch is the last
    commit plus the draft: a link to a document or image only this checkout had (new, not
    committed) passed, and the draft branch then failed `kb check` for the reviewer."""
    root = Path(repo.working_tree_dir)
    (root / "knowledge" / "new.md").write_text("# New\n\nnot committed\n")
    (root / "assets").mkdir()
    (root / "assets" / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    for link in ("[new](../new.md)", "![photo](../../assets/photo.png)"):
        with pytest.raises(UsageError, match=r"would fail kb check: line 1 of the body \(line "
                                             r"\d+ of the draft\): path-missing: .* "
                                             "is not in the commit .*is not committed, and a "
                                             "draft is based on the last commit"):
            create_draft(root, "field-report", "Links", f"See {link}.\n", location="x", now=NOW)
    assert not repo.git.branch("--list", "draft/*")
    d = create_draft(root, "field-report", "Links", "See [a](../a.md).\n", location="x",
                     now=NOW)  # a committed document: the branch holds it
    tree = tmp_path / "tree"
    repo.git.worktree("add", "-q", str(tree), d.branch)
    checked = subprocess.run([sys.executable, "-m", "kbtools", "check", d.path], cwd=tree,
                             capture_output=True, text=True, env=env(tmp_path / "home"))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_draft_over_the_size_limit_is_refused(repo: git.Repo) -> None:
    """A body of 5 MB was filed: the draft's checks ran on its parsed text, which has no
    size, so a document over `[check] max_bytes` (2 MB by default) went in, and its branch
    failed `kb check` (file-too-large) for the reviewer. The refusal names the argument
    that made it so (it said "line 1")."""
    root = Path(repo.working_tree_dir)
    with (root / "kb.toml").open("a") as toml:
        toml.write("\n[check]\nmax_bytes = 2048\n")
    para = "Seal replaced on pump P-101; no leak after an hour.\n\n"
    with pytest.raises(UsageError, match=r"would fail kb check: file-too-large: file is [\d,]+ "
                                         r"bytes; the limit is 2,048 .*; shorten the body "
                                         r"argument, or file it as several reports$"):
        create_draft(root, "field-report", "Seal", para * 60, location="x", now=NOW)
    assert not repo.git.branch("--list", "draft/*")
    assert create_draft(root, "field-report", "Seal", para * 20, location="x", now=NOW).path


def test_a_draft_supersedes_only_what_its_branch_holds(repo: git.Repo) -> None:
    """`supersedes:` in a draft's front matter was checked against the work tree: naming a
    document only this checkout had (not committed) passed, and the branch failed kb check."""
    root = Path(repo.working_tree_dir)
    (root / "knowledge" / "new.md").write_text("# New\n\nnot committed\n")
    body = "---\nsupersedes: knowledge/{}\n---\nReplaced.\n"
    with pytest.raises(UsageError, match="supersedes-missing: supersedes 'knowledge/new.md'"):
        create_draft(root, "field-report", "S", body.format("new.md"), location="x", now=NOW)
    assert create_draft(root, "field-report", "S", body.format("a.md"), location="x", now=NOW)


def test_a_repository_git_refuses_is_named_with_gits_reason(repo: git.Repo) -> None:
    """Git refusing the repository as a whole (a config file cut short by a power loss, a
    clone owned by another user: safe.directory) was read as "no commits, no identity":
    `kb draft new` said "no author: … set git config user.name", or with --author failed
    with "unexpected error: GitCommandError"."""
    root = Path(repo.working_tree_dir)
    heads = repo.git.branch("--list")
    config = Path(repo.git_dir) / "config"
    config.write_text(config.read_text() + "[core\n")
    for author in (None, "tech"):
        with pytest.raises(KbError, match=r"kb: Git cannot work in this repository: bad config "
                                          r"line \d+ in file (.*/)?\.git/config$"):
            create_draft(root, "field-report", "T", "b", location="x", author=author, now=NOW)
    config.write_text(config.read_text().removesuffix("[core\n"))
    assert repo.git.branch("--list") == heads


def test_a_title_too_long_is_refused_in_a_line_that_says_so(repo: git.Repo) -> None:
    """A 5,000-character title was quoted whole in the error: the one line an agent reads
    (500 characters) ended inside the quote, so it never learnt the title was too long."""
    root = Path(repo.working_tree_dir)
    with pytest.raises(UsageError) as info:
        create_draft(root, "field-report", "T" * 5000, "b", location="x", now=NOW)
    line = info.value.format()
    assert line.endswith(f"title: {'T' * 60!r}… is too long (at most 200 characters)"), line
    assert len(line) < 300
    assert not repo.git.branch("--list", "draft/*")


def test_a_draft_is_the_tools_commit_whatever_the_users_git_commit_settings(
        repo: git.Repo, tmp_path: Path) -> None:
    """A user whose Git signs every commit (`commit.gpgSign`, here with no key: the signing
    program is missing) and writes messages in GBK (`i18n.commitEncoding`, as set on
    Chinese Windows) files a Chinese draft: it is the tool's commit of what it wrote, so it
    is filed unsigned (a reviewer's merge is the act that may be signed) and its UTF-8
    message is said to be UTF-8 (it was labelled GBK, and read back as mojibake); a retry
    finds it."""
    home = tmp_path / "home"
    home.mkdir()
    run_env = {**env(tmp_path / "kbhome"), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
               "XDG_CONFIG_HOME": str(home / ".config")}
    for key, value in (("commit.gpgSign", "true"), ("gpg.program", str(tmp_path / "no-gpg")),
                       ("user.signingKey", "0xDEADBEEF"), ("i18n.commitEncoding", "gbk")):
        subprocess.run(["git", "config", "--global", key, value], env=run_env, check=True)
    root = Path(repo.working_tree_dir)
    args = [*KB, "draft", "new", "--category", "field-report", "--title", "水泵异响",
            "--location", "二号泵房", "--from", "-", "--json"]
    first, again = (subprocess.run(args, cwd=root, env=run_env, input="泵体振动明显。\n".encode(),
                                   capture_output=True, timeout=120) for _ in range(2))
    assert first.returncode == 0, first.stderr.decode()
    filed = json.loads(first.stdout)
    raw = subprocess.run(["git", "cat-file", "commit", filed["commit"]], cwd=root, env=run_env,
                         capture_output=True, check=True).stdout.decode("utf-8")
    headers = raw.partition("\n\n")[0].split("\n")
    assert not [h for h in headers if h.startswith(("gpgsig", "encoding"))], headers
    subject = subprocess.run(["git", "-c", "i18n.logOutputEncoding=UTF-8", "log", "-1",
                              "--format=%s", filed["branch"]], cwd=root, env=run_env,
                             capture_output=True, check=True).stdout.decode("utf-8")
    assert subject.strip() == "Draft: 水泵异响"
    assert again.returncode == 0 and json.loads(again.stdout)["existing"] is True
    assert json.loads(again.stdout)["branch"] == filed["branch"]


def test_a_report_written_by_hand_under_the_drafts_name_is_left_alone(repo: git.Repo) -> None:
    """A technician wrote the report by hand, not committed, at the very path the draft
    of its title takes (the folder and date-slug name drafts use): the draft was filed
    there, and checking it out or merging it in this work tree was refused by Git ("would
    be overwritten"). It takes the next free name now; the work tree, index and HEAD are
    as they were, the hand-written file's bytes too, and the draft merges here."""
    root = Path(repo.working_tree_dir)
    mine = root / "knowledge" / "field_reports" / "2026-11-29-pump-leak.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("my own notes, not committed\n")
    before = snapshot(repo)
    d = create_draft(root, "field-report", "Pump leak", "Seal A.", location="S", now=NOW)
    assert d.path == "knowledge/field_reports/2026-11-29-pump-leak-2.md", d
    assert snapshot(repo) == before
    repo.git.merge("--no-edit", d.branch)  # the user's staged and unstaged edits kept
    assert mine.read_text() == "my own notes, not committed\n"
    assert (root / d.path).read_text().startswith("---\ntitle: Pump leak\n")


@pytest.mark.parametrize(("toml", "line"), [
    ('[categories.field-report]\nfolder = "../notes"\n', 2),  # outside the repository
    ('# drafts\n[categories.field-report]\nfolder = "notes/field"\n', 3),  # beside knowledge/
    ('[paths]\ndrafts = "assets\\\\reports"\n', 2),  # written on Windows
    ('[paths]\ndrafts = "knowledge/../.git/hooks"\n', 2)])
def test_a_drafts_folder_outside_the_knowledge_folder_is_refused(repo, monkeypatch, toml, line):
    """A drafts folder kb.toml names outside the knowledge folder: `../notes` crashed the
    filing with Git's "is outside repository" (a traceback), and `notes/field` or `assets`
    filed a draft there, where no check, build or review reads it. One line now names
    kb.toml's line and where drafts go; nothing is filed."""
    root = Path(repo.working_tree_dir)
    (root / "kb.toml").write_text(toml)
    monkeypatch.chdir(root)
    res = CliRunner().invoke(main, ["draft", "new", "--category", "field-report", "--title",
                                    "Pump leak", "--from", "-", "--location", "S"],
                             input="Seal A.\n")
    assert res.exit_code == 1, res.output
    assert res.output.startswith(f"kb: error: kb.toml:{line}: "), res.output
    assert "is no folder inside the knowledge folder knowledge/" in res.output
    assert "Traceback" not in res.output and res.output.count("\n") == 1
    assert not [h for h in repo.heads if h.name.startswith("draft/")]
    (root / "kb.toml").write_text('[categories.field-report]\nfolder = "/knowledge/reports/"\n')
    d = create_draft(root, "field-report", "Pump leak", "Seal A.", location="S", now=NOW)
    assert d.path == "knowledge/reports/2026-11-29-pump-leak.md"  # `/` is the root, as before
