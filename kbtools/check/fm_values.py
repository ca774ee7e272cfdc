"""How a front-matter value the schema refuses should be written: dates, timestamps, booleans.

Pure functions over the value as YAML read it (and, for booleans, as it was written), used by
`kbtools.check.frontmatter` to say in a finding what to write instead:

- `iso_date`, `naive_timestamp`, `offset_timestamp`, `schema_timestamp`: a date or
  timestamp written another common way (`2026/3/19`, `2026年3月19日`, `2026-03-19 10:00`,
  `+0800`) read as the schema's form.
- `date_problem`: why a value written as year, month and day (`2024-13-01`, `2024/2/30`,
  `2024-00-10T10:00`) is no real date ("month must be in 1..12"). Why: such a timestamp was
  only said to be "not an ISO 8601 timestamp with offset (e.g. …)", which an author who
  wrote the right form with a wrong month could not act on.
- `boolean_hint`: what to write for a key wanting true or false that holds text or a
  number (`verified: 是`, `verified: "true"`, `executable: 1`). Why: the finding said
  "expected boolean, got str (write true or false)", naming neither the value nor, for a
  quoted `"true"`, that the quotes are the problem.
- `text_hint`: what to write for a key wanting text that YAML read as a number or a date
  (`title: 2024`, `section: 3.10`, `tags: [2024, 水稻]`): quote it. Why: "expected string,
  got int" said nothing of what to write, and `3.10` is read as 3.1.
"""

from __future__ import annotations

import unicodedata
from datetime import date, datetime
from typing import Any

# words an author writes for yes or no where YAML wants true or false (as text, quoted, or
# unquoted words YAML 1.2 does not read as booleans: `是`, `y`)
_YES = frozenset({"true", "yes", "y", "on", "ok", "t", "是", "是的", "对", "真", "有",
                  "已验证", "已审核", "已核实", "已确认", "✓", "√"})
_NO = frozenset({"false", "no", "n", "off", "f", "否", "不", "不是", "错", "假", "无", "没有",
                 "未验证", "未审核", "未核实", "未确认", "✗", "×"})


def iso_date(text: str) -> str | None:
    """A date written another common way (`2026/03/19`, `2026.3.19`, `2026年3月19日`) as
    YYYY-MM-DD, None when it is no date."""
    parts = _date_parts(text)
    if parts is None:
        return None
    try:
        return date(*parts).isoformat()
    except ValueError:
        return None


def _date_parts(text: str) -> tuple[int, int, int] | None:
    """Year, month and day of `text` written as a date (`-`, `/`, `.` or 年月日 between a
    four-digit year, the month and the day), whether or not they make a real date; None for
    any other text."""
    for mark in "/.年月":
        text = text.replace(mark, "-")
    parts = text.strip().removesuffix("日").split("-")
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() for p in parts) \
            or len(parts[0]) != 4:
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


def date_problem(text: str) -> str | None:
    """Why `text`, written as a date or a date and time (`2024-13-01`, `2024/2/30 10:00`,
    `2024-00-10T10:00:00+08:00`), is no real date (`month must be in 1..12`); None when its
    date is real or it is not written as a date at all."""
    head = text.strip().replace(" ", "T", 1).split("T", 1)[0]
    parts = _date_parts(head)
    if parts is None:
        return None
    try:
        date(*parts)
    except ValueError as exc:
        return str(exc)
    return None


def naive_timestamp(text: str) -> str:
    """`text` as the date and time it says without an offset (Obsidian's `2024-05-01`, a
    `2024-05-01 10:00`, `2024/5/1`: midnight for a date alone), as the schema writes it
    less the offset; "" when it says no date, or says its offset."""
    try:
        when = datetime.fromisoformat(text.strip().replace(" ", "T", 1))
    except ValueError:
        iso = iso_date(text)
        if iso is None:
            return ""
        when = datetime.fromisoformat(iso)
    return "" if when.tzinfo is not None else when.isoformat(timespec="seconds")


def offset_timestamp(text: str) -> bool:
    """Whether `text` is a date and time with `T` and an offset (what the schema asks)."""
    if len(text) < 16 or text[10:11] != "T" or not text[:4].isdigit():
        return False
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).tzinfo is not None
    except ValueError:
        return False


def schema_timestamp(text: str) -> str | None:
    """`text`, a date, time and offset written another common way, as the schema writes it
    (`2026-03-14T09:30:00+08:00`): a space for the `T`, a space before the offset, `+0800`
    or `+08` for `+08:00`, full-width digits, colon or plus (a Chinese input method's);
    None when it says no date, time and offset. Why: the finding told an author who wrote
    `+0800` to write the same `+0800`, and for `2026-03-14 09:30:00 +08:00` both it and
    `kb check --fix` wrote `2026-03-14T09:30:00 +08:00`, which the schema refuses again."""
    s = unicodedata.normalize("NFKC", text).strip()
    if s[10:11] == " ":
        s = s[:10] + "T" + s[11:]
    s = s.replace(" ", "")
    sign = max(s.rfind("+"), s.rfind("-"))
    digits = s[sign + 1:]
    if sign > 10 and digits.isascii() and digits.isdigit() and len(digits) in (2, 4):
        s = s[:sign + 3] + ":" + (digits[2:] or "00")
    offset = "Z" if s.endswith("Z") else s[-6:]
    if not offset_timestamp(s) or s[13:14] != ":" or not s[:10].isascii() or "," in s \
            or (offset != "Z" and (offset[0] not in "+-" or offset[3] != ":")):
        return None
    return s


def boolean_hint(key: str, value: Any, written: str | None) -> str:
    """The parenthesis a type error appends for top-level `key`, which wants true or false,
    holding `value` (text or a number), written `written` in the file (None: unknown):
    names the value and what to write, the boolean its word means when it says yes or no
    (`是` → true, `"false"` → false, 0 → false), both booleans otherwise."""
    meant: bool | None = None
    if isinstance(value, str):
        word = value.strip().casefold()
        meant = True if word in _YES else False if word in _NO else None
        kind = "text"
        quoted = written is not None and written[:1] in ("'", '"')
        if quoted and word in ("true", "false"):
            return (f" (written {written}: the quotes make it text: write {key}: {word}, "
                    "without quotes)")
    elif isinstance(value, int | float) and not isinstance(value, bool):
        meant = bool(value) if value in (0, 1) else None
        kind = "a number"
    else:
        return f" (write {key}: true or {key}: false)"
    shown = repr(value) if isinstance(value, str) else str(value)
    if meant is None:
        return f" ({shown} is {kind} to YAML: write {key}: true or {key}: false)"
    return f" ({shown} is {kind} to YAML, not a boolean: write {key}: {str(meant).lower()})"


def text_hint(key: str, value: Any, written: str | None) -> str:
    """The parenthesis a type error appends for `key` (a top-level key or an item's key
    path), which wants text, holding `value` as YAML read it (a number or a date), written
    `written` on the key's line (None or "": not known, as for a list item): quote it."""
    if isinstance(value, bool) or not isinstance(value, int | float | date):
        return ""
    kind = "a date" if isinstance(value, date) else "a number"
    if written and not isinstance(value, date) and not _number_as_written(written, value):
        return ""  # YAML 1.1 read it otherwise (`010`, `1:30`): its own warning says how
    if written and written[:1] not in "[{'\"" and "," not in written:
        return f" (YAML reads {written} as {kind}: quote it to keep it as text: {key}: \"{written}\")"
    return f" (YAML reads it as {kind}: quote it to keep it as text, as written)"


def _number_as_written(written: str, value: int | float) -> bool:
    """Whether `written` says the number `value` as a reader would read it (`12345`,
    `3.10`), not as only YAML 1.1 reads it (`010` is 8, `1:30` is 90): those get the
    `yaml-1.1-value` warning, which says how YAML read them."""
    try:
        return (float(written) if isinstance(value, float) else int(written, 10)) == value
    except ValueError:
        return False
