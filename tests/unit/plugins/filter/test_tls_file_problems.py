"""tls_file_problems: provided TLS files that are not set or not there, and a certificate that is not its key's,
refused naming the variable; with throwaway keys and certificates written here."""

import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.filter.certificates import tls_file_problems
from ansible_collections.kafkaops.cluster.tests.unit.plugins.certificate_samples import (
    ca,
    ec_key,
    issue,
    key_pem,
    name,
    rsa_key,
)

CERTIFICATE, KEY = "kafka_broker_tls_cert_file", "kafka_broker_tls_key_file"


def _check(paths):
    return tls_file_problems(paths, certificate=CERTIFICATE, key=KEY)


@pytest.fixture
def provided(tmp_path):
    """The files of a provided setup: the CA, and a host certificate (its chain after it) with its key."""
    authority = ca()
    host = issue(name("kafka1"), issuer=authority)
    (tmp_path / "ca.crt").write_text(authority.pem)
    certificate, key = host.write(tmp_path, "kafka1")
    with open(certificate, "a") as handle:
        handle.write(authority.pem)
    return {"kafka_broker_tls_ca_file": str(tmp_path / "ca.crt"), CERTIFICATE: certificate, KEY: key}


@pytest.mark.parametrize("make_key", [ec_key, rsa_key], ids=["ec", "rsa"])
def test_a_certificate_with_its_own_key_passes(tmp_path, make_key):
    host = issue(name("kafka1"), issuer=ca(), key=make_key())
    certificate, key = host.write(tmp_path, "kafka1")
    assert _check({CERTIFICATE: certificate, KEY: key}) == []


def test_a_chain_after_the_certificate_still_matches_on_the_first(provided):
    assert _check(provided) == []


@pytest.mark.parametrize("make_key", [ec_key, rsa_key], ids=["another-ec-key", "an-rsa-key"])
def test_a_certificate_of_another_key_is_refused_naming_both_variables(provided, tmp_path, make_key):
    other = tmp_path / "other.key"
    other.write_bytes(key_pem(make_key()))
    problems = _check(dict(provided, **{KEY: str(other)}))
    assert problems == [
        "kafka_broker_tls_cert_file: the certificate in %s (CN=kafka1) does not match kafka_broker_tls_key_file (%s): "
        "its public key is not that key's; give the key it was issued for, or a certificate of that key"
        % (provided[CERTIFICATE], other)]


def test_the_ca_given_as_the_certificate_is_refused_too(provided):
    problems = _check(dict(provided, **{CERTIFICATE: provided["kafka_broker_tls_ca_file"]}))
    assert len(problems) == 1 and "(CN=test CA) does not match kafka_broker_tls_key_file" in problems[0]


def test_an_encrypted_key_is_refused_naming_its_variable(provided, tmp_path):
    locked = tmp_path / "locked.key"
    locked.write_bytes(key_pem(ec_key(), password=b"secret-word"))
    assert _check(dict(provided, **{KEY: str(locked)})) == [
        "kafka_broker_tls_key_file: %s is encrypted; the services read an unencrypted key (PEM, PKCS#8)" % locked]


@pytest.mark.parametrize("variable, content, words", [
    (KEY, "not a key at all\n", "is not a PEM private key"),
    (CERTIFICATE, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "holds no PEM certificate"),
    (CERTIFICATE, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "cannot be read"),
], ids=["key-not-pem", "certificate-file-holds-a-key", "certificate-not-der"])
def test_a_file_that_is_not_what_its_variable_says_is_refused_naming_it(provided, tmp_path, variable, content, words):
    wrong = tmp_path / "wrong.pem"
    wrong.write_text(content)
    problems = _check(dict(provided, **{variable: str(wrong)}))
    assert len(problems) == 1 and problems[0].startswith("%s: " % variable) and words in problems[0], problems


def test_missing_files_are_said_first_and_nothing_is_compared(provided, tmp_path):
    problems = _check(dict(provided, **{KEY: "", CERTIFICATE: str(tmp_path / "nope.crt")}))
    assert problems == ["kafka_broker_tls_key_file: not set",
                        "kafka_broker_tls_cert_file: no such file on the controller"]


def test_without_naming_the_pair_it_only_checks_the_files_are_there(provided, tmp_path):
    other = tmp_path / "other.key"
    other.write_bytes(key_pem(ec_key()))
    assert tls_file_problems(dict(provided, **{KEY: str(other)})) == []


def test_a_pair_not_among_the_variables_is_a_mistake_of_the_caller(provided):
    with pytest.raises(AnsibleFilterError, match="zookeeper_tls_cert_file is not one of the variables given"):
        tls_file_problems(provided, certificate="zookeeper_tls_cert_file", key=KEY)
