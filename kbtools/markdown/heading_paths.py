"""Heading paths as people and agents write them, matched against a document's headings.

A section is named by its heading path (a list of headings, or one string with ' > '
between them as citations write it), by its last headings alone, by a heading as the
Markdown writes it (`## Using `kb sync` *safely*`), or by its number ("4.3", "section 4.3",
"第 4.3 节", "4.3节"), alone or with its words, or with words in the other language ("3.2
Risk level table" for "3.2 风险等级判定表"). `kb read`, the MCP `read` tool and `/api/read` find a section so
(`kbtools.agents.read.find_section`), and `evaluate_table` a table by the section it lies in
(`kbtools.decision.documents.select_table`): each takes what the other prints.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache

from kbtools.markdown.parser import inline_text, parse_inline

# A section number: digits as any script writes them (`\d`: full-width ４, too) and dots
# (the full-width ．, too), read as ASCII by `ascii_number`
SECTION_NUMBER = r"\d+(?:[.．]\d+)*"
_SECTION = re.compile(rf"(?i)^\s*(?:第\s*|(?:chapter|section|sect\.|§)\s*)?({SECTION_NUMBER})[.．]?"
                      r"(?=\s|[^\d.．]|$)")


def ascii_number(number: str) -> str:
    """A section number as ASCII: "４.１" and "４．１" -> "4.1"."""
    return "".join("." if ch == "．" else str(unicodedata.decimal(ch)) if ch.isdecimal() else ch
                   for ch in number)


def section_number(heading: str) -> str:
    """Leading section number of a heading, in ASCII digits: "4.3 药剂选择" -> "4.3",
    "第5章 施药" and "第５章 施药" -> "5", "Chapter 5 Fault codes" -> "5", "Section 5.2
    Overview" -> "5.2"."""
    m = _SECTION.match(heading)
    return ascii_number(m.group(1)) if m else ""


def norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split()).casefold()


# what joins the headings of a heading path in a string: ' > ', as citations write it (' › '
# and ' » ' too), never a bare '>', which belongs to the heading (`Option<u8>`, `> 30 °C`);
# and '＞', spaced or not, as a Chinese input method types '>' (a heading holding one,
# `小结：温度＞20℃时`, is still named: `path_matches` joins the parts back as written)
_SEPARATOR = re.compile(r"(\s[>›»]\s|\s?＞\s?)")
# a section named by its number as prose names it: "section 4.3", "Chapter 4", "§ 4.3",
# "第 4.3 节" (the number alone, "4.3", works too)
_SECTION_REF = re.compile(rf"(?i)(?:section|sect\.|chapter|§|第)[ \t]*({SECTION_NUMBER})[ \t]*[节節章]?")
# a numbered heading's number as it writes it (`norm`ed: ASCII digits, case folded), for its
# text without it: "1.1 湿度" is named by "湿度", "Chapter 5 Fault codes" by "fault codes"
_NUMBERED = re.compile(r"^\s*(?:第\s*|(?:chapter|section|sect\.|§)\s*)?\d+(?:\.\d+)*[.、章节]?\s*")
# a letter of a CJK script (kana, ideographs, hangul): a heading's words in Chinese (or
# Japanese, Korean) against words in a Latin script are the same section in two languages
_CJK_LETTER = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
# what may stand between a section number and its title as a caller writes it: "3.2: Risk"
_AFTER_NUMBER = " \t:：-–—.．、"



def other_script(a: str, b: str) -> bool:
    """Whether one of `a` and `b` is written in a CJK script and the other is not: the same
    name in two languages, not two names."""
    return bool(_CJK_LETTER.search(a)) != bool(_CJK_LETTER.search(b))


def heading_words(heading: str) -> str:
    """A heading's words without its section number, `norm`ed: "3.2 风险等级表" -> "风险等级表"."""
    return _NUMBERED.sub("", norm(heading), count=1).strip(_AFTER_NUMBER)

def as_one_path(heading_path: str | list[str] | tuple[str, ...] | None
                ) -> str | list[str] | tuple[str, ...] | None:
    """`heading_path`, or a list one of whose parts holds a ' > ' as the one string its parts
    written with ' > ' between them make: an agent sent a citation's heading path as a list
    of one (`["A > B"]`), which named no heading "A > B". As a string, the path reads as a
    citation's does (a heading whose whole text it is first, else split at ' > ')."""
    if heading_path is None or isinstance(heading_path, str):
        return heading_path
    parts = [str(p).strip() for p in heading_path]
    return " > ".join(parts) if any(_SEPARATOR.search(p) for p in parts) else heading_path


def heading_parts(heading_path: str | list[str] | tuple[str, ...] | None
                  ) -> tuple[list[str], list[str] | None]:
    """The parts of a heading path and, for a string (or a list `as_one_path` joins), the
    separators written before each part after the first (None for a list: each of its
    parts is one heading)."""
    heading_path = as_one_path(heading_path)
    if heading_path is None:
        return [], None
    if not isinstance(heading_path, str):
        return [str(p).strip() for p in heading_path if str(p).strip()], None
    pieces = _SEPARATOR.split(heading_path)  # part, separator, part, …
    parts: list[str] = []
    seps: list[str] = []
    for i in range(0, len(pieces), 2):
        if pieces[i].strip():
            if parts:
                seps.append(pieces[i - 1])
            parts.append(pieces[i].strip())
    return parts, seps


def split_heading_path(heading_path: str | list[str] | tuple[str, ...] | None) -> list[str]:
    """The parts of a heading path: a list as given, a string split at ' > '."""
    return heading_parts(heading_path)[0]


@lru_cache(maxsize=1024)
def _forms(wanted: str) -> tuple[str, ...]:
    """What a part of a heading path may name a heading by: its text; the heading as Markdown
    writes it, taken as a heading's text is (`## Using `kb sync` *safely* ##` names "Using kb
    sync safely", as a document's `markdown` shows it); a section number as prose writes it
    ("section 4.3")."""
    forms = [norm(wanted)]
    text = wanted.strip()
    if text.startswith("#"):  # an ATX heading line: its markers are not its text
        text = text.lstrip("#")
        bare = text.rstrip("#")
        text = bare if not bare or bare[-1] in " \t" else text
    written = norm(inline_text(parse_inline(text, {}), said=True))
    if written and written not in forms:
        forms.append(written)
    ref = _SECTION_REF.fullmatch(text.strip())
    if ref:
        forms.append(ascii_number(ref.group(1)))
    return tuple(forms)


@lru_cache(maxsize=1024)
def _numbered(wanted: str) -> tuple[str, str] | None:
    """A part of a heading path that starts with a section number: the number (ASCII) and
    the words after it (`norm`ed, "" for none): "3.2节" -> ("3.2", ""), "Section 3.2: Risk
    table" -> ("3.2", "risk table"); None for a part with no leading number."""
    number = section_number(wanted)
    if not number:
        return None
    words = _NUMBERED.sub("", norm(wanted), count=1).strip(_AFTER_NUMBER)
    if words[:1] in ("节", "節", "章"):  # "3.2 节": the number alone, spaced
        words = words[1:].strip(_AFTER_NUMBER)
    return number, words


def _numbered_matches(wanted: str, number: str, bare: str) -> bool:
    """Whether `wanted` names the heading numbered `number` with words `bare` by its number:
    the number alone as prose writes it ("3.2节", "3.2."), with the heading's own words
    ("3.2. 风险等级判定表"), or with words in another script (an agent that put the
    heading path of a Chinese document in English: "3.2 Risk level table"); words of the
    heading's script that are not its own name another section, and do not match."""
    said = _numbered(wanted)
    if said is None or said[0] != number:
        return False
    words = said[1]
    return not words or words == bare or (  # (never a heading path joined, "3 A > 3.1 B")
        bool(bare) and not _SEPARATOR.search(words)
        and bool(_CJK_LETTER.search(words)) != bool(_CJK_LETTER.search(bare)))


def _heading_matches(wanted: str, heading: str) -> bool:
    h, number = norm(heading), section_number(heading)
    bare = _NUMBERED.sub("", h, count=1) if number else None
    # "1.1 湿度" is named by "1.1" and by "湿度", and by "1.1湿度" as typed without the space
    # ("5. 记录仪" by "5.记录仪", "第5章 施药" by "第5章施药")
    tight = h[:len(h) - len(bare)].rstrip() + bare if number and bare else None
    return any(w == h or (number and w in (number, bare, tight)) for w in _forms(wanted)) \
        or bool(number) and _numbered_matches(wanted, number, bare or "")


def _shortest(text: str) -> int:
    """The fewest characters of a heading `text` may name (`_forms`, or its number)."""
    numbered = _numbered(text)
    lengths = [len(form) for form in _forms(text)]
    return min(lengths + [len(numbered[0])] if numbered else lengths)


def path_matches(parts: list[str], seps: list[str] | None, path: tuple[str, ...],
                 whole: bool = False) -> bool:
    """Whether `parts` name the last headings of `path` (all of them when `whole`), each
    heading named by one part or, when the parts came from a string (`seps`), by several
    consecutive parts joined as written: the citation ``Doc > Temperature < 10 °C or > 30
    °C`` names the heading ``Temperature < 10 °C or > 30 °C``."""
    norms = [norm(h) for h in path]
    joins = seps or []

    @cache
    def names(i: int, j: int) -> bool:  # parts[:i] name the last headings of path[:j]
        if i == 0:
            return j == 0 or not whole
        if j == 0:
            return False
        text = parts[i - 1]
        for g in range(1, (i if seps is not None else 1) + 1):
            if g > 1:
                text = parts[i - g] + joins[i - g] + text
            if _shortest(text) > len(norms[j - 1]):
                break  # a part never names a heading shorter than itself
            if _heading_matches(text, path[j - 1]) and names(i - g, j - 1):
                return True
        return False

    return names(len(parts), len(path))
