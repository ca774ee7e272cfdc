"""A library error in the words a page says it in: Chinese by its `KbError.key`, else its
English message (split from `kbtools.serve.i18n`, which re-exports these)."""

from __future__ import annotations

from kbtools.errors import PAGE_FILTERS, KbError, one_line, surface_message
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
    "no_section": "文档 {doc} 中没有“{section}”这一节。",
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
}


def error_zh(exc: KbError) -> str | None:
    """`exc` in Chinese (`ERRORS`), None when it has no Chinese words (or lacks a value its
    words name): the page shows its English message then."""
    words = ERRORS.get(exc.key or "")
    if words is None:
        return None
    words += "".join(clause for name, clause in CLAUSES.items() if name in exc.values)
    try:
        return one_line(words.format(**{k: one_line(v, MAX_ERROR_VALUE)
                                        for k, v in exc.values.items()}))
    except (KeyError, IndexError, ValueError):
        return None


def error_in(exc: KbError, lang: str) -> str:
    """What a page in `lang` says of `exc` in a line of its own (not an error page, which shows
    the English below): its Chinese words (`error_zh`) on a Chinese page, else its message
    (a filter's naming the page's filters, `PAGE_FILTERS`, not ``--where``)."""
    return (error_zh(exc) if lang == "zh" else None) or one_line(surface_message(exc,
                                                                            PAGE_FILTERS))
