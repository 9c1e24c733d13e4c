"""The ZooKeeper client's wire format, against a scripted server on loopback that answers as ZooKeeper does."""

import hashlib
import socket
import struct
import threading

import pytest

from ansible_collections.kafkaops.cluster.plugins.module_utils._zookeeper_client import (
    CREATOR_ALL_ACL,
    OP_CREATE,
    OP_DELETE,
    OP_GET_CHILDREN,
    OP_GET_DATA,
    OP_SASL,
    OP_SET_DATA,
    READ_ACL_UNSAFE,
    Reader,
    ZooKeeperClient,
    ZooKeeperClientError,
    check_rspauth,
    digest_md5_hashes,
    digest_md5_response,
    encode_connect,
    encode_request,
    encode_string,
    parse_digest_challenge,
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


# What ZooKeeper 3.8's DIGEST-MD5 server sends first (the nonce is random).
CHALLENGE = b'realm="zk-sasl-md5",nonce="9Yc1bM3x0Lq+T2h8pQ",charset=utf-8,algorithm=md5-sess'


class ScriptedZooKeeper(object):
    """Accepts one session; answers requests from a dict of znodes {path: (data, children)}.

    With `users` ({name: password}) it also takes SASL DIGEST-MD5 logins as ZooKeeper does; the children
    of a path in `protected` can then be deleted only by a logged-in session. `sasl` says how the server
    ends a login: "zookeeper" (rspauth, or AuthFailed and a closed connection), "lenient" (a wrong password
    answered with no token and no error, as with zookeeper.allowSaslFailedClients), "forged" (a wrong
    rspauth) or "none" (no SASL configured: null tokens).
    """

    def __init__(self, znodes, refuse_session=False, users=None, protected=(), sasl="zookeeper"):
        self.znodes = dict(znodes)
        # ACLs of the znodes created in the session, as ZooKeeper stores them ("auth" made the login's id).
        self.acls = {}
        self.versions = {}
        self.sequence = 0
        self.refuse_session = refuse_session
        self.users = users or {}
        self.protected = set(protected)
        self.sasl = sasl
        self.logged_in = None
        self.sasl_tokens = []
        self.xids = []
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

    def answer_sasl(self, conn, xid, token):
        """One SetSASL request; False when the server closes the connection after it."""
        self.sasl_tokens.append(token)
        if self.sasl == "none":
            self.send(conn, struct.pack(">iqii", xid, 0, 0, -1))
            return True
        if not token:
            self.send(conn, struct.pack(">iqii", xid, 0, 0, len(CHALLENGE)) + CHALLENGE)
            return True
        fields = parse_digest_challenge(token)
        password = self.users.get(fields["username"], "")
        assert fields["digest-uri"] == "zookeeper/zk-sasl-md5" and fields["nc"] == "00000001"
        expected, rspauth = digest_md5_hashes(fields["username"], fields["realm"], password, fields["nonce"],
                                              fields["cnonce"], fields["digest-uri"])
        if self.sasl == "forged":
            rspauth = "0" * 32
        if fields["response"] == expected:
            self.logged_in = fields["username"]
            answer = ("rspauth=%s" % rspauth).encode("ascii")
            self.send(conn, struct.pack(">iqii", xid, 0, 0, len(answer)) + answer)
            return True
        if self.sasl == "lenient":
            self.send(conn, struct.pack(">iqii", xid, 0, 0, -1))
            return True
        self.send(conn, struct.pack(">iqii", xid, 0, -115, -1))
        return False

    def answer_create(self, conn, xid, path, request):
        data = request.buffer()
        acl = [(request.int32(), request.string(), request.string()) for index in range(request.int32())]
        flags = request.int32()
        parent, name = path.rsplit("/", 1)
        parent = parent or "/"
        if flags & 2:
            path, name = "%s%010d" % (path, self.sequence), "%s%010d" % (name, self.sequence)
            self.sequence += 1
        if path in self.znodes:
            self.send(conn, struct.pack(">iqi", xid, 9, -110))
        elif parent != "/" and parent not in self.znodes:
            self.send(conn, struct.pack(">iqi", xid, 9, -101))
        else:
            self.znodes[path] = (data, [])
            if parent in self.znodes:
                self.znodes[parent][1].append(name)
            self.acls[path] = [(perms, "sasl", self.logged_in) if scheme == "auth" else (perms, scheme, identity)
                               for perms, scheme, identity in acl]
            self.send(conn, struct.pack(">iqi", xid, 9, 0) + encode_string(path))

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
                    self.xids.append(xid)
                    if op == -11:
                        self.send(conn, struct.pack(">iqi", xid, 9, 0))
                        return
                    if op == OP_SASL:
                        if not self.answer_sasl(conn, xid, request.buffer()):
                            return
                        continue
                    path = request.string()
                    if op == OP_CREATE:
                        self.answer_create(conn, xid, path, request)
                        continue
                    if path not in self.znodes:
                        self.send(conn, struct.pack(">iqi", xid, 9, -101))
                    elif op == OP_DELETE and path.rsplit("/", 1)[0] in self.protected and not self.logged_in:
                        self.send(conn, struct.pack(">iqi", xid, 9, -102))
                    elif op == OP_GET_DATA:
                        data = self.znodes[path][0]
                        self.send(conn, struct.pack(">iqi", xid, 9, 0) + struct.pack(">i", len(data)) + data
                                  + stat(self.versions.get(path, 3)))
                    elif op == OP_GET_CHILDREN:
                        names = self.znodes[path][1]
                        self.send(conn, struct.pack(">iqii", xid, 9, 0, len(names))
                                  + b"".join(encode_string(name) for name in names))
                    elif op == OP_SET_DATA:
                        data, version = request.buffer(), request.int32()
                        if version not in (-1, self.versions.get(path, 3)):
                            self.send(conn, struct.pack(">iqi", xid, 9, -103))
                            continue
                        self.znodes[path] = (data, self.znodes[path][1])
                        self.versions[path] = self.versions.get(path, 3) + 1
                        self.send(conn, struct.pack(">iqi", xid, 9, 0) + stat(self.versions[path]))
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


def test_digest_md5_computes_the_worked_example_of_rfc_2831():
    assert digest_md5_hashes("chris", "elwood.innosoft.com", "secret", "OA6MG9tEQGm2hh", "OA6MHXh6VqTrRk",
                             "imap/elwood.innosoft.com") == ("d388dad90d4bbd760a152321f2143af7",
                                                             "ea40f60335c427b5527b84dbabcdfffd")
    challenge = parse_digest_challenge(b'realm="elwood.innosoft.com",nonce="OA6MG9tEQGm2hh",qop="auth",'
                                       b'algorithm=md5-sess,charset=utf-8')
    token, rspauth = digest_md5_response(challenge, "chris", "secret", "OA6MHXh6VqTrRk", "imap",
                                         "elwood.innosoft.com")
    assert token == (b'charset=utf-8,username="chris",realm="elwood.innosoft.com",nonce="OA6MG9tEQGm2hh",'
                     b'nc=00000001,cnonce="OA6MHXh6VqTrRk",digest-uri="imap/elwood.innosoft.com",'
                     b'response=d388dad90d4bbd760a152321f2143af7,qop=auth')
    check_rspauth(b"rspauth=ea40f60335c427b5527b84dbabcdfffd", rspauth)
    for wrong in (b"rspauth=ea40f60335c427b5527b84dbabcdfffe", b"rspauth=", b'nonce="x"', b"", None):
        with pytest.raises(ZooKeeperClientError, match="rspauth"):
            check_rspauth(wrong, rspauth)


def test_a_digest_challenge_is_parsed_with_quoted_and_unquoted_values():
    assert parse_digest_challenge(b'realm="zk-sasl-md5",nonce="a,b=c",qop="auth,auth-int,auth-conf",'
                                  b'charset=utf-8,algorithm=md5-sess') == {
        "realm": "zk-sasl-md5", "nonce": "a,b=c", "qop": "auth,auth-int,auth-conf", "charset": "utf-8",
        "algorithm": "md5-sess"}
    # Blanks around the pairs, empty list elements, escapes, upper-case names, a realm given twice.
    assert parse_digest_challenge(' Realm = "one" ,, realm="two", nonce="say \\"hi\\" \\\\",maxbuf=65536 ,') == {
        "realm": "one", "nonce": 'say "hi" \\', "maxbuf": "65536"}
    assert parse_digest_challenge("") == {}
    for broken in ('nonce="open', "nonce", 'nonce="a"b', '="x"'):
        with pytest.raises(ZooKeeperClientError, match="DIGEST-MD5 challenge"):
            parse_digest_challenge(broken)


def test_a_response_needs_what_zookeeper_offers():
    base = {"realm": "zk-sasl-md5", "nonce": "n", "charset": "utf-8", "algorithm": "md5-sess"}
    token, rspauth = digest_md5_response(base, "kafka", "pw", "c")
    fields = parse_digest_challenge(token)
    assert fields["digest-uri"] == "zookeeper/zk-sasl-md5" and fields["realm"] == "zk-sasl-md5"
    assert (fields["response"], rspauth) == digest_md5_hashes("kafka", "zk-sasl-md5", "pw", "n", "c",
                                                              "zookeeper/zk-sasl-md5")
    for changes, message in (({"algorithm": "md5"}, "md5-sess"), ({"nonce": ""}, "no nonce"),
                             ({"qop": "auth-conf"}, "not auth")):
        with pytest.raises(ZooKeeperClientError, match=message):
            digest_md5_response(dict(base, **changes), "kafka", "pw", "c")
    # A password of ISO 8859-1 characters is hashed as such even with charset=utf-8 (RFC 2831 2.1.2.1), as
    # Java's DIGEST-MD5 does; one with other characters as UTF-8.
    assert digest_md5_hashes("kafka", "r", "p\xe4ss", "n", "c", "u") == digest_md5_hashes(
        "kafka", "r", "p\xe4ss", "n", "c", "u", utf8=False)
    secret = hashlib.md5("kafka:r:p\u20acss".encode("utf-8")).digest()
    ha1 = hashlib.md5(secret + b":n:c").hexdigest()
    ha2 = hashlib.md5(b"AUTHENTICATE:u").hexdigest()
    assert digest_md5_hashes("kafka", "r", "p\u20acss", "n", "c", "u")[0] == hashlib.md5(
        ("%s:n:00000001:c:auth:%s" % (ha1, ha2)).encode("ascii")).hexdigest()
    with pytest.raises(ZooKeeperClientError) as error:
        digest_md5_response(dict(base, charset=""), "kafka", "secret\u20ac", "c")
    assert "secret" not in str(error.value) and "ISO 8859-1" in str(error.value)


def test_a_login_lets_the_session_delete_what_the_acl_keeps_from_anonymous_ones():
    znodes = {"/kafka/controller": (b'{"brokerid":1}', [])}
    server = ScriptedZooKeeper(znodes, protected=["/kafka"])
    with ZooKeeperClient([server.address], timeout=2) as client:
        with pytest.raises(ZooKeeperClientError) as error:
            client.delete("/kafka/controller")
    assert str(error.value) == ("/kafka/controller: not authorized (NoAuth), error -102: the ACL of /kafka does "
                                "not let an anonymous session (no SASL login) delete its children")
    server = ScriptedZooKeeper(znodes, users={"kafka": "s3cret"}, protected=["/kafka"])
    with ZooKeeperClient([server.address], timeout=2, sasl_user="kafka", sasl_password="s3cret") as client:
        assert client.delete("/kafka/controller") is True
    assert server.logged_in == "kafka" and "/kafka/controller" not in server.znodes
    # An empty token first, as ZooKeeper's Java client sends; xids as for any request.
    assert server.sasl_tokens[0] == b"" and len(server.sasl_tokens) == 2
    assert server.xids == [1, 2, 3, 4]


@pytest.mark.parametrize("sasl, reason", [
    ("zookeeper", "wrong user name or password: the node answered authentication failed (AuthFailed), error -115"),
    ("lenient", "did not confirm the login"),
    ("forged", "rspauth does not match"),
    ("none", "offered no DIGEST-MD5 challenge"),
])
def test_a_failed_login_names_the_user_and_the_node_never_the_password(sasl, reason):
    server = ScriptedZooKeeper({}, users={"kafka": "s3cret"}, sasl=sasl)
    client = ZooKeeperClient([server.address], timeout=2, sasl_user="kafka",
                             sasl_password="s3cret" if sasl == "forged" else "wrong-pw")
    with pytest.raises(ZooKeeperClientError) as error:
        client.connect()
    message = str(error.value)
    assert message.startswith("the SASL (DIGEST-MD5) login as user 'kafka' at %s failed: " % server.address)
    assert reason in message and "wrong-pw" not in message and "s3cret" not in message
    assert client.sock is None


def test_a_user_needs_a_password():
    with pytest.raises(ValueError, match="go together"):
        ZooKeeperClient(["127.0.0.1:2181"], sasl_user="kafka")


def test_creates_znodes_with_their_acl_and_replaces_data_by_version():
    server = ScriptedZooKeeper({"/kafka": (b"", [])}, users={"kafka": "zk-secret"})
    with ZooKeeperClient([server.address], timeout=2, sasl_user="kafka", sasl_password="zk-secret") as client:
        assert client.create("/kafka/config", b"", CREATOR_ALL_ACL + READ_ACL_UNSAFE) == "/kafka/config"
        assert client.create("/kafka/config", b"again") is None
        with pytest.raises(ZooKeeperClientError, match="/kafka/none/x: its parent /kafka/none does not exist"):
            client.create("/kafka/none/x", b"")
        first = client.create("/kafka/config/change_", b"1", sequential=True)
        second = client.create("/kafka/config/change_", b"2", sequential=True)
        assert (first, second) == ("/kafka/config/change_0000000000", "/kafka/config/change_0000000001")
        assert client.set_data("/kafka/config", b"new", 3)["version"] == 4
        with pytest.raises(ZooKeeperClientError, match="/kafka/config: bad version"):
            client.set_data("/kafka/config", b"stale", 3)
        assert client.get("/kafka/config")[0] == b"new"
    assert server.znodes["/kafka"][1] == ["config"]
    assert server.acls["/kafka/config"] == [(31, "sasl", "kafka"), (1, "world", "anyone")]
