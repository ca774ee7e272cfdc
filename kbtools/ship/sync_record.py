"""A device's last sync as its record keeps it and every surface says it: `FailedSync`, the
one record of a failed or stopped sync, which says itself in English or Chinese, of the time
it ended or in the past once another release serves (`kb status`, its ``--json``,
/api/releases, the release page in either language); and what serves since it ended
(`statement`, `statement_text`: the rollback that changed it, and why).

state.json keeps a failure's words in parts (``said``: why, what served and what was said of
it, what followed, and what failed as `KbError.key` and the values its words name), so what
it says of the served release is said again in the past, or in Chinese, from the parts, not
by rewriting its English. Records written before a part was kept are read as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kbtools.errors import Interrupted, KbError, UnchangedSyncError
from kbtools.ship import trust
from kbtools.ship.device import served_tag
from kbtools.ship.devicestate import read_state, rollback_into
from kbtools.ship.serves import serving, still_serves, switch_outcome, under_way, unvouched
from kbtools.ship.sourceurl import scrub

__all__ = [
    "FAILURES_ZH", "FailedSync", "last_sync", "rollback_why", "since_then", "statement",
    "statement_text",
]


def since_then(path: Path, last: Any) -> Any:
    """A finished sync's record as `kb status` shows it once the device changed after it:
    another command (`kb rollback`, or the one `kb trust remove` runs) changed what serves,
    or keys were pinned or unpinned after a failure ("pin it with `kb trust add`", done).
    ``statement`` says what was tried, when, what served then and what serves now, and
    since which rollback (`statement`); ``since`` says it in words (`statement_text`), with
    the keys pinned since (trust.log). A failure's words of what serves are said again in
    the past from the parts its record keeps (``said``, `FailedSync.said`): "kb-r3 still serves"
    is "kb-r3 served on". Why: after a failed sync and a rollback, `kb status` quoted "kb-r3
    still serves" as the device's health while kb-r2 served. The release a sync left
    serving is its ``served`` (a failure) or its ``tag``; a record naming neither (written
    before kb kept it), or one under way, is as it is."""
    if not isinstance(last, dict) or last.get("under_way"):
        return last
    shown = {k: v for k, v in last.items() if k != "said"}
    told = statement(path, last)
    said = since_words(path, last, told)
    if not said:
        return shown
    shown["since"] = "; ".join(said)
    if told is not None and told["serves_now"] != told["served_then"]:
        shown["statement"] = told
        failed = FailedSync.of(path, last)
        shown["error"] = failed.text(path, past=True) if failed else last.get("error")
    return shown


def since_words(path: Path, last: dict[str, Any], told: dict[str, Any] | None,
                lang: str = "en") -> list[str]:
    """What changed on device `path` since sync record `last`, each in English or Chinese
    (``lang`` "zh"): what serves now when it is not what the sync left (`told`, its
    `statement`), and, after a failure, each key pinned or unpinned since (trust.log)."""
    said = [] if told is None or told["serves_now"] == told["served_then"] else [
        statement_text(told, lang)]
    if last.get("ok") is False:
        said += trust.pinned_since(path, str(last.get("at")), lang)
    return said


def statement(path: Path, last: dict[str, Any]) -> dict[str, Any] | None:
    """What a finished sync's record `last` says, as data: the sync tried (``source``,
    ``tag`` when it names one), ``at``, whether it was ``ok``, the release that served
    once it ended (``served_then``) and the one that serves now (``serves_now``), and the
    `kb rollback` that switched to it since (``rollback``: at, from, why; None when none
    did). None for a record that names no release it left serving."""
    failed = last.get("ok") is False
    then = last.get("served", last.get("tag")) if failed else last.get("tag")
    if not isinstance(then, str):
        return None
    now = served_tag(path)
    entry = rollback_into(path, now) if now != then else None
    return {"source": last.get("source"), "tag": last.get("tag"), "at": last.get("at"),
            "ok": not failed, "served_then": then, "serves_now": now,
            "rollback": None if entry is None else {
                "at": entry.get("at"), "from": entry.get("from"), "why": entry.get("why"),
                "cause": entry.get("cause")}}


# why a rollback `kb trust` made left a release (rollback.log ``cause``,
# `operate.settle_trust`), in Chinese and English; the English is its ``why`` as logged
_WHY = {"key_removed": ("{release}：运维人员移除了为它签名的密钥 {signer}，它不再回答问题",
                        "{release}: key {signer} was removed by the operator"),
        "key_pinned": ("{release}：设备现已固定密钥 {signer}，而它不是由已固定的密钥签名的，"
                       "不再回答问题", "{release}: key {signer} is pinned now")}


def rollback_why(rb: dict[str, Any], lang: str = "en") -> tuple[str, str] | None:
    """Why the rollback `rb` (a rollback.log entry, or a statement's ``rollback``) left a
    release, in `lang` ("zh", else English), and the language it is said in: from its
    ``cause`` (release, event, key), else its ``why`` as logged, in English (a log written
    before the cause was kept); None for a rollback an operator ran."""
    cause = rb.get("cause")
    if isinstance(cause, dict) and cause.get("event") in _WHY:
        words = _WHY[cause["event"]][0 if lang == "zh" else 1]
        return words.format(release=cause.get("release") or "?",
                            signer=cause.get("key") or "?"), "zh" if lang == "zh" else "en"
    why = rb.get("why")
    return (why, "en") if isinstance(why, str) and why else None


def statement_text(told: dict[str, Any], lang: str = "en") -> str:
    """A sync's `statement` in words, English or Chinese (``lang`` "zh"): what serves now,
    since which rollback, and not the release that served when the sync ended."""
    now, then, rb = told["serves_now"], told["served_then"], told["rollback"]
    why = None if rb is None else rollback_why(rb, lang)
    if lang == "zh":
        by = "" if rb is None else (f"自 {rb['at']} 的回滚起" + (f"（{why[0]}）" if why else "")
                                    + ("" if rb["from"] == then else f"（从 {rb['from']} 回滚）"))
        return f"{by}由 {now or '（无版本）'} 提供服务，而非同步结束时的 {then}"
    by = ""
    if rb is not None:
        # one `kb trust remove` ran names why (`operate.settle_trust`)
        by = (f" since the rollback at {rb['at']} ({why[0]})" if why
              else f" since `kb rollback` at {rb['at']}") + (
            "" if rb["from"] == then else f" (from {rb['from']})")
    return f"{now or 'no release'} serves{by}, not {then}"


# a failed sync in Chinese, by the key of its error (`FailedSync.of_error`; kept in its
# record's ``said``, or ``sync_killed`` for a sync killed before its outcome was written): a
# `{name}` is a value the record keeps; `_ZH_FAILED` for an error without a key here
FAILURES_ZH = {
    "sync_untrusted": "来源中较新的发布版本都没有通过本设备信任的密钥的验证（最新的 {release} 不是由"
                      "本设备信任的密钥签名的），没有换用：如果发布方更换了密钥，请向发布方确认新密钥后"
                      "用 kb trust add 信任它",
    "sync_release_refused": "来源中最新的发布版本没有通过校验或无法安装，没有换用",
    "sync_fetch_limit": "要获取的数据超过了本设备单次获取的大小上限，没有保留：如果发布版本"
                        "确实这么大，请提高上限（kb sync --max-fetch-bytes，或 kb.toml 的 [sync] "
                        "max_fetch_bytes）",
    "sync_no_room": "设备空间不足，放不下要同步的发布版本的文件，获取的内容没有保留：请腾出空间"
                    "（或提高配额、文件大小限制）后重新同步",
    "sync_cut_off": "获取发布版本 {release} 时连接中断或没有响应，获取的内容没有保留：重新运行 "
                    "kb sync 即可重试",
    "sync_cannot_write": "无法写入设备上的文件 {file}（目录只读或没有写权限）",
    "sync_derive_failed": "无法生成发布版本 {release} 的索引（设备上的文件无法写入），没有换用",
    "sync_unreachable": "无法从来源获取发布版本（来源无法访问、拒绝了访问，或已损坏）",
    "sync_no_branch": "来源中没有 {branch} 分支，无法获取发布版本",
    "sync_no_tags": "来源中没有可用的发布版本",
    "sync_downgrade": "来源中最新的发布版本 {release} 比本设备已接受的版本旧，拒绝降级"
                      "（kb rollback 可换回设备上保留的旧版本）",
    "sync_not_following": "来源中的 {release} 不是本设备所用版本的后续版本（另一个仓库的版本，"
                          "或分支被改写），拒绝使用（新的设备目录可以使用它）",
    "sync_tag_moved": "来源中的 {release} 已被改动，与本设备安装的不同（发布版本的标签不会改变），拒绝使用",
    "sync_unsigned": "来源中较新的发布版本都没有通过本设备信任的密钥的验证（最新的 {release} 没有签名），"
                     "没有换用",
    "sync_signature_malformed": "来源中较新的发布版本都没有通过本设备信任的密钥的验证（最新的 {release} "
                                "的签名文件 release.sig 格式错误），没有换用",
    "sync_bad_signature": "来源中较新的发布版本都没有通过本设备信任的密钥的验证（最新的 {release} 的签名"
                          "无效：release.json 在签名后被改动过），没有换用",
    "sync_unpinned_signer": "来源中较新的发布版本都没有通过本设备信任的密钥的验证（最新的 {release} 由"
                            "已从本设备移除的密钥 {signer} 签名），没有换用：如果要重新信任该密钥，"
                            "请用 kb trust add 固定它",
    "sync_history_missing": "发布版本 {release} 不是由本设备信任的密钥签名的，而来源中缺少它之前的"
                            "发布版本，无法确认密钥轮换，没有换用",
    "sync_next_keys_invalid": "发布版本 {release} 的 release.json 中的密钥轮换（next_keys）无效或"
                              "缺少新密钥的签名，拒绝使用",
    "sync_not_regular_file": "发布版本 {release} 中的 {file} 不是普通文件，拒绝使用",
    "sync_file_too_large": "发布版本 {release} 中的 {file} 超过了允许的大小，拒绝使用",
    "sync_release_json_unreadable": "发布版本 {release} 的 release.json 缺失或无法读取，拒绝使用",
    "sync_release_json_other_tag": "发布版本 {release} 的 release.json 写的是 {named}，与获取它的"
                                   "标签不符，拒绝使用",
    "sync_release_format": "发布版本 {release} 的格式不是本设备的 kbtools 能读取的（可能由更新的 "
                           "kbtools 制作：请升级本设备的 kbtools），拒绝使用",
    "sync_manifest_missing": "发布版本 {release} 缺少 manifest.json，拒绝使用",
    "sync_manifest_mismatch": "发布版本 {release} 的 manifest.json 与 release.json 或标签记录的"
                              "哈希不符（文件被改动过），拒绝使用",
    "sync_manifest_invalid": "发布版本 {release} 的 manifest.json 无效，或与本设备的 kbtools 不兼容，"
                             "拒绝使用",
    "sync_source_mismatch": "发布版本 {release} 的 release.json 与 manifest.json 记录的源提交不一致，"
                            "拒绝使用",
    "sync_artifacts_mismatch": "发布版本 {release} 的文件与 manifest.json 列出的不符（{count} 处问题），"
                               "拒绝使用",
    "sync_tag_missing": "获取后找不到发布版本 {release} 或 {branch} 分支，没有换用",
    "sync_not_on_branch": "来源中的 {release} 不在 {branch} 分支上，拒绝使用",
    "sync_key_unreadable": "无法读取本设备固定的密钥 {file}，在修复之前不会同步：请用 kb trust add "
                           "重新写入发布方的公钥（或用 kb trust remove 取消固定）",
    "sync_keys_unlistable": "无法列出本设备固定的密钥（{folder}），在修复之前不会同步：请让当前账户"
                            "可以读取该目录，或移除占用它的文件后重新固定密钥",
    "sync_bad_branch": "kb.toml 的 [release] branch 设置的分支名 {branch} 无效，没有同步",
    "sync_nothing_newer": "来源中没有比 {release} 更新的发布版本",
    "sync_tag_not_annotated": "来源中的 {release} 不是发布标签（kb release 打的带注释标签），拒绝使用",
    "sync_tag_no_commit": "来源中的发布标签 {release} 没有指向任何提交，拒绝使用",
    "sync_tag_too_large": "来源中的发布标签 {release} 过大（发布标签只有几百字节），拒绝使用",
    "sync_tag_source_mismatch": "发布版本 {release} 的标签与 manifest.json 记录的源提交不一致，拒绝使用",
    "sync_model_untrusted": "发布版本 {release} 指定的嵌入模型 {model} 是发布文件所在目录中的文件夹"
                            "（或含 .. 的路径），可能运行发布方写入的代码，拒绝使用",
    "sync_model_missing": "发布版本 {release} 需要的嵌入模型 {model} 在本设备上不可用，没有换用："
                          "请先在本设备上安装该模型",
    "sync_model_other": "发布版本 {release} 的向量来自与本设备不同的嵌入模型 {model}，没有换用："
                        "请先更新本设备的 kbtools 或模型",
    "sync_derived_mismatch": "本设备为发布版本 {release} 生成的索引没有通过校验，没有换用",
    "sync_derived_check_unknown": "发布版本 {release} 用本设备的 kbtools 不认识的方式校验索引，"
                                  "没有换用：请升级本设备的 kbtools",
    "sync_served_damaged": "正在使用的发布版本 {release} 的文件没有通过校验，无法重新生成它的索引"
                           "（kb rollback 可换用设备上保留的另一个版本）",
    "sync_git_failed": "读取获取到的 Git 数据失败（来源的数据可能已损坏），没有换用",
    "sync_bundle_partial": "这个离线包是增量包（kb bundle create --since），本设备缺少它所基于的"
                           "发布版本：请改用完整的离线包（kb bundle create OUT）",
    "sync_bundle_damaged": "离线包已损坏，无法读取，没有换用",
    "state_not_readable": "state.json 无法读取（{reason}）：只有同步本设备的账户可以读取它（权限 0600："
                          "其中保存的来源地址可能带有凭据）；请用该账户运行",
    "state_damaged": "state.json 无法读取（{reason}）：它记录了已回滚的发布版本和接受过的最高序号，"
                     "同步不能丢失这些记录：请恢复它，或删除它以不带这些记录继续（rollback.log 列出了"
                     "各次回滚）",
    "sync_object_malformed": "来源中的发布版本 {release} 本身含有 Git 判定为格式错误的对象，拒绝使用，"
                             "获取的内容没有保留",
    "sync_history_malformed": "来源中 {branch} 分支的历史（不是发布版本本身）含有 Git 判定为格式错误的对象，"
                              "拒绝使用，获取的内容没有保留",
    "sync_cannot_lock": "无法锁定设备目录 {folder}（目录只读或没有写权限），没有做任何改动：请让"
                        "当前账户可以写入该目录，或用该目录所属的账户运行",
    "sync_clone_not_owned": "Git 拒绝读取 {folder} 的仓库（它属于另一个账户），没有同步：请用它所属的"
                            "账户运行，或用 git config --global --add safe.directory 信任它",
    "sync_interrupted": "同步被中断（Ctrl-C 或 SIGTERM）",
    "sync_killed": "同步在完成前被强行终止（SIGKILL 或断电）：请重新运行 kb sync 完成同步",
}
_ZH_FAILED = "同步没有完成（详细原因请在设备上运行 kb status 查看）"


def _scrubbed(parts: dict[str, Any]) -> dict[str, Any]:
    """`parts` with the URL credentials their words may name left out."""
    return {k: scrub(v) if isinstance(v, str) else v for k, v in parts.items()}


@dataclass(frozen=True)
class FailedSync:
    """A failed or stopped sync as its record keeps it, which says itself in English or
    Chinese, of the time it ended or, `past`, once another release serves (`text`): its
    ``error`` as written (English); what failed (``key``, the ``values`` its words name:
    `KbError.key`); the release that served once it ended (``served``; None: none) and
    whether the sync had switched to it (``switched``) or left it ``unchanged``; and, when
    the record keeps its words in parts (``said``), the ``reason``, what stands between it
    and what served (``sep``), what it said of that then (``clause``: a stop's), what
    followed (``after``) and the ``where`` it names. `of` reads a record, `of_error` makes
    one of a sync's error, `stopped` of a stop (Ctrl-C, SIGTERM); `said` is what the record
    keeps of it."""

    error: str | None
    key: str | None = None
    served: str | None = None
    switched: bool = False
    unchanged: bool = True
    values: dict[str, str] = field(default_factory=dict)
    reason: str | None = None
    sep: str = "; "
    after: str = ""
    where: str | None = None
    clause: str | None = None

    @classmethod
    def of(cls, path: Path, record: Any) -> FailedSync | None:
        """The failure the device's last sync `record` (state.json's) tells; None for one
        that did not fail. A sync killed before its outcome was written (`switch_outcome`)
        tells that, with what serves now."""
        if not isinstance(record, dict):
            return None
        if record.get("running") or record.get("switching"):
            now = served_tag(path)
            switched = now != record.get("from") if record.get("running") else \
                now == record.get("tag")
            return cls(switch_outcome(path, record).get("error"), "sync_killed", now, switched)
        if record.get("ok") is not False:
            return None
        kept = record.get("said")
        said: dict[str, Any] = kept if isinstance(kept, dict) else {}
        given = said.get("values")
        values: dict[Any, Any] = given if isinstance(given, dict) else {}
        served = said.get("served", record.get("served", record.get("tag")))

        def text(name: str) -> str | None:
            return said.get(name) if isinstance(said.get(name), str) else None

        return cls(record.get("error") if isinstance(record.get("error"), str) else None,
                   text("key"), served if isinstance(served, str) else None,
                   bool(said.get("switched")), bool(said.get("unchanged", True)),
                   {str(k): str(v) for k, v in values.items()}, text("reason"),
                   sep if isinstance(sep := said.get("sep"), str) else "; ",
                   text("after") or "", text("path"), text("clause"))

    @classmethod
    def of_error(cls, exc: Exception, repaired: KbError | None = None) -> FailedSync:
        """The failure a sync's error `exc` is: of one that changed nothing
        (`UnchangedSyncError`), its words in parts, what `repaired` (the error the served
        index's repair made of it) adds following them, and the ``where`` it names; what
        failed (`KbError.key`, its values) for a reader of another language."""
        told = repaired or exc
        key = getattr(told, "key", None)
        failed = cls(str(told), key if isinstance(key, str) else None,
                     values={k: str(v) for k, v in getattr(told, "values", {}).items()})
        if not isinstance(exc, UnchangedSyncError):
            return failed
        after = exc.after + (repaired.message.removeprefix(exc.message) if repaired else "")
        return replace(failed, served=exc.served, unchanged=exc.unchanged,
                       switched=exc.switched, reason=exc.reason, sep=exc.sep, after=after,
                       where=(repaired or exc).path)

    @classmethod
    def stopped(cls, path: Path, before: str | None, again: str, *,
                after: str | None = None) -> FailedSync:
        """A command stopped (Ctrl-C, SIGTERM) while it held the device lock, having found
        `before` served: the release that serves now (or that none answers), whether the
        switch happened, and what to run next: `again` finishes the work when the switch
        had not happened; `after` (default: `again` run again) is what remains once it
        had."""
        now = served_tag(path)
        if now == before:
            return cls(None, "sync_interrupted", now, reason="", sep="",
                       clause=still_serves(path), after=f"; run `{again}` again to finish")
        revoked = unvouched(path)
        clause = f"{now} serves now" if revoked is None else f"{now} is current now, but {revoked}"
        return cls(None, "sync_interrupted", now, switched=True, reason="the switch completed",
                   sep=": ", clause=clause,
                   after=f" (was {before or 'nothing'}); {after or f'run `{again}` again to finish'}")

    def line(self) -> str:
        """The parts' words as one line, as said when it ended."""
        return f"{self.reason or ''}{self.sep}{self.clause or ''}{self.after}"

    def interrupted(self, path: Path) -> Interrupted:
        """The stop (`stopped`) as the error its command ends with."""
        return Interrupted(self.line(), path=str(path))

    def said(self, lead: str = "") -> dict[str, Any] | None:
        """What the record keeps of it (``said``; None: nothing but its error), the URL
        credentials its words may name left out; `lead` ("interrupted: ") before a stop's
        reason."""
        out: dict[str, Any] = {}
        if self.clause is not None:  # a stop (`stopped`)
            out = _scrubbed({"reason": "", "sep": self.sep, "served": self.served,
                             **({"switched": True} if self.switched else {"unchanged": True}),
                             "clause": self.clause, "after": self.after}) | {
                "reason": f"{lead}{scrub(self.reason or '')}", "key": self.key}
            return out
        if self.reason is not None:
            out = _scrubbed({"reason": self.reason, "served": self.served,
                             "unchanged": self.unchanged, "switched": self.switched,
                             "sep": self.sep, "after": self.after})
            out["path"] = scrub(self.where) if self.where else self.where
        if self.key is None:
            return out or None
        return out | {"key": self.key, "values": {k: scrub(v) for k, v in self.values.items()}}

    def text(self, path: Path, lang: str = "en", *, past: bool = False) -> str | None:
        """The failure in `lang` ("zh": `zh`; else English): in the `past`, once another
        release serves, its words of what served said again from its parts ("kb-r3 still
        serves" is "kb-r3 served on"), else its error as written."""
        if lang == "zh":
            return self.zh(path, past=past)
        if not past or self.reason is None:
            return self.error
        clause = serving(self.served, unchanged=self.unchanged, past=True,
                         switched=self.switched)
        where = f"{self.where}: " if self.where else ""
        return f"{where}{self.reason}{self.sep}{clause}{self.after}"

    def zh(self, path: Path, *, past: bool = False) -> str:
        """The failure in Chinese: what failed, and what served once it ended (`past`: said
        of then, another release serving since), or that no pinned key vouches for it."""
        words = FAILURES_ZH.get(self.key or "", _ZH_FAILED)
        try:
            what = words.format(**self.values)
        except (KeyError, IndexError, ValueError):
            what = _ZH_FAILED
        if self.served is None:
            serves = "当时设备上没有可用的发布版本" if past else "设备上还没有可用的发布版本"
        elif past:
            serves = f"同步结束时由 {self.served} 提供服务"
        elif unvouched(path) is not None:
            serves = (f"{self.served} 仍是当前版本，但本设备信任的密钥都没有为它签名，"
                      "不用它回答问题")
        else:
            serves = f"已换用 {self.served}" if self.switched else f"{self.served} 仍在使用，未改变"
        return f"{what}；{serves}。"


def last_sync(path: Path, lang: str = "en") -> dict[str, Any] | None:
    """The device's last sync as a page or an API shows it beside the served release: when
    it failed, or something changed what serves since (``at``, ``ok``, ``error`` said as
    `kb status` says it, or in Chinese for `lang` "zh" (`FailedSync.zh`), ``statement``:
    `statement`, None when nothing moved since); None when it took or kept the served
    release (or state.json cannot be read: another account's, mode 0600)."""
    record = read_state(path).get("last_sync")
    last = since_then(path, under_way(path, record))
    if not isinstance(last, dict) or last.get("under_way"):
        return None
    told = last.get("statement")
    if last.get("ok") is not False and told is None:
        return None
    error = scrub(last["error"]) if isinstance(last.get("error"), str) else None
    failed = FailedSync.of(path, record) if lang == "zh" else None
    if failed is not None:
        error = failed.text(path, lang, past=told is not None)
    return {"at": last.get("at"), "ok": last.get("ok") is not False, "error": error,
            "statement": told}
