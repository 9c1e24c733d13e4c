# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A small ZooKeeper client over ZooKeeper's own wire format (jute), standard library only.

Enough for what the collection does in ZooKeeper: read and delete the few znodes a ZooKeeper-to-KRaft
migration looks at (/cluster/id, /controller, /migration, /brokers/ids), and create znodes with their ACLs
and set their data (the SCRAM users of a ZooKeeper-mode cluster, module zookeeper_scram_users): one
session, one request at a time, no watches. The session is
anonymous unless a user and password are given: then it logs in with SASL DIGEST-MD5 (RFC 2831) as
ZooKeeper's Java client does with a JAAS DigestLoginModule, and the ACL entries sasl:<user> apply to it.
A znode whose ACL does not allow the session a request answers NoAuth, reported as such.
"""

from __future__ import absolute_import, division, print_function


import binascii
import hashlib
import hmac
import os
import socket
import struct

# Operation codes and error codes of ZooKeeper's protocol.
OP_CREATE = 1
OP_DELETE = 2
OP_EXISTS = 3
OP_GET_DATA = 4
OP_SET_DATA = 5
OP_GET_CHILDREN = 8
OP_SASL = 102
OP_CLOSE_SESSION = -11
ERRORS = {
    -4: "connection lost (ConnectionLoss)",
    -101: "no such znode (NoNode)",
    -102: "not authorized (NoAuth)",
    -103: "bad version (BadVersion)",
    -110: "the znode exists already (NodeExists)",
    -111: "the znode has children (NotEmpty)",
    -114: "invalid ACL (InvalidACL)",
    -115: "authentication failed (AuthFailed)",
    -124: "a login failed where the node requires one (SessionClosedRequireSaslAuth)",
}
NO_NODE = -101
NO_AUTH = -102
NODE_EXISTS = -110
# Permissions of an ACL entry, and the entries ZooKeeper's Java client names OPEN_ACL_UNSAFE (anyone may do
# anything), CREATOR_ALL_ACL (all for the ids the creating session logged in with: "auth" stands for them)
# and READ_ACL_UNSAFE (anyone may read). An entry is (permissions, scheme, id).
PERM_READ, PERM_WRITE, PERM_CREATE, PERM_DELETE, PERM_ADMIN = 1, 2, 4, 8, 16
PERM_ALL = 31
OPEN_ACL_UNSAFE = ((PERM_ALL, "world", "anyone"),)
CREATOR_ALL_ACL = ((PERM_ALL, "auth", ""),)
READ_ACL_UNSAFE = ((PERM_READ, "world", "anyone"),)
# Flags of a create request.
CREATE_PERSISTENT = 0
CREATE_PERSISTENT_SEQUENTIAL = 2
# What ZooKeeper's server and Java client both pass to their SASL mechanism: DIGEST-MD5's realm is the
# server name and the client's digest-uri is "zookeeper/zk-sasl-md5", whatever host the node runs on.
SASL_SERVICE = "zookeeper"
SASL_SERVER_NAME = "zk-sasl-md5"
# Replies with these ids are not answers to a request: a watch event, a ping, an authentication answer.
UNSOLICITED_IDS = (-1, -2, -4)
STAT_SIZE = 68
STAT_FIELDS = ("czxid", "mzxid", "ctime", "mtime", "version", "cversion", "aversion", "ephemeral_owner",
               "data_length", "num_children", "pzxid")


class ZooKeeperClientError(Exception):
    """No ZooKeeper node could be reached, a login failed, or a node refused a request for another reason than
    a missing znode."""


def encode_buffer(raw):
    return struct.pack(">i", len(raw)) + raw


def encode_string(text):
    return encode_buffer(text.encode("utf-8"))


def encode_acl(acl):
    """A vector of ACL entries: (permissions, scheme, id) each."""
    return struct.pack(">i", len(acl)) + b"".join(
        struct.pack(">i", perms) + encode_string(scheme) + encode_string(identity) for perms, scheme, identity in acl)


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


# SASL DIGEST-MD5 (RFC 2831), the client's side with qop=auth: the parts that need no connection.

def parse_digest_challenge(token):
    """The directives of a DIGEST-MD5 challenge (or of the server's final rspauth=...) as a dict.

    Names are lower-cased; a value is a token (up to the next comma) or a quoted string, whose backslash
    escapes are undone and in which commas are part of the value. Of a directive given more than once
    (realm may be), the first value is kept.
    """
    text = token.decode("utf-8") if isinstance(token, bytes) else token
    directives = {}
    index, size = 0, len(text)
    while index < size:
        while index < size and text[index] in " \t\r\n,":
            index += 1
        if index >= size:
            break
        equals = text.find("=", index)
        if equals < 0:
            raise ZooKeeperClientError("a DIGEST-MD5 challenge has %r without a value" % text[index:])
        name = text[index:equals].strip().lower()
        if not name or "," in name or '"' in name:
            raise ZooKeeperClientError("a DIGEST-MD5 challenge is not name=value pairs: %r" % text)
        index = equals + 1
        while index < size and text[index] in " \t":
            index += 1
        if index < size and text[index] == '"':
            index += 1
            chars = []
            while True:
                if index >= size:
                    raise ZooKeeperClientError("a DIGEST-MD5 challenge has an unterminated value of %s" % name)
                char = text[index]
                if char == "\\" and index + 1 < size:
                    chars.append(text[index + 1])
                    index += 2
                    continue
                index += 1
                if char == '"':
                    break
                chars.append(char)
            value = "".join(chars)
            while index < size and text[index] in " \t":
                index += 1
            if index < size and text[index] != ",":
                raise ZooKeeperClientError("a DIGEST-MD5 challenge has text after the quoted value of %s" % name)
        else:
            comma = text.find(",", index)
            comma = size if comma < 0 else comma
            value = text[index:comma].strip()
            index = comma
        directives.setdefault(name, value)
    return directives


def _octets(text, utf8):
    """RFC 2831's rule for what gets hashed: ISO 8859-1 when every character fits, else UTF-8 (if agreed)."""
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        if utf8:
            return text.encode("utf-8")
        # Says which value without showing any of it: it may be the password.
        raise ZooKeeperClientError("the user name, realm or password has characters outside ISO 8859-1 and the "
                                   "server did not offer charset=utf-8") from None


def _md5_hex(data):
    return hashlib.md5(data).hexdigest()


def digest_md5_hashes(user, realm, password, nonce, cnonce, digest_uri, nc="00000001", qop="auth",
                      authzid=None, utf8=True):
    """(response, rspauth): the client's proof and the server's answer to expect, both in lower-case hex.

    RFC 2831 2.1.2.1 with algorithm=md5-sess: A1 = H(user:realm:password):nonce:cnonce[:authzid];
    A2 = "AUTHENTICATE:" + digest-uri for the response and ":" + digest-uri for rspauth (qop=auth).
    """
    secret = hashlib.md5(b":".join((_octets(user, utf8), _octets(realm, utf8), _octets(password, utf8)))).digest()
    a1 = b":".join((secret, nonce.encode("utf-8"), cnonce.encode("utf-8")))
    if authzid:
        a1 += b":" + authzid.encode("utf-8")
    ha1 = _md5_hex(a1)
    if qop != "auth":
        raise ZooKeeperClientError("only qop=auth is supported, not %s" % qop)

    def kd(ha2):
        return _md5_hex(":".join((ha1, nonce, nc, cnonce, qop, ha2)).encode("utf-8"))

    response = kd(_md5_hex(("AUTHENTICATE:" + digest_uri).encode("utf-8")))
    rspauth = kd(_md5_hex((":" + digest_uri).encode("utf-8")))
    return response, rspauth


def _quote(value):
    return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')


def new_cnonce():
    return binascii.hexlify(os.urandom(16)).decode("ascii")


def digest_md5_response(challenge, user, password, cnonce, service=SASL_SERVICE, server_name=SASL_SERVER_NAME):
    """(the client's response token as bytes, the rspauth value to expect) for a parsed challenge."""
    if challenge.get("algorithm", "").lower() != "md5-sess":
        raise ZooKeeperClientError("the DIGEST-MD5 challenge asks for algorithm %r, not md5-sess"
                                   % challenge.get("algorithm"))
    nonce = challenge.get("nonce")
    if not nonce:
        raise ZooKeeperClientError("the DIGEST-MD5 challenge has no nonce")
    offered = [qop.strip().lower() for qop in challenge.get("qop", "auth").split(",")]
    if "auth" not in offered:
        raise ZooKeeperClientError("the DIGEST-MD5 challenge offers qop %s, not auth" % ",".join(offered))
    utf8 = challenge.get("charset", "").lower() == "utf-8"
    realm = challenge.get("realm")
    digest_uri = "%s/%s" % (service, server_name)
    nc = "00000001"
    response, rspauth = digest_md5_hashes(user, realm or "", password, nonce, cnonce, digest_uri, nc=nc,
                                          utf8=utf8)
    fields = ["charset=utf-8"] if utf8 else []
    fields.append("username=%s" % _quote(user))
    if realm is not None:
        fields.append("realm=%s" % _quote(realm))
    fields.extend(["nonce=%s" % _quote(nonce), "nc=%s" % nc, "cnonce=%s" % _quote(cnonce),
                   "digest-uri=%s" % _quote(digest_uri), "response=%s" % response, "qop=auth"])
    return ",".join(fields).encode("utf-8" if utf8 else "latin-1"), rspauth


def check_rspauth(token, expected):
    """Mutual authentication: the server's last token must prove it knows the password too."""
    if not token:
        # What a node with zookeeper.allowSaslFailedClients=true answers to a wrong password: no error, no token.
        raise ZooKeeperClientError("the node did not confirm the login (its answer has no rspauth: a wrong user "
                                   "name or password where the node lets failed logins keep their session)")
    found = parse_digest_challenge(token).get("rspauth")
    if found is None:
        raise ZooKeeperClientError("the node's last SASL token has no rspauth")
    if not hmac.compare_digest(found.lower().encode("ascii", "replace"), expected.encode("ascii")):
        raise ZooKeeperClientError("the node's rspauth does not match: it does not know this user's password")


class ZooKeeperClient(object):
    """One session with the first node of `servers` ('host:port' strings) that answers.

    With `sasl_user` and `sasl_password`, the session logs in with SASL DIGEST-MD5 as soon as it is
    established; a failed login is an error (the next node is not tried: it would refuse the same login).
    """

    def __init__(self, servers, timeout=10.0, sasl_user=None, sasl_password=None):
        if (sasl_user is None) != (sasl_password is None):
            raise ValueError("sasl_user and sasl_password go together")
        self.servers = list(servers)
        self.timeout = timeout
        self.sasl_user = sasl_user
        self.sasl_password = sasl_password
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
            except (OSError, ValueError, ZooKeeperClientError) as error:
                problems.append("%s: %s" % (server, error))
                continue
            if self.sasl_user is not None:
                self._login()
            return
        raise ZooKeeperClientError("no ZooKeeper node answered: %s" % "; ".join(problems))

    def _login(self):
        """SASL DIGEST-MD5 in SetSASL requests: an empty token, the challenge, the response, rspauth."""
        try:
            error, reply = self._call(OP_SASL, encode_buffer(b""))
            self._check_sasl_error(error)
            challenge = reply.buffer()
            if not challenge:
                raise ZooKeeperClientError("the node offered no DIGEST-MD5 challenge (does it have SASL logins, a "
                                           "JAAS Server section with DigestLoginModule?)")
            token, rspauth = digest_md5_response(parse_digest_challenge(challenge), self.sasl_user,
                                                 self.sasl_password, new_cnonce())
            error, reply = self._call(OP_SASL, encode_buffer(token))
            self._check_sasl_error(error)
            check_rspauth(reply.buffer(), rspauth)
        except (OSError, ValueError, ZooKeeperClientError) as error:
            server = self.server
            self.close()
            if isinstance(error, UnicodeError):
                error = "a SASL token is not text"
            raise ZooKeeperClientError("the SASL (DIGEST-MD5) login as user '%s' at %s failed: %s"
                                       % (self.sasl_user, server, error)) from None

    @staticmethod
    def _check_sasl_error(error):
        if error in (-115, -124):
            raise ZooKeeperClientError("wrong user name or password: the node answered %s, error %d, and closed "
                                       "the session" % (ERRORS[error], error))
        if error != 0:
            raise ZooKeeperClientError("the node answered %s, error %d" % (ERRORS.get(error, "an error"), error))

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
        """The reply's body, or None for a znode that does not exist; any other error raised, explained."""
        error, reply = self._call(op, body)
        if error == NO_NODE:
            return None
        if error != 0:
            self._raise(path, op, error)
        return reply

    def _raise(self, path, op, error):
        if error == NO_AUTH:
            who = ("an anonymous session (no SASL login)" if self.sasl_user is None
                   else "the session of sasl:%s" % self.sasl_user)
            parent = path.rsplit("/", 1)[0] or "/"
            if op == OP_DELETE:
                what = "the ACL of %s does not let %s delete its children" % (parent, who)
            elif op == OP_CREATE:
                what = "the ACL of %s does not let %s create children" % (parent, who)
            elif op == OP_SET_DATA:
                what = "its ACL does not let %s change it" % who
            else:
                what = "its ACL does not let %s read it" % who
            raise ZooKeeperClientError("%s: %s, error %d: %s" % (path, ERRORS[error], error, what))
        raise ZooKeeperClientError("%s: %s, error %d" % (path, ERRORS.get(error, "refused"), error))

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

    def create(self, path, data=b"", acl=OPEN_ACL_UNSAFE, sequential=False):
        """Creates a persistent znode (with a sequence number appended: sequential); its path as created, or
        None when a znode of that path exists already. Its parent must exist."""
        flags = CREATE_PERSISTENT_SEQUENTIAL if sequential else CREATE_PERSISTENT
        body = encode_string(path) + encode_buffer(data) + encode_acl(acl) + struct.pack(">i", flags)
        error, reply = self._call(OP_CREATE, body)
        if error == NODE_EXISTS:
            return None
        if error == NO_NODE:
            raise ZooKeeperClientError("%s: its parent %s does not exist" % (path, path.rsplit("/", 1)[0] or "/"))
        if error != 0:
            self._raise(path, OP_CREATE, error)
        return reply.string()

    def set_data(self, path, data, version=-1):
        """Replaces a znode's data when its version is still `version` (-1: any); its new stat."""
        reply = self._checked(path, OP_SET_DATA, encode_string(path) + encode_buffer(data) + struct.pack(">i", version))
        if reply is None:
            raise ZooKeeperClientError("%s: %s" % (path, ERRORS[NO_NODE]))
        return parse_stat(reply)


def session_argument_spec(**more):
    """The options every ZooKeeper module takes to reach the ensemble (doc fragment zookeeper_session), with
    the module's own."""
    spec = dict(
        servers=dict(type="list", elements="str", required=True),
        timeout=dict(type="int", default=10),
        sasl_user=dict(type="str"),
        sasl_password=dict(type="str", no_log=True),
    )
    spec.update(more)
    return spec


def session_input_problem(params):
    """What is wrong with the session's options, naming the option; None when nothing is."""
    for server in params["servers"]:
        host, separator, port = server.rpartition(":")
        if not separator or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
            return "servers: %r is not host:port with a port from 1 to 65535" % server
    if params["timeout"] < 1:
        return "timeout: expected 1 or more, got %d" % params["timeout"]
    return None


def open_session(params):
    """A ZooKeeperClient for the session's options, not yet connected (use it with `with`)."""
    return ZooKeeperClient(params["servers"], params["timeout"], sasl_user=params["sasl_user"],
                           sasl_password=params["sasl_password"])
