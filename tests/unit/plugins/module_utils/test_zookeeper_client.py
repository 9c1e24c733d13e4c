"""The ZooKeeper client's wire format, against a scripted server on loopback that answers as ZooKeeper does."""

import socket
import struct
import threading

import pytest

from ansible_collections.kafkaops.cluster.plugins.module_utils._zookeeper_client import (
    OP_DELETE,
    OP_GET_CHILDREN,
    OP_GET_DATA,
    Reader,
    ZooKeeperClient,
    ZooKeeperClientError,
    encode_connect,
    encode_request,
    encode_string,
)


def test_requests_are_encoded_as_jute():
    assert encode_string("/a") == b"\0\0\0\x02/a"
    connect = encode_connect(10000)
    assert len(connect) == 4 + 8 + 4 + 8 + 4 + 16 + 1
    assert struct.unpack(">iqiq", connect[:24]) == (0, 0, 10000, 0)
    assert encode_request(7, OP_GET_DATA, b"xy") == struct.pack(">iii", 10, 7, OP_GET_DATA) + b"xy"


def test_a_short_reply_is_an_error_not_garbage():
    with pytest.raises(ZooKeeperClientError, match="ended early"):
        Reader(b"\0\0").int32()


def stat(version=3, owner=0):
    return struct.pack(">qqqqiiiqiiq", 1, 2, 3, 4, version, 0, 0, owner, 0, 0, 5)


class ScriptedZooKeeper(object):
    """Accepts one session; answers requests from a dict of znodes {path: (data, children)}."""

    def __init__(self, znodes, refuse_session=False):
        self.znodes = dict(znodes)
        self.refuse_session = refuse_session
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.address = "127.0.0.1:%d" % self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    @staticmethod
    def read(conn, size):
        data = b""
        while len(data) < size:
            chunk = conn.recv(size - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def frame(self, conn):
        return self.read(conn, struct.unpack(">i", self.read(conn, 4))[0])

    @staticmethod
    def send(conn, payload):
        conn.sendall(struct.pack(">i", len(payload)) + payload)

    def serve(self):
        conn = self.listener.accept()[0]
        with conn:
            self.frame(conn)
            timeout = 0 if self.refuse_session else 10000
            self.send(conn, struct.pack(">iiqi", 0, timeout, 42, 16) + b"\0" * 16)
            if self.refuse_session:
                return
            # A watch event first, which the client must skip.
            self.send(conn, struct.pack(">iqi", -1, 0, 0))
            try:
                while True:
                    request = Reader(self.frame(conn))
                    xid, op = request.int32(), request.int32()
                    if op == -11:
                        self.send(conn, struct.pack(">iqi", xid, 9, 0))
                        return
                    path = request.string()
                    if path not in self.znodes:
                        self.send(conn, struct.pack(">iqi", xid, 9, -101))
                    elif op == OP_GET_DATA:
                        data = self.znodes[path][0]
                        self.send(conn, struct.pack(">iqi", xid, 9, 0) + struct.pack(">i", len(data)) + data + stat())
                    elif op == OP_GET_CHILDREN:
                        names = self.znodes[path][1]
                        self.send(conn, struct.pack(">iqii", xid, 9, 0, len(names))
                                  + b"".join(encode_string(name) for name in names))
                    elif op == OP_DELETE:
                        if self.znodes[path][1]:
                            self.send(conn, struct.pack(">iqi", xid, 9, -111))
                        else:
                            del self.znodes[path]
                            self.send(conn, struct.pack(">iqi", xid, 9, 0))
            except EOFError:
                return


def test_reads_children_and_deletes_against_a_server():
    server = ScriptedZooKeeper({"/cluster/id": (b'{"id":"abc"}', []), "/brokers/ids": (b"", ["2", "1"]),
                                "/controller": (b'{"brokerid":1}', [])})
    with ZooKeeperClient(["127.0.0.1:1", server.address], timeout=2) as client:
        assert client.server == server.address
        data, node_stat = client.get("/cluster/id")
        assert data == b'{"id":"abc"}' and node_stat["version"] == 3
        assert client.get("/migration") is None
        assert client.children("/brokers/ids") == ["1", "2"]
        assert client.delete("/controller") is True
        assert client.delete("/controller") is False
        with pytest.raises(ZooKeeperClientError, match="/brokers/ids: the znode has children"):
            client.delete("/brokers/ids")
    assert "/controller" not in server.znodes


def test_no_server_answering_names_each_one():
    with pytest.raises(ZooKeeperClientError, match="127.0.0.1:1: .*refused"):
        ZooKeeperClient(["127.0.0.1:1"], timeout=1).connect()
    server = ScriptedZooKeeper({}, refuse_session=True)
    with pytest.raises(ZooKeeperClientError, match="refused the session"):
        ZooKeeperClient([server.address], timeout=2).connect()
