"""Reading certificates without a third-party parser: names, serial and validity from DER, agreeing with what
cryptography reads; the expiry window; the certificate a TLS server on loopback serves, verified or not."""

import datetime
import socket
import ssl
import threading

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils import _certificates
from ansible_collections.kafkaops.cluster.plugins.module_utils._certificates import (
    CertificateError,
    expiry_sentence,
    iso_utc,
    parse_certificate,
    pem_certificates,
    read_served_certificates,
    served_certificate,
    validity_entry,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import run_side_by_side
from ansible_collections.kafkaops.cluster.tests.unit.plugins.certificate_samples import (
    NOW,
    ca,
    issue,
    name,
    rsa_key,
)
from cryptography import x509
from cryptography.x509.oid import NameOID

UTC = datetime.UTC


def _agrees_with_cryptography(issued):
    parsed = parse_certificate(issued.der)
    certificate = issued.certificate
    assert parsed["subject"] == certificate.subject.rfc4514_string()
    assert parsed["issuer"] == certificate.issuer.rfc4514_string()
    assert int(parsed["serial"], 16) == certificate.serial_number
    assert parsed["not_before"] == certificate.not_valid_before_utc
    assert parsed["not_after"] == certificate.not_valid_after_utc
    return parsed


@pytest.mark.parametrize("subject", [
    name("kafka1"),
    name("kafka1", x509.NameAttribute(NameOID.COUNTRY_NAME, "DE"),
         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Acme")),
    # Characters RFC 4514 escapes, and a leading space and '#'.
    name("a,b+c\"d\\e<f>g;h=i", x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, " #lead and trail ")),
    # Not ASCII (a UTF8String), and an attribute without a short name (written as its dotted OID).
    name("Zürich-ß", x509.NameAttribute(NameOID.EMAIL_ADDRESS, "ops@example.test")),
    # Two attributes in one relative name.
    x509.Name([x509.RelativeDistinguishedName([x509.NameAttribute(NameOID.COMMON_NAME, "kafka1"),
                                               x509.NameAttribute(NameOID.USER_ID, "k1")])]),
], ids=["common-name", "country-organisation", "escaped", "utf8-and-oid", "multi-valued"])
def test_names_read_as_cryptography_writes_them(subject):
    _agrees_with_cryptography(issue(subject, issuer=ca()))


@pytest.mark.parametrize("not_before, not_after", [
    (datetime.datetime(2026, 1, 1, tzinfo=UTC), datetime.datetime(2026, 2, 1, 13, 14, 15, tzinfo=UTC)),
    # From 2050 on a certificate's dates are GeneralizedTime, before it UTCTime (RFC 5280).
    (datetime.datetime(1999, 12, 31, 23, 59, 59, tzinfo=UTC), datetime.datetime(2051, 3, 4, 5, 6, 7, tzinfo=UTC)),
], ids=["utc-time", "generalized-time"])
def test_dates_read_in_both_encodings(not_before, not_after):
    parsed = _agrees_with_cryptography(issue(name("kafka1"), not_before=not_before, not_after=not_after))
    assert parsed["not_after"] == not_after and parsed["not_before"] == not_before


@pytest.mark.parametrize("serial, text", [
    (1, "01"), (0xABC, "0ABC"), (0x80, "80"), (2 ** 158 + 5, "%X" % (2 ** 158 + 5))],
    ids=["one", "odd-digits", "high-bit", "twenty-bytes"])
def test_the_serial_is_upper_case_hex_in_whole_bytes(serial, text):
    assert parse_certificate(issue(name("kafka1"), serial=serial).der)["serial"] == text


def test_an_rsa_certificate_reads_alike():
    _agrees_with_cryptography(issue(name("kafka-rsa"), key=rsa_key(), issuer=ca()))


@pytest.mark.parametrize("der", [
    b"", b"\x30", b"\x30\x82\xff\xff\x00", b"\x02\x01\x01", b"\x30\x03\x30\x01\x00"],
    ids=["empty", "cut", "too-long", "not-a-sequence", "no-fields"])
def test_what_is_no_certificate_is_refused_saying_so(der):
    with pytest.raises(CertificateError, match="not a DER certificate"):
        parse_certificate(der)


def test_every_certificate_of_a_pem_chain_is_found_in_order():
    authority = ca()
    host = issue(name("kafka1"), issuer=authority)
    text = "junk before\n" + host.pem + "between\n" + authority.pem
    assert pem_certificates(text) == [host.der, authority.der]
    assert pem_certificates("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") == []
    with pytest.raises(CertificateError, match="not base64"):
        pem_certificates("-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n")


@pytest.mark.parametrize("left, warn_days, days_left, expiring", [
    (datetime.timedelta(days=31), 30, 31, False),
    (datetime.timedelta(days=30, seconds=1), 30, 30, False),
    (datetime.timedelta(days=30), 30, 30, False),
    (datetime.timedelta(days=29, hours=23), 30, 29, True),
    (datetime.timedelta(hours=1), 0, 0, False),
    (datetime.timedelta(seconds=-1), 0, -1, True),
    (datetime.timedelta(days=-3, hours=2), 30, -3, True),
    (datetime.timedelta(days=800), 100000, 800, True),
], ids=["outside", "just-outside", "at-the-edge", "inside", "no-window", "just-expired", "expired", "huge-window"])
def test_the_window_counts_whole_days_left(left, warn_days, days_left, expiring):
    parsed = dict(subject="CN=k", issuer="CN=ca", serial="01", not_before=NOW - datetime.timedelta(days=1),
                  not_after=NOW + left)
    entry = validity_entry(parsed, warn_days, NOW)
    assert (entry["days_left"], entry["expiring"]) == (days_left, expiring)
    assert entry["not_after"] == iso_utc(NOW + left) and entry["not_before"] == "2026-05-31T12:00:00Z"


@pytest.mark.parametrize("days, words", [
    (2, "expires on 2026-06-03T12:00:00Z, in 2 days"), (1, "in 1 day"), (0, "in 0 days"),
    (-1, "expired on 2026-05-31T12:00:00Z, 1 day ago"), (-5, "5 days ago")])
def test_the_sentence_says_when(days, words):
    entry = dict(subject="CN=kafka1", days_left=days, not_after=iso_utc(NOW + datetime.timedelta(days=days)))
    sentence = expiry_sentence("broker 1's certificate", entry)
    assert sentence.startswith("broker 1's certificate (CN=kafka1) ") and words in sentence


class _TlsServer:
    """A TLS server on loopback that serves one certificate to every handshake, until closed."""

    def __init__(self, issued, tmp_path):
        certificate, key = issued.write(tmp_path, "server")
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(certificate, key)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                connection, unused = self.listener.accept()
            except OSError:
                return
            try:
                with self.context.wrap_socket(connection, server_side=True) as secured:
                    secured.recv(1)
            except (OSError, ssl.SSLError):
                connection.close()  # the client gave up after reading the certificate

    def close(self):
        self.listener.close()


@pytest.fixture
def served(tmp_path):
    servers = []

    def serve(issued):
        server = _TlsServer(issued, tmp_path)
        servers.append(server)
        return server

    yield serve
    for server in servers:
        server.close()


@pytest.fixture
def authority(tmp_path):
    issued = ca()
    path = tmp_path / "ca.crt"
    path.write_text(issued.pem)
    issued.path = str(path)
    return issued


def test_a_certificate_the_ca_signed_for_the_address_is_verified(served, authority):
    host = issue(name("kafka1"), issuer=authority, names=["127.0.0.1"])
    server = served(host)
    der, verified, reason = served_certificate("127.0.0.1", server.port, dict(ssl_cafile=authority.path), 10)
    assert der == host.der and verified and reason is None


@pytest.mark.parametrize("names, params, words", [
    (["127.0.0.1"], {}, "unable to get local issuer certificate"),
    (["kafka.example.test"], {"ssl_check_hostname": True}, "IP address mismatch"),
], ids=["another-ca", "another-name"])
def test_a_certificate_that_fails_verification_is_still_read_saying_why(served, authority, names, params, words):
    other = ca("another CA")
    host = issue(name("kafka1"), issuer=other if not params else authority, names=names)
    server = served(host)
    der, verified, reason = served_certificate("127.0.0.1", server.port, dict(params, ssl_cafile=authority.path), 10)
    assert der == host.der and not verified and words in reason


def test_the_host_name_is_not_checked_when_the_connection_does_not(served, authority):
    host = issue(name("kafka1"), issuer=authority, names=["kafka.example.test"])
    server = served(host)
    unused, verified, reason = served_certificate("127.0.0.1", server.port,
                                                  dict(ssl_cafile=authority.path, ssl_check_hostname=False), 10)
    assert verified and reason is None


def test_each_broker_gets_its_entry_and_one_without_tls_its_error(served, authority):
    soon = datetime.datetime.now(UTC) + datetime.timedelta(days=10, hours=1)
    hosts = [issue(name("kafka%d" % number), issuer=authority, names=["127.0.0.1"],
                   not_after=soon if number == 2 else None) for number in (1, 2)]
    servers = [served(host) for host in hosts]
    with socket.create_server(("127.0.0.1", 0)) as silent:
        # Accepts and closes: no TLS there.
        brokers = [dict(id=number + 1, host="127.0.0.1", port=server.port) for number, server in enumerate(servers)]
        brokers.append(dict(id=3, host="127.0.0.1", port=silent.getsockname()[1]))

        def close_at_once():
            connection, unused = silent.accept()
            connection.close()

        closer = threading.Thread(target=close_at_once, daemon=True)
        closer.start()
        entries = read_served_certificates(brokers, dict(ssl_cafile=authority.path), 30, 10, run_side_by_side)
    assert [entry["broker"] for entry in entries] == [1, 2, 3]
    first, second, third = entries
    assert first["subject"] == "CN=kafka1" and first["issuer"] == "CN=test CA" and first["verified"]
    assert int(first["serial"], 16) == hosts[0].certificate.serial_number
    assert not first["expiring"] and first["days_left"] >= 364
    assert second["expiring"] and second["days_left"] == 10
    assert second["not_after"] == iso_utc(hosts[1].certificate.not_valid_after_utc)
    assert set(third) == {"broker", "address", "error"} and third["address"] == "127.0.0.1:%d" % brokers[2]["port"]


def test_no_broker_means_no_handshake(monkeypatch):
    monkeypatch.setattr(_certificates, "served_certificate", lambda *args: pytest.fail("a handshake was tried"))
    assert read_served_certificates([], {}, 30, 10, run_side_by_side) == []
