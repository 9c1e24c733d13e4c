# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A small ZooKeeper client over ZooKeeper's own wire format (jute), standard library only.

Enough to read and delete the few znodes a ZooKeeper-to-KRaft migration looks at (/cluster/id,
/controller, /migration, /brokers/ids): one session, one request at a time, no watches, no
authentication (a node protected by ACLs answers NOAUTH, reported as such).
"""

from __future__ import absolute_import, division, print_function


import socket
import struct

# Operation codes and error codes of ZooKeeper's protocol.
OP_DELETE = 2
OP_EXISTS = 3
OP_GET_DATA = 4
OP_GET_CHILDREN = 8
OP_CLOSE_SESSION = -11
ERRORS = {
    -4: "connection lost",
    -101: "no such znode",
    -102: "not authorized (the znode has ACLs: this client does not log in)",
    -103: "bad version",
    -111: "the znode has children",
}
NO_NODE = -101
# Replies with these ids are not answers to a request: a watch event, a ping, an authentication answer.
UNSOLICITED_IDS = (-1, -2, -4)
STAT_SIZE = 68
STAT_FIELDS = ("czxid", "mzxid", "ctime", "mtime", "version", "cversion", "aversion", "ephemeral_owner",
               "data_length", "num_children", "pzxid")


class ZooKeeperClientError(Exception):
    """No ZooKeeper node could be reached, or it refused a request for another reason than a missing znode."""


def encode_string(text):
    raw = text.encode("utf-8")
    return struct.pack(">i", len(raw)) + raw


def encode_connect(timeout_ms):
    """A new session's connect request: protocol 0, no last zxid, no session id, an empty password."""
    return struct.pack(">iqiqi", 0, 0, timeout_ms, 0, 16) + b"\0" * 16 + b"\0"


def encode_request(xid, op, body=b""):
    payload = struct.pack(">ii", xid, op) + body
    return struct.pack(">i", len(payload)) + payload


def frame(payload):
    return struct.pack(">i", len(payload)) + payload


class Reader(object):
    """Reads jute's big-endian fields from one reply."""

    def __init__(self, data):
        self.data = data
        self.offset = 0

    def take(self, size):
        if self.offset + size > len(self.data):
            raise ZooKeeperClientError("a reply ended early (%d bytes, %d more wanted at %d)"
                                       % (len(self.data), size, self.offset))
        chunk = self.data[self.offset:self.offset + size]
        self.offset += size
        return chunk

    def int32(self):
        return struct.unpack(">i", self.take(4))[0]

    def int64(self):
        return struct.unpack(">q", self.take(8))[0]

    def buffer(self):
        size = self.int32()
        return None if size < 0 else self.take(size)

    def string(self):
        raw = self.buffer()
        return None if raw is None else raw.decode("utf-8", "replace")


def parse_stat(reader):
    fields = struct.unpack(">qqqqiiiqiiq", reader.take(STAT_SIZE))
    return dict((name, fields[index]) for index, name in enumerate(STAT_FIELDS))


class ZooKeeperClient(object):
    """One session with the first node of `servers` ('host:port' strings) that answers."""

    def __init__(self, servers, timeout=10.0):
        self.servers = list(servers)
        self.timeout = timeout
        self.sock = None
        self.server = None
        self.xid = 0

    def __enter__(self):
        self.connect()
        return self

    def __exit__(self, *exc):
        self.close()

    def connect(self):
        problems = []
        for server in self.servers:
            host, port = server.rsplit(":", 1)
            try:
                sock = socket.create_connection((host, int(port)), timeout=self.timeout)
                sock.settimeout(self.timeout)
                sock.sendall(frame(encode_connect(int(self.timeout * 1000))))
                reply = Reader(self._read_frame(sock))
                reply.int32()
                negotiated = reply.int32()
                if negotiated <= 0:
                    sock.close()
                    problems.append("%s: refused the session" % server)
                    continue
                self.sock, self.server = sock, server
                return
            except (OSError, ValueError, ZooKeeperClientError) as error:
                problems.append("%s: %s" % (server, error))
        raise ZooKeeperClientError("no ZooKeeper node answered: %s" % "; ".join(problems))

    def close(self):
        if self.sock is None:
            return
        try:
            self._call(OP_CLOSE_SESSION)
        except (OSError, ZooKeeperClientError):
            pass
        self.sock.close()
        self.sock = None

    @staticmethod
    def _read_exactly(sock, size):
        chunks = []
        while size > 0:
            chunk = sock.recv(size)
            if not chunk:
                raise ZooKeeperClientError("the node closed the connection")
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def _read_frame(self, sock):
        size = struct.unpack(">i", self._read_exactly(sock, 4))[0]
        return self._read_exactly(sock, size)

    def _call(self, op, body=b""):
        """Sends one request; returns (error code, reader positioned at the reply's body)."""
        self.xid += 1
        self.sock.sendall(encode_request(self.xid, op, body))
        while True:
            reply = Reader(self._read_frame(self.sock))
            xid = reply.int32()
            reply.int64()
            error = reply.int32()
            if xid in UNSOLICITED_IDS:
                continue
            if xid != self.xid:
                raise ZooKeeperClientError("a reply to request %d came for request %d" % (xid, self.xid))
            return error, reply

    def _checked(self, path, op, body):
        error, reply = self._call(op, body)
        if error == NO_NODE:
            return None
        if error != 0:
            raise ZooKeeperClientError("%s: %s (error %d)" % (path, ERRORS.get(error, "refused"), error))
        return reply

    def get(self, path):
        """(data as bytes or None, stat) of a znode, or None when it does not exist."""
        reply = self._checked(path, OP_GET_DATA, encode_string(path) + b"\0")
        if reply is None:
            return None
        data = reply.buffer()
        return data, parse_stat(reply)

    def children(self, path):
        """The names of a znode's children, sorted, or None when it does not exist."""
        reply = self._checked(path, OP_GET_CHILDREN, encode_string(path) + b"\0")
        if reply is None:
            return None
        count = reply.int32()
        return sorted(reply.string() for index in range(count))

    def delete(self, path):
        """Deletes a znode (any version); True when it was there."""
        return self._checked(path, OP_DELETE, encode_string(path) + struct.pack(">i", -1)) is not None
