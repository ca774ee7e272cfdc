"""What `kb status` says in the terminal, in English or in Chinese, and which of the two.

A technician on a Chinese device read its state in English only, while `kb serve`'s pages
speak the reader's language (the browser's, Chinese when it names none). The terminal's
reader names a language by the locale: `LANGUAGE` (its first entry), `LC_ALL`,
`LC_MESSAGES`, `LANG`, the first one set, as gettext reads them (`zh_CN.UTF-8`, `zh_TW`,
`zh_HK` are Chinese; `en_US.UTF-8`, `de_DE` English). A locale that names no language (unset,
``C``, ``POSIX``, ``C.UTF-8``: a kiosk, a service, a container, a script reading the
output) keeps English, as `kb status` always spoke there: what a program or a log reads
does not change with the knowledge it serves. `--json` stays English (keys and values are a program's). The
reasons on stderr (`kb: warning:`, `kb: error:`) are the library's one-line messages, in
English, as every command's are; a failed sync's is said in Chinese (`serves.FailedSync`),
and so are a pinned key's reason and a pinned key that cannot be read, which keep their key
(`Keyed`). A key pinned before session 45 logged its reason without one: it stays English.
`kb releases` says a source's ignored tags (`WARNINGS_ZH`) in the reader's language too.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping

from kbtools.errors import Keyed as Keyed  # made where a problem is found, said here

LOCALE_VARS = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")  # gettext's order
NO_LANGUAGE = {"c", "posix"}  # locales that name no language (C.UTF-8 too)
CHINESE = {"zh", "yue", "cmn", "wuu", "hak", "nan", "gan", "hsn", "cdo", "cjy", "cpx", "czh"}

Say = Callable[..., str]

INDEX_PROBLEM = "problem_index"  # the key of each problem of the derived index/ (and its prefix)

# what is wrong with the served release's own files (`install.release_file_problems`)
PROBLEMS_ZH = {
    "problem_missing": "{file}：同步校验之后缺失或无法读取",
    "problem_changed": "{file}：同步校验之后被改动过（`kb sync` 会恢复它）",
    "problem_manifest_hash": "manifest.json：与 release.json 记录的哈希不符",
    # a file the manifest lists, against it (`kbtools.index.manifest.file_problem`)
    "file_missing": "{file}：缺失",
    "file_link": "{file}：是符号链接（已拒绝）",
    "file_unreadable": "{file}：无法读取（{reason}）",
    "file_not_regular": "{file}：不是普通文件",
    "file_size": "{file}：大小为 {size} 字节，清单记录为 {want} 字节",
    "file_size_changed": "{file}：读取期间大小发生了变化",
    "file_sha256": "{file}：sha256 与清单记录的不符（文件被改动过）",
    # the derived index against its own check (`operate.release_problems`; the English
    # reason in --json)
    "problem_index": "{file}：索引没有通过自检，查询可能失败（`kb sync` 会从 data/ 重新生成它）",
    # ... on a device kb cannot write, answered from a copy under KB_HOME (`operate.status`)
    "problem_index_copy": "{file}：索引没有通过自检；设备不可写入，查询改由在 {copy} 生成的副本回答"
                          "（在设备可写入的地方运行 `kb sync` 会就地重新生成索引）",
    "problem_index_next_copy": "{file}：索引没有通过自检；设备不可写入，下一次查询会在 {base} 下"
                               "生成副本来回答（在设备可写入的地方运行 `kb sync` 会就地重新生成"
                               "索引）",
    # this device's clock before the release's creation (`release.clock_behind`)
    "clock_behind": "本设备时钟显示 {reading}，早于发布版本的创建时间（{created}）：时钟是否设置正确？"
                    "（发布版本照常提供）",
    # the served release vouched for by no key pinned now (`trust.untrusted_release`)
    "trust_unsigned": "正在提供的发布版本 {release} 没有签名（{why}现固定：{pinned}）：不会用它回答"
                      "任何问题；`kb trust add PUB` 可重新信任它的密钥，`kb sync` 可获取由已固定密钥"
                      "签名的发布版本",
    "trust_unpinned": "正在提供的发布版本 {release} 由本设备未固定的密钥 {signer} 签名（{why}现固定："
                      "{pinned}）：不会用它回答任何问题；`kb trust add PUB` 可重新信任它的密钥，"
                      "`kb sync` 可获取由已固定密钥签名的发布版本",
}

# a sync's warnings, as state.json keeps them (`devicestate.warnings_record`)
WARNINGS_ZH = {
    "warn_stale": "按本设备时钟（{today}），发布版本 {release} 已发布 {days} 天（超过 "
                  "release.max_age_days = {max}）：来源是否仍在更新，时钟是否正确？",
    "warn_clock_behind": "发布版本 {release}：本设备时钟显示 {reading}，早于发布版本的创建时间"
                         "（{created}）：时钟是否设置正确？（发布版本照常提供）",
    "warn_key_unpinned": "密钥 {key}（{source}）没有在本设备固定，未被使用（已固定：{pinned}；"
                         "`kb trust add` 可固定密钥）",
    "warn_refused": "{refused} 被拒绝：{why}；改用 {release}，即用受信任密钥校验通过的最新发布版本",
    "warn_prune": "删除旧发布版本时在 {what} 失败：{reason}；{release} 照常提供，下一次同步会再删除",
    "warn_repack": "重新打包 {repo} 失败：{reason}；发布版本照常提供，下一次同步会再试",
    "warn_copies": "删除 KB_HOME 下的索引副本失败：{reason}",
    "warn_rollback_unlogged": "从 {from_} 到 {to} 的回滚没有写入 {log}：{reason}",
    "warn_redirect": "来源重定向到 {new}（来源已迁移，{source} 转发到新地址）：`{command}` "
                     "直接从新地址同步，请在旧地址停止转发之前改用",
    "warn_moved": "{release} 在来源处被移动（其标签现在指向 {now}，不是本设备获取的 {had}；"
                  "发布版本的标签从不改变）：本设备保留它校验过的 {release}",
    "warn_moved_serving": "{release} 在来源处被移动（其标签现在指向 {now}，不是本设备获取的 "
                          "{had}；发布版本的标签从不改变）：本设备继续提供它校验过的 {release}",
    "warn_ignored_tag": "{source}：已忽略 {ref}：{name} 不是发布版本标签（kb-r<序号>：序号由数字 "
                        "0-9 组成，从 1 开始，不带前导零）",
    "warn_ignored_tag_meant": "{source}：已忽略 {ref}：{name} 不是发布版本标签（kb-r<序号>：序号由"
                              "数字 0-9 组成，从 1 开始，不带前导零；{meant} 才是）",
    "warn_ignored_more": "{source}：另有 {n} 个按发布版本标签命名的引用已忽略（不是发布版本标签）",
    "warn_discarded": "{dir} 已在设备上（一次同步在切换之前中断），但没有通过检查（{why}）；已从来源"
                      "重新安装",
}

# why a release was refused or discarded, said inside a warning (its ``why``: `said_in`), by
# the key of the error (`KbError.key`) or problem (`PROBLEMS_ZH`) it was
WHY_ZH = {
    "sync_unsigned": "发布版本没有签名，而本设备要求由受信任的密钥签名（`kb trust list`）",
    "sync_untrusted": "发布版本由本设备未固定的密钥 {signer} 签名",
    "sync_unpinned_signer": "发布版本由本设备固定过又已移除的密钥 {signer} 签名（要重新信任它：`kb "
                            "trust add PUB`）",
    "sync_bad_signature": "密钥 {signer} 的签名无效：release.json 在签名后被改动过",
    "sync_signature_malformed": "签名文件 release.sig 格式错误",
    "sync_history_missing": "发布版本不是由受信任的密钥签名的，而来源中缺少它之前的发布版本，无法确认"
                            "密钥轮换",
    "sync_next_keys_invalid": "release.json 中的密钥轮换（next_keys）无效或缺少新密钥的签名",
    "sync_manifest_missing": "缺少 manifest.json",
    "sync_manifest_mismatch": "manifest.json 与 release.json 或标签记录的哈希不符（文件被改动过）",
    "sync_artifacts_mismatch": "文件与 manifest.json 列出的不符（{count} 处问题）",
    "sync_release_format": "格式不是本设备的 kbtools 能读取的（请升级本设备的 kbtools）",
    "release_not_dir": "不是发布版本目录",
    "index_missing": "没有 manifest.json：不是 kb 索引",
} | PROBLEMS_ZH

# a read-only device's release served from a copy under KB_HOME (`readonly.served_copy`):
# the warning, and the refusal when no copy can be made (a page's words too:
# `kbtools.serve.i18n.ERRORS`); ``why`` is what its index/ fails, in English
COPY_ZH = {
    "copy_stale": "{device}：设备不可写入，其中 {release} 的索引不是本 kbtools 生成的（{why}）：改用在 "
                  "{copy} 生成的副本提供服务；在设备可写入的地方运行 `kb sync` 会就地重新生成索引",
    "copy_damaged": "{device}：设备不可写入，其中 {release} 的索引与 `kb sync` 生成的不同（{why}）："
                    "改用在 {copy} 生成的副本提供服务；在设备可写入的地方运行 `kb sync` 会就地重新"
                    "生成索引",
    "copy_refused_stale": "设备不可写入，其中 {release} 的索引不是本 kbtools 生成的（{why}）；在 {base} "
                          "下也无法生成副本（{reason}）：请让设备可写入并运行 `kb sync`，或把 "
                          "KB_HOME 设为可写入的目录",
    "copy_refused_damaged": "设备不可写入，其中 {release} 的索引与 `kb sync` 生成的不同（{why}）；在 "
                            "{base} 下也无法生成副本（{reason}）：请让设备可写入并运行 `kb sync`，"
                            "或把 KB_HOME 设为可写入的目录",
}

# a pinned key's reason (trust.log's `why`), by its key
REASONS_ZH = {
    "pin_first_use": "首次同步时随发布版本 {release} 固定",
    "pin_release": "随发布版本 {release} 固定",
    "pin_rotation": "由发布版本 {release} 引入，签名密钥 {signer}",
    "pin_operator": "运维人员从 {file} 添加",
}


def said_in(text: object, lang: str, words: Mapping[str, str]) -> str:
    """`text` in `lang`: a `Keyed` one whose key `words` has, in those (Chinese) words;
    anything else as it is (English). A `Keyed` text that quotes a reason (``why``: a
    release refused, a release discarded) keeps that reason's key as ``why_key`` and its
    values as ``why_<name>`` (`keyed_why`): the reason is said in `WHY_ZH`'s words where it
    has them, else as it is (English)."""
    if lang == "zh" and isinstance(text, Keyed) and text.key in words:
        values = dict(text.values)
        if values.get("why_key") in WHY_ZH:
            with contextlib.suppress(KeyError, IndexError):
                values["why"] = WHY_ZH[values["why_key"]].format(**{
                    k.removeprefix("why_"): v for k, v in values.items() if k.startswith("why_")})
        try:
            return words[text.key].format(**values)
        except (KeyError, IndexError):
            pass
    return str(text)


def keyed_why(why: str) -> dict[str, str]:
    """The values a `Keyed` warning quoting reason `why` keeps for `said_in`: ``why`` (the
    English), and, when `why` is `Keyed` (a `KbError`'s key and values made into one, or a
    problem found in a file), ``why_key`` and its values as ``why_<name>``."""
    values = {"why": str(why)}
    if isinstance(why, Keyed) and why.key:
        values["why_key"] = why.key
        values |= {f"why_{k}": v for k, v in why.values.items()}
    return values

# each line's words: (English, Chinese)
WORDS: dict[str, tuple[str, str]] = {
    "device": ("device {device}", "设备 {device}"),
    "nothing": ("device {device}: serving nothing yet (run `kb sync SOURCE`)",
                "设备 {device}：还没有提供任何发布版本（运行 `kb sync SOURCE`）"),
    "serving": ("serving {tag} (source {source}, created {created}, {age}); files {files}{signed}",
                "正在提供 {tag}（源提交 {source}，创建于 {created}，{age}）；文件{files}{signed}"),
    "created_unknown": ("unknown", "未知"),
    "ahead": ("created in the future by this device's clock", "按本设备时钟，创建时间在未来"),
    "age": ("{days} days old", "已发布 {days} 天"),
    "age_one": ("1 day old", "已发布 1 天"),
    "age_unknown": ("age unknown", "发布时长未知"),
    "stale": (", STALE", "，已过期"),
    "files_ok": ("verified", "校验通过"),
    "files_bad": ("FAILS VERIFICATION", "校验失败"),
    "files_unchecked": ("not re-checked", "未重新校验"),
    "signed": ("; signed by {key}", "；签名密钥 {key}"),
    "sig_unchecked": ("; signature not checked (no key pinned)", "；签名未校验（未固定密钥）"),
    "unsigned": ("; unsigned", "；未签名"),
    "clock": ("  clock: {text}", "  时钟：{text}"),
    "problem": ("  problem: {text}", "  问题：{text}"),
    "trust": ("  trust: {text}", "  信任：{text}"),
    "review_unchecked": ("  verified: not checked against Git history when built (nothing is "
                         "served as verified)",
                         "  审核：构建时未对照 Git 历史检查（所有段落都按未审核提供）"),
    "review_lapsed": ("  verified: lapsed in {docs} document(s), {chunks} passage(s) served as "
                      "unverified: {names}",
                      "  审核：{docs} 个文档的审核已失效，{chunks} 个段落按未审核提供：{names}"),
    "review_ok": ("  verified: no lapsed reviews", "  审核：没有失效的审核"),
    "keys_unreadable": ("pinned keys: cannot read: {text}", "固定密钥：无法读取：{text}"),
    "keys_said": ("pinned keys: {text}", "固定密钥：{text}"),  # a keyed problem, said whole
    "key": ("pinned key {key} (since {at}{why})", "固定密钥 {key}（自 {at}{why}）"),
    "key_why": (": {why}", "：{why}"),
    "no_keys": ("pinned keys: none (unsigned releases are accepted until a key is pinned)",
                "固定密钥：无（固定密钥之前，未签名的发布版本也会被接受）"),
    "rolled_back": ("rolled back from {tags} (`kb sync` skips {them})",
                    "已从 {tags} 回滚（`kb sync` 会跳过{them}）"),
    "it": ("it", "它"),
    "them": ("them", "它们"),
    "unlogged": ("rollback from {from_} to {to} not yet in rollback.log (stopped after its "
                 "switch): the next `kb sync` or `kb rollback` logs it",
                 "从 {from_} 到 {to} 的回滚尚未记入 rollback.log（切换后被中断）：下一次 "
                 "`kb sync` 或 `kb rollback` 会记录它"),
    "nothing_served": ("nothing", "无"),
    "copies": ("index copies for read-only devices: {n} in {dir}, {bytes}{unneeded}",
               "只读设备的索引副本：{n} 个，在 {dir}，共 {bytes}{unneeded}"),
    "bytes": ("{n} bytes", "{n} 字节"),
    "unneeded": (" ({n} no longer needed: the next sync or query removes them)",
                 "（{n} 个已不再需要：下一次同步或查询会删除）"),
    "under_way": ("last sync {at}: under way ({holder} holds the device lock); {then}",
                  "上次同步 {at}：进行中（{holder} 持有设备锁）；{then}"),
    "switched_finishing": ("switched to {tag}, which serves (the sync is finishing)",
                           "已换用 {tag} 并由它提供服务（同步即将完成）"),
    "serves_until": ("{tag} serves until it switches", "切换之前由 {tag} 提供服务"),
    "no_release": ("no release", "没有发布版本"),
    "last_sync": ("last sync {at}{source}: {outcome}", "上次同步 {at}{source}：{outcome}"),
    "from_source": (" from {source}", "（来源 {source}）"),
    "failed": ("FAILED: {error}", "失败：{error}"),
    "switched": ("ok, switched to {tag}", "成功，已换用 {tag}"),
    "up_to_date": ("ok, up to date ({tag})", "成功，已是最新（{tag}）"),
    "ok": ("ok", "成功"),
    "since": ("  since then: {text}", "  此后：{text}"),
    "warning": ("  warning: {text}", "  警告：{text}"),
    # a git checkout of a release
    "checkout": ("checkout {checkout}: release {tag} (source {source}, HEAD {head}); "
                 "{ready}{signed}",
                 "检出 {checkout}：发布版本 {tag}（源提交 {source}，HEAD {head}）；{ready}{signed}"),
    "derived": ("index derived", "索引已生成"),
    "refused_below": ("refused, see below", "被拒绝，原因见下"),
    "derived_later": ("index derived on first query", "首次查询时生成索引"),
    "stale_checkout": ("  STALE: created {created}, {age}", "  已过期：创建于 {created}，{age}"),
    "checkout_keys": ("pinned keys: {keys} (releases must be signed by one)",
                      "固定密钥：{keys}（发布版本必须由其中之一签名）"),
    "checkout_no_keys": ("pinned keys: none (releases are taken unsigned until a key is "
                         "pinned: `kb trust add PUB`)",
                         "固定密钥：无（固定密钥之前，未签名的发布版本也会被接受：`kb trust add "
                         "PUB`）"),
    "newer": ("newer release {newer} in this clone, not checked out: questions are answered "
              "from {tag} until `git checkout {newer}` (or `git pull --ff-only` on the release "
              "branch)",
              "本克隆中有更新的发布版本 {newer}，尚未检出：在 `git checkout {newer}`（或在发布分支上 "
              "`git pull --ff-only`）之前，问题由 {tag} 回答"),
}


def locale_language(environ: Mapping[str, str] | None = None) -> str | None:
    """"zh" or "en" as the locale names the reader's language (`LOCALE_VARS`, the first
    one set); None when it names none (unset, ``C``, ``POSIX``)."""
    env = os.environ if environ is None else environ
    for var in LOCALE_VARS:
        value = env.get(var, "").strip()
        if var == "LANGUAGE":  # a list of preferences, honoured only under a real locale
            value = value.split(":")[0].strip()
        if not value:
            continue
        name = value.split(".")[0].split("@")[0].casefold()
        if name in NO_LANGUAGE:
            if var == "LANGUAGE":
                continue
            return None
        return "zh" if name.replace("-", "_").split("_")[0] in CHINESE else "en"
    return None


def status_language(environ: Mapping[str, str] | None = None) -> str:
    """The language `kb status` speaks: the locale's, else English."""
    return locale_language(environ) or "en"


def sayer(lang: str) -> Say:
    """``say(key, **fields)``: the line `key` of `WORDS` in `lang`, filled in."""
    column = 1 if lang == "zh" else 0

    def say(line: str, /, **fields: object) -> str:
        return WORDS[line][column].format(**fields)

    return say


def age_said(say: Say, days: float | None) -> str:
    """A release's age in days: "3.5 days old", "已发布 3.5 天"."""
    if days is None:
        return say("age_unknown")
    return say("age_one") if days == 1 else say("age", days=f"{days:g}")
