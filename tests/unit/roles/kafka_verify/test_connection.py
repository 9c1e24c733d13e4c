"""The connection file: one description of how to log in, turned into the settings of both clients."""

import json
import subprocess

import pytest

from kafkaops_verify import bulk_produce, steady_produce, verify
from kafkaops_verify.connection import (
    MASK,
    ConnectionSettingsError,
    check_connection,
    jaas_config,
    java_client_properties,
    job_clients,
    python_client_settings,
    read_connection,
    redact,
)

# Searched for in what the jobs print.
PASSWORD = "s3cret-Pa55"
SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory):
    """A CA certificate, and a client certificate with its key (unencrypted PKCS#8, as Kafka's Java client reads)."""
    folder = tmp_path_factory.mktemp("tls")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=admin",
         "-keyout", str(folder / "client.key"), "-out", str(folder / "client.crt")],
        check=True, capture_output=True)
    (folder / "ca.crt").write_text((folder / "client.crt").read_text())
    return {name: str(folder / name) for name in ("ca.crt", "client.crt", "client.key")}


def write_connection(tmp_path, **settings):
    path = tmp_path / "connection.json"
    path.write_text(json.dumps(settings))
    path.chmod(0o600)
    return str(path)


def test_without_a_file_the_jobs_connect_in_plaintext_as_before():
    clients = job_clients("")
    assert (clients.java_properties, clients.python_settings, clients.secrets) == (
        {"security.protocol": "PLAINTEXT"}, {"security_protocol": "PLAINTEXT"}, [])


def test_sasl_ssl_with_scram_and_a_private_ca_maps_to_both_clients(tmp_path, tls_files):
    path = write_connection(tmp_path, security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512",
                            sasl_username="admin", sasl_password=PASSWORD, ssl_cafile=tls_files["ca.crt"],
                            ssl_certfile="", ssl_keyfile="", kafka_options={}, client_options={})
    clients = job_clients(path)
    assert clients.python_settings == {
        "security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512", "sasl_plain_username": "admin",
        "sasl_plain_password": PASSWORD, "ssl_cafile": tls_files["ca.crt"]}
    with open(tls_files["ca.crt"]) as stream:
        ca = stream.read()
    assert clients.java_properties == {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": '%s required username="admin" password="%s";' % (SCRAM, PASSWORD),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.certificates": ca,
    }
    assert PASSWORD in clients.secrets


def test_mutual_tls_gives_spark_a_pem_key_store_of_the_key_and_its_certificate(tls_files):
    connection = {"security_protocol": "SSL", "ssl_cafile": tls_files["ca.crt"],
                  "ssl_certfile": tls_files["client.crt"], "ssl_keyfile": tls_files["client.key"]}
    properties = java_client_properties(connection)
    assert properties["ssl.keystore.type"] == "PEM"
    assert properties["ssl.keystore.certificate.chain"].startswith("-----BEGIN CERTIFICATE-----")
    assert properties["ssl.keystore.key"].startswith("-----BEGIN PRIVATE KEY-----")
    assert "sasl.jaas.config" not in properties
    assert python_client_settings(connection) == {
        "security_protocol": "SSL", "ssl_cafile": tls_files["ca.crt"],
        "ssl_certfile": tls_files["client.crt"], "ssl_keyfile": tls_files["client.key"]}


def test_a_key_spark_cannot_read_without_a_password_is_refused_naming_the_setting(tmp_path, tls_files):
    legacy_key = tmp_path / "client-rsa.key"
    legacy_key.write_text("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n")
    with pytest.raises(ConnectionSettingsError, match="^ssl_keyfile: .* PKCS#8"):
        java_client_properties({"security_protocol": "SSL", "ssl_certfile": tls_files["client.crt"],
                                "ssl_keyfile": str(legacy_key)})
    with pytest.raises(ConnectionSettingsError, match="^ssl_cafile: cannot read"):
        java_client_properties({"security_protocol": "SSL", "ssl_cafile": str(tmp_path / "missing.crt")})


def test_a_password_with_quotes_and_backslashes_stays_one_jaas_value():
    assert jaas_config("SCRAM-SHA-256", "ad\"min", 'a"b\\c') == (
        '%s required username="ad\\"min" password="a\\"b\\\\c";' % SCRAM)
    assert jaas_config("PLAIN", "u", "p").startswith("org.apache.kafka.common.security.plain.PlainLoginModule ")


@pytest.mark.parametrize("connection, field", [
    ({"security_protocol": "TLS"}, "security_protocol"),
    ({"security_protocol": "SASL_SSL", "sasl_password": PASSWORD}, "sasl_username"),
    ({"security_protocol": "SASL_PLAINTEXT", "sasl_username": "admin", "sasl_password": ""}, "sasl_password"),
    ({"security_protocol": "SASL_SSL", "sasl_mechanism": "GSSAPI", "sasl_username": "a", "sasl_password": "b"},
     "sasl_mechanism"),
    ({"security_protocol": "SSL", "ssl_certfile": "/client.crt"}, "ssl_certfile and ssl_keyfile"),
    ({"security_protocol": "SSL", "ssl_keyfile": "/client.key"}, "ssl_certfile and ssl_keyfile"),
    ({"security_protocol": "PLAINTEXT", "kafka_options": ["a=b"]}, "kafka_options"),
    ({"security_protocol": "PLAINTEXT", "sasl_pasword": "typo"}, "unknown connection settings: sasl_pasword"),
])
def test_a_connection_that_cannot_work_is_refused_naming_the_setting(connection, field):
    with pytest.raises(ConnectionSettingsError) as refused:
        check_connection(connection)
    assert str(refused.value).startswith(field)
    assert PASSWORD not in str(refused.value)


def test_a_connection_file_that_is_not_json_names_the_file(tmp_path):
    path = tmp_path / "connection.json"
    path.write_text("security_protocol: SSL")
    with pytest.raises(ConnectionSettingsError, match="^connection file .*connection.json"):
        read_connection(str(path))


def test_extra_settings_override_the_connection_and_numbers_stay_numbers(tmp_path):
    path = write_connection(tmp_path, security_protocol="PLAINTEXT",
                            kafka_options={"fetch.min.bytes": 1, "security.protocol": "SSL"},
                            client_options={"request_timeout_ms": "60000", "client_id": "verify"})
    clients = job_clients(path, ["linger.ms=5"], ["retries=3"])
    assert clients.java_properties == {"security.protocol": "SSL", "fetch.min.bytes": "1", "linger.ms": "5"}
    assert clients.python_settings == {
        "security_protocol": "PLAINTEXT", "request_timeout_ms": 60000, "client_id": "verify", "retries": 3}


def test_secrets_are_masked_in_what_a_job_prints_even_inside_a_hand_written_jaas_login(tmp_path):
    login = "org.apache.kafka.common.security.plain.PlainLoginModule required username='u' password='%s';" % PASSWORD
    path = write_connection(tmp_path, security_protocol="PLAINTEXT",
                            kafka_options={"sasl.jaas.config": login, "ssl.key.password": "keypass-123"})
    clients = job_clients(path)
    printed = clients.redact("failed with %s; password %s; key password keypass-123" % (login, PASSWORD))
    assert PASSWORD not in printed and "keypass-123" not in printed and MASK in printed
    key = "-----BEGIN-----\nABCDEFGHIJ\n"
    assert redact("a\nline of a key: ABCDEFGHIJ\n", [key]) == "a\nline of a key: %s\n" % MASK


@pytest.mark.parametrize("job", [bulk_produce, steady_produce, verify])
def test_no_job_takes_a_secret_on_its_command_line(job):
    # The connection, password included, comes from --connection-file; nothing else names one.
    options = [action.option_strings[0] for action in job.argument_parser()._actions if action.option_strings]
    assert "--connection-file" in options
    assert not [option for option in options if any(word in option for word in ("password", "jaas", "secret"))]


def test_a_producer_that_cannot_log_in_says_why_without_the_password(tmp_path, tls_files, capsys):
    path = write_connection(tmp_path, security_protocol="SASL_SSL", sasl_username="admin",
                            sasl_password=PASSWORD, ssl_cafile=tls_files["ca.crt"],
                            client_options={"bootstrap_timeout_ms": 300, "request_timeout_ms": 300})
    code = steady_produce.main(["--bootstrap-servers", "127.0.0.1:1", "--topic", "t", "--manifest",
                                str(tmp_path / "manifest.json"), "--connection-file", path])
    printed = capsys.readouterr()
    assert code == 2
    assert "cannot start a producer" in printed.err
    assert PASSWORD not in printed.out + printed.err


def test_a_job_refuses_a_bad_connection_file_naming_the_setting(tmp_path, capsys):
    path = write_connection(tmp_path, security_protocol="SASL_SSL", sasl_username="admin")
    code = steady_produce.main(["--bootstrap-servers", "127.0.0.1:1", "--topic", "t", "--manifest",
                                str(tmp_path / "manifest.json"), "--connection-file", path])
    assert code == 2
    assert "steady_produce: sasl_password: required with security_protocol SASL_SSL" in capsys.readouterr().err
