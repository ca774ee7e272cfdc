"""The repo's schemas/ folder is the package's default set (kb init writes the same)."""

from __future__ import annotations

import json
import os
import time

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from kbtools.schemas import PACKAGE_SCHEMAS, validator_for
from tests.kbfixtures import REPO


def test_repo_schemas_match_package_defaults():
    repo = {p.relative_to(REPO / "schemas").as_posix(): p.read_bytes()
            for p in (REPO / "schemas").rglob("*.json")}
    pkg = {p.relative_to(PACKAGE_SCHEMAS).as_posix(): p.read_bytes()
           for p in PACKAGE_SCHEMAS.rglob("*.json")}
    assert repo == pkg


def test_verified_true_needs_reviewer_fields():
    v = validator_for("frontmatter")
    doc = {"title": "t", "category": "engineering", "source": "s", "author": "a",
           "timestamp": "2026-01-01T00:00:00+08:00", "verified": True}
    assert any("verified_by" in e.message for e in v.iter_errors(doc))
    doc |= {"verified_by": "r@example.org", "verified_at": "2026-01-02T00:00:00+08:00"}
    assert list(v.iter_errors(doc)) == []
    doc["timestamp"] = "2026-01-01 00:00"
    assert list(v.iter_errors(doc))


def test_all_schemas_are_valid_json_schema():
    from jsonschema import Draft202012Validator

    for p in PACKAGE_SCHEMAS.rglob("*.json"):
        Draft202012Validator.check_schema(json.loads(p.read_text(encoding="utf-8")))


ENGINEERING = """{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  %s
}
"""


@pytest.mark.parametrize("edit,where", [
    ('"required": "project"', ":4: not a valid JSON Schema at required: 'project' is not "
                              "of type 'array'"),
    ('"properties": {\n    "project": {"type": "string", "pattern": "[a-z"}}',
     ":5: not a valid JSON Schema at properties/project/pattern: '[a-z' is not a 'regex'"),
    ('"$defs": {"name": {"type": "string"}},\n  "properties": {\n    "project": '
     '{"$ref": "#/$defs/nmae"}}', ":6: $ref '#/$defs/nmae' resolves to nothing "
                                  "(at properties/project)"),
    ('"required": ["project",]', ":4: cannot read schema: Expecting value (column 26): a "
                                 "comma before ] or } (JSON allows none: delete it)"),
    ('"required": ["project"],', ":5: cannot read schema: Expecting property name enclosed in "
                                "double quotes (column 1): a comma before ] or } (JSON allows "
                                "none: delete it)"),
])
@pytest.mark.parametrize("category", ["engineering", "crop-protection"])
def test_a_broken_category_schema_is_one_line_naming_file_and_line(tmp_path, monkeypatch,
                                                                   edit, where, category):
    """(The file is named from the knowledge base, as findings name documents.) An author
    editing schemas/ once met `kb: unexpected error: SchemaError` (exit 3, no
    file named) or a traceback from the first document of that category. A category no
    document has yet (crop-protection, in kb init's knowledge base) passed: the commit that
    broke it went in, and the next author's first document of it met the error."""
    assert CliRunner().invoke(main, ["init", str(tmp_path / "kr")]).exit_code == 0
    schema = tmp_path / "kr" / "schemas" / "categories" / f"{category}.schema.json"
    schema.write_text(ENGINEERING % edit, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "kr")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.exit_code == 1, res.output
    assert res.stderr == f"kb: error: schemas/categories/{category}.schema.json{where}\n"
    assert (ENGINEERING % edit).splitlines()[int(where.split(":")[1]) - 1].strip()


def test_a_schema_edited_while_the_process_runs_is_read_again(tmp_path, monkeypatch):
    """`kb watch` kept the first validator it compiled for a schema path: an author who made
    a key required and took it back still got `fm-missing-key` from every rebuild, and the
    results cache stored those findings under the reverted schemas, so even a fresh `kb
    check` reported them until the cache was removed."""
    assert CliRunner().invoke(main, ["init", str(tmp_path / "kr")]).exit_code == 0
    schema = tmp_path / "kr" / "schemas" / "categories" / "engineering.schema.json"
    original = schema.read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path / "kr")
    assert CliRunner().invoke(main, ["check"]).exit_code == 0
    body = json.loads(original)
    body["required"] = [*body.get("required", []), "zebra_field"]
    schema.write_text(json.dumps(body), encoding="utf-8")
    res = CliRunner().invoke(main, ["check"])
    assert res.exit_code == 1 and "zebra_field" in res.output
    schema.write_text(original, encoding="utf-8")  # taken back, in the same process
    res = CliRunner().invoke(main, ["check"])
    assert res.exit_code == 0 and "zebra_field" not in res.output, res.output
    assert validator_for("categories/engineering", schema.parent.parent).schema == \
        json.loads(original)


def test_a_schema_saved_by_notepad_is_read(tmp_path, monkeypatch):
    """A UTF-8 byte-order mark and CRLF (Windows Notepad) before a schema's `{`: read as
    without them (it was `cannot read schema: Unexpected UTF-8 BOM (decode using
    utf-8-sig)`), and the schema's rules still apply."""
    assert CliRunner().invoke(main, ["init", str(tmp_path / "kr")]).exit_code == 0
    for name in ("frontmatter.schema.json", "categories/engineering.schema.json"):
        schema = tmp_path / "kr" / "schemas" / name
        schema.write_bytes(b"\xef\xbb\xbf" + schema.read_bytes().replace(b"\n", b"\r\n"))
    monkeypatch.chdir(tmp_path / "kr")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.exit_code == 0, res.output
    doc = tmp_path / "kr" / "knowledge" / "getting-started.md"
    doc.write_text(doc.read_text(encoding="utf-8").replace("title:", "titel:"), encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.exit_code == 1 and "fm-unknown-key" in res.output


@pytest.mark.parametrize("cwd,shown", [("kr", ""), ("kr/knowledge", ""), (".", "kr/")])
def test_a_broken_schema_is_named_as_the_findings_name_documents(tmp_path, monkeypatch, cwd,
                                                                 shown):
    """A broken schema was named by its absolute path (`kb: error: /home/…/kr/schemas/…`)
    while the findings of the same run name documents from the knowledge base, or from the
    current directory above it (`kr/knowledge/a.md:…`): the schema is now named the same
    way, by kb check and by kb build."""
    assert CliRunner().invoke(main, ["init", str(tmp_path / "kr")]).exit_code == 0
    doc = tmp_path / "kr" / "knowledge" / "getting-started.md"
    doc.write_text(doc.read_text(encoding="utf-8").replace("title:", "titel:"), encoding="utf-8")
    monkeypatch.chdir(tmp_path / cwd)
    target = [] if cwd != "." else ["kr/knowledge"]
    res = CliRunner().invoke(main, ["check", "--no-cache", *target])
    assert res.exit_code == 1 and f"{shown}knowledge/getting-started.md:" in res.stdout
    schema = tmp_path / "kr" / "schemas" / "frontmatter.schema.json"
    schema.write_text('{"type": "object",\n "properties": {\n', encoding="utf-8")
    said = (f"kb: error: {shown}schemas/frontmatter.schema.json:3: cannot read schema: "
            "Expecting property name enclosed in double quotes (column 1)\n")
    res = CliRunner().invoke(main, ["check", "--no-cache", *target])
    assert (res.exit_code, res.stderr) == (1, said)
    if cwd != ".":  # kb build runs in the knowledge base
        res = CliRunner().invoke(main, ["build", "-q"])
        assert (res.exit_code, res.stderr) == (1, said)


COMMON = {"$schema": "https://json-schema.org/draft/2020-12/schema",
          "$defs": {"crops": {"type": "array", "items": {"enum": ["小麦", "玉米", "水稻"]}},
                    "日期": {"type": "string", "format": "date"},
                    "风险": {"enum": ["低", "中", "高"]}}}
CROP_DOC = """---
title: 小麦条锈病
category: crop-protection
source: 植保站
author: 李明
timestamp: "2026-01-01T09:00:00+08:00"
verified: false
crop: [{crop}]
disease: [条锈病]
inspected: "{inspected}"
风险等级: {risk}
---
# 小麦条锈病

发病初期喷药。
"""


def _shared_schema_repo(tmp_path, monkeypatch, ref: str, with_id: bool):
    """kb init's knowledge base whose crop-protection schema takes its rules from a shared
    schemas/common.schema.json through `ref` (its `../common.schema.json` or another)."""
    assert CliRunner().invoke(main, ["init", str(tmp_path / "kr")]).exit_code == 0
    schemas = tmp_path / "kr" / "schemas"
    (schemas / "common.schema.json").write_text(json.dumps(COMMON, ensure_ascii=False),
                                                encoding="utf-8")
    category = schemas / "categories" / "crop-protection.schema.json"
    body = json.loads(category.read_text(encoding="utf-8"))
    if not with_id:
        del body["$id"]
    body["properties"] = {"crop": {"$ref": f"{ref}#/$defs/crops", "minItems": 1},
                          "inspected": {"$ref": f"{ref}#/$defs/日期"},
                          "风险等级": {"$ref": f"{ref}#/$defs/风险"}}
    category.write_text(json.dumps(body, ensure_ascii=False, indent=1), encoding="utf-8")
    base = schemas / "frontmatter.schema.json"
    body = json.loads(base.read_text(encoding="utf-8"))
    body["properties"] |= {"inspected": {"type": "string"}, "风险等级": {"type": "string"}}
    base.write_text(json.dumps(body, ensure_ascii=False, indent=1), encoding="utf-8")
    monkeypatch.chdir(tmp_path / "kr")
    return tmp_path / "kr" / "knowledge" / "rust.md", category


@pytest.mark.parametrize("with_id", [True, False])
def test_a_category_schema_refers_to_a_shared_schema_file(tmp_path, monkeypatch, with_id):
    """A `$ref` to another file of schemas/ (`../common.schema.json#/$defs/crops`, the way
    JSON Schema shares rules) was refused: "$ref … resolves to nothing", though the file
    was there. It is read from the referring file's folder (with kb init's `$id` or none),
    and its rules apply: a Chinese enum, `format: date`."""
    doc, _ = _shared_schema_repo(tmp_path, monkeypatch, "../common.schema.json", with_id)
    doc.write_text(CROP_DOC.format(crop="大麦", inspected="2026-02-30", risk="很高"),
                   encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    where = " (category 'crop-protection')"
    assert res.exit_code == 1 and res.stdout.splitlines() == [
        f"knowledge/rust.md:8:8: error: fm-value: crop.0: '大麦' is not one of ['小麦', '玉米', "
        f"'水稻']{where}",
        f"knowledge/rust.md:10:1: error: fm-value: inspected: '2026-02-30' is not a real date: "
        f'day is out of range for month: write inspected: "YYYY-MM-DD" with a real date{where}',
        f"knowledge/rust.md:11:1: error: fm-value: 风险等级: '很高' is not one of ['低', '中', '高']; "
        f"did you mean '高'?{where}"], res.output
    doc.write_text(CROP_DOC.format(crop="小麦", inspected="2026-03-01", risk="高"),
                   encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("ref", ["../../kb.toml", "missing.schema.json"])
def test_a_ref_to_no_schema_file_of_the_folder_is_one_line(tmp_path, monkeypatch, ref):
    """A `$ref` to a file outside schemas/ (never read) or to none is refused at its line."""
    doc, category = _shared_schema_repo(tmp_path, monkeypatch, ref, True)
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    line = category.read_text(encoding="utf-8").splitlines().index(
        next(x for x in category.read_text(encoding="utf-8").splitlines() if "crops" in x)) + 1
    assert (res.exit_code, res.stderr) == (1, (
        f"kb: error: schemas/categories/crop-protection.schema.json:{line}: $ref "
        f"'{ref}#/$defs/crops' resolves to nothing (at properties/crop): a reference to "
        "another schema file names it from this one's folder, inside the schemas folder\n"))


def test_a_shared_schema_file_edited_while_the_process_runs_is_read_again(tmp_path,
                                                                         monkeypatch):
    """The validator of a schema is kept while its file is unchanged: one whose `$ref`
    names another file is compiled again when that file changes (`kb watch`, `kb serve`)."""
    _, category = _shared_schema_repo(tmp_path, monkeypatch, "../common.schema.json", True)
    common = category.parent.parent / "common.schema.json"
    old = time.time() - 60  # past git's racy window: the validator is kept
    for path in (category, common):
        os.utime(path, (old, old))
    v = validator_for("categories/crop-protection", category.parent.parent)
    assert not v.is_valid({"crop": ["大麦"], "disease": ["锈病"]})
    assert v is validator_for("categories/crop-protection", category.parent.parent)
    edited = json.loads(json.dumps(COMMON))
    edited["$defs"]["crops"]["items"]["enum"].append("大麦")
    common.write_text(json.dumps(edited, ensure_ascii=False), encoding="utf-8")
    os.utime(common, (old + 1, old + 1))
    v = validator_for("categories/crop-protection", category.parent.parent)
    assert v.is_valid({"crop": ["大麦"], "disease": ["锈病"]})


def test_a_key_only_its_category_schema_declares_is_told_to_be_declared_in_the_base(
        tmp_path, monkeypatch):
    """A key the category's schema declares but the base schema (`additionalProperties:
    false`) does not was told "declare it in the schema (schemas/frontmatter.schema.json,
    or the category's)": the author had declared it in the category's, and still met it."""
    doc, category = _shared_schema_repo(tmp_path, monkeypatch, "../common.schema.json", True)
    base = category.parent.parent / "frontmatter.schema.json"
    body = json.loads(base.read_text(encoding="utf-8"))
    del body["properties"]["inspected"]
    base.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    doc.write_text(CROP_DOC.format(crop="小麦", inspected="2026-03-01", risk="高")
                   .replace("---\n#", "另一个: 1\n---\n#"), encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.exit_code == 1 and res.stdout.splitlines() == [
        "knowledge/rust.md:10:1: error: fm-unknown-key: unknown key 'inspected'; "
        "schemas/categories/crop-protection.schema.json declares it, but the base schema "
        "lists every key a document may have: declare it in schemas/frontmatter.schema.json "
        "too",
        "knowledge/rust.md:12:1: error: fm-unknown-key: unknown key '另一个'; the schema has "
        "no such key: delete it, or declare it in schemas/frontmatter.schema.json (the base "
        "schema lists every key; a category's schema may then require it)"], res.output


@pytest.mark.parametrize(("written", "says"), [
    ('"2026/3/1"', "'2026/3/1' is not a date: write inspected: \"2026-03-01\""),
    ("2026年3月1日", "'2026年3月1日' is not a date: write inspected: \"2026-03-01\""),
    ('"2026-02-30"', "'2026-02-30' is not a real date: day is out of range for month: write "
                     "inspected: \"YYYY-MM-DD\" with a real date"),
    ('"下周"', "'下周' is not a date (YYYY-MM-DD, e.g. 2026-12-31)"),
])
def test_a_schemas_own_date_key_says_what_to_write(tmp_path, monkeypatch, written, says):
    """A key a schema declares `format: date` said only "'2026/3/1' is not a 'date'",
    where the base schema's `valid_until` says the date to write."""
    doc, _ = _shared_schema_repo(tmp_path, monkeypatch, "../common.schema.json", True)
    doc.write_text(CROP_DOC.format(crop="小麦", inspected="X", risk="高")
                   .replace('"X"', written), encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.exit_code == 1 and res.stdout == (
        f"knowledge/rust.md:10:1: error: fm-value: inspected: {says} (category "
        "'crop-protection')\n")
