"""SCRAM credentials as a Kafka broker keeps them (plugins/module_utils/_scram.py)."""

import base64
import hashlib
import hmac

import pytest

from ansible_collections.kafkaops.cluster.plugins.module_utils._scram import (
    credential_text,
    keys,
    matches,
    parse_credential_text,
    salted_password,
)

# RFC 7677's worked SCRAM-SHA-256 exchange: what a client proves and a server signs follows from the
# StoredKey and ServerKey a broker keeps, so both keys are checked through it.
RFC7677 = dict(password="pencil", salt=base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ=="), iterations=4096,
               auth_message="n=user,r=rOprNGfwEbeRWgbNEkqO,"
                            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,"
                            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0",
               proof="dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
               server_signature="6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")


def test_the_keys_give_rfc_7677s_client_proof_and_server_signature():
    stored_key, server_key = keys(RFC7677["password"], RFC7677["salt"], RFC7677["iterations"], "SCRAM-SHA-256")
    message = RFC7677["auth_message"].encode("ascii")
    salted = salted_password(RFC7677["password"], RFC7677["salt"], RFC7677["iterations"], "SCRAM-SHA-256")
    client_key = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
    assert hashlib.sha256(client_key).digest() == stored_key
    signature = hmac.new(stored_key, message, hashlib.sha256).digest()
    proof = bytes(left ^ right for left, right in zip(client_key, signature, strict=True))
    assert base64.b64encode(proof).decode() == RFC7677["proof"]
    assert base64.b64encode(hmac.new(server_key, message, hashlib.sha256).digest()).decode() == \
        RFC7677["server_signature"]


@pytest.mark.parametrize("mechanism, size", [("SCRAM-SHA-256", 32), ("SCRAM-SHA-512", 64)])
def test_a_credential_reads_back_and_matches_its_password_only(mechanism, size):
    text = credential_text("s3cret", mechanism, 8192)
    assert text.startswith("salt=") and text.endswith(",iterations=8192")
    fields = parse_credential_text(text)
    assert len(fields["salt"]) == 32 and len(fields["stored_key"]) == size and len(fields["server_key"]) == size
    assert matches(text, "s3cret", mechanism) and not matches(text, "s3cret!", mechanism)
    assert credential_text("s3cret", mechanism, 8192) != text, "each credential gets a salt of its own"


def test_a_given_salt_gives_the_same_text():
    assert credential_text("pw", "SCRAM-SHA-512", 4096, salt=b"x" * 16) == \
        credential_text("pw", "SCRAM-SHA-512", 4096, salt=b"x" * 16)


@pytest.mark.parametrize("mechanism, iterations, message", [
    ("SCRAM-SHA-1", 4096, "mechanism: expected one of SCRAM-SHA-256, SCRAM-SHA-512"),
    ("SCRAM-SHA-512", 4095, "iterations: expected 4096 to 16384, got 4095"),
    ("SCRAM-SHA-512", 16385, "iterations: expected 4096 to 16384, got 16385"),
])
def test_what_kafka_would_refuse_is_refused(mechanism, iterations, message):
    with pytest.raises(ValueError, match=message):
        credential_text("pw", mechanism, iterations)


def test_a_text_that_is_no_credential_is_named():
    with pytest.raises(ValueError, match="not a SCRAM credential: stored_key, server_key missing"):
        parse_credential_text("salt=abc,iterations=4096")
