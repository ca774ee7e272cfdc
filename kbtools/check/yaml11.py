"""`yaml-1.1-value`: a plain front-matter value YAML 1.1 reads otherwise than it is written.

PyYAML (YAML 1.1) turns some unquoted values into what their author did not write: `code:
010` is 8 (octal), `0x1F` 31, `0b101` 5, `time: 1:30` 90 (base 60), `1_000` 1000, `.inf`
infinity, and `answer: no` / `yes` / `on` / `off` (any of their three spellings: `no`, `No`,
`NO`) booleans (`country: NO`, the "Norway problem"). A YAML 1.2 reader (and a person) reads
the text: a filter `--where code=010` then matches nothing, and the page shows 8. A number
written in another radix or with a leading 0 (`0x1F`, `007`: YAML 1.2 reads them as numbers
too) and `.inf`/`.nan` are named as well: written so, they are codes and file extensions
far more often than numbers. What YAML 1.1 and 1.2 both read as it is written (`10`, `+5`,
`1.5`, `true`, a date) says nothing; nor do quoted values, block scalars, tagged values
(`!!int 010`) and keys. PyYAML reads `y` and `n` as text.

The values are found with PyYAML's own parser (its events, with their line marks): the
front matter is parsed once more, only when it loaded with a boolean or number in it.

`kb check --fix` quotes such a value as written (`code: "010"`) where that is safe: where
the schema wants text there, i.e. the front matter validates with fewer errors and no new
one with the text in its place than with what YAML 1.1 read (`QuoteJudge`). Elsewhere
(the schema takes the number too, or wants it; no schema; an anchor other values repeat)
the warning stays and says why `--fix` left it.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import yaml
from jsonschema import Draft202012Validator

from kbtools.check.frontmatter import Problem
from kbtools.check.links import Edit
from kbtools.corpus import SourceDoc, split_front_matter

CODE = "yaml-1.1-value"
_BOOL, _INT, _FLOAT = ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int",
                       "tag:yaml.org,2002:float")
_BOOLS_12 = frozenset({"true", "True", "TRUE", "false", "False", "FALSE"})
_SHOWN_CHARS = 40  # a longer value is named, not quoted or computed, in the message
_Parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available
_RESOLVER = yaml.resolver.Resolver()  # PyYAML's own YAML 1.1 reading of a plain scalar
_CONSTRUCTOR = yaml.constructor.SafeConstructor()


# schema findings that say how a top-level key's boolean was written (`verified: yes`)
_SPELLING_SAID = frozenset({"fm-type", "fm-value", "fm-verified-without-reviewer"})


# the schemas a document's front matter is validated against (None: checked without them)
Schemas = Callable[[], Sequence[Draft202012Validator]]


def yaml11_problems(src: SourceDoc, schema: list[Problem] | None = None,
                    schemas: Schemas | None = None) -> list[Problem]:
    """A warning at each plain value of `src`'s front matter that YAML 1.1 reads otherwise
    than YAML 1.2 reads its text, saying what it reads and what to write (`yaml11_check`)."""
    return yaml11_check(src, schema, schemas)[0]


def yaml11_check(src: SourceDoc, schema: list[Problem] | None = None,
                 schemas: Schemas | None = None) -> tuple[list[Problem], list[Edit]]:
    """The warnings of `yaml11_problems` and the edits `kb check --fix` writes: each value
    quoted as written where `schemas` want text there (`QuoteJudge`); each warning says
    whether `--fix` quotes its value, or why not. `schema`: the document's schema findings;
    one of them at a top-level key's line already says how its boolean was written (`title:
    no`: one finding, and its value quoted all the same where the schema wants text)."""
    if src.errors or not _holds_scalar(src.meta):
        return [], []
    text = split_front_matter(src.text)[0]
    if text is None:
        return [], []
    said = {line for code, line, _, _ in schema or () if code in _SPELLING_SAID}
    judge = QuoteJudge(src.meta, schemas)
    found = [(f, reason) for f in _plain_values(text) if (reason := misreading(f.tag, f.text))]
    why_not = [judge.verdict(f, reason) for f, reason in found]
    together = judge.together([f for (f, _), why in zip(found, why_not, strict=True) if not why])
    out, edits = [], []
    for (f, reason), why in zip(found, why_not, strict=True):
        why = why or together
        line = f.line + 2  # the YAML starts on the file's line 2
        if not why:
            edits.append(Edit(line, f.col, f.text, f'"{f.text}"'))
        if not (reason == "boolean" and len(f.path) == 1 and line in said):
            note = f"kb check --fix leaves it: {why}" if why else \
                "kb check --fix quotes it: the schema wants text there"
            out.append((CODE, line, f.col, f"{_message(f, reason)} ({note})"))
    return out, edits


MAX_JUDGED = 32  # distinct places and values a front matter's schema is asked about
ErrorKey = tuple[int, tuple[str | int, ...], str]  # which schema, where, which rule


class QuoteJudge:
    """Whether `kb check --fix` may quote misread values of one front matter as written:
    where the schemas want text there, i.e. the front matter with the text in place of what
    YAML 1.1 read validates without an error it did not have, and without one it had (a
    type, an enum of words); and all of them quoted together add no error either. The
    schemas are asked once per place (a list's items are one) and value, at most
    `MAX_JUDGED` times, so a long list of values costs a few validations."""

    def __init__(self, meta: Any, schemas: Schemas | None):
        self.meta, self.schemas = meta, schemas
        self._before: set[ErrorKey] | None = None
        self._asked: dict[tuple[Any, ...], str] = {}

    def _errors_of(self, doc: Any) -> set[ErrorKey]:
        assert self.schemas is not None
        return schema_errors(self.schemas(), doc)

    def before(self) -> set[ErrorKey]:
        """The schema errors of the front matter as YAML 1.1 read it."""
        if self._before is None:
            self._before = self._errors_of(self.meta)
        return self._before

    def verdict(self, found: PlainValue, reason: str) -> str:
        """Why quoting `found` alone is not safe ("": it is)."""
        what = "the boolean" if reason == "boolean" else "the number"
        if found.anchor:
            return (f"other values repeat it (&{found.anchor}): quote it by hand if they all "
                    "mean text")
        if self.schemas is None:
            return "checked without the schema (--no-schema), nothing says it is text"
        place = tuple("[]" if isinstance(p, int) else p for p in found.path)
        key = (place, found.text, what)
        if key not in self._asked:
            if len(self._asked) >= MAX_JUDGED:
                return (f"more than {MAX_JUDGED} such values to ask the schema about: quote "
                        "the rest by hand")
            self._asked[key] = self._judge(found, what)
        return self._asked[key]

    def _judge(self, found: PlainValue, what: str) -> str:
        as_text = _replaced(self.meta, [found])
        if as_text is None:
            return "the schema cannot be asked about its place (a key that is no text)"
        read, written = (_near(errors, found.path)
                         for errors in (self.before(), self._errors_of(as_text)))
        if written <= read and read - written:
            return ""
        if not written - read:
            return f"the schema takes {what} as well as the text: quote it if you mean the text"
        if not read - written:
            return f"the schema wants {what} there"
        return f"the schema takes neither {what} nor the text: see its errors"

    def together(self, fixes: list[PlainValue]) -> str:
        """Why quoting all of `fixes` (each safe alone) is not safe ("": it is)."""
        if len(fixes) < 2:
            return ""
        as_text = _replaced(self.meta, fixes)
        if as_text is not None and self._errors_of(as_text) <= self.before():
            return ""
        return ("quoting these values together gives the schema an error they do not have "
                "now: quote them by hand")


def _replaced(meta: Any, values: list[PlainValue]) -> Any:
    """A copy of `meta` with each value's text at its path (None: a path leads nowhere)."""
    out = copy.deepcopy(meta)
    for found in values:
        holder: Any = None
        here: Any = out
        for part in found.path:
            inside = isinstance(here, dict) and isinstance(part, str) and part in here or \
                isinstance(here, list) and isinstance(part, int) and 0 <= part < len(here)
            if not inside:
                return None
            holder, here = here, here[part]
        if holder is None:
            return None
        holder[found.path[-1]] = found.text
    return out


def schema_errors(schemas: Sequence[Draft202012Validator], doc: Any) -> set[ErrorKey]:
    """The schema errors of `doc`, each as which schema, where and which rule says it."""
    return {(n, tuple(err.absolute_path), repr(tuple(err.absolute_schema_path)))
            for n, validator in enumerate(schemas) for err in validator.iter_errors(doc)}


def _near(errors: set[ErrorKey], path: tuple[str | int, ...]) -> set[ErrorKey]:
    """The `errors` at `path`, within it, or at a mapping or list holding it."""
    return {e for e in errors if e[1] == path[:len(e[1])] or path == e[1][:len(path)]}


def _holds_scalar(value: Any) -> bool:
    """Whether a loaded value holds a boolean or a number anywhere (the only values YAML
    1.1 may have read otherwise than written)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (bool, int, float)):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


@dataclass(frozen=True)
class PlainValue:
    """A plain (unquoted, untagged) scalar value YAML 1.1 resolves to a boolean or number;
    `line`, `col`: 0-based line and 1-based column in the YAML text; `path`: the keys and
    list indexes leading to it."""

    text: str
    tag: str
    line: int
    col: int
    path: tuple[str | int, ...]
    anchor: str | None = None  # `&name` before it: aliases elsewhere repeat it


@dataclass
class _Open:
    """A mapping or sequence being read: `here` is the path part of its current item."""

    mapping: bool
    in_key: bool  # it is (inside) a mapping's key: nothing in it is a value
    key_next: bool = True
    here: str | int = ""
    count: int = 0


def _plain_values(text: str) -> Iterator[PlainValue]:
    """The plain scalar values of a YAML text PyYAML resolves to a boolean or number, from
    its parser's events (a mapping's keys are no values; an alias is read where its anchor
    is written, once)."""
    stack: list[_Open] = []
    for event in yaml.parse(text, Loader=_Parser):
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            stack.pop()
            continue
        if not isinstance(event, yaml.NodeEvent):
            continue  # stream and document start and end
        top = stack[-1] if stack else None
        is_key = False
        if top is not None and top.mapping:
            is_key, top.key_next = top.key_next, not top.key_next
            if is_key:
                top.here = str(event.value) if isinstance(event, yaml.ScalarEvent) else "?"
        elif top is not None:
            top.here, top.count = top.count, top.count + 1
        in_key = is_key or (top is not None and top.in_key)
        if isinstance(event, yaml.CollectionStartEvent):
            stack.append(_Open(isinstance(event, yaml.MappingStartEvent), in_key))
        elif isinstance(event, yaml.ScalarEvent) and not in_key and event.tag is None \
                and event.implicit[0] and not event.style:
            tag = _RESOLVER.resolve(  # type: ignore[no-untyped-call]
                yaml.ScalarNode, event.value, (True, False))
            end = event.end_mark  # one line (no resolver reads a space): its end less its
            if tag in (_BOOL, _INT, _FLOAT) and end is not None:  # length is its start
                yield PlainValue(event.value, tag, end.line, end.column - len(event.value) + 1,
                                 tuple(o.here for o in stack), event.anchor)


def misreading(tag: str, text: str) -> str:
    """How YAML 1.1 reads `text` (a plain scalar it resolved to `tag`) otherwise than it
    is written, "" when it reads it as written: "boolean", "octal" (any leading 0),
    "hexadecimal", "binary", "base-60", "underscore", "special" (`.inf`, `.nan`)."""
    if tag == _BOOL:
        return "" if text in _BOOLS_12 else "boolean"
    digits = text[1:] if text[:1] in ("+", "-") else text
    if ":" in text:
        return "base-60"
    if tag == _INT:
        for prefix, reason in (("0b", "binary"), ("0x", "hexadecimal")):
            if digits.startswith(prefix):
                return reason
        if digits.startswith("0") and len(digits) > 1:
            return "octal"
    if tag == _FLOAT and digits.startswith(".") and digits[1:2].isalpha():
        return "special"
    return "underscore" if "_" in text else ""


_HOW = {"octal": "a number with a leading 0 as octal", "hexadecimal": "0x… as hexadecimal",
        "binary": "0b… as binary", "base-60": "numbers joined by ':' in base 60",
        "underscore": "a number with its '_' left out", "special": ".inf and .nan as numbers"}


def _message(found: PlainValue, reason: str) -> str:
    """One line: the value, what YAML reads, what to write (its text quoted, or what
    YAML read written as YAML 1.2 reads it)."""
    written = found.text if len(found.text) <= _SHOWN_CHARS \
        else found.text[:_SHOWN_CHARS] + f"… ({len(found.text)} characters)"
    name = ".".join(str(p) for p in found.path)
    key = found.path[-1] if found.path else None
    put = f"{key}: " if isinstance(key, str) else ""
    keep = f'{put}"{written}"' if len(found.text) <= _SHOWN_CHARS else "the value quoted"
    value = _read(found) if len(found.text) <= _SHOWN_CHARS else None
    if reason == "boolean":
        shown = "true" if value else "false"
        return (f"{name}: {written} is read as the boolean {shown} (YAML 1.1; YAML 1.2 and "
                f"people read the word): write {put}{shown}, or {keep} to keep the word")
    read = _number(value) if value is not None else "a number"
    if reason == "special":
        return (f"{name}: {written} is read as the number {read} (YAML 1.1 reads "
                f"{_HOW[reason]}), not as text: write {keep} to keep the text")
    finite = isinstance(value, int) or isinstance(value, float) and math.isfinite(value)
    also = f", or {put}{read} for the number" if finite else ""
    return (f"{name}: {written} is read as {read} (YAML 1.1 reads {_HOW[reason]}), not as "
            f"written: write {keep} to keep the text{also}")


def _read(found: PlainValue) -> Any:
    """The value PyYAML reads for a (short) plain scalar."""
    node = yaml.ScalarNode(found.tag, found.text)
    try:
        return _CONSTRUCTOR.construct_object(node, deep=True)
    except (yaml.YAMLError, ValueError):
        return None
    finally:
        _CONSTRUCTOR.constructed_objects.pop(node, None)


def _number(value: Any) -> str:
    """A number as it is said (`infinity`, `NaN`) or as YAML 1.1 and 1.2 read it written
    (`8`, `90.5`, `1.0e+99`: PyYAML reads a float only with its `.`)."""
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, float) and math.isinf(value):
        return "infinity" if value > 0 else "minus infinity"
    shown = str(value)
    mantissa, e, exponent = shown.partition("e")
    return f"{mantissa}.0e{exponent}" if e and "." not in mantissa else shown
