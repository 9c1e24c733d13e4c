# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""X.509 certificates: their names, serial and validity read from DER, how long they have left, and the one a
TLS server serves.

Only the standard library: kafka_cluster_info runs where kafka-python is, which brings no certificate parser,
and Python's ssl module parses a peer's certificate only once it was verified (getpeercert() is empty
otherwise). A certificate that cannot be verified is exactly one worth seeing, so the few fields needed are read
here from the DER bytes, which ssl always gives. The controller's plugins read PEM files with the same code.
"""

from __future__ import absolute_import, division, print_function


import base64
import binascii
import datetime
import re
import socket
import ssl

# DER tags of what a certificate's fields are made of.
SEQUENCE, SET, INTEGER, OBJECT_IDENTIFIER = 0x30, 0x31, 0x02, 0x06
UTC_TIME, GENERALIZED_TIME = 0x17, 0x18
EXPLICIT_VERSION = 0xA0
# The string types a name's values come in, with how each is encoded.
STRING_ENCODINGS = {0x0C: "utf-8", 0x13: "ascii", 0x16: "ascii", 0x14: "latin-1", 0x1A: "ascii",
                    0x1E: "utf-16-be", 0x1C: "utf-32-be"}
# Short names of the attributes names usually hold, as RFC 4514 (and OpenSSL, and cryptography) spell them;
# any other attribute is written with its dotted OID.
ATTRIBUTE_NAMES = {"2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.9": "STREET",
                   "2.5.4.10": "O", "2.5.4.11": "OU", "0.9.2342.19200300.100.1.1": "UID",
                   "0.9.2342.19200300.100.1.25": "DC"}
PEM_CERTIFICATE = re.compile(r"-----BEGIN CERTIFICATE-----(.*?)-----END CERTIFICATE-----", re.S)
SECONDS_PER_DAY = 86400
# datetime.UTC is Python 3.11's; a module may run on an older Python where it is delegated.
UTC = datetime.timezone.utc  # noqa: UP017


class CertificateError(ValueError):
    """Bytes that are not a DER certificate, or a file that holds no PEM certificate; the message says which."""


def _element(data, offset):
    """(tag, start of the content, end of the content, offset) of the DER element at offset."""
    if offset + 2 > len(data):
        raise CertificateError("the DER data ends inside an element")
    tag, length = data[offset], data[offset + 1]
    start = offset + 2
    if length & 0x80:
        size = length & 0x7F
        if not 0 < size <= 4 or start + size > len(data):
            raise CertificateError("an element's length cannot be read")
        length = int(binascii.hexlify(bytes(data[start:start + size])), 16)
        start += size
    if start + length > len(data):
        raise CertificateError("an element runs past the end of the DER data")
    return tag, start, start + length, offset


def _children(data, start, end):
    """The (tag, start, end) of each element between start and end."""
    children = []
    while start < end:
        child = _element(data, start)
        children.append(child)
        start = child[2]
    return children


def _expect(element, tag, what):
    if element[0] != tag:
        raise CertificateError("%s: expected DER tag 0x%02x, found 0x%02x" % (what, tag, element[0]))
    return element


def _object_identifier(content):
    """The dotted form of an OID's content bytes."""
    if not content:
        raise CertificateError("an empty object identifier")
    first = content[0]
    parts = [min(first // 40, 2), first - 40 * min(first // 40, 2)]
    value = 0
    for byte in content[1:]:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            parts.append(value)
            value = 0
    return ".".join(str(part) for part in parts)


def _escaped(value):
    """An attribute value escaped as RFC 4514 asks, so that a comma or plus in a name cannot split it."""
    escaped = re.sub(r'([\\,+"<>;])', r"\\\1", value)
    if escaped[:1] in ("#", " "):
        escaped = "\\" + escaped
    if escaped.endswith(" "):
        escaped = escaped[:-1] + "\\ "
    return escaped


def _name(data, element):
    """A Name as an RFC 4514 string: its relative names last first, the attributes of one joined by '+'."""
    relative_names = []
    for relative in _children(data, element[1], element[2]):
        _expect(relative, SET, "a relative name")
        attributes = []
        for attribute in _children(data, relative[1], relative[2]):
            oid, value = _children(data, attribute[1], attribute[2])[:2]
            dotted = _object_identifier(bytes(data[oid[1]:oid[2]]))
            raw = bytes(data[value[1]:value[2]])
            encoding = STRING_ENCODINGS.get(value[0])
            # RFC 4514: a value that is no string is written as '#' and the hex of its whole DER element.
            text = (_escaped(raw.decode(encoding, "replace")) if encoding
                    else "#" + binascii.hexlify(bytes(data[value[3]:value[2]])).decode())
            attributes.append("%s=%s" % (ATTRIBUTE_NAMES.get(dotted, dotted), text))
        relative_names.append("+".join(attributes))
    return ",".join(reversed(relative_names))


def _time(data, element):
    """A UTCTime or GeneralizedTime as an aware datetime in UTC."""
    text = bytes(data[element[1]:element[2]]).decode("ascii", "replace")
    if element[0] == UTC_TIME:
        # RFC 5280: a two-digit year of 50 or more is 19xx, below 50 20xx.
        year = int(text[:2])
        text = ("19" if year >= 50 else "20") + text
    elif element[0] != GENERALIZED_TIME:
        raise CertificateError("a validity date is neither UTCTime nor GeneralizedTime")
    try:
        moment = datetime.datetime.strptime(text[:14], "%Y%m%d%H%M%S")
    except ValueError:
        raise CertificateError("a validity date cannot be read: %r" % text) from None
    return moment.replace(tzinfo=UTC)


def iso_utc(moment):
    """An aware datetime as ISO 8601 in UTC, to the second: 2027-03-04T05:06:07Z."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_certificate(der):
    """{subject, issuer, serial, not_before, not_after} of a DER certificate.

    subject and issuer are RFC 4514 strings (CN=kafka1,O=Example); serial is upper-case hex, as OpenSSL
    and Python's ssl write it; not_before and not_after are aware datetimes in UTC.
    """
    data = bytearray(der)
    try:
        certificate = _expect(_element(data, 0), SEQUENCE, "the certificate")
        tbs = _expect(_children(data, certificate[1], certificate[2])[0], SEQUENCE, "the signed part")
        fields = _children(data, tbs[1], tbs[2])
        if fields and fields[0][0] == EXPLICIT_VERSION:
            fields = fields[1:]
        serial, unused, issuer, validity, subject = fields[:5]
        _expect(serial, INTEGER, "the serial number")
        _expect(validity, SEQUENCE, "the validity")
        not_before, not_after = _children(data, validity[1], validity[2])[:2]
        number = int.from_bytes(bytes(data[serial[1]:serial[2]]), "big", signed=True)
        parsed = dict(subject=_name(data, _expect(subject, SEQUENCE, "the subject")),
                      issuer=_name(data, _expect(issuer, SEQUENCE, "the issuer")),
                      not_before=_time(data, not_before), not_after=_time(data, not_after))
    except (IndexError, ValueError) as error:
        raise CertificateError("not a DER certificate: %s" % (error or type(error).__name__)) from None
    serial_hex = "%X" % abs(number)
    # Whole bytes, as OpenSSL writes a serial.
    parsed["serial"] = ("-" if number < 0 else "") + serial_hex.zfill(len(serial_hex) + len(serial_hex) % 2)
    return parsed


def pem_certificates(text):
    """The DER bytes of every certificate in PEM text, in order (a certificate file may hold its chain)."""
    found = []
    for body in PEM_CERTIFICATE.findall(text):
        try:
            found.append(base64.b64decode("".join(body.split()), validate=True))
        except (binascii.Error, ValueError):
            raise CertificateError("a PEM certificate block is not base64") from None
    return found


def now_utc():
    return datetime.datetime.now(UTC)


def validity_entry(parsed, warn_days, now):
    """The reported fields of a parsed certificate: dates as ISO 8601 UTC, days_left (whole days until
    not_after, negative once expired) and expiring (not_after within warn_days of now)."""
    left = (parsed["not_after"] - now).total_seconds()
    return dict(subject=parsed["subject"], issuer=parsed["issuer"], serial=parsed["serial"],
                not_before=iso_utc(parsed["not_before"]), not_after=iso_utc(parsed["not_after"]),
                days_left=int(left // SECONDS_PER_DAY), expiring=left < warn_days * SECONDS_PER_DAY)


def expiry_sentence(what, entry):
    """'<what> (<subject>) expires on <date>, in N days' or '... expired on <date>, N days ago'."""
    days = entry["days_left"]
    if days < 0:
        when = "expired on %s, %d day%s ago" % (entry["not_after"], -days, "" if days == -1 else "s")
    else:
        when = "expires on %s, in %d day%s" % (entry["not_after"], days, "" if days == 1 else "s")
    return "%s (%s) %s" % (what, entry["subject"], when)


def _client_context(params, verify):
    """An SSL context for a handshake with the connection options' CA and client certificate.

    Without verification the certificate is still received, only not checked: what a broker serves is read
    either way. The client certificate is offered because a listener with required client authentication may
    refuse a handshake without one.
    """
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if verify:
        context.check_hostname = bool(params.get("ssl_check_hostname", True))
        if params.get("ssl_cafile"):
            context.load_verify_locations(cafile=params["ssl_cafile"])
        else:
            context.load_default_certs()
    else:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if params.get("ssl_certfile"):
        context.load_cert_chain(params["ssl_certfile"], params.get("ssl_keyfile"), params.get("ssl_password"))
    return context


def _handshake(host, port, context, timeout):
    with socket.create_connection((host, port), timeout=timeout) as raw:
        with context.wrap_socket(raw, server_hostname=host) as secured:
            return secured.getpeercert(binary_form=True)


def served_certificate(host, port, params, timeout):
    """(DER of the certificate a TLS server serves, verified, why it was not verified or None).

    One handshake that verifies the certificate as the connection options ask (their CA, or the system's,
    and the host name unless ssl_check_hostname is off); when that fails on the certificate, a second that
    only reads it. Any other failure (no connection, no TLS) raises OSError or ssl.SSLError.
    """
    try:
        return _handshake(host, port, _client_context(params, True), timeout), True, None
    except ssl.SSLCertVerificationError as error:
        # A certificate the CA did not sign, or that names another host, or that has expired.
        reason = getattr(error, "verify_message", None) or str(error)
    return _handshake(host, port, _client_context(params, False), timeout), False, reason


def read_served_certificates(brokers, params, warn_days, timeout, run_side_by_side, now=None):
    """One entry per broker: {broker, address, subject, issuer, serial, not_before, not_after, days_left,
    expiring, verified, verify_error}, or {broker, address, error} when its certificate could not be read.

    brokers: [{id, host, port}]. The handshakes run side by side (run_side_by_side(function, items)), as
    each mostly waits on the network.
    """
    now = now or now_utc()

    def read(broker):
        address = "%s:%s" % (broker["host"], broker["port"])
        try:
            der, verified, reason = served_certificate(broker["host"], broker["port"], params, timeout)
            if not der:
                raise CertificateError("the server sent no certificate")
            entry = dict(broker=broker["id"], address=address)
            entry.update(validity_entry(parse_certificate(der), warn_days, now))
            entry.update(verified=verified, verify_error=reason)
            return entry
        except (OSError, ssl.SSLError, CertificateError) as error:
            return dict(broker=broker["id"], address=address, error=str(error) or type(error).__name__)

    return run_side_by_side(read, brokers) if brokers else []
