"""A library error in Chinese, by its `KbError.key`: the one table of the errors' Chinese
words (`ERRORS`, with the clauses an error's values add, `CLAUSES`), read by the web app's
pages and API (`kbtools.serve.error_words`, which names them as it always did) and by
`kb read` / MCP `read` when the asker writes Chinese (`said_to`)."""

from __future__ import annotations

from collections.abc import Iterable

from kbtools.errors import KbError, one_line
from kbtools.query.wording import is_cjk
from kbtools.ship.status_words import COPY_ZH

# A library error in Chinese, by its `KbError.key`: the errors a field user meets on a page
# (the index, the filters, a document or section asked for). A `{name}` is the error's
# value of that name (`KbError.values`). An error without a key here is shown in English.
ERRORS: dict[str, str] = {
    "index_missing": "这里还没有可用的知识库：需要先构建（kb build）或同步（kb sync）一个发布版本。",
    "index_incomplete": "知识库的索引不完整（缺少 {file}），需要重新构建或重新同步。",
    "index_replaced": "知识库刚刚更新（正在换成新的版本），请稍后刷新页面。",
    "release_edited": ("正在使用的发布版本 {release} 在同步后被改动过，没有通过校验，已停止使用："
                       "请用 kb rollback 换回其他版本，或用 kb sync 同步更新的版本。"),
    "index_damaged": ("正在使用的发布版本 {release} 的索引与同步时生成的不同（被改动或损坏），不再用它回答问题；"
                      "校验过的 data/ 仍然完好：请用 kb sync 从它重新生成索引。"),
    "release_untrusted": ("发布版本 {release} 不是由本设备信任的密钥签名的（签名密钥已被移除，或它没有签名），"
                          "不再用它回答问题：请用 kb trust add 重新信任该密钥，或用 kb sync 同步由受信任密钥"
                          "签名的版本。"),
    "kept_release_edited": ("设备上保留的发布版本 {release} 在同步后被改动过，没有通过校验：请不指定"
                            "版本提问（使用正在使用的版本），或用 git clone 源仓库并 git checkout "
                            "{release} 来使用它。"),
    "bad_where": "筛选条件 {where} 无效。",
    "order_listed": "筛选条件 {where} 无效：比较（{op}）只取一个界限，如 {bound}；几个值中的任一个请用 =，如 {listed}。",
    "or_dangling": "筛选条件 {where} 无效：{said_zh}。",
    "unknown_where_key": "没有“{key}”这个筛选项。",
    "no_document": "本发布版本中没有这个文档：{doc}",
    "no_document.repository": "仓库的知识目录中没有这个文档：{doc}",  # `kb read` by an author
    "no_section": "文档 {doc} 中没有“{section}”这一节。",
    # a heading path naming several sections (`kbtools.agents.read.SEVERAL`)
    "several_sections": ("“{section}”在文档 {doc} 中对应 {count} 个章节，无法确定读哪一个：{options}"
                         "（括号中为行号）。请给出更完整的标题路径，或按行号范围阅读。"),
    "several_sections_cited": ("“{section}”在文档 {doc} 中对应 {count} 个章节：{options}（括号中为行号），"
                               "都不包含引用的第 {lines} 行：引用之后文档已改动。请按行号范围阅读其中一个，"
                               "或重新搜索。"),
    # a line range refused (`kbtools.agents.read.read_section`)
    "line_past_end": "第 {line} 行超出了 {doc} 的末尾（共 {count} 行）。",
    "bad_line_range": "行号范围 {first}-{last} 无效：行号从 1 开始。",
    "line_range_long": "行号范围 {first}-{last} 超过 {limit} 行：请按章节标题阅读。",
    "section_and_lines": "请只给出标题路径或行号范围中的一个，不要同时给出。",
    "cited_and_section": ("“{doc}”是一条引用或链接，本身已指明章节或行号：请只给出文档路径，另用 heading_path "
                          "或 line_start/line_end 指明章节或行号；或者只给出这条引用或链接。"),
    # the release after a citation and the one given as an argument differ (`cited_read`)
    "release_disagrees": "引用中指明的 {what} 是 {said}，而参数“{what}”是 {given}：请只给出一个。",
    # a document MCP served before, gone from the release served now (`mcp_server.gone`)
    "doc_served_before": ("{path} 不在正在使用的发布版本（{now}）中：本服务之前使用的 {before} 中有它，"
                          "知识库更新后已不再包含它（已删除或改名）。请重新搜索正在使用的版本的内容，"
                          "不要把之前的文本当作当前内容引用"),
    # a document path refused (`kbtools.agents.read.check_doc_path`): a link typed by hand
    "doc_path_empty": "没有给出文档路径。",
    "doc_path_long": "文档路径太长（超过 {limit}）：{doc}",
    "doc_path_chars": "文档路径含有不允许的字符（反斜杠、空字符或无效的编码）：{doc}",
    "doc_path_absolute": "不能使用绝对路径 {doc}：请使用搜索结果中知识库内的相对路径。",
    "doc_path_up": "文档路径中不允许出现“..”：{doc}",
    "doc_path_cited": ("“{doc}”是一条引用或链接，不是文档路径：文档路径只写文件（{path}），"
                       "章节或行号另外给出。"),
    "doc_not_markdown": "只能阅读 Markdown 文档（.md）：{doc} 不是 Markdown 文档。",
    "doc_names_several": ("没有名称恰好是“{doc}”的文档，只有大小写或 Unicode 组合不同的几个文档：{docs}。"
                          "请按文档的准确名称给出其中一个。"),
    "doc_names_several_files": ("没有路径恰好是“{doc}”的文档，有 {count} 个文档是这个文件名：{docs}。"
                                "请连同文件夹给出其中一个。"),
    # vectors of another version of the embedding model than this machine's (a local index,
    # a release in the engine): nothing to retry, the device's model or release must change
    "model_mismatch": ("知识库的向量由另一个版本的嵌入模型（{model}）生成，与本机安装的模型不一致，"
                       "无法检索：请设备管理员安装与知识库一致的模型，或用本机的模型重新构建知识库"
                       "（kb build）后重新同步或发布（kb sync / kb publish）。"),
    # decision tables (`kbtools.decision.documents.select_table`)
    "no_decision_table": "这个文档没有决策表。",
    "table_not_chosen": "这个文档有 {count} 个决策表，请按编号或名称选择一个。",
    "no_table_number": "没有第 {n} 个决策表：这个文档只有 {count} 个。",
    "no_table_named": "没有名为“{name}”的决策表（这个文档有 {count} 个决策表）。",
    "table_heading_shared": "“{name}”是 {count} 个决策表共同的标题，请按编号选择其中一个。",
    "table_section_shared": "“{name}”所指的章节有 {count} 个决策表，请按编号选择其中一个。",
    "section_no_table": "“{name}”所指的章节没有决策表。",
    "malformed_table": "第 {line} 行的决策表格式有误，无法使用，需要修改文档。",
    # inputs a decision table cannot match (`kbtools.decision.matching.match_rules`)
    "table_no_column": "决策表没有“{column}”这一列（输入列：{inputs}）。",
    "table_output_column": "“{column}”是输出列，不是输入列（输入列：{inputs}）。",
    "table_two_values": "“{column}”这一列给了两个不同的值（{first} 和 {second}），请只给一个。",
    "table_missing_input": "缺少这些输入列的值：{columns}。",
    "table_policy": "匹配策略只能是 {policies} 之一，不能是“{policy}”。",
    # a chosen row matched only through an empty cell under a filled one
    # (`kbtools.decision.refusals.check_merged_cells`)
    "table_merged_cell": ("第 {row} 行的“{column}”单元格是空的，上方第 {above} 行写的是“{cell}”："
                          "空单元格表示任意值，不表示“同上”，所以第 {rows} 行都匹配。请在第 {row} "
                          "行重新写出这个值（任意值请写 *）。"),
    # the search engine (`kb serve --engine`: Milvus)
    "engine_unreachable": "无法连接搜索引擎（Milvus）：请确认引擎正在运行、网络可以连通，稍后再试。",
    "engine_refused": "搜索引擎（Milvus）拒绝了登录凭据，请设备管理员检查凭据和权限。",
    "engine_no_release": "搜索引擎（Milvus）中还没有发布的知识库版本：需要先发布（kb publish）。",
    "engine_alias_missing": ("搜索引擎（Milvus）中有已发布的知识库版本，但没有正在使用的版本（可能被手动删除）："
                             "需要管理员回滚（kb rollback --engine）或重新发布。"),
    "engine_release_gone": "搜索引擎（Milvus）中正在使用的版本已被删除，请稍后刷新页面；若仍不行，需要重新发布。",
    "engine_release_incomplete": "搜索引擎（Milvus）中的知识库版本不完整，需要重新发布。",
    "engine_failed": "搜索引擎（Milvus）出错，暂时无法检索，请稍后再试或联系设备管理员。",
} | COPY_ZH  # a read-only device's index served from a copy, or refused (`ship.readonly`)
MAX_ERROR_VALUE = 200  # the characters of a value an error's Chinese words show
# what an error's words add when it carries the value named (its English message adds it too)
CLAUSES = {
    # no such document, but documents of its file name in other folders (`same_name_clause`)
    "named": "；本发布版本的其他文件夹中有这个文件名的文档：{named}。若所指的是其中一个，请按那个路径阅读和引用",
    "named.repository": "；仓库的其他文件夹中有这个文件名的文档：{named}。若所指的是其中一个，请按那个路径阅读和引用",
    # a document's section found in other documents of the release read (`agents.moved`)
    "moved_in": "；其中的 {moved_in} 有“{moved_section}”这一节：可能已改名或移动，请在那里阅读，并按那个文档引用",
    # an earlier release the device keeps holds the document (`agents.asked.kept_holding`)
    "kept": "；本设备保留的较早发布版本 {kept} 中有它：请指定发布版本 {kept} 在那里阅读，或重新搜索正在使用的版本的内容",
    # the sections (or anchors) of a document a section was not found in
    "sections": "（它的章节：{sections}）",
}
PAGE_CLAUSES = ("named",)  # those a page or /api says (the rest: `kb read`, MCP `read`)


def error_zh(exc: KbError, clauses: Iterable[str] = PAGE_CLAUSES) -> str | None:
    """`exc` in Chinese (`ERRORS`), None when it has no Chinese words (or lacks a value its
    words name): the page shows its English message then. `clauses`: the `CLAUSES` its
    values may add. Words and clauses keyed ``KEY.PLACE`` say it where its ``read_from``
    value says it was looked for (``no_document.repository``: a repository's files, no
    release; a page's and the API's errors come from a release)."""
    where = exc.values.get("read_from")
    words = ERRORS.get(f"{exc.key}.{where}") or ERRORS.get(exc.key or "")
    if words is None:
        return None
    words += "".join(CLAUSES.get(f"{name}.{where}") or CLAUSES[name]
                     for name in clauses if name in exc.values)
    try:
        return one_line(words.format(**{k: one_line(v, MAX_ERROR_VALUE)
                                        for k, v in exc.values.items()}))
    except (KeyError, IndexError, ValueError):
        return None


def asks_chinese(asked: Iterable[object]) -> bool:
    """Whether what a caller typed (a path, a citation, a heading path) holds Chinese
    characters: its refusals and notes are then said in Chinese, as `kb query`'s follow its
    question's language."""
    return any(isinstance(text, str) and any(is_cjk(ch) for ch in text)
               for item in asked for text in (item if isinstance(item, (list, tuple))
                                              else [item]))


def said_to(exc: KbError, asked: Iterable[object]) -> KbError:
    """`exc` in Chinese (every clause its values carry) when `asked` holds Chinese
    (`asks_chinese`) and it has Chinese words, else `exc`: the same class, key, values and
    exit code, only its sentence changed."""
    words = error_zh(exc, CLAUSES) if asks_chinese(asked) else None
    if words is None:
        return exc
    said = type(exc).__new__(type(exc))
    said.__dict__.update(exc.__dict__)
    said.message = words
    Exception.__init__(said, said.format())
    return said
