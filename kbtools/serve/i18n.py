"""The web app's words in Chinese (the default) and English.

A page's language is ``?lang=`` when given (remembered in a cookie), else the cookie, else
the one of the two the browser prefers (its ``Accept-Language``), else English when the
browser names only other languages (a German, French or Japanese tablet: English is the
interface's language such a reader more likely reads), else Chinese (no languages named: a
kiosk, a program). Knowledge text is never translated; only the interface is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kbtools.index.tokenize import language_of
from kbtools.query.results import FILTERED_AWAY, FILTERED_OUT
from kbtools.query.search import NO_ANSWER_REASON, NO_WORDS_REASON

# the errors' words, kept in their own module, named here too as they always were
from kbtools.serve.error_words import CLAUSES as CLAUSES
from kbtools.serve.error_words import ERRORS as ERRORS
from kbtools.serve.error_words import MAX_ERROR_VALUE as MAX_ERROR_VALUE
from kbtools.serve.error_words import error_in as error_in
from kbtools.serve.error_words import error_zh as error_zh

LANGS = ("zh", "en")
DEFAULT_LANG = "zh"  # a browser naming no language at all
OTHER_BROWSERS_LANG = "en"  # a browser naming only languages of neither (de, fr, ja)
# Chinese tags without the ``zh`` prefix: its member languages as ISO 639-3 writes them
# (Mandarin, Cantonese, Wu, Min Nan, Hakka, Literary Chinese)
CHINESE_TAGS = frozenset({"cmn", "yue", "wuu", "nan", "hak", "lzh"})
LANG_COOKIE = "kb_lang"
HTML_LANG = {"zh": "zh-CN", "en": "en"}  # the `lang` attribute of each interface language
_LANG_TAG = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*")

WORDS: dict[str, tuple[str, str]] = {  # key: (中文, English)
    # the site's name and the search box's words when the knowledge names none (kb.toml
    # [serve] title and example: `knowledge_words`); no domain's words
    "app": ("知识库", "Knowledge base"),
    "search": ("搜索", "Search"),
    "skip_to_content": ("跳到正文", "Skip to content"),
    "menu": ("主菜单", "Main menu"),  # the header's <nav>, named as a screen reader lists it
    "question": ("问题", "Question"),
    # the question box: Enter searches, Shift+Enter a new line (search.js); read to a screen
    # reader, not shown
    "question_keys": ("按 Enter 搜索，按 Shift+Enter 换行；可以粘贴多行日志。",
                      "Enter searches, Shift+Enter starts a new line; a multi-line log may be "
                      "pasted."),
    "paste_cut": ("粘贴的内容有 {chars} 个字符，只搜索了前 {max} 个（框中是被搜索的部分）。",
                  "The paste had {chars} characters: only the first {max} were searched (the "
                  "box holds them)."),
    "held_gone": ("这个问题已不在服务器上（长问题只保留一小时，服务器重启后也会清空），请重新输入或粘贴。",
                  "This question is no longer held by the server (a long question is kept for "
                  "an hour, and not across a restart): please paste or type it again."),
    # a search on its way, and one that did not arrive (search.js): the question stays
    "sending": ("正在搜索…", "Searching…"),
    "send_failed": ("没有连上服务器（网络断了？），没有进行搜索。问题还在框里，网络恢复后再搜索一次。",
                    "The server could not be reached (is the network down?), so nothing was "
                    "searched. Your question is still in the box: search again when the "
                    "network is back."),
    "send_slow": ("服务器 {seconds} 秒内没有回答（网络太慢或服务器太忙）。问题还在框里，可以再搜索一次。",
                  "The server did not answer within {seconds} seconds (a slow network or a "
                  "busy server). Your question is still in the box: search again."),
    "send_waiting": ("服务器还没有回答（网络慢或信号不好？）。可以继续等，也可以重新发送。",
                     "No answer yet (a slow network or a weak signal?). Keep waiting, or send "
                     "the question again."),
    "send_interrupted": ("页面在搜索得到回答之前重新加载了。问题还在框里，可以重新发送。",
                         "The page was reloaded before the search was answered. Your question "
                         "is still in the box: send it again."),
    "send_again": ("重新发送", "Send again"),
    "search_placeholder": ("输入问题", "Ask a question"),
    "search_placeholder_example": ("输入问题，例如：{example}", "Ask a question, e.g. {example}"),
    "verified_only": ("只看已审核", "Verified only"),
    # a filter of the address the knowledge cannot apply (``?f.fruit=…``): refused, not
    # dropped (a search without it would answer a wider question than was asked)
    "filter_unknown": ("知识库没有“{name}”这个筛选项{hint}，没有进行搜索。可用的筛选项：{keys}。",
                       "This knowledge has no filter “{name}”{hint}, so nothing was searched. "
                       "Its filters: {keys}."),
    # the filter an unknown key's may mean (`power>=6kW` on knowledge writing 功率), and why
    "meant_like": ("（是不是要找 {filter}？它的值形如 {value}）",
                   " (did you mean {filter}? its values are like {value})"),
    "meant_holds": ("（是不是要找 {filter}？它有 {value} 这个值）",
                    " (did you mean {filter}? it holds {value})"),
    # a number of results the page cannot show (``?k=abc``, ``k=0``, ``k=10000``)
    "k_changed": ("结果条数（k）必须是 1 到 {max} 之间的整数，不能是“{asked}”：这里最多显示 {k} 条。",
                  "The number of results (k) must be a whole number from 1 to {max}, not "
                  "“{asked}”: showing at most {k}."),
    "filter_refused": ("筛选条件无法使用，没有进行搜索：{error}",
                       "A filter cannot be used, so nothing was searched: {error}"),
    # a filter value no document holds (``?f.crop=banana``): applied, so nothing is found
    "filter_unheld": ("没有文档符合 {filters}，所以没有结果。选“全部”可以不按它筛选。",
                      "No document has {filters}, so nothing is found. Choose “Any” to "
                      "search without it."),
    # values of a filter no document holds while its others are (``crop=小麦,玉木``): applied
    "filter_value_unheld": ("没有文档符合 {filters}，已按其余的值筛选。",
                            "No document has {filters}; the other values are applied."),
    # document values a percentage filter leaves out (湿度: 0.9 beside 湿度>=80%)
    "fractions_left_out": ("{values} 没有参与百分比筛选：不大于 1 的数可能是小数（0.9 即 90%），"
                           "也可能就是百分数，请写上 %。",
                           "{values} left out of the percentage filter: a number of at most 1 "
                           "may be a fraction (0.9 for 90%) or that many percent; write its %."),
    # document values of 度 alone read as ℃, their field holding a temperature (角度: 30度)
    "degrees_as_celsius": ("{values} 按摄氏度比较：此字段中有温度值，单写“度”即按 ℃ 读取；温度请写 ℃，"
                           "角度请放在单独的字段中。",
                           "{values} read as degrees Celsius: its field holds temperatures, so "
                           "度 alone is ℃ there; write ℃ for a temperature, and keep angles in a "
                           "field of their own."),
    # filters a value no document holds may mean (``crop=玉米`` for crop=玉木)
    "meant": ("（是不是要找 {filters}？）", " (did you mean {filters}?)"),
    # filters that leave nothing only together (``?f.crop=小麦&f.disease=稻瘟病``)
    "filter_none_together": ("没有文档同时符合 {filters}，所以没有结果。把其中一项选为“全部”可以放宽筛选。",
                             "No document has {filters} together, so nothing is found. "
                             "Choose “Any” for one of them to search wider."),
    "any": ("全部", "Any"),
    # an address naming no document (`nearest`): the documents it most likely meant
    "doc_suggested": ("您要找的可能是：", "Perhaps you meant:"),
    "doc_renamed": ("已改名或移动到这里", "renamed or moved here"),
    "doc_look_for": ("这个文档（“{title}”）在之前的发布版本中，当前版本中已没有。在当前版本中搜索“{title}”",
                     "This document (“{title}”) was in an earlier release and is not in this "
                     "one. Search this release for “{title}”"),
    # the search page's conditions (`whereform`): a key, an operator, a value typed
    "conditions": ("更多条件", "More conditions"),
    "conditions_help": ("可以比较大小、日期和版本号，例如 timestamp ≥ 2026-01-01、firmware ≥ 2.1。"
                        "不选字段时，在值里写整个条件，例如 timestamp>=2026-01-01。",
                        "Compare numbers, dates and versions, e.g. timestamp ≥ 2026-01-01, "
                        "firmware ≥ 2.1. With no field chosen, type a whole condition as the "
                        "value, e.g. timestamp>=2026-01-01."),
    "condition_n": ("条件 {n}", "Condition {n}"),
    "condition_key": ("字段", "Field"),
    "condition_op": ("比较", "Comparison"),
    "condition_value": ("值", "Value"),
    "condition_typed": ("（不选字段）", "(no field)"),
    "op_eq": ("等于", "is"),
    "op_ne": ("不等于", "is not"),
    "op_ge": ("不小于", "at least"),
    "op_le": ("不大于", "at most"),
    "op_gt": ("大于", "more than"),
    "op_lt": ("小于", "less than"),
    "filters": ("筛选", "Filters"),
    "results": ("条结果", "results"),
    "results_one": ("条结果", "result"),  # "1 results" in English
    "no_answer": ("没有找到足够相关的内容", "Nothing relevant enough was found"),
    # what a page without an answer suggests: other words, and the same question unfiltered
    "no_answer_tips": ("可以换个说法或少用几个词再搜；故障代码、型号、名称这类关键词最容易找到。",
                       "Try other words, or fewer of them: a fault code, a model or a name "
                       "is the easiest to find."),
    # a release of no document (the knowledge base's last one deleted): no other words help
    "empty_release": ("这个发布版本没有任何文档，搜索不到内容。请知识库的作者提交文档、发布新版本后再来搜索。",
                      "This release holds no document, so no search finds anything. Ask the "
                      "knowledge base's authors to commit documents and publish a release, "
                      "then search again."),
    "search_unfiltered": ("不加筛选再搜一次", "Search again without the filters"),
    # the codes and names of a question no document holds (`SearchResponse.not_in_knowledge`)
    "not_in_knowledge": ("知识库中没有：{names}", "Not in the knowledge: {names}"),
    "names_more": ("，另有 {count} 个", " and {count} more"),
    "not_in_knowledge_answered": ("知识库中没有：{names}。以下结果回答的是问题的其余部分",
                                  "Not in the knowledge: {names}. The results answer the "
                                  "rest of the question"),
    "line": ("第 {n} 行", "line {n}"),  # one line: "line 7", not "lines 7–7"
    "lines": ("第 {a}–{b} 行", "lines {a}–{b}"),
    "source_line": ("源文件第 {n} 行", "line {n}"),  # a table row's line (beside "第 3 行")
    "verified": ("已审核", "Verified"),
    "unverified": ("未审核", "Unverified"),
    "changed_after_review": ("审核后有改动", "Changed after review"),
    "outdated": ("可能已过期", "Possibly outdated"),
    "superseded_by": ("已被替代：", "Superseded by"),
    "release": ("发布版本", "Release"),
    # a page kept by the browser while a sync switched the release (base.html, search.js)
    "release_switched": ("这一页来自之前的发布版本，设备现在使用 {tag}，内容可能已经更新。",
                         "This page is from an earlier release: {tag} is served now, and what "
                         "the page says may have changed."),
    "offline_copy": ("离线：连不上服务器。这是本设备保存的副本，来自发布 {tag}，更新的发布不在其中。",
                     "Offline: the server cannot be reached. This is the copy this device "
                     "kept, from release {tag}; no newer release is in it."),
    "offline_saved": ("保存于 {time}。", "Saved {time}."),
    "reload_page": ("重新加载", "Load it again"),
    "source_commit": ("源提交", "Source commit"),
    "uncommitted": ("含未提交的修改", "with uncommitted changes"),
    "local_build": ("本地构建", "local build"),
    "open_doc": ("打开文档", "Open document"),
    "file_not_on_device": ("此文件不随发布版本提供，本设备上没有",
                           "not in this release: this device does not have the file"),
    "media_no_file": ("此处的视频或音频没有写明要播放的文件",
                      "a video or sound here names no file to play"),
    "decision_table": ("决策表", "Decision table"),
    "doc_tables": ("本文档的决策表", "This document's decision tables"),  # the table page's <nav>
    "formula": ("公式：", "Formula: "),  # a formula picture's text begins with it
    "decide": ("判定", "Decide"),
    "document": ("文档", "Document"),
    "front_matter": ("文档信息", "Document details"),
    "review_status": ("审核状态", "Review status"),
    "verified_by": ("审核人", "Verified by"),
    "verified_at": ("审核时间", "Verified at"),
    "not_reviewed": ("尚未审核", "Not reviewed"),
    "cited_lines": ("引用位置：第 {a}–{b} 行", "Cited lines {a}–{b}"),
    "cited_line": ("引用位置：第 {n} 行", "Cited line {n}"),
    "lines_not_here": ("链接中的行号“{lines}”不在本文档中（链接可能来自旧版本），下面显示全文。",
                       "The link's lines \u201c{lines}\u201d are not in this document (the link may "
                       "be from an older version); the whole document is shown."),
    "lines_past_end": ("链接中的行号“{lines}”超出了本文档的末尾（第 {last} 行），只标出到末尾的部分"
                       "（链接可能来自旧版本）。",
                       "The link's lines \u201c{lines}\u201d run past this document's end (line "
                       "{last}): only those up to it are marked (the link may be from an older "
                       "version)."),
    # a result's link (lines and the chunk they held) followed after a sync changed the
    # document: its passage found elsewhere, or no longer there
    "lines_moved": ("链接中的第 {lines} 行引用的内容现在在第 {a}–{b} 行（文档在链接生成后更新过），已标出。",
                    "What the link's lines {lines} cited is now at lines {a}–{b} (the document "
                    "changed since the link was made); marked below."),
    "lines_changed": ("链接中的第 {lines} 行引用的内容在当前发布版本中已修改或删除，这几行现在的内容可能不同。",
                      "What the link's lines {lines} cited was changed or removed in the release "
                      "served now: these lines may hold other text."),
    "tables": ("决策表", "Decision tables"),
    "inputs": ("输入", "Inputs"),
    "result": ("判定结果", "Result"),
    "matching_row": ("匹配行", "Matching row"),
    "row": ("第 {n} 行", "row {n}"),
    "rows_omitted": ("⋯ 此处省略 {n} 行，全表见文档 ⋯", "⋯ {n} rows not shown: the document has the whole table ⋯"),
    "no_rule": ("没有匹配的规则，需要人工复核", "No rule matches, needs human review"),
    "missing_inputs": ("还需要输入", "Missing inputs"),
    # a form's link made before a sync changed the table's columns (`results.columns_key`)
    "table_changed": ("这个决策表的列在链接生成后改变了（知识库已更新），链接中的输入值没有使用，请重新输入。",
                      "This decision table's columns changed since the link was made (the "
                      "knowledge was updated): the link's values were not used; enter them again."),
    "spans_rows": ("{column} 给的范围跨了多条规则（第 {rows} 行各管其中一部分），请给一个确定的值",
                   "The range given for {column} spans more than one rule (rows {rows} each "
                   "apply to part of it): give one value"),
    "two_values": ("问题给了两个值：{values}，无法确定用哪一个",
                   "the question gives two values: {values}; which one applies is not known"),
    "evaluated": ("按问题中的数值判定", "Evaluated on the question's values"),
    "approximate": ("近似值：{values}，接近规则边界时结果可能不同",
                    "approximate value: {values}; near a rule's bound the answer may differ"),
    "readings": ("数值读法：{values}", "values read: {values}"),
    "unused": ("未使用：{values}，此表没有对应的输入", "not used: {values} (the table has no such input)"),
    "near_bound": ("结果取决于确切数值：{values} 接近所匹配规则的边界",
                   "the answer depends on the exact value: {values} near the matched rule's bound"),
    "why": ("判定依据", "Why"),
    "column": ("列", "Column"),
    "condition": ("条件", "Condition"),
    "value": ("输入值", "Value"),
    "matched": ("符合", "Matched"),
    "releases": ("发布", "Releases"),
    "served": ("正在使用", "Serving"),
    "what_changed": ("与上一版本相比的变化", "What changed since the previous release"),
    "kept_releases": ("设备上保留的版本", "Releases kept on this device"),
    "engine_releases": ("搜索引擎中发布的版本", "Releases published in the engine"),
    "published": ("上线时间", "Published"),
    "tag": ("版本", "Tag"),
    "created": ("发布时间", "Released"),
    "age_days": ("距今天数", "Age (days)"),
    "clock_behind": ("本设备的时钟早于此版本的发布时间：时钟设置对了吗？（版本照常提供）",
                     "This device's clock reads before this release was made: is the clock set? "
                     "(the release is served all the same)"),
    "signed_by": ("签名者", "Signed by"),
    # a kept release no key pinned on the device vouches for (`local_releases` "untrusted"),
    # as `kb releases` notes it: served, it answers nothing; kept, `kb rollback` refuses it
    "served_untrusted": ("正在使用，但不用它回答任何问题：本设备信任的密钥都没有为它签名（见 kb status）",
                         "served, but no question is answered from it: no pinned key vouches "
                         "for it (`kb status`)"),
    "kept_untrusted": ("本设备信任的密钥都没有为它签名（kb rollback 不会换到它）",
                       "no pinned key vouches for it (`kb rollback` refuses it)"),
    "current": ("当前", "current"),
    # the served release a `kb rollback` switched to (`ops.releases` "rollback"), as
    # `kb status` says it; a release rolled back from, as `kb releases` marks it
    "rollback_served": ("这是一次回滚：此前使用的是 {old}，{user} 于 {at} 用 kb rollback 换回了本版本。"
                        "kb sync 会跳过 {old}，不会自动换回去。",
                        "This release is a rollback: {old} was served before, until {user} ran "
                        "`kb rollback` at {at}. `kb sync` skips {old} and will not switch back "
                        "to it on its own."),
    "rollback_undone": ("此前使用的是 {old}，{user} 于 {at} 用 kb rollback 换到了本版本（撤销了之前的回滚）。",
                        "{old} was served before, until {user} ran `kb rollback` at {at} to "
                        "serve this release again (a rollback undone)."),
    # the device's last sync beside the served release (`sync_record.last_sync`), its statement
    # of what serves since rendered by `sync_record.statement_text` in the page's language
    "last_sync_failed": ("上次同步（{at}）失败：", "The last sync ({at}) failed:"),
    "last_sync_since": ("此后：", "Since then: "),
    "rolled_back_from": ("已从它回滚：kb sync 跳过它", "rolled back from: `kb sync` skips it"),
    "not_device": ("这不是设备目录，只提供当前索引。", "Not a device directory: only this index is served."),
    "documents": ("文档数", "Documents"),
    "chunks": ("段落数", "Passages"),
    "error": ("出错了", "Something went wrong"),
    "back": ("返回搜索", "Back to search"),
    "error_detail": ("详细信息：", "Details:"),
    "error_original": ("英文原文：", "Original:"),  # a library message said in Chinese above
    # an error page's sentence by HTTP status (`error_word`); the library's message follows
    "error_400": ("请求中的内容有误，请检查后重试。", "Something in the request is not valid."),
    "error_401": ("需要有效的令牌才能打开这个页面。", "A valid token is needed to open this page."),
    "error_403": ("请求被拒绝。", "The request was refused."),
    "error_404": ("找不到要打开的文档或内容，它可能不在当前发布版本中。",
                  "Not found: it may not be in the release being served."),
    "error_413": ("提交的内容太长。", "What was sent is too long."),
    "error_408": ("提交的内容没有及时传完，请重试。", "What was sent did not arrive in time; try again."),
    "error_414": ("网址太长，服务器无法处理。长问题请用搜索框提交。",
                  "The address is too long for the server: ask a long question in the search "
                  "box."),
    "error_415": ("提交的格式不对，请用页面上的表单。", "Not sent as a form: use the page's form."),
    "error_500": ("服务器内部出错，已记录在日志中。", "An internal error; it is in the server's log."),
    "error_503": ("暂时没有可用的知识库版本，请稍后再试。",
                  "No release can be served right now; try again later."),
    "language": ("English", "中文"),
    "malformed_table": ("表格格式有误", "Malformed table"),
    "no_tables": ("这个文档没有决策表", "This document has no decision table"),
    "yes": ("是", "yes"),
    "no": ("否", "no"),
}


# Why a search has no answer (`SearchResponse.reason`, in English from the library): the
# Chinese words for each reason `kbtools.query.search` gives; English shows the reason as is.
REASONS: dict[str, str] = {
    NO_ANSWER_REASON: "没有段落达到相关度阈值",
    NO_WORDS_REASON: "问题中没有可检索的词",
    "the index is empty": "索引是空的",
    FILTERED_OUT: "没有符合筛选条件的段落",
    FILTERED_AWAY: "筛选后的文档中没有足够相关的段落（不加筛选时知识库有答案）",
    "nothing matched": "没有匹配的内容",
}


def pick_lang(query_lang: str | None, cookie_lang: str | None,
              accept_language: str | None = None) -> str:
    """The page's language: `query_lang`, else `cookie_lang`, else the browser's
    (`browser_lang`), else `OTHER_BROWSERS_LANG` when the browser names other languages
    only, else `DEFAULT_LANG`."""
    header = accept_language or ""
    for lang in (query_lang, cookie_lang, browser_lang(header)):
        if lang in LANGS:
            return lang
    return OTHER_BROWSERS_LANG if _languages_named(header) else DEFAULT_LANG


def _accepted(header: str) -> list[tuple[str, float]]:
    """An ``Accept-Language`` header's (primary language, q) pairs, in order: the language
    of a tag or of a locale as some embedded browsers and WebViews send it (en_US), a
    Chinese language's tag (`CHINESE_TAGS`: yue-HK) as ``zh``; an unreadable q is 0."""
    accepted: list[tuple[str, float]] = []
    for part in header[:1000].split(","):
        tag, _, params = part.strip().partition(";")
        lang = tag.strip().replace("_", "-").split("-")[0].casefold()
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().casefold() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        accepted.append(("zh" if lang in CHINESE_TAGS else lang, q))
    return accepted


def _languages_named(header: str) -> bool:
    """Whether an ``Accept-Language`` header names a language it accepts (not ``*``)."""
    return any(lang and lang != "*" and q > 0 for lang, q in _accepted(header))


def browser_lang(header: str) -> str | None:
    """The one of `LANGS` an ``Accept-Language`` header prefers (``en-US,en;q=0.9`` → en,
    ``zh-CN,zh;q=0.9,en;q=0.8`` → zh): the highest q, the first listed of equals; None when
    it names neither (or refuses both with q=0)."""
    best: tuple[float, str] | None = None
    for lang, q in _accepted(header):
        if lang in LANGS and q > 0 and (best is None or q > best[0]):
            best = (q, lang)
    return best[1] if best else None


def translator(lang: str, own: Mapping[str, str] | None = None) -> Callable[..., str]:
    """``t(key, **fields)``: the word in `lang` (the key itself when unknown); `own`: the
    knowledge's own words for some keys, used as they are (`knowledge_words`)."""
    index = LANGS.index(lang) if lang in LANGS else 0
    own = own or {}

    def t(key: str, **fields: object) -> str:
        if key in own:
            return own[key]
        pair = WORDS.get(key)
        text = pair[index] if pair else key
        return text.format(**fields) if fields else text

    return t


def knowledge_words(serve: Mapping[str, Any], lang: str) -> dict[str, str]:
    """The interface's words a knowledge base sets for itself in `lang` (kb.toml ``[serve]``,
    shipped in its release's manifest as ``config.serve``): its name (``title``) and an
    example question for the search box (``example``), each one text for both languages or
    a table of them (``{zh = …, en = …}``), a language left out taking the other's. Unset:
    {} (the neutral `WORDS`)."""
    def said(key: str) -> str | None:
        value = serve.get(key)
        if isinstance(value, Mapping):
            value = value.get(lang) or value.get(other_lang(lang))
        return value if isinstance(value, str) and value.strip() else None

    own: dict[str, str] = {}
    if (title := said("title")) is not None:
        own["app"] = title
    if (example := said("example")) is not None:
        own["search_placeholder"] = translator(lang)("search_placeholder_example",
                                                     example=example)
    return own


def meant_text(lang: str, meant: Sequence[str]) -> str:
    """What a filter value no document holds may mean (`filters.meant_values`), in `lang`;
    empty when nothing resembles it."""
    joined = ("或".join if lang == "zh" else " or ".join)(meant)
    return translator(lang)("meant", filters=joined) if meant else ""


def unknown_key_text(lang: str, values: Mapping[str, str]) -> str:
    """What a filter on an unknown key may mean, in `lang`, from its error's values
    (`filter_checks.unknown_hint` says it in English): the key it is a typo of, or the
    filter on the key whose values fit with one of them; empty when nothing is meant."""
    meant = values.get("meant", "")
    for word in ("like", "holds"):
        if meant and values.get(word):
            return translator(lang)(f"meant_{word}", filter=meant, value=values[word])
    return meant_text(lang, [meant] if meant else [])


def reason_translator(lang: str) -> Callable[[str], str]:
    """A library reason in `lang`: the Chinese words for a known one, else the reason as is."""
    def say(reason: str) -> str:
        return REASONS.get(reason, reason) if lang == "zh" else reason
    return say


def no_answer_line(lang: str) -> Callable[[str | None], str]:
    """What a page without an answer says in `lang`: that nothing relevant enough was found,
    and why when the reason says more than that (the relevance threshold is what the words
    already say: "… found (no passage is relevant enough …)" said it twice)."""
    say = reason_translator(lang)

    def line(reason: str | None) -> str:
        words = translator(lang)("no_answer")
        return words if reason in (None, "", NO_ANSWER_REASON) else f"{words} ({say(reason)})"
    return line


def not_in_knowledge_line(lang: str) -> Callable[[Sequence[str], int, bool], str]:
    """What a results page says of the codes and names of a question that no document
    holds (`names`, then `more` it does not name: `SearchResponse.names_shown`), in `lang`:
    after its results (`answered`), that they answer the rest of the question."""
    t = translator(lang)

    def line(names: Sequence[str], more: int, answered: bool) -> str:
        joined = ("、" if lang == "zh" else ", ").join(names)
        if more:
            joined += t("names_more", count=more)
        return t("not_in_knowledge_answered" if answered else "not_in_knowledge", names=joined)
    return line


def error_word(status: int) -> str:
    """The key of what an error page of HTTP `status` says (a status without words of its
    own: its class, 4xx or 5xx)."""
    key = f"error_{status}"
    return key if key in WORDS else ("error_500" if status >= 500 else "error_400")


def other_lang(lang: str) -> str:
    return "en" if lang == "zh" else "zh"


def words(lang: str) -> Mapping[str, str]:
    index = LANGS.index(lang) if lang in LANGS else 0
    return {k: v[index] for k, v in WORDS.items()}


def content_lang(declared: object, text: str) -> str:
    """The `lang` attribute of knowledge text on a page: the document's front-matter `lang`
    when it is a language tag, else the language the text is written in. Knowledge is not
    translated, so a Chinese document shown in the English interface is still Chinese: a
    screen reader reads it with a Chinese voice, not as English letters."""
    if isinstance(declared, str) and _LANG_TAG.fullmatch(declared.strip()):
        tag = declared.strip()
        return HTML_LANG.get(tag.lower(), tag)
    return HTML_LANG[language_of(text)]


def content_word(key: str, lang_tag: str) -> str:
    """A word said inside knowledge text (a formula picture's "公式"/"Formula"), in the
    text's language (`content_lang`'s tag), not the interface's: it is read with the text's
    voice."""
    return translator("zh" if lang_tag.lower().startswith("zh") else "en")(key)


def changes_with_langs(changes: Mapping[str, Any], declared: Mapping[str, object]) -> dict[str, Any]:
    """`kb diff --json`'s changes with the `lang` of each document's title and each
    section's headings (`content_lang`: the document's front-matter `lang` in `declared`, by
    document, else the language the text is written in), so the release page's "what
    changed" reads a Chinese title with a Chinese voice in the English interface."""
    def tagged(entries: list[dict[str, Any]], text: Callable[[dict[str, Any]], str]
               ) -> list[dict[str, Any]]:
        return [{**e, "lang": content_lang(declared.get(e["doc"]), text(e))} for e in entries]

    def title(e: dict[str, Any]) -> str:
        return str(e.get("title") or "")

    def headings(e: dict[str, Any]) -> str:
        return " ".join(e.get("heading_path") or [])

    docs, ver = changes["documents"], changes["verification"]
    return {**changes,
            "documents": {k: tagged(docs[k], title) for k in ("added", "removed", "changed")},
            "verification": {k: tagged(ver[k], headings) for k in ("gained", "lost")}}


def changes_summary(changes: Mapping[str, Any], lang: str) -> str:
    """`ReleaseDiff.summary()` (in `changes["summary"]`, English) in `lang`: the same counts
    in Chinese words on a Chinese page."""
    if lang != "zh":
        return str(changes.get("summary") or "")
    docs, ver = changes["documents"], changes["verification"]
    sections = sum(len(d.get(k) or []) for d in docs["changed"]
                   for k in ("sections_added", "sections_removed", "sections_changed"))
    parts = [f"{word} {len(docs[key])} 篇" for key, word in
             (("added", "新增"), ("removed", "删除"), ("changed", "修改")) if docs[key]]
    if docs["changed"] and sections:
        parts[-1] += f"（{sections} 个章节）"
    said = ["文档：" + "，".join(parts)] if parts else []
    review = [f"{len(ver[key])} 个章节{word}" for key, word in
              (("gained", "通过审核"), ("lost", "失去审核")) if ver[key]]
    if review:
        said.append("审核：" + "，".join(review))
    if changes.get("files"):
        said.append(f"文件：{len(changes['files'])} 个有变化")
    return "；".join(said) or "没有变化"
