# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""SCRAM credentials as a Kafka broker stores them (RFC 5802 with SHA-256 or SHA-512, RFC 7677).

The broker keeps, per user and mechanism, the salt, the iteration count, StoredKey = H(ClientKey) and
ServerKey, never the password: SaltedPassword = PBKDF2-HMAC(password, salt, iterations), ClientKey =
HMAC(SaltedPassword, "Client Key"), ServerKey = HMAC(SaltedPassword, "Server Key"). In ZooKeeper mode they
are one text per mechanism, "salt=<base64>,stored_key=<base64>,server_key=<base64>,iterations=<n>", in the
user's entity configuration znode. Kafka takes the password's UTF-8 bytes as they are (no SASLprep).
"""

from __future__ import absolute_import, division, print_function


import base64
import hashlib
import hmac
import os

HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}
# Kafka refuses fewer iterations than this (ScramMechanism's minimum), and more than 16384 at once.
MIN_ITERATIONS = 4096
MAX_ITERATIONS = 16384


def salted_password(password, salt, iterations, mechanism):
    return hashlib.pbkdf2_hmac(HASHES[mechanism], password.encode("utf-8"), salt, iterations)


def keys(password, salt, iterations, mechanism):
    """(StoredKey, ServerKey) of a password, as bytes."""
    digest = HASHES[mechanism]
    salted = salted_password(password, salt, iterations, mechanism)
    client_key = hmac.new(salted, b"Client Key", digest).digest()
    server_key = hmac.new(salted, b"Server Key", digest).digest()
    return hashlib.new(digest, client_key).digest(), server_key


def credential_text(password, mechanism, iterations, salt=None):
    """The credential as Kafka writes it into a user's configuration in ZooKeeper; a new random salt unless
    one is given."""
    if mechanism not in HASHES:
        raise ValueError("mechanism: expected one of %s, got %r" % (", ".join(sorted(HASHES)), mechanism))
    if not MIN_ITERATIONS <= iterations <= MAX_ITERATIONS:
        raise ValueError("iterations: expected %d to %d, got %r" % (MIN_ITERATIONS, MAX_ITERATIONS, iterations))
    salt = os.urandom(32) if salt is None else salt
    stored_key, server_key = keys(password, salt, iterations, mechanism)
    return "salt=%s,stored_key=%s,server_key=%s,iterations=%d" % (
        _b64(salt), _b64(stored_key), _b64(server_key), iterations)


def parse_credential_text(text):
    """{salt, stored_key, server_key (bytes), iterations (int)} of a credential text; ValueError when it is not
    one."""
    fields = dict(part.split("=", 1) for part in text.split(",") if "=" in part)
    missing = [name for name in ("salt", "stored_key", "server_key", "iterations") if name not in fields]
    if missing:
        raise ValueError("not a SCRAM credential: %s missing" % ", ".join(missing))
    return {"salt": base64.b64decode(fields["salt"]), "stored_key": base64.b64decode(fields["stored_key"]),
            "server_key": base64.b64decode(fields["server_key"]), "iterations": int(fields["iterations"])}


def matches(text, password, mechanism):
    """Whether a stored credential text was made from this password."""
    credential = parse_credential_text(text)
    stored_key, server_key = keys(password, credential["salt"], credential["iterations"], mechanism)
    return hmac.compare_digest(stored_key, credential["stored_key"]) and hmac.compare_digest(
        server_key, credential["server_key"])


def _b64(raw):
    return base64.b64encode(raw).decode("ascii")
