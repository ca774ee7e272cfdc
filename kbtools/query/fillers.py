"""The filler words of a question: the words that may stand between an input's name and its
value (温度为22度, ``temperature is 75``) and say nothing of either, for `kbtools.query.values`
and the modules reading names and values with it; English numerals spelled out; and whether
the words around a number make it approximate (大约90%, 90%左右: `approximate`).

Pure.
"""

from __future__ import annotations

import re

from kbtools.decision.words import APPROX_AFTER, APPROX_BEFORE

# words ending in 近 that make no approximate value of the number after them (最近, 附近)
NOT_NEAR = ("最", "附", "临", "靠", "邻", "接", "将")


# words that may stand between an input's name and its value (温度为22度, 湿度达到90%,
# ``temperature is 75``, ``pressure reads 35 psi``, ``the load's 85%``); 零下 and 负 too: they make the number
# negative, `BELOW_ZERO`; 华氏 puts it in °F, refused
FILLERS = sorted(("目前", "现在", "当前", "已经", "大约", "大概", "大致", "约莫", "约合", "差不多",
                  "估计", "近", "达到", "约为", "共计", "累计",
                  "零下", "华氏", "是", "为", "约", "在", "达", "到", "了", "已", "有", "共", "都", "均",
                  "负", ":", "=", "≈",
                  "is", "are", "was", "were", "of", "at", "now", "currently", "reads", "reading",
                  "shows", "showing", "measures", "measured", "about", "around", "approximately",
                  "approx", "apprx", "roughly", "circa", "ca", "estimated", "est", "some", "the", "has", "had", "been", "reached", "reaches", "stands",
                  "sits", "equals", "minus", "negative", "'s", "’s"), key=len, reverse=True)
EN_NUMERALS = re.compile(r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                         r"twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
                         r"twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|"
                         r"a hundred|a thousand)(?![a-z])")


# Chinese words that start a clause or end one, and so name no thing when they follow a number
# (90%要不要喷药, 90%左右, 90%了吗, 90%时, 90%和温度…: `wording.fraction_of`; 湿度八十五怎么办:
# a whole numeral with no unit is a value before one, `values._alone`)
GLUED_NOT_NOUNS = ("左右", "上下", "前后", "以上", "以下", "以内", "了", "吗", "呢", "吧", "啊", "呀", "时",
                   "要", "需", "该", "应", "能", "可", "会", "是", "有", "还", "就", "都", "也",
                   "又", "再", "而", "但", "且", "并", "和", "与", "及", "或", "跟", "同", "怎",
                   "如", "咋", "多", "余", "请", "我", "你", "他", "她", "它", "这", "那", "不",
                   "没", "未", "无", "已", "正", "在", "仍", "一直", "持续", "连续", "然后", "现在",
                   "目前", "今天", "昨天", "随后", "之后", "后来", "接着", "的")


def drop_fillers(word: str) -> str:
    """`word` without the filler words it ends with (达到 in 气温达到)."""
    return _without_fillers(word, at_end=True)


def strip_fillers(text: str) -> str:
    """`text` without the filler words (and spaces) it starts with."""
    return _without_fillers(text, at_end=False)


def _without_fillers(text: str, *, at_end: bool) -> str:
    """`text` without the filler words (`FILLERS`, longest first) at its end or its start; a
    Latin filler only as a whole word (the is of ``issue`` is none)."""
    while True:
        text = text.rstrip(" ") if at_end else text.lstrip(" ")
        word = next((w for w in FILLERS if filler_at(text, w, at_end)), None)
        if word is None:
            return text
        text = text[:-len(word)] if at_end else text[len(word):]


def filler_at(text: str, word: str, at_end: bool) -> bool:
    """Whether filler `word` ends `text` (`at_end`) or starts it, as a word of its own."""
    if not (text.endswith(word) if at_end else text.startswith(word)):
        return False
    if word == "近" and at_end and text[-2:-1] in NOT_NEAR:
        return False  # 最近, 附近: a word of its own
    if not (word.isascii() and word.isalpha()):
        return True
    beside = text[-len(word) - 1:-len(word)] if at_end else text[len(word):len(word) + 1]
    return not (beside.isascii() and beside.isalpha())


def approximate(before: str, clause: str) -> bool:
    """Whether the words right `before` a number, or its `clause` (what follows it and its
    unit), make it an approximate value (`APPROX_BEFORE`, `APPROX_AFTER`; a Latin word as a
    whole word: the ``some`` of ``handsome`` is none; not the ~ of a span, 22~25)."""
    for _ in range(3):  # 大约是90%, 大概在90%, ``about at 90%``: fillers after the word
        before = before.rstrip(" ")
        for word in APPROX_BEFORE:
            if before.endswith(word):
                ahead = before[-len(word) - 1:-len(word)]
                if not (_alnum(ahead) if _alnum(word[:1]) else
                        ahead.isdigit() or (word == "近" and ahead in NOT_NEAR)):
                    return True
        filler = next((w for w in FILLERS if w not in APPROX_BEFORE and
                       filler_at(before, w, True)), None)
        if filler is None:
            break
        before = before[:-len(filler)]
    for word in APPROX_AFTER:
        if clause.startswith(word) and not _alnum(clause[len(word):len(word) + 1]):
            return True
    return False


def _alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()
