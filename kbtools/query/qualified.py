"""How a question names a value of one input's generic name qualified into another thing's,
by the form of the question (the words are data in `kbtools.query.quantities`).

A quantity no table names is told by the form of the question instead (`Qualified`): a
compound whose head is the input's name (温度, 压力, their short forms 温, 压 in a compound,
``temperature``, ``temp``, ``pressure``) with a word before it that is none of the input's own
(油温, 水温度, 地温, 油压, ``oil temperature``, ``bearing temp``, ``oil pressure``) names a
more specific thing than the input, before its value or after it (80度的油温, ``80 C oil
temperature``, ``80 C the oil's temperature``: `AFTER_LEADS`), a comma between the name and its value or not
(油温，80度, ``temperature of the oil, 80 C``: `before_comma`; not 油温正常，25度, a clause of
its own), whether or not the table's heading says what the table is about. So does an
English name followed by a phrase saying whose it is (``temperature of the oil``, ``pressure
in the boiler``: `OF_THING`, `Qualified.phrase`) or after a possessive (``the oil's
temperature``, ``the tyres' pressure``: `POSSESSIVES`), as 水的温度 is the water's; the
value is said of the whole (``temperature of the oil``), and the same words qualify nothing
there (``temperature of the air``, ``in the greenhouse`` on a greenhouse table, ``a
temperature of 80 C``: no thing named). A place word after a thing leaves the thing
qualifying the quantity, as ``pressure in the boiler`` does (锅炉内压力, 水中温度: the note names
the phrase as written; `LOCATIVES`): the words that qualify nothing are judged before it
(棚内温度 on a 大棚 table, 室内温度, 空气中的温度). The surroundings a generic quantity means (气温, ``air temperature``:
`AMBIENT`; a room or indoors, 室温, ``room temperature``, ``temperature in the room``, on any
table: `ROOMS`; ``outdoors``, ``outside the tank`` are another place: `OUTSIDE`), how high it is (高温: `DEGREES`), when (夜间温度, 白天温度: `TIMES`; 下雨温度: `WEATHER`), a verb of change before a short form
(升温到80度, 加压至3MPa: `CHANGES`; 油升温 is still the oil's) or an English one before ``to``
(``heated to 80 C``: `changes.EN_CHANGES`; ``oil heated to`` is the oil's), words of the table's own
heading or of the input's names (a Chinese modifier judged by its last character, the one
bound to the name: 棚里油温 is the oil's, 大棚油温 on a 大棚 table the 大棚油温's), an English word that names no thing (``the``, ``if``: `EN_PLAIN`), and
a run of Chinese too long to be a modifier (`PHRASE`: 小麦赤霉病温度) qualify nothing.

Pure.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from kbtools.query.changes import EN_CHANGES, change_before, clause_words
from kbtools.query.compacted import compact
from kbtools.query.fillers import EN_NUMERALS, FILLERS, drop_fillers, strip_fillers
from kbtools.query.numbered_places import past_place
from kbtools.query.quantities import (
    AFTER_LEADS,
    AMBIENT,
    CHANGES,
    CONTRACTIONS,
    DEGREES,
    EN_PLAIN,
    GAP,
    LOCATIVES,
    OF_THING,
    OUTSIDE,
    OWN_ENDINGS,
    PHRASE,
    PHRASE_WORDS,
    PLURAL_POSSESSIVES,
    POSSESSIVES,
    ROOMS,
    TIMES,
    WEATHER,
)
from kbtools.query.value_units import UNIT_CLASSES, count_end
from kbtools.query.values import AGO_WORDS, STOP_GAP
from kbtools.query.wording import ABBREVIATIONS, NAME_STARTS, counted_object, is_cjk, is_latin


@dataclass(frozen=True)
class Qualified:
    """Where a question says a value of one input's generic name qualified into another
    thing's (see the module doc): `heads`, the input's names and their short forms in a
    compound (温度 and 温), longest first; `mine`, the words that qualify nothing (the
    characters and words of the input's names and of the table's heading); `tails`, the
    heads that are trailing parts of the input's whole name, each with its rivals (湿度 of
    相对湿度, 相对: `qualifier`)."""

    heads: tuple[str, ...] = ()
    mine: frozenset[str] = frozenset()
    values: tuple[str, ...] = ()  # the table's text cells (小麦温度: the 小麦 row's 温度)
    tails: tuple[tuple[str, frozenset[str]], ...] = ()

    @classmethod
    @functools.lru_cache(maxsize=256)  # a table's inputs, read for many questions: made once
    def of(cls, names: tuple[str, ...], context: str = "",
           values: tuple[str, ...] = (),
           tails: tuple[tuple[str, frozenset[str]], ...] = ()) -> Qualified:
        """For an input named `names` (`query.inputs.names_of`) of a table whose name and
        heading path are `context` and whose text cells hold `values`; `tails`: those of
        `names` that are trailing parts of its whole name, with their rivals. The words of the
        built-in names (`ABBREVIATIONS`: ``relative humidity``, 相对湿度) qualify nothing."""
        heads = set(names)
        for name in names:
            for full, short in CONTRACTIONS:
                if name.endswith(full):
                    heads.add(name[:-len(full)] + short)
                elif name.endswith(short) and short in OWN_ENDINGS:  # 日均温: a 温度 of its
                    heads.update((full, short))  # own, so 地温 is another's
        text = compact(" ".join((*names, context, *(t for g in ABBREVIATIONS for t in g))))
        mine = {ch for ch in text if is_cjk(ch)} | set(_words(text)) | \
            set(_words(compact(" ".join(values))))  # ``wheat temperature``: a wheat row's
        return cls(tuple(sorted(heads, key=lambda n: (-len(n), n))), frozenset(mine),
                   tuple(v for v in {compact(v) for v in values} if v), tails)

    def rivals(self, head: str) -> frozenset[str] | None:
        """The rivals of `head` when it is a trailing part of the input's name (相对 for 湿度
        of 相对湿度: 空气湿度 may measure something else, whichever side of the value it is
        on), None for a whole name."""
        return next((r for t, r in self.tails if t == head), None)

    def before(self, text: str, at: int) -> str:
        """The qualified name said of the value at position `at` of compacted `text`, "" when
        none is: the nearest mention of a head ending right before it, filler words between
        (油温80度, 油温已经80度, ``oil temp is 80``) or up to `GAP` Chinese characters none of
        which is in the input's names or the table's heading (油温升到80度; not 油温正常气温25度,
        whose 气温 is the nearer mention); before an English verb of change, what it is said
        of (`changed_to`)."""
        changed = self.changed_to(text, at)
        if changed is not None:
            return changed
        end = len(drop_fillers(text[:at]).rstrip(" "))
        lo = end
        comma = before_comma(text, end)
        if comma >= 0:
            end = lo = comma  # 油温，80度: the name right before the comma only (not 油温正常，)
        while comma < 0 and lo and end - lo < GAP and is_cjk(text[lo - 1]) and \
                text[lo - 1] not in self.mine:
            lo -= 1
        for stop in range(end, lo - 1, -1):  # the nearest mention decides
            stop = len(drop_fillers(text[:stop]))
            head = next((h for h in self.heads if stop >= len(h) and
                         text.startswith(h, stop - len(h))), None)
            if head is not None:
                other = self.qualifier(text, stop - len(head), rivals=self.rivals(head))
                return other + (" " if head[:1].isascii() and other else "") + head \
                    if other else ""
        return self.named_after(text, end)

    def changed_to(self, text: str, at: int) -> str | None:
        """None when no English verb of change leads the value at `at` (`changes.change_before`); else
        the thing the change is said of, "" when none is (``heated to 80 c``, ``the
        temperature rose to``, ``we cooled the room down to``): its object (``heated the oil
        to``: oil), else its subject — a name of the input qualified as before a value (``the
        oil temperature rose to``), else the last words of a thing (``the hydraulic oil was
        cooled to``: hydraulic oil); no word of `EN_PLAIN`, the surroundings, a room or the
        words of the input's names and the table's heading is a thing."""
        found = change_before(text, at)
        if found is None:
            return None
        start, obj = found
        if obj:
            return self._thing(obj)
        subject = len(drop_fillers(text[:start]).rstrip(" "))
        if any(text.startswith(h, subject - len(h)) and
               not (subject > len(h) and is_latin(text[subject - len(h) - 1]))
               for h in self.heads if subject >= len(h)):
            return self.before(text, start)  # ``the oil temperature rose to``
        return self._thing(clause_words(text[:subject]))

    def _thing(self, words: list[str]) -> str:
        """The last words of `words` that name a thing (at most `PHRASE_WORDS`, none of
        `EN_PLAIN`), "" when the last one names none (``the room``, ``it``)."""
        run: list[str] = []
        for word in reversed(words):
            if word in EN_PLAIN or word in FILLERS or word in EN_CHANGES or len(run) == PHRASE_WORDS:
                break
            run.insert(0, word)
        if not run or run[-1] in AMBIENT + ROOMS or run[-1] in self.mine:
            return ""
        return " ".join(run)

    def named_after(self, text: str, end: int) -> str:
        """The English name qualified by the phrases after it that end at `end` (``temperature
        of the oil``, ``pressure in the boiler``: `phrase`), "" when none is."""
        at, head = max(((_last_word(text, h, end), h) for h in self.heads if is_latin(h[0])),
                       default=(-1, ""))  # (the temp of ``tempa`` names none)
        found = self.phrase(text, at + len(head)) if at >= 0 else None
        return text[at:end] if found == (end, True) else ""

    def after(self, text: str, at: int) -> str:
        """The qualified name that starts right after a value ending at `at` (80度的油温,
        ``80 c oil temperature``), "" when none does."""
        rest = text[at:].lstrip(" ")
        rest = rest[1:] if rest.startswith("的") else rest
        while (lead := next((w for w in AFTER_LEADS if rest.startswith(w) and (
                not w.isalpha() or rest[len(w):len(w) + 1] == " ")), "")) and \
                len(rest) > len(lead) + 1:
            rest = rest[len(lead):].lstrip(" ")  # ``80 c the oil's temperature``
        start = len(text) - len(rest)
        if any(is_cjk(h[0]) and text.startswith(h, start) and self.rivals(h) is None
               for h in self.heads):
            return ""  # 85%的空气湿度 when 空气湿度 names the input: its own whole name
        for head in self.heads:
            if is_latin(head[0]) and text.startswith(head, start) and \
                    (found := self.phrase(text, start + len(head))) is not None and found[1]:
                return text[start:found[0]]  # ``80 c temperature of the oil``
            if is_cjk(head[0]):
                spans = [start + n for n in range(1, PHRASE + 3)  # 锅炉里的压力
                         if all(is_cjk(ch) for ch in text[start:start + n])]
            else:  # one word, or one with a possessive mark (``80 c oil's temperature``)
                spans = [start + n for n in [_past_word(rest)] if n > 0]
            for pos in spans:
                if text.startswith(head, pos) and not is_latin(text[pos + len(head):][:1]) and \
                        (other := self.qualifier(text, pos, start, rivals=self.rivals(head))):
                    return other + (" " if head[:1].isascii() else "") + head
        return ""

    def qualifier(self, text: str, at: int, start: int = -1, *,
                  rivals: frozenset[str] | None = None) -> str:
        """The modifier right before a head at `at` (from `start` when given) that makes it
        another thing's, else "". With `rivals`, the head is a part of the input's name (湿度
        of 相对湿度) and only the table's own subject (a character of its heading, not one of
        `rivals`: the characters the whole name puts before the part, 绝对 against 相对) or a
        time qualifies nothing: 空气湿度, 平均湿度 or a long phrase may be another measure of
        it (赤霉病湿度 on a 赤霉病 table, 今天湿度 are the input's)."""
        if at and is_cjk(text[at - 1]):
            lo = at if start < 0 else start
            while start < 0 and lo and is_cjk(text[lo - 1]) and \
                    not text[:lo].endswith(NAME_STARTS) and not text[:lo].endswith(_CJK_FILLERS):
                lo -= 1
            if counted_object(text, lo, at):
                return ""  # 下了4天雨温度: the 雨 is what the clause counts, no thing's
            placed = past_place(text, lo, at)
            if placed > lo:  # 3号田湿度, 第三棚湿度: which place, no thing's
                lo = placed
            elif lo and (text[lo - 1].isdigit() or text[lo - 1] == "%"):  # 3天温度: 天 is the
                lo += max((len(u) for c in UNIT_CLASSES for u in c  # unit of the 3
                           if u and is_cjk(u[0]) and text.startswith(u, lo)),
                          default=int(text[lo - 1].isdigit()))  # 30%土壤湿度: no unit
                lo += next((len(w) for w in AGO_WORDS if text.startswith(w, lo)), 0)  # 3天前
            if (counted := count_end(text, lo, at)) > lo:  # 每天两次温度: how often, no thing's
                lo = counted + next((len(w) for w in AGO_WORDS if text.startswith(w, counted)), 0)
            possessive = text[lo:at].endswith("的")  # 油的温度: 油 qualifies it
            word = text[lo:at - possessive]
            verb = int(not possessive and self.changed(text, at))  # 升温到80度: no thing
            word = word[:len(word) - verb]
            place = next((p for p in LOCATIVES if word.endswith(p)), "")  # 锅炉内: 锅炉's
            thing = word[:len(word) - len(place)]
            ago = next((w for w in AGO_WORDS if thing.endswith(w)), "")
            if ago and not place and (thing[:-len(ago)].endswith(TIMES) or
                                      thing == ago and len(ago) > 1):
                return ""  # 一周前湿度, 昨天之前温度: a time before, no thing's
            if rivals is not None:
                if not thing or thing.endswith(TIMES + WEATHER) or \
                        thing[-1] in self.mine - rivals or \
                        thing.endswith(self.values):
                    return ""
            elif (own := self.subject_end(thing)) and not possessive and not place and \
                    not thing[own:].endswith(AMBIENT + ROOMS + DEGREES + TIMES + WEATHER):
                lo, thing = lo + own, thing[own:]  # 小麦赤霉病风险|油温, 下雨|油温: the 油's
            elif not thing or len(thing) > PHRASE or \
                    thing.endswith(AMBIENT + ROOMS + DEGREES + TIMES + WEATHER) or \
                    thing[-1] in self.mine or thing.endswith(self.values):  # 中温, 空气中
                return ""  # 温度, 大棚(内)温度 (a 大棚 table), 小麦温度 (a table of 小麦)
            cut = max((n for n in range(2, len(thing))  # a place before the thing: 棚里
                       if thing[:n].endswith(LOCATIVES)), default=0)
            return text[lo + cut:at - verb]  # 油 of 棚里油温: the thing, without the place
        lead_end = at - (text[at - 1:at] == " ")
        mark = next((m for m in POSSESSIVES if text.startswith(m, lead_end - len(m))), "") or \
            next((m[1:] for m in PLURAL_POSSESSIVES if text.startswith(m, lead_end - 2)), "")
        end = lead_end - len(mark)  # ``the oil's temperature``: the oil's, as ``oil temperature``
        if at and (mark or lead_end < at) and text[end - 1:end].isalpha() and \
                " " not in next((h for h in self.heads if text.startswith(h, at)), " "):
            # a name of words (``pump seal temperature``) already says which thing it is
            last = _words(text[:end])[-1:]
            lead = last[0] if last else ""
            unit = text[:end - len(lead)].rstrip(" ")[-1:] in tuple("0123456789°")  # the psi
            # of 2 psi, the c of 22°c
            # (``greenhouse three humidity``: a place's number, no thing)
            if lead and not unit and lead not in EN_PLAIN and lead not in AMBIENT + ROOMS and \
                    lead not in self.mine and text[end - len(lead):end] == lead and \
                    not EN_NUMERALS.fullmatch(lead):
                return lead + mark
        return ""

    def subject_end(self, thing: str) -> int:
        """Where the words of the table's own subject end in a modifier `thing` that starts
        with two or more of their characters and ends in others (小麦赤霉病风险|油, 赤霉病|水 on
        the wheat-scab table, whose heading holds 小麦赤霉病 and 风险): what follows names the
        thing (油温 is the oil's) however long the words before it, which a question typed
        without a comma runs into it; so do words of weather or time of two characters or
        more before it (下雨|油, 今天|油; 雨水 is the rainwater). 0 when `thing` holds no such words before its last
        characters (油, 大棚 on another table; 室|外 is one word) or ends in one (小麦赤霉病:
        the subject)."""
        if not thing or thing[-1] in self.mine:
            return 0
        when = (n for n in range(2, len(thing))  # 下雨|油, 今天|油: when, then the thing
                if thing[:n].endswith(WEATHER + TIMES) and  # (not 晚|上 of 晚上: one word)
                not thing[:n + 1].endswith(WEATHER + TIMES))
        own = next((n for n, ch in enumerate(thing) if ch not in self.mine), 0)
        return max((*when, *([own] if own >= 2 else [])), default=0)

    @staticmethod
    def changed(text: str, at: int) -> bool:
        """Whether a quantity's Chinese short form at `at` (温, 压) follows a verb of change
        (`CHANGES`: 升温, 加压) and ends that word: its value, filler words or 至 after it
        (升温到80度, 加压至3MPa, 降温了), not more of a name (减压阀: a valve)."""
        short = next((s for _, s in CONTRACTIONS if text.startswith(s, at)), "")
        if not short or not at or text[at - 1] not in CHANGES or \
                any(text.startswith(full, at) for full, _ in CONTRACTIONS):
            return False
        nxt = text[at + len(short):at + len(short) + 1]
        return not is_cjk(nxt) or nxt == "至" or not strip_fillers(nxt)

    def phrase(self, text: str, end: int) -> tuple[int, bool] | None:
        """The English phrases saying whose quantity it is right after a name ending at `end`
        of compacted `text` (`OF_THING`: ``of the oil``, ``in the boiler``, ``of the oil in
        the tank``), as (where they end, whether one names a thing other than the input's:
        its last word none of `EN_PLAIN` nor `AMBIENT` nor the words of the input's names,
        heading and cells, nor a room — ``of the air``, ``in the greenhouse`` on a greenhouse
        table name none, nor ``in the morning``, whose words are all `EN_PLAIN`; a `ROOMS`
        adverb, ``indoors``, is a phrase naming none); None when none follows (``a
        temperature of 80 c``: no words after it)."""
        stop, other = end, False
        while True:
            run = _EN_WORDS.match(text, stop)
            words = run.group().split() if run else []
            if words and words[0] in ROOMS and words[0] not in OF_THING:
                stop += len(words[0]) + 1  # ``the temperature indoors``: where, no thing
                continue
            away = bool(words) and words[0] in OUTSIDE and \
                words[0] not in self.mine and words[0].removesuffix("s") not in self.mine
            if away and (len(words) == 1 or words[1] in EN_PLAIN - set(OF_THING) - {"the"}):
                stop += len(words[0]) + 1  # ``the temperature outdoors is``: another place
                other = True
                continue
            if not words or words[0] not in OF_THING + OUTSIDE:
                break
            lead = 1
            while lead < len(words) and words[lead] in EN_PLAIN - set(OF_THING):
                lead += 1  # ``the``, ``its``
            thing: list[str] = []
            for word in words[lead:]:
                if word in EN_PLAIN or word in OF_THING or EN_NUMERALS.fullmatch(word):
                    break
                thing.append(word)
            if len(thing) > PHRASE_WORDS or not thing and lead == 1:
                break  # a clause, or no words after it (``of 80 c``)
            stop += len(" ".join(("", *words[:lead], *thing)))
            if is_latin(text[stop:stop + 1]):
                return None  # part of a word the phrase does not hold (``oil80``)
            other = other or away or bool(thing) and thing[-1] not in AMBIENT + ROOMS and \
                thing[-1] not in self.mine  # ``in the morning``: when, of no thing
        return (stop, other) if stop > end else None


_CJK_FILLERS = tuple(w for w in FILLERS if is_cjk(w[0]))
_EN_WORDS = re.compile(r"(?: [a-z]+)+")  # the words of a compacted question from a position
# between a name and its value: ``temperature of the oil, 80 c``, 油温，80度, 油温、80度, 油温；80度
COMMAS = (",", "，", "、", ";", "；")


def before_comma(text: str, end: int) -> int:
    """Where the name before a comma ending compacted `text[:end]` ends, filler words before
    the comma dropped (``the oil temperature is, 80 c``); -1 when no comma ends it, or when
    the clause before the comma holds a number: the name's value is that one (``80 c oil
    temperature, 25 c``, 80度的油温，25度: the 25 is no oil's)."""
    if not text[:end].endswith(COMMAS):
        return -1
    for ch in reversed(text[:end - 1]):  # back to the clause's start
        if STOP_GAP.match(ch):
            if ch.isdigit():
                return -1
            break
    return len(drop_fillers(text[:end - 1]).rstrip(" "))


def _last_word(text: str, word: str, end: int) -> int:
    """Where the last whole-word `word` of `text[:end]` starts, -1 when none does."""
    at = text.rfind(word, 0, end)
    while at >= 0 and (at and is_latin(text[at - 1]) or is_latin(text[at + len(word):][:1])):
        at = text.rfind(word, 0, at)  # inside a word: an earlier one
    return at


def _past_word(rest: str) -> int:
    """Where the word after the first word of compacted `rest` starts: past its space, or
    past a plural's possessive mark (``tyres'pressure``: `compact` keeps no space after a
    mark); 0 when `rest` starts with no word (letters, and a possessive mark)."""
    word = rest.split(" ", 1)[0]
    bare = next((word[:-len(m)] for m in POSSESSIVES if word.endswith(m)), word)
    if bare.isalpha():
        return len(word) + 1 if len(rest) > len(word) else 0
    for mark in PLURAL_POSSESSIVES:
        at = word.find(mark)
        if at > 0 and word[:at + 1].isalpha() and word[at + 2:at + 3].isalpha():
            return at + 2
    return 0


def _words(text: str) -> list[str]:
    return [w for w in "".join(ch if ch.isascii() and ch.isalnum() else " "
                               for ch in text).split() if w.isalpha()]
