"""What `kb read` (and `kb table eval`) add to a section read, in Chinese and English: the
notes on stderr and the lines around the Markdown, keyed, each said in the asker's language
(`kbtools.words.error_words.asks_chinese`)."""

from __future__ import annotations

NOTES: dict[str, tuple[str, str]] = {  # key: (中文, English)
    "edited": ("本仓库工作区中的 {doc} 与所读索引（{index}）中的副本不同：这里的内容来自索引；"
               "运行 `kb build` 后才能读到所做的修改",
               "{doc} in this repository's work tree differs from the copy in the index read "
               "({index}): this answers from the index; `kb build` to read the edit"),
    "truncated": ("（已截断：请从第 {line} 行接着读）", "(truncated: read on from line {line})"),
    "subsections": ("（它的子章节，这里没有读：{names}）", "(its subsections, not read here: {names})"),
    "earlier": ("（比正在使用的版本更早的发布版本，{tag}）",
                "(an earlier release than the one served now, {tag})"),
    "unverified": ("未审核", "unverified"),
    "unverified_why": ("未审核：{reason}", "unverified: {reason}"),
}


def note(key: str, chinese: bool, **values: object) -> str:
    """Note `key` (`NOTES`) in Chinese or English, with its `values`."""
    return NOTES[key][0 if chinese else 1].format(**values)
