"""The stdio wire between `kb mcp` and its client: pipes the SDK reads and writes through.

`Wire.open()` puts a pipe on fd 0 fed with the client's lines, each through `clean_message`,
and one on fd 1 whose lines go on to the client's stdout (the SDK then claims fd 0 and fd 1
as usual). On the way it keeps the ids of the client's requests not answered yet, for one
reason: the SDK ends the session when its input ends and drops the calls still running. A
client that writes its requests and closes stdin at once (``printf '…' | kb mcp``, a script,
a tool runner that closes its end after the last request) got no answer to any of them.
Now the SDK's input ends only when every request read has its answer on the way to the
client (or was cancelled by the client, or the client's stdout is gone), so each is
answered before the server stops. `end()` (Ctrl-C) ends the input the same way without
waiting for the client; `finish()`, once the SDK has stopped, sends what it wrote on to the
client and gives fd 1 back. A request the SDK cannot read, which it drops without a word,
is answered on the way in with JSON-RPC's "Invalid Request" error (`refusal`), and a line
that is no JSON with its "Parse error" (id null, as JSON-RPC 2.0 answers one: the SDK
dropped it too, and a client whose request was cut short waited for ever).

A JSON-RPC batch (one line holding an array of messages, which protocol revision 2025-03-26
has clients send and the server still negotiates) the SDK dropped without a word, so the
client waited for ever: each of its messages now goes to the SDK as a line of its own, and
the answers to its requests go back to the client as one array once all are in (`Batch`).

A line is at most `MAX_MESSAGE_BYTES` (a draft's photos, at most
`draft_photos.MAX_PHOTOS_BYTES` together, in base64, and its text fit under it): the wire
read a line of any length whole, so a 100 MiB photo took 0.8 GB of memory before the tool
refused it, and a larger one could end the server. A longer line is read on in pieces and
let go, its top level kept (`Skeleton`) to answer its request by its id with one error
naming the limit; the next line is served as usual.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import pydantic_core

from kbtools.agents.draft_photos import MAX_PHOTOS_BYTES
from kbtools.errors import one_line

SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")  # a JSON escape of a UTF-16 surrogate
# one JSON escape: a backslash and what it escapes (an escaped backslash before `u` is not `\u`)
JSON_ESCAPE = re.compile(rb"\\(?:u([0-9a-fA-F]{4})|.)", re.S)
UTF8_BOM = b"\xef\xbb\xbf"
END_OF_OUTPUT = b"\x00kb-mcp-end\n"  # after the SDK's last line (JSON text holds no NUL)
ANSWER_WAIT = 900.0  # seconds the closed input waits for answers, a backstop for a lost one
MAX_MESSAGE_BYTES = 64 * 1024 * 1024  # one line from the client (see the module docstring)
PIECE_BYTES = 1024 * 1024  # what of a line over the limit is read at once, and let go
# a character that matters to a JSON text's structure: quote, backslash, bracket or brace
JSON_STRUCTURE = re.compile(rb'["\\\[\]{}]')
KEPT_STRING_BYTES = 1024  # a string of the top level longer than this is kept empty
MAX_SKELETON_BYTES = 64 * 1024  # what `Skeleton` keeps at most


def clean_message(line: bytes) -> bytes:
    """One JSON-RPC line with every lone surrogate (a ``\\ud800`` escape, legal JSON but not
    Unicode) replaced by U+FFFD. The SDK's parser rejects such a line without answering, so
    the client would wait forever; cleaned, the tool runs and answers (a search cleans the
    question further, a path that holds U+FFFD is simply not found). The escapes are
    rewritten in the text, not through a parse: a message nested too deep for Python's
    parser is cleaned all the same, and the SDK answers it. A UTF-8 byte order mark before
    the line (Windows tools write one at the start of what they pipe: PowerShell, Notepad's
    saved requests) is let go: the SDK's parser refused the line, so `initialize` failed."""
    line = line.removeprefix(UTF8_BOM)
    if b"\\u" not in line or not SURROGATE_ESCAPE.search(line):
        return line
    out: list[bytes] = []
    done = 0  # line[:done] is in out
    escapes = list(JSON_ESCAPE.finditer(line))
    paired = -1  # the index of a low surrogate taken by the high one before it
    for i, m in enumerate(escapes):
        unit = int(m.group(1), 16) if m.group(1) else -1
        if i == paired or not 0xD800 <= unit < 0xE000:
            continue
        nxt = escapes[i + 1] if i + 1 < len(escapes) else None
        if unit < 0xDC00 and nxt is not None and nxt.start() == m.end() and nxt.group(1) \
                and 0xDC00 <= int(nxt.group(1), 16) < 0xE000:
            paired = i + 1  # a surrogate pair: one character, kept
            continue
        out += [line[done:m.start()], b"\\ufffd"]
        done = m.end()
    out.append(line[done:])
    return b"".join(out)


def message(line: bytes) -> dict[str, Any] | None:
    """`line` as a JSON-RPC message (an object), None when it is not one."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def id_key(value: Any) -> str | None:
    """A request id as the SDK answers it (a whole number or a string), None for none."""
    if isinstance(value, bool) or value is None:
        return None
    return json.dumps(value) if isinstance(value, (int, str)) else None


INVALID_REQUEST = -32600  # JSON-RPC's code for a request that is not one
PARSE_ERROR = -32700  # JSON-RPC's code for a text that is not JSON


def error_line(ident: Any, code: int, said: str) -> bytes:
    """JSON-RPC's error answer to request `ident` (None: null), as one line."""
    answer = {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": said}}
    return json.dumps(answer, ensure_ascii=False).encode("utf-8") + b"\n"


def refusal(line: bytes) -> bytes | None:
    """The error answer to `line`, which the SDK cannot read as a message and drops without
    a word (JSON-RPC 2.0 answers each of these): a line that is no JSON, "Parse error" with
    id null; a request with an id (a whole number or a string), "Invalid Request" with its
    id; JSON that is no message (a number, `{}`, an object with neither a usable id nor a
    method), "Invalid Request" with id null. None for what is never answered: a blank line,
    a notification (a string method and no usable id) and a response to the server."""
    if not line.strip():
        return None
    try:  # as the SDK reads the line: UTF-8, undecodable bytes replaced
        msg = pydantic_core.from_json(line.decode("utf-8", "replace"))
    except ValueError as exc:
        return error_line(None, PARSE_ERROR, one_line(
            f"Parse error: the line is not JSON ({exc}); send one JSON-RPC message (an "
            "object) or a batch of them (an array) per line"))
    if isinstance(msg, dict) and ("result" in msg or "error" in msg):
        return None
    ident = id_key(msg.get("id")) if isinstance(msg, dict) else None
    if ident is None and isinstance(msg, dict) and isinstance(msg.get("method"), str):
        return None
    return error_line(msg["id"] if ident is not None else None, INVALID_REQUEST,
                      'Invalid Request: a JSON-RPC 2.0 request has "jsonrpc": "2.0", a string '
                      '"method" and, when given, "params" as an object')


NOT_A_MESSAGE = {"jsonrpc": "2.0", "id": None, "error": {
    "code": INVALID_REQUEST, "message": "Invalid Request: a batch holds JSON-RPC messages (objects), "
    "at least one"}}


@dataclass
class Batch:
    """The requests of one batch still waiting for their answer (by id, `id_key`), and the
    answers it has (JSON texts, in the order they came): the array is sent when none waits."""

    waiting: Counter[str] = field(default_factory=Counter)
    answers: list[bytes] = field(default_factory=list)

    def array(self) -> bytes | None:
        """The batch's answer line once every request has its answer; None before, and for
        a batch that holds no request (notifications alone are not answered)."""
        if +self.waiting or not self.answers:
            return None
        return b"[" + b",".join(self.answers) + b"]\n"


def batch_items(line: bytes) -> list[Any] | None:
    """The messages of `line` when it is a JSON array (a batch), else None."""
    if not line.lstrip().startswith(b"["):
        return None
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, list) else None


class Skeleton:
    """The top level of a JSON text read in pieces, in bounded memory: what is nested in it
    kept as ``{}`` or ``[]``, a string longer than `KEPT_STRING_BYTES` as ``""``, at most
    `MAX_SKELETON_BYTES` in all. Of a request over the size limit, its id and method are
    read from it (`message`), wherever they stand among its params."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.depth = 0  # brackets and braces open
        self.in_string = False
        self.string_at = 0  # where in `out` the open string's content starts
        self.cut = False  # the open string is too long: kept empty
        self.escaped = False  # the last piece ended in a string's backslash
        self.full = False  # over MAX_SKELETON_BYTES: nothing more is kept

    def feed(self, piece: bytes) -> None:
        done = 0  # piece[:done] is taken
        if self.escaped and piece:
            self._keep(piece[:1])
            done, self.escaped = 1, False
        for m in JSON_STRUCTURE.finditer(piece):
            if m.start() < done:  # the character a backslash escapes
                continue
            self._keep(piece[done:m.start()])
            done = m.end()
            char = m.group()
            if self.in_string:
                if char == b"\\":
                    if done == len(piece):
                        self.escaped = True
                        self._keep(char)
                        continue
                    self._keep(piece[m.start():done + 1])  # the escape whole
                    done += 1
                elif char == b'"':
                    self.in_string = False
                    self._keep(char)
                else:
                    self._keep(char)
                continue
            if char == b'"':
                self._keep(char)
                self.in_string, self.string_at, self.cut = True, len(self.out), False
            elif char in b"[{":
                self._keep(char)
                self.depth += 1
            else:
                self.depth -= 1
                self._keep(char)
        self._keep(piece[done:])

    def _keep(self, text: bytes) -> None:
        if self.depth > 1 or self.full or not text:
            return
        if self.in_string and (self.cut or len(self.out) + len(text) - self.string_at
                               > KEPT_STRING_BYTES):
            del self.out[self.string_at:]  # kept empty (never cut inside an escape)
            self.cut = True
            return
        if len(self.out) + len(text) > MAX_SKELETON_BYTES:
            self.full = True
            return
        self.out += text

    def message(self) -> dict[str, Any] | None:
        """The top level read, when it is a JSON object (whole, under the limits)."""
        return None if self.full or self.in_string else message(bytes(self.out))


def too_long(skeleton: Skeleton) -> bytes | None:
    """The error answer to a line over `MAX_MESSAGE_BYTES` whose top level is `skeleton`:
    to its request by its id, or with id null when no id can be read (a batch, a text that
    is no JSON); None for a notification or a response, which are not answered."""
    msg = skeleton.message()
    if msg is not None and ("result" in msg or "error" in msg or
                            ("id" not in msg and isinstance(msg.get("method"), str))):
        return None
    ident = msg.get("id") if msg is not None else None
    limit, photos = MAX_MESSAGE_BYTES // 2**20, MAX_PHOTOS_BYTES // 2**20
    answer = {"jsonrpc": "2.0", "id": ident if id_key(ident) is not None else None, "error": {
        "code": INVALID_REQUEST, "message": f"Invalid Request: the message is over {limit} MiB, "
        f"the most one line may hold (a draft's photos are at most {photos} MiB together); "
        "send fewer or smaller pictures"}}
    return json.dumps(answer, ensure_ascii=False).encode("utf-8") + b"\n"


class Wire:
    """See the module docstring."""

    def __init__(self, client_in: int, client_out: int, sdk_in: int, sdk_out: int):
        self.client_in, self.client_out = client_in, client_out  # the client's ends (dups)
        self.sdk_in, self.sdk_out = sdk_in, sdk_out  # our write end of fd 0, read end of fd 1
        self.out_copy = os.dup(1)  # a write end of fd 1's pipe, for END_OF_OUTPUT
        self.pending: Counter[str] = Counter()  # requests read and not answered yet (by id)
        self.changed = threading.Condition()
        self.closing = False  # end(): no more lines to the SDK
        self.abandon = False  # no answer can reach the client: stop waiting for them
        self.feeding = True  # sdk_in is still ours (not yet closed by the input pump)
        self.out: BinaryIO | None = os.fdopen(client_out, "wb", closefd=False)  # None: gone
        self.writing = threading.Lock()  # one line at a time to the client (`_to_client`)
        self.batches: list[Batch] = []  # batches with requests still waiting (under `changed`)
        import mcp_types  # the SDK's own reading of a line (loaded by the SDK anyway)

        self.adapter, self.request_type = mcp_types.jsonrpc_message_adapter, mcp_types.JSONRPCRequest
        self.reader = threading.Thread(target=self._feed, name="kb-mcp-stdin", daemon=True)
        self.writer = threading.Thread(target=self._relay, name="kb-mcp-stdout", daemon=True)

    @classmethod
    def open(cls) -> Wire:
        client_in, client_out = os.dup(0), os.dup(1)
        in_read, in_write = os.pipe()
        out_read, out_write = os.pipe()
        os.dup2(in_read, 0)
        os.dup2(out_write, 1)
        os.close(in_read)
        os.close(out_write)
        wire = cls(client_in, client_out, in_write, out_read)
        wire.reader.start()
        wire.writer.start()
        return wire

    def _feed(self) -> None:
        """The client's lines to the SDK; at their end, the SDK's input ends once every
        request read is answered."""
        with os.fdopen(self.client_in, "rb") as src:
            dst = os.fdopen(self.sdk_in, "wb")
            try:
                while (line := self._next_line(src)) != b"":
                    if self.closing:
                        break
                    if line is None:  # over the limit, answered
                        continue
                    line = clean_message(line)
                    items = batch_items(line)
                    if items is not None:
                        self._feed_batch(items, dst)
                        continue
                    refusal = self._note_request(line)
                    if refusal is not None:  # the SDK would drop it without an answer
                        self._to_client(refusal)
                        continue
                    dst.write(line)
                    dst.flush()
                with self.changed:
                    self.changed.wait_for(lambda: not self.pending or self.abandon, ANSWER_WAIT)
            except OSError:  # the SDK's end is gone: nothing reads any more
                pass
            finally:
                with self.changed:
                    self.feeding = False
                    dst.close()

    def _next_line(self, src: BinaryIO) -> bytes | None:
        """The client's next line (b"" at the end of its input); None for a line over
        `MAX_MESSAGE_BYTES`, read on in pieces, let go and answered (`too_long`)."""
        piece = src.readline(PIECE_BYTES)
        if len(piece) < PIECE_BYTES or piece.endswith(b"\n"):
            return piece  # a line of at most a piece: the usual case
        pieces, size = [piece], len(piece)
        while size <= MAX_MESSAGE_BYTES:
            piece = src.readline(PIECE_BYTES)
            pieces.append(piece)
            size += len(piece)
            if not piece or piece.endswith(b"\n"):
                return b"".join(pieces)
        skeleton = Skeleton()
        for piece in pieces:
            skeleton.feed(piece)
        pieces.clear()
        while piece and not piece.endswith(b"\n"):
            piece = src.readline(PIECE_BYTES)
            skeleton.feed(piece)
        answer = too_long(skeleton)
        if answer is not None:
            self._to_client(answer)
        return None

    def _feed_batch(self, items: list[Any], dst: BinaryIO) -> None:
        """The messages of a batch to the SDK, each a line of its own; their answers are
        collected into one array (`_relay`). An empty batch, and an element that is no
        object, is answered with Invalid Request (id null), as JSON-RPC says."""
        if not items:
            self._to_client(json.dumps(NOT_A_MESSAGE).encode("utf-8") + b"\n")
            return
        batch, lines = Batch(), []
        for item in items:
            if not isinstance(item, dict):
                batch.answers.append(json.dumps(NOT_A_MESSAGE).encode("utf-8"))
                continue
            line = json.dumps(item).encode("utf-8") + b"\n"
            refused = self._note_request(line)
            if refused is not None:
                batch.answers.append(refused.rstrip(b"\n"))
                continue
            key = id_key(item.get("id"))
            if key is not None and "method" in item:  # a request: its answer joins the array
                batch.waiting[key] += 1
            elif item.get("method") == "notifications/cancelled":  # of a request before it
                # in this batch, which is not answered: the array waited for it for ever and
                # the other answers never reached the client (`_note_request` forgets a
                # cancelled request of the batches already sent, not of this one)
                params = item.get("params")
                named = id_key(params.get("requestId")) if isinstance(params, dict) else None
                if named is not None and batch.waiting[named] > 0:
                    batch.waiting[named] -= 1
            lines.append(line)
        with self.changed:
            self.batches.append(batch)  # before any line is sent: no answer can come sooner
        self._batch_done(batch)
        for line in lines:
            dst.write(line)
        dst.flush()

    def _batch_done(self, batch: Batch) -> None:
        """Send `batch`'s array when it is complete (and forget it), or forget a batch that
        holds nothing to answer."""
        with self.changed:
            if +batch.waiting or batch not in self.batches:
                return
            self.batches.remove(batch)
        array = batch.array()
        if array is not None:
            self._to_client(array)

    def _batched(self, key: str, line: bytes) -> Batch | None:
        """The batch waiting for the answer `line` to request `key`, which takes it; None
        when no batch waits for it (the answer goes to the client as it is)."""
        with self.changed:
            batch = next((b for b in self.batches if b.waiting[key] > 0), None)
            if batch is not None:
                batch.waiting[key] -= 1
                batch.answers.append(line.rstrip(b"\n"))
        return batch

    def _note_request(self, line: bytes) -> bytes | None:
        """Keep the id of a request in `line`, as the SDK reads it (an id that is not a whole
        number or a string makes it a notification, which is not answered); forget the one
        a cancellation names (a cancelled request is not answered, by the protocol's rules).
        A request with an id that the SDK cannot read as a message (params a string, a
        list or a number, no "jsonrpc": "2.0", a method that is no string) it drops without
        a word, and the client waited for ever: returns the error answer for it instead."""
        try:  # the SDK's reading: UTF-8, undecodable bytes replaced
            msg = self.adapter.validate_json(line.decode("utf-8", "replace"), by_name=False)
        except ValueError:  # the SDK drops it without an answer
            return refusal(line)
        done: list[Batch] = []
        with self.changed:
            if isinstance(msg, self.request_type):
                self.pending[id_key(msg.id) or ""] += 1
            elif getattr(msg, "method", None) == "notifications/cancelled":
                params = getattr(msg, "params", None) or {}
                cancelled = id_key(params.get("requestId")) or ""
                self.pending.pop(cancelled, None)
                done = [b for b in self.batches if b.waiting.pop(cancelled, None)]
                self.changed.notify_all()
        for batch in done:  # a cancelled request is not answered, in a batch either
            self._batch_done(batch)
        return None

    def _to_client(self, line: bytes) -> None:
        """Write one whole line to the client (the SDK's answers and the wire's own do not
        interleave); a client whose stdout is gone ends the input (`end`)."""
        with self.writing:
            if self.out is None:
                return
            try:
                self.out.write(line)
                self.out.flush()
            except OSError:  # the client's stdout is gone: no answer can reach it
                self.out = None
            else:
                return
        self.end(answered=False)

    def _relay(self) -> None:
        """The SDK's lines to the client, up to END_OF_OUTPUT; each answer leaves `pending`
        (an answer to a request of a batch goes with the batch's array)."""
        with os.fdopen(self.sdk_out, "rb") as src:
            for line in src:
                if line == END_OF_OUTPUT:
                    break
                msg = message(line) if b'"id"' in line else None
                answer = msg is not None and "method" not in msg
                key = id_key(msg.get("id")) or "" if msg is not None else ""
                batch = self._batched(key, line) if answer and self.batches else None
                if batch is None:
                    self._to_client(line)
                else:
                    self._batch_done(batch)
                if answer:
                    with self.changed:
                        self.pending -= Counter([key])
                        self.changed.notify_all()

    def end(self, *, answered: bool = True) -> None:
        """End the SDK's input as if the client had closed stdin: no line read from now on
        goes to the SDK, whose input ends once the requests it has are answered (Ctrl-C),
        or at once (``answered=False``)."""
        with self.changed:
            self.closing = True
            self.abandon = self.abandon or not answered
            self.changed.notify_all()
        threading.Thread(target=self._cut, name="kb-mcp-end", daemon=True).start()

    def _cut(self) -> None:
        with self.changed:
            self.changed.wait_for(lambda: not self.pending or self.abandon, ANSWER_WAIT)
            if self.feeding:  # sdk_in is still ours: the null device takes its place
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, self.sdk_in, inheritable=False)
                os.close(null)

    def finish(self) -> None:
        """After the SDK stopped: every line it wrote reaches the client; fd 1 is the
        client's stdout again."""
        try:
            os.write(self.out_copy, END_OF_OUTPUT)
        except OSError:
            pass
        self.writer.join()
        os.dup2(self.client_out, 1)
        os.close(self.client_out)
        os.close(self.out_copy)
