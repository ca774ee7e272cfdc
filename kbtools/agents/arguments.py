"""What the agent-facing adapters accept as arguments, in one place: the MCP tools
(`kbtools.agents.mcp_server`) and the JSON API (`kbtools.serve.ops`) take the same values
and refuse the same ones, so an agent gets the same answer through either."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from kbtools.agents.citation_text import NARROW_DIGITS, is_commit
from kbtools.errors import UsageError, one_line, unpadded
from kbtools.query import question
from kbtools.query.filter_text import (
    MAX_WHERE_CHARS,
    OPERATOR_START,
    WORD_OPERATORS,
    key_text,
    narrow_operator,
    where_text,
)

# a blank question, refused alike by MCP `search`, /api/search and `kb query`
from kbtools.query.question import refuse_blank as refuse_blank

# characters of a question (`kb query` refuses more too): a pasted 8 KB log fits, and the
# search condenses it to its distinctive lines (`kbtools.query.question`)
MAX_QUESTION_CHARS = question.MAX_QUESTION_CHARS
MAX_WHERE = 20  # filters per search
MAX_INPUTS = 50  # inputs per table evaluation
MAX_INPUT_CHARS = 200  # one input value (or column name)
MAX_LINE = 10_000_000  # a line number given to read
MAX_DIGITS = 12  # a whole number given as text (ASCII digits only)
# the other free text a tool takes, bounded as the question is so that a pasted page is
# refused at once, naming the argument and the limit (a 100,000-character `table` was
# looked for in every table's name and section for 1.7 s)
MAX_SECTION_CHARS = 1000  # a heading path, one heading of it, or a table's name or section
MAX_HEADINGS = 32  # headings in a heading path given as a list (Markdown nests 6)
MAX_LINE_CHARS = 200  # a draft's title, author, location or category (one line each)
MAX_BODY_CHARS = 1_000_000  # a draft's body
MAX_CAPTION_CHARS = 1000  # a draft photo's caption
MAX_PHOTO_NAME_CHARS = 255  # a draft photo's file name
MAX_TAG_CHARS = 200  # a release tag (`release`): MCP's schema, OpenAPI and the API all say it

# the refusals of a `where` (`filters`) in Chinese, by their `KbError.key` with its values:
# what MCP `search` says for a Chinese question (`calls.tool_error`)
WHERE_ZH = {
    "where_key_blank": "where：对象的键必须是一个 front matter 键名，不能为空",
    "where_value": ("where.{key}：应为字符串、数字、true 或 false（或它们的列表），"
                    "不能是{kind_zh}"),
    "where_too_long": ("where.{key}：它组成的筛选条件（{shown}）有 {length} 个字符，超过一个筛选条件"
                       "最多 {limit} 个字符（键、运算符和所有值合计）：请减少或缩短它的值"),
}
KIND_ZH = {"null": " null", "an object": "对象", "a list": "列表", "another value": "别的值"}

# what to send a table evaluation (MCP `evaluate_table`, /api/table/evaluate) instead of an
# argument `read` takes: an agent passes a search result's fields on by their names
TABLE_INSTEAD = {
    "line_start": "give the lines as a citation in doc ('knowledge/x.md:65-73'): the "
                  "decision table at those lines",
    "heading_path": "give the section as table (a heading, a heading path or its number)",
    "citation": "give the citation as doc",
}
TABLE_INSTEAD["line_end"] = TABLE_INSTEAD["line_start"]


def whole_number(value: Any, lo: int, hi: int) -> int | None:
    """A request's whole number from `lo` to `hi`, given as a JSON integer or as digits (a
    query parameter: ASCII, or full-width as an input method types them, ``１０``); None for
    anything else. Booleans (``true`` is not 1), floats (even ``5.0``, NaN, ±infinity,
    ``1e400``), signs, other scripts' digits, lists and objects are not whole numbers; a huge
    one is simply out of range."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and is_digits(text := value.strip().translate(NARROW_DIGITS)):
        number = int(text)
    else:
        return None
    return number if lo <= number <= hi else None


def is_digits(text: str) -> bool:
    """1 to `MAX_DIGITS` ASCII digits (``str.isdigit`` also takes ``²`` and ``٣``)."""
    return 0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit()


def digits_as_int(value: Any) -> Any:
    """`value` as an int when it is a string of digits (`is_digits`, full-width ones read as
    ASCII), else as given: a whole number sent as text reads as the JSON API reads it
    (`whole_number`); anything else is left for the schema to accept or refuse."""
    if isinstance(value, str) and is_digits(text := value.strip().translate(NARROW_DIGITS)):
        return int(text)
    return value


# the words a true/false argument is given as (any case, spaces around): a query parameter's
# `verified_only=yes`, and the same in a JSON body or an MCP call
FLAG_WORDS = {"1": True, "true": True, "yes": True, "on": True,
              "0": False, "false": False, "no": False, "off": False}


def flag(value: Any) -> Any:
    """A true/false argument as the JSON API reads it: a JSON boolean, 0 or 1, or one of
    `FLAG_WORDS`; None when empty; anything else as given, for the caller to refuse (the MCP
    schema's lax reading took `"t"`, `"y"` and `"n"` too, which the API refuses)."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        return None if not text else FLAG_WORDS.get(text, value)
    return value


def filters(where: list[str] | str | Mapping[str, Any] | None) -> list[str]:
    """The filters a search's `where` gives: one string is one filter, and a blank one (an
    empty form field, `where=""`) is none, as the JSON API reads them (the MCP tool refused
    `where: ""` as a bad filter where /api/search searched everything). An object gives one
    filter per key (`object_filter`): agents send ``{"crop": "wheat"}``, which was refused
    as "expected a list or a string"."""
    if isinstance(where, Mapping):
        given = [within_bound(key, object_filter(key, value)) for key, value in where.items()]
    else:
        given = [where] if isinstance(where, str) else list(where or [])
    return [w for w in given if w.strip()]


def within_bound(key: str, text: str) -> str:
    """The filter text key `key` of a `where` object gives (`object_filter`), bounded as one
    filter string is: at most `MAX_WHERE_CHARS` characters, key, operator and every value
    together. Each value and the key within it, their sum was not: a key listing 20
    values of 600 characters made one filter of 12,000, refused as a bad operator ("use
    KEY=VALUE …"). UsageError naming the key, the filter's length and the bound."""
    if len(text) <= MAX_WHERE_CHARS:
        return text
    name, shown = one_line(key, 40), one_line(text, 40)
    raise UsageError(
        f"where.{name}: the filter it gives ({shown}) is {len(text)} characters, "
        f"over the {MAX_WHERE_CHARS} of one filter (key, operator and values together): give "
        "fewer or shorter values", key="where_too_long",
        values={"key": name, "shown": shown, "length": str(len(text)),
                "limit": str(MAX_WHERE_CHARS)})


def object_filter(key: str, value: Any) -> str:
    """One key of a `where` object as the filter text `parse_where` reads: the value is the
    key's value (``{"crop": "小麦,玉米"}``: ``crop=小麦,玉米``), or, when it starts with an
    operator in signs or words, the key's condition (``{"功率": ">5kW"}``: ``功率 >5kW``;
    ``{"功率": "不低于5kW"}``, ``{"power": "at least 5kW"}``); a number or true/false is
    that value, a list its values (any of them, as ``=`` reads several). UsageError for a
    blank key or a value of another type (null, an object), naming the key."""
    if not key.strip():
        raise UsageError("where: an object's key must name a front-matter key, not be blank",
                         key="where_key_blank")
    if isinstance(value, list):  # none listed: as a blank value, no filter
        return where_text(key.strip(), "=", tuple(scalar_text(key, v) for v in value)) \
            if value else ""
    text = scalar_text(key, value).strip()
    if not text:  # as a blank filter string: no filter
        return ""
    spaced = f" {text.lower()} "
    if narrow_operator(text)[:1] in OPERATOR_START or any(
            spaced.startswith(word) if word.startswith(" ") else text.startswith(word)
            for word in WORD_OPERATORS):
        return f"{key_text(key.strip())} {text}"
    return f"{key_text(key.strip())}={text}"


def scalar_text(key: str, value: Any) -> str:
    """A `where` object's value for `key` as filter text: a string as given, a number as
    written, true/false as the words front matter writes them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    kind = {type(None): "null", dict: "an object", list: "a list"}.get(type(value), "another value")
    raise UsageError(f"where.{one_line(key, 80)}: expected a string, a number, true or false "
                     f"(or a list of them), not {kind}", key="where_value",
                     values={"key": one_line(key, 80), "kind_zh": KIND_ZH[kind]})


def release_arguments(commit: Any, release: Any) -> tuple[str | None, str | None]:
    """(the commit, the tag) a call's `commit` and `release` arguments ask for, None for one
    not given (or given empty); UsageError when the commit is no commit or the tag is blank."""
    commit, release = (None if v == "" else v for v in (commit, release))  # as not given
    if isinstance(commit, str):  # full-width digits an input method types, a zero-width
        commit = unpadded(unicodedata.normalize("NFKC", commit))  # space pasted with it
    if commit is not None and not (isinstance(commit, str) and is_commit(commit)):
        raise UsageError(f"'commit' must be a commit's 7 to 64 hexadecimal digits (a result's "
                         f"release source_commit), not '{one_line(str(commit), 80)}'")
    if release is not None and not (isinstance(release, str) and release.strip()):
        raise UsageError("'release' must be a release tag (a result's release tag)")
    if release is not None and len(release) > MAX_TAG_CHARS:
        raise UsageError(f"'release' must be a release tag of at most {MAX_TAG_CHARS} "
                         f"characters, not {len(release)}")
    # "kb-r2 " pasted with a blank, KB-R2, a full-width ｋｂ－ｒ２: kb-r2, as `kb rollback` reads it
    from kbtools.ship.git import spelled_tag  # (here: `kb query --engine` connects first)

    return (commit.strip().lower() if commit else None, spelled_tag(release) if release else None)


def section_over(value: Any, name: str) -> str | None:
    """Why a heading path, heading or table name given as `name` is over its bounds, in the
    words MCP's schema errors use (`calls.bound_error`): the JSON API refuses what the tools
    refuse. None when within them (or not text: the caller says what it takes)."""
    if isinstance(value, list):
        if len(value) > MAX_HEADINGS:
            return f"{name}: at most {MAX_HEADINGS} items, not {len(value)}"
        return next((over for h in value if (over := section_over(h, name))), None)
    if isinstance(value, str) and len(value) > MAX_SECTION_CHARS:
        return f"{name}: at most {MAX_SECTION_CHARS} characters, not {len(value)}"
    return None
