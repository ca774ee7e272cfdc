"""The MCP tools' parameters: each one's type, bounds, what it means and an example, as the
input schemas `tools/list` gives an agent show them (`kbtools.agents.mcp_server`).

An agent fills arguments from these schemas: a parameter without a description (`where`,
`verified_only`, `table`, a draft's `category`) left it guessing what the value is for and
how to write it, and a draft's categories were only in the prose. The values each takes are
those of the JSON API (`kbtools.agents.arguments`): a whole number is a JSON integer or ASCII
digits, never `true` (pydantic's lax mode reads it as 1) nor 5.0. The bounds go on the int
before the digits are read: set after the validator, pydantic wrote them into the schema as
"ge"/"le", which JSON Schema does not know (no client saw a bound). A table's number is a
whole number too: `true` and 1.0 were read as table 1.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    TypeAdapter,
)

from kbtools.agents.arguments import (
    MAX_BODY_CHARS,
    MAX_HEADINGS,
    MAX_INPUT_CHARS,
    MAX_INPUTS,
    MAX_LINE,
    MAX_LINE_CHARS,
    MAX_QUESTION_CHARS,
    MAX_SECTION_CHARS,
    MAX_TAG_CHARS,
    MAX_WHERE,
    digits_as_int,
    flag,
)
from kbtools.agents.citation_text import MAX_COMMIT_DIGITS, MIN_COMMIT_DIGITS
from kbtools.agents.docpath import MAX_CITED_CHARS
from kbtools.agents.draft_photos import MAX_PHOTOS, MAX_PHOTOS_BYTES
from kbtools.agents.read import MAX_CHARS, MAX_LINES
from kbtools.agents.recent import DEFAULT_N
from kbtools.config import MAX_K
from kbtools.query.filters import MAX_WHERE_CHARS, WHERE_HELP

DOC = ("A document's repo-relative path as search results cite it (their `doc`); the path "
       "inside the knowledge folder works too, and so do a result's whole `citation` and a "
       "link to a section (x.md#anchor), which name the section too. No absolute paths, '..' "
       "or non-Markdown files.")


def release_parameters(what: str, then: str, otherwise: str, verb: str) -> tuple[Any, Any]:
    """A tool's `commit` and `release` parameters, the release it works on: `what` that
    release is ("The release a citation came from"), `then` what the tool does with it while
    it is kept here ("read that release's text"), `otherwise` what it does once it is not,
    and `verb` what it does with the release served now when neither is given ("read"). The
    tools differ in these words only, and each one's schema must say its own."""
    commit = Annotated[StrictStr | None, Field(
        max_length=MAX_COMMIT_DIGITS,
        description=(f"{what}, by its source commit (a result's `release.source_commit`, "
                     f"{MIN_COMMIT_DIGITS} to {MAX_COMMIT_DIGITS} hexadecimal digits): {then} while it is kept here (a device's kept releases, "
                     f"a git clone's release tags); else {otherwise}. Leave out to {verb} "
                     "the release served now."), examples=["3f2a9c1d0b7e"])]
    tag = Annotated[StrictStr | None, Field(
        max_length=MAX_TAG_CHARS,
        description=f"{what}, by its tag (a result's `release.tag`), as `commit`.",
        examples=["kb-r7"])]
    return commit, tag


# a heading, a heading path or a table's name, given as text: bounded as a question is
SectionText = Annotated[StrictStr, Field(max_length=MAX_SECTION_CHARS)]
Headings = Annotated[list[SectionText], Field(max_length=MAX_HEADINGS)]


def line_text(description: str, optional: bool = False, **extra: Any) -> Any:
    """A draft's one-line text argument (title, author, location) with its bound, the
    argument left out allowed when `optional`."""
    line = Annotated[str, Field(max_length=MAX_LINE_CHARS)]
    return Annotated[line | None if optional else line, Field(description=(
        f"{description} (at most {MAX_LINE_CHARS} characters)."), **extra)]


# search
Question = Annotated[str, Field(
    max_length=MAX_QUESTION_CHARS,
    description=(f"The question in natural language, Chinese or English (at most "
                 f"{MAX_QUESTION_CHARS} characters; a pasted log or stack trace is searched by "
                 "its distinctive lines)."),
    examples=["小麦赤霉病 扬花期 用药", "What does fault code E17 mean?"])]
ResultCount = Annotated[int, Field(
    strict=True, ge=1, le=MAX_K, description=(
        f"How many results to return: a whole number from 1 to {MAX_K} (fewer come back when "
        f"fewer passages match). 0, a negative number, a fraction (even 5.0), true or more "
        f"than {MAX_K} is refused, naming the range: never clamped."),
    examples=[5]), BeforeValidator(digits_as_int)]
Filter = Annotated[str, Field(max_length=MAX_WHERE_CHARS)]
FilterValue = Filter | StrictInt | StrictFloat | StrictBool  # one key's value in an object
FilterObject = Annotated[dict[Annotated[str, Field(max_length=MAX_WHERE_CHARS)],
                              FilterValue | Annotated[list[FilterValue],
                                                      Field(max_length=MAX_WHERE)]],
                         Field(max_length=MAX_WHERE)]
FilterList = Annotated[list[Filter], Field(max_length=MAX_WHERE)]
Filters = Annotated[FilterList | Filter | FilterObject
                    | None, Field(
    description=(f"Front-matter filters, one string, a list of at most {MAX_WHERE} or an object "
                 "with one filter per key, {KEY: VALUE} for KEY=VALUE, its value a list for "
                 "any of several or starting with its operator ({\"功率\": \">5kW\"}) (all must "
                 f"hold). Each filter is at most {MAX_WHERE_CHARS} characters, an object's key "
                 f"with its operator and all its values together: {WHERE_HELP}"),
    examples=["category=crop-protection", ["verified=true", "doc=crops/wheat-scab.md"],
              {"category": "crop-protection", "功率": ">=5kW"}])]


@cache
def filter_object() -> TypeAdapter[dict[str, Any]]:
    """`FilterObject`'s validator and schema: /api/search bounds a `where` object with it as
    pydantic bounds the MCP tool's (`serve.ops.check_where`), and the OpenAPI document shows
    its schema; built when first asked for."""
    return TypeAdapter(FilterObject)


@cache
def filter_list() -> TypeAdapter[list[str]]:
    """`FilterList`'s validator: /api/search's and the search page's list of filters bounded
    as the MCP tool's (`serve.ops.check_where`); built when first asked for."""
    return TypeAdapter(FilterList)


VerifiedOnly = Annotated[StrictBool | None, Field(
    description=("true: only passages that are verified now (reviewed, and unchanged since "
                 "the review). Default: all passages, each with its own `verified`.")),
    BeforeValidator(flag)]
SearchCommit, SearchRelease = release_parameters(
    "The release to search, as an earlier result cited it", "search that release",
    "the search fails, naming the releases kept here", "search")

# read
# a path or a whole citation: the bound is `docpath.check_doc_length`'s, whose refusal a
# Chinese page says in Chinese
Doc = Annotated[str, Field(description=DOC, examples=["knowledge/crops/wheat-scab.md"],
                           json_schema_extra={"maxLength": MAX_CITED_CHARS})]
HeadingPath = Annotated[Headings | SectionText | None, Field(
    description=("The section to read: a search result's `heading_path` (a list), or one "
                 "string with ' > ' between headings as citations write it; the last heading "
                 "alone is enough when unique, and so is a section number ('4.3'). Leave out, "
                 f"with no line range, to read the document from the top. At most "
                 f"{MAX_SECTION_CHARS} characters (each heading of a list), {MAX_HEADINGS} "
                 "headings."),
    examples=[["小麦赤霉病监测与防控操作规程", "3. 发病风险判定"], "3.2 风险等级判定表"])]
LineNumber = Annotated[int, Field(strict=True, ge=1, le=MAX_LINE),
                       BeforeValidator(digits_as_int)]
LineStart = Annotated[LineNumber | None, Field(
    description=(f"First line to read (1-based, as a result's `line_start`), instead of a "
                 f"heading path. At most {MAX_LINES} lines and {MAX_CHARS} characters come back "
                 "in one read (`truncated` says when more follow)."), examples=[60])]
LineEnd = Annotated[LineNumber | None, Field(
    description="Last line to read (inclusive, as a result's `line_end`).", examples=[75])]
ReleaseCommit, ReleaseTag = release_parameters(
    "The release a citation came from", "read that release's text",
    "what the release served now has at the citation's heading path, with `release_gone` "
    "saying so", "read")

# recent
Days = Annotated[Annotated[int, Field(strict=True, ge=0), BeforeValidator(digits_as_int)]
                 | None, Field(description="Only documents whose newest change is at most this "
                               "many days old (24 hours each); 0: changed today, since "
                               "midnight of the server's local day.", examples=[7])]
Count = Annotated[Annotated[int, Field(strict=True, ge=1), BeforeValidator(digits_as_int)]
                  | None, Field(description=f"At most this many documents (default "
                                f"{DEFAULT_N}).", examples=[10])]

# status
Quick = Annotated[StrictBool | None, Field(
    description=("true: skip re-hashing the served files (`kb status --quick`): "
                 "`served.verified_now` is null. Default: the files are re-hashed now.")),
    BeforeValidator(flag)]

# evaluate_table
TableInput = Annotated[StrictStr, Field(max_length=MAX_INPUT_CHARS)] | StrictInt | StrictFloat
TableInputs = Annotated[dict[Annotated[str, Field(max_length=MAX_INPUT_CHARS)], TableInput],
                        Field(max_length=MAX_INPUTS, description=(
                            "One value per input column of the table: {column: value}. A "
                            "column is named by its header with or without its unit, a "
                            "leading or trailing part of it, or its 1-based number; a value "
                            "is a string or a number, in the column's unit (no conversion)."),
                              examples=[{"温度": "18", "相对湿度": "90", "连续降雨天数": 2}])]
TableChoice = Annotated[Headings | SectionText | StrictInt | None, Field(
    description=("Which decision table, when the document holds several: its 1-based number "
                 "(a search result's `evaluation.table_index`), its name, or the section it lies in as "
                 "`read` takes one: a heading, a citation's heading path, a result's "
                 "`heading_path` list, a section number ('4.4', 'section 4.4') or a link's "
                 f"anchor ('#32-风险等级判定表'). At most {MAX_SECTION_CHARS} characters."),
    examples=[1, "3.2 风险等级判定表"])]
TableCommit, TableRelease = release_parameters(
    "The release the table was cited from", "evaluate that release's table",
    "the release served now's table (at the citation's heading path, or by `table`), with "
    "`release_gone` saying so", "evaluate")
Policy = Annotated[Literal["first", "all"] | None, Field(
    description=("Which matching rows to return: 'first' (the first one) or 'all' (every "
                 "one). Default: the table's own policy, else 'first'."))]

# draft_report
Title = line_text("A short title, one line; it becomes the file name",
                  examples=["E17 fault on harvester 3 after rain"])
Body = Annotated[str, Field(max_length=MAX_BODY_CHARS, description=(
    "The report in Markdown. Cite what it relies on as text (a result's `citation`) or as "
    "links relative to the draft's folder (`../crops/x.md`)."),
    examples=["The harvester stopped with E17 twice after heavy rain; see "
              "knowledge/equipment/hx260-ch05-fault-codes.md:40-52."])]
Author = line_text("Who reports it; default: the Git user", optional=True)
Location = line_text("Where it was observed (a field, a site, a machine); a field report "
                     "needs it", optional=True, examples=["Plant 2, line 3"])

# their bounds are `draft_photos`'s (its refusals name the photo), said in the schema
Photos = Annotated[Annotated[list[dict[str, str]], Field(json_schema_extra={
    "maxItems": MAX_PHOTOS})] | None, Field(description=(f"Pictures the report carries (at most {MAX_PHOTOS}, {MAX_PHOTOS_BYTES // 2**20} MiB "
    "together): each an object with `name` (its file name), `data` (its bytes in base64: PNG, "
    "JPEG, GIF, WebP or AVIF, checked by its bytes) and an optional `caption`. They are "
    "committed with the draft under the assets folder and shown in a section its text ends "
    "with."), examples=[[{"name": "impeller.jpg", "data": "/9j/4AAQSkZJRg...",
                          "caption": "叶轮磨损"}]])]


def category_parameter(known: list[str]) -> Any:
    """A draft's `category` as its schema lists it: one of the repository's categories."""
    return Annotated[str, Field(max_length=MAX_LINE_CHARS,
                                description="The document category (the folder and schema the "
                                "draft gets); field reports are `field-report`.",
                                json_schema_extra={"enum": list(known)})]
