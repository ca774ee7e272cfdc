"""What an operator may hand `--engine` and `--token-file` that is not a Milvus connection:
credentials or options in the URL, a token file with a byte-order mark, a port where
another gRPC service answers. Each is one line naming what to do, before or on connecting."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from click.testing import CliRunner

from kbtools.cli import main
from kbtools.engine.milvus import MAX_TOKEN_BYTES, EngineUrl, read_token
from kbtools.errors import UsageError
from tests.hostile import env

QUESTION = "E17 故障怎么处理"


@pytest.mark.parametrize("text", [
    "milvus://root:Milvus@127.0.0.1:19530/kb", "milvus://root:s3cr%40t@milvus.internal/kb",
    "milvus://api-key-密钥@[::1]:19530", "milvus://apikey42@127.0.0.1:19530"])
def test_credentials_in_the_url_are_refused_without_showing_them(text):
    """Other Milvus clients take ``user:password@`` in the URI; kb ignored it, connected
    without a token and reported the engine's refusal, naming the URL, password and all."""
    res = CliRunner().invoke(main, ["query", "--engine", text, QUESTION])
    assert res.exit_code == 2, res.output
    assert res.output.strip().splitlines() == [
        "kb: error: bad --engine: credentials in it are not read; write them (user:password "
        "or an API key) in a file given as --token-file (--engine-token-file for kb serve), "
        "and use milvus://HOST:PORT[/DB]"]
    secret = text.split("//", 1)[1].split("@", 1)[0]
    assert secret not in res.output


@pytest.mark.parametrize("text", ["milvus://127.0.0.1:19530/kb?timeout=5",
                                  "milvus://127.0.0.1:19530/kb#x", "milvus://127.0.0.1:19530?",
                                  "milvus://h:19530/?db_name=kb"])
def test_options_after_the_path_are_refused(text):
    with pytest.raises(UsageError, match="options after \\? or # are not read"):
        EngineUrl.parse(text)


@pytest.mark.parametrize("token", ["root:Milvus", "sk-密钥-123"])
def test_a_byte_order_mark_is_not_part_of_the_token(tmp_path, token):
    """A token file saved by a Windows editor starts with U+FEFF; it was sent as part of
    the token, and the engine refused credentials that look right in the file."""
    path = tmp_path / "token"
    path.write_bytes("\ufeff".encode() + token.encode("utf-8") + b"\r\n")
    assert read_token(path) == token
    path.write_bytes("\ufeff\r\n".encode())
    with pytest.raises(UsageError, match="holds nothing"):
        read_token(path)


@pytest.fixture
def other_grpc():
    """A gRPC server offering no Milvus service (every call: UNIMPLEMENTED), as another
    service on the port --engine names answers."""
    server = grpc.server(futures.ThreadPoolExecutor(2))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield port
    server.stop(None)


@pytest.mark.parametrize("command", [["query", QUESTION], ["rollback"]])
def test_another_grpc_service_on_the_port_is_named(other_grpc, command):
    url = f"milvus://127.0.0.1:{other_grpc}/kb"
    res = CliRunner().invoke(main, [*command, "--engine", url])
    assert res.exit_code == 1, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and url in lines[0], res.output
    assert "is --engine the port of a Milvus server's gRPC API (default 19530)?" in lines[0]
    assert "see the engine's log" not in lines[0]


def test_a_token_file_that_never_ends_is_refused_at_once(tmp_path):
    """``--token-file`` naming a FIFO nobody writes or a device (/dev/zero) held the command
    forever, reading; a file far larger than any token was read whole. Only a regular file
    of at most `MAX_TOKEN_BYTES` is read, without blocking."""
    fifo = tmp_path / "token.fifo"
    os.mkfifo(fifo)
    big = tmp_path / "token.big"
    big.write_bytes(b"k" * (MAX_TOKEN_BYTES + 1))
    for path, words in [(fifo, "not a regular file"), (Path("/dev/zero"), "not a regular file"),
                        (big, f"larger than {MAX_TOKEN_BYTES} bytes")]:
        res = subprocess.run(
            [sys.executable, "-m", "kbtools", "query", "--engine", "milvus://127.0.0.1:1/kb",
             "--token-file", str(path), QUESTION], capture_output=True, text=True, timeout=60,
            env=env(tmp_path / "home"))
        assert res.returncode == 2, res.stderr
        assert res.stderr.strip().splitlines() == [
            f"kb: error: {path}: cannot read the token file: {words}"]


# what `kb query`'s own search needs, and an engine that does not answer never does
SEARCH_MODULES = ("kbtools.query.search", "kbtools.index.reader", "kbtools.agents.asked",
                  "kbtools.query.quality", "git")


def test_a_query_to_a_wrong_port_loads_no_search(tmp_path):
    """`kb query --engine` to a port nothing listens on imported the index, the search and
    GitPython (~2 s of a 3 s answer under load) before it connected; now the one line
    naming the address comes first and none of them is loaded."""
    from tests.milvus_server import free_port

    port = free_port()
    code = ("import sys\nfrom kbtools.cli import main\n"
            f"try:\n    main(['query', '--engine', 'milvus://127.0.0.1:{port}/kb', "
            f"{QUESTION!r}])\nexcept SystemExit as exc:\n    print(exc.code)\n"
            f"print(sorted(m for m in {SEARCH_MODULES!r} if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env(tmp_path / "home"), timeout=120)
    assert out.stdout.strip().splitlines() == ["1", "[]"], out
    assert f"nothing answers at 127.0.0.1:{port}" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
