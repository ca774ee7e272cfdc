"""The tests' loopback ports (`tests/ports.py`): a port handed to one pytest worker's server
is not one the other worker, a connection's own end or a `bind(0)` can take meanwhile, so a
server started (or started again) on it gets it, and nothing answers where nothing listens."""

from __future__ import annotations

import socket
from contextlib import ExitStack

import pytest

from tests import milvus_server, servefixtures, test_release_helpers
from tests.ports import ephemeral_range, free_port, refusing_port, worker_share


def test_every_server_helper_takes_its_port_the_one_way():
    assert servefixtures.free_port is free_port
    assert test_release_helpers.free_port is free_port
    assert milvus_server.free_port is free_port


def test_two_workers_never_get_the_same_port_nor_one_the_kernel_hands_out(monkeypatch):
    """Each of two workers' 300 ports: none the other's, none in the kernel's own range
    (where the old `bind(0)` picked, and where every outgoing connection's end is)."""
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    got = {}
    for worker in ("gw0", "gw1"):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        got[worker] = {free_port() for _ in range(300)}
    assert len(got["gw0"]) == len(got["gw1"]) == 300  # none handed out twice
    assert not got["gw0"] & got["gw1"]
    low, high = ephemeral_range()
    assert not [p for p in got["gw0"] | got["gw1"] if low <= p <= high]
    with socket.socket() as s:  # what the kernel picks is none of them
        s.bind(("127.0.0.1", 0))
        assert s.getsockname()[1] not in got["gw0"] | got["gw1"]


def test_a_port_some_socket_holds_is_passed_over(monkeypatch):
    """With all but one port of a worker's share held (bound, listening, connected), that
    one is handed out, every time."""
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "3000")  # shares of 4 ports
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw7")
    share = worker_share()
    with ExitStack() as stack:
        listener = stack.enter_context(socket.create_server(("127.0.0.1", share[0])))
        stack.enter_context(socket.create_connection(("127.0.0.1", share[0])))
        bound = stack.enter_context(socket.socket())
        bound.bind(("127.0.0.1", share[1]))
        stack.enter_context(socket.create_server(("127.0.0.1", share[3])))
        assert listener.getsockname()[1] == share[0]
        assert {free_port() for _ in range(5)} == {share[2]}
        stack.enter_context(socket.create_server(("127.0.0.1", share[2])))
        with pytest.raises(RuntimeError, match=f"{share.start}-{share.stop - 1}"):
            free_port()


def test_an_address_where_nothing_listens_stays_so_for_the_test():
    """`refusing_port`'s port refuses connections, and no server binds it while the test
    holds it, not even one reusing addresses as `http.server` and `git daemon` do: a
    `free_port` merely found free could be taken by a suite running beside this one."""
    with refusing_port() as port:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=10).close()
        with pytest.raises(OSError):
            socket.create_server(("127.0.0.1", port)).close()  # sets SO_REUSEADDR
    with socket.create_server(("127.0.0.1", port)):  # free once the test is done with it
        pass
