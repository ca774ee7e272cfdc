"""What a device command says of the release the device serves, truthfully.

A command that changed nothing (a sync refused, a lock that could not be taken), one
stopped (Ctrl-C, SIGTERM) or refused a write while it held the lock, and `kb status` reading
a sync that was killed, each say which release serves. A release no pinned key vouches for
any more (its signer removed with `kb trust remove`) answers no question
(`trust.untrusted_release`, checked on every open by `kbtools.ship.intact`), so "kb-r1
still serves" would be false there: these say that no question is answered from it and
what the operator can do.

`device`, `devicelock` and `devicestate` know nothing of trust (trust reads and writes
through them), so the lines that name what serves are made here, above all four.
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kbtools.errors import Interrupted, KbError, SyncError, UnchangedSyncError
from kbtools.ship import devicelock, trust
from kbtools.ship.device import served_release, served_tag
from kbtools.ship.devicelock import lock_holder
from kbtools.ship.devicestate import read_state, rollback_into
from kbtools.ship.sourceurl import scrub

__all__ = [
    "NEXT_TRUSTED", "FailedSync", "cannot_write", "failure_kind", "failure_said", "interrupted",
    "interrupted_said", "kept", "last_sync", "locked", "nothing_changed", "rollback_why",
    "said_stop", "serving", "since_then", "statement", "statement_text", "still_serves",
    "switch_outcome", "unchanged", "under_way", "unvouched",
]


def unvouched(path: Path, *, then: str | None = None) -> str | None:
    """One line when the release `path` serves is vouched for by no pinned key (no question
    is answered from it: `trust.untrusted_release`), else None. Pinned keys that cannot be
    listed or read are the error of the command that needs them, not said here."""
    served = served_release(path)
    if served is None:
        return None
    try:
        return trust.untrusted_release(path, served, served.name, then=then)
    except SyncError:
        return None


def still_serves(path: Path, said: str | None = None, *, then: str | None = None) -> str:
    """What a command that changed nothing says of the device: `said` (default ``kb-r4
    still serves (unchanged)``, or that no release is served yet), or, when no pinned key
    vouches for the served release, that no question is answered from it and `then` (what
    the operator can do; default: trust its key again, or sync a release a pinned key
    signed)."""
    revoked = unvouched(path, then=then)
    if revoked is not None:
        return revoked
    if said is not None:
        return said
    return serving(served_tag(path))


def serving(served: str | None, *, unchanged: bool = True, past: bool = False,
            switched: bool = False) -> str:
    """What a command that changed nothing says of `served`, the release that served as it
    ran: "kb-r3 still serves (unchanged)", or, `past`, once another command changed what
    serves, "kb-r3 served on (unchanged)"; one that `switched` to it, "kb-r3 serves now"
    ("kb-r3 served")."""
    if served is None:
        return "no release was served" if past else "no release is served yet"
    if switched:
        return f"{served} {'served' if past else 'serves now'}"
    return (f"{served} {'served on' if past else 'still serves'}"
            f"{' (unchanged)' if unchanged else ''}")


def unchanged(path: Path | None, reason: str, *, served: str | None = None,
              unchanged: bool = True, after: str = "", sep: str = "; ",
              then: str | None = None, at: str | None = None, key: str | None = None,
              values: dict[str, str] | None = None) -> UnchangedSyncError:
    """The error of a command on the device `path` that changed nothing, for `reason`: what
    serves said by `still_serves` (`then`: what the operator can do when no pinned key
    vouches for it), in parts the failure's record keeps (`failure_said`). `served`: the
    release that serves when `path` is None; `key`, `values`: what failed, for a reader of
    another language (`KbError.key`, `FailedSync`)."""
    now = served_tag(path) if path is not None else served
    said = serving(now, unchanged=unchanged)
    clause = still_serves(path, said, then=then) if path is not None else said
    return UnchangedSyncError(reason, now, clause, after=after, sep=sep, unchanged=unchanged,
                              path=at, key=key, values=values)


NEXT_TRUSTED = ("the next `kb sync` takes the first release signed by a pinned key as soon as "
                "the publisher publishes one (`kb trust add PUB` trusts its key again)")


def nothing_changed(path: Path | None, reason: str, *, served: str | None = None,
                    sep: str = "; ", after: str = "", at: str | None = None,
                    key: str | None = None, values: dict[str, str] | None = None
                    ) -> UnchangedSyncError:
    """The error of a sync that changed nothing, for `reason` (`unchanged`): when no pinned
    key vouches for the served release, that no question is answered from it and that the
    next sync takes the first release a pinned key signs (`NEXT_TRUSTED`)."""
    return unchanged(path, reason, served=served, sep=sep, after=after, then=NEXT_TRUSTED,
                     at=at, key=key, values=values)


def failure_said(exc: Exception, repaired: KbError | None = None) -> dict[str, Any] | None:
    """What a failed sync's record keeps of its error `exc` (``said``, `FailedSync`): of one
    that changed nothing (`unchanged`), its reason, what served, what followed (and what
    `repaired`, the error the served index's repair made of it, adds; where it names), the
    URL credentials they may name left out; and what failed, for a reader of another
    language (`failure_kind`). None for an error with neither."""
    said = None
    if isinstance(exc, UnchangedSyncError):
        after = exc.after + (repaired.message.removeprefix(exc.message) if repaired else "")
        said = {k: scrub(v) if isinstance(v, str) else v for k, v in {
            "reason": exc.reason, "served": exc.served, "unchanged": exc.unchanged,
            "switched": exc.switched, "sep": exc.sep, "after": after}.items()}
        where = (repaired or exc).path
        said["path"] = scrub(where) if where else where
    return failure_kind(repaired or exc, said)


def interrupted(path: Path, before: str | None, again: str, *,
                after: str | None = None) -> Interrupted:
    """What to say of a command stopped (Ctrl-C, SIGTERM) while it held the device lock,
    having found `before` served: the release that serves now (or that none answers),
    whether the switch happened, and what to run next: `again` finishes the work when the
    switch had not happened; `after` (default: `again` run again) is what remains once it
    had."""
    return said_stop(path, interrupted_said(path, before, again, after=after))


def said_stop(path: Path, said: dict[str, Any]) -> Interrupted:
    """The stop `interrupted_said`'s parts say, as one line."""
    return Interrupted(f"{said['reason']}{said['sep']}{said['clause']}{said['after']}",
                       path=str(path))


def kept(said: dict[str, Any], lead: str) -> dict[str, Any]:
    """`interrupted_said`'s parts as a stopped sync's record keeps them: `lead`
    ("interrupted: ") before them, the URL credentials they may name left out, and what
    failed (``key``: `FailedSync`)."""
    return {k: scrub(v) if isinstance(v, str) else v for k, v in said.items()} | {
        "reason": f"{lead}{scrub(said['reason'])}", "key": "sync_interrupted"}


def interrupted_said(path: Path, before: str | None, again: str, *,
                     after: str | None = None) -> dict[str, Any]:
    """`interrupted`'s words in the parts a failed sync's record keeps (``said``: reason,
    sep, what served and what it said of it, what followed; `FailedSync`)."""
    now = served_tag(path)
    if now == before:
        return {"reason": "", "sep": "", "served": now, "unchanged": True,
                "clause": still_serves(path), "after": f"; run `{again}` again to finish"}
    revoked = unvouched(path)
    return {"reason": "the switch completed", "sep": ": ", "served": now, "switched": True,
            "clause": f"{now} serves now" if revoked is None else f"{now} is current now, "
                      f"but {revoked}",
            "after": f" (was {before or 'nothing'}); {after or f'run `{again}` again to finish'}"}


def cannot_write(path: Path, exc: OSError, before: str | None) -> SyncError:
    """One line for a command that held the device lock, having found `before` served, and
    that a write refused (a full disk, a read-only directory): the file, why, and which
    release serves now (or that none answers)."""
    now = served_tag(path)
    served = ("the served release is unchanged" if now == before
              else f"{now or 'no release'} is served now")
    revoked = unvouched(path)
    if revoked is not None:
        served = f"{'nothing was switched' if now == before else f'{now} is current now'}" \
                 f", but {revoked}"
    full = exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
    return UnchangedSyncError(f"cannot write {exc.filename or 'device files'}: "
                              f"{exc.strerror or exc}", now, served, switched=now != before,
                              path=str(path), key="sync_no_room" if full else "sync_cannot_write",
                              values={"file": str(exc.filename or "")})


@contextlib.contextmanager
def locked(path: Path, what: str = "kb") -> Iterator[None]:
    """`devicelock.locked` for a command that acts on a device (sync, rollback, trust):
    a lock that cannot be taken says which release still serves, truthfully."""
    with devicelock.locked(path, what, serves=still_serves):
        yield


def under_way(path: Path, last: Any) -> Any:
    """``last_sync`` as `kb status` shows it while a sync holds the device lock (its record
    says it started, `devicestate.record_start`, or is switching): under way, by whom, what
    serves meanwhile and whether the sync has switched to it (`switched`: it is finishing,
    its prune and record); any other record as `switch_outcome` reads it."""
    if isinstance(last, dict) and (last.get("running") or last.get("switching")):
        holder, now = lock_holder(path), served_tag(path)
        if holder is not None:
            return {k: v for k, v in last.items() if k not in ("running", "switching")} | {
                "ok": None, "under_way": True, "holder": holder, "tag": now, "error": None,
                "switched": bool(last.get("switching")) and now == last.get("tag")}
    return switch_outcome(path, last)


def switch_outcome(path: Path, last: Any, *, settled: bool = False) -> Any:
    """``last_sync`` as `kb status` shows it: a record of a switch under way
    (`devicestate.switching`) left by a sync killed before its outcome was written names the
    release that serves (or that none answers), whether the switch happened, and what to
    run; one of a sync that started (`devicestate.record_start`) and was killed before its
    switch, the same; any other record as it is. `settled`: the record kept by a command
    about to move `current` (`kb rollback`), said in the past ("kb-r1 served on"), since
    what serves then is the rollback's."""
    if isinstance(last, dict) and last.get("running"):
        now = served_tag(path)
        if now != last.get("from"):
            serves = f"{now or 'no release'} {'served' if settled else 'serves'}"
        else:
            serves = (f"{now} served on (unchanged)" if now else "no release was served"
                      ) if settled else still_serves(path)
        return {k: v for k, v in last.items() if k != "running"} | {
            "tag": now, "error": "killed before it finished (SIGKILL or a power cut): "
                                 f"{serves}; run `kb sync` again to finish"}
    if not isinstance(last, dict) or not last.get("switching"):
        return last
    tag, now = last.get("tag"), served_tag(path)
    if now == tag:
        why = (f"killed after its switch, before its outcome was recorded: {tag} "
               f"{'served' if settled else 'serves'} (verified); run `kb sync` to finish "
               "(prune old releases)")
    else:
        serves = f"{now} {'served on' if settled else 'still serves'}" if now else \
            f"no release {'was served' if settled else 'serves'}"
        if now and not settled:
            serves = still_serves(path, serves)
        why = f"killed before its switch to {tag}: {serves}; run `kb sync` again to finish"
    return {k: v for k, v in last.items() if k != "switching"} | {"tag": now, "error": why}


def since_then(path: Path, last: Any) -> Any:
    """A finished sync's record as `kb status` shows it once the device changed after it:
    another command (`kb rollback`, or the one `kb trust remove` runs) changed what serves,
    or keys were pinned or unpinned after a failure ("pin it with `kb trust add`", done).
    ``statement`` says what was tried, when, what served then and what serves now, and
    since which rollback (`statement`); ``since`` says it in words (`statement_text`), with
    the keys pinned since (trust.log). A failure's words of what serves are said again in
    the past from the parts its record keeps (``said``, `failure_said`): "kb-r3 still serves"
    is "kb-r3 served on". Why: after a failed sync and a rollback, `kb status` quoted "kb-r3
    still serves" as the device's health while kb-r2 served. The release a sync left
    serving is its ``served`` (a failure) or its ``tag``; a record naming neither (written
    before kb kept it), or one under way, is as it is."""
    if not isinstance(last, dict) or last.get("under_way"):
        return last
    shown = {k: v for k, v in last.items() if k != "said"}
    told = statement(path, last)
    said = [] if told is None or told["serves_now"] == told["served_then"] else [
        statement_text(told)]
    if last.get("ok") is False:
        said += trust.pinned_since(path, str(last.get("at")))
    if not said:
        return shown
    shown["since"] = "; ".join(said)
    if told is not None and told["serves_now"] != told["served_then"]:
        shown["statement"] = told
        failed = FailedSync.of(path, last)
        shown["error"] = failed.text(path, past=True) if failed else last.get("error")
    return shown


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


def failure_kind(exc: Exception, said: dict[str, Any] | None) -> dict[str, Any] | None:
    """`said` (the parts a failed sync's record keeps, `failure_said`; None: none) with what
    the error `exc` is, for a reader of another language: its `KbError.key` (``key``) and the
    values its words name (``values``, URL credentials left out); `said` as it is when the
    error has no key."""
    key = getattr(exc, "key", None)
    if not isinstance(key, str):
        return said
    values = {k: scrub(str(v)) for k, v in getattr(exc, "values", {}).items()}
    return (said or {}) | {"key": key, "values": values}


# a failed sync in Chinese, by the key of its error (`failure_kind`; kept in its record's
# ``said``, or ``sync_killed`` for a sync killed before its outcome was written): a
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
    "sync_interrupted": "同步被中断（Ctrl-C 或 SIGTERM）",
    "sync_killed": "同步在完成前被强行终止（SIGKILL 或断电）：请重新运行 kb sync 完成同步",
}
_ZH_FAILED = "同步没有完成（详细原因请在设备上运行 kb status 查看）"


@dataclass(frozen=True)
class FailedSync:
    """A failed sync as its record keeps it, which says itself in English or Chinese, of
    the time it ended or, `past`, once another release serves (`text`): its ``error`` as
    written (English); what failed (``key``, the ``values`` its words name: `failure_kind`);
    the release that served once it ended (``served``; None: none) and whether the sync had
    switched to it (``switched``) or left it ``unchanged``; and, when the record keeps its
    words in parts (``said``: `failure_said`, `interrupted_said`), the ``reason``, what
    stands between it and what served (``sep``), what followed (``after``) and the
    ``where`` it names. `of` reads a record."""

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
                   text("after") or "", text("path"))

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
