"""How the jobs reach the cluster: one connection description, turned into the settings of both clients.

The description is the admin modules' connection options (security_protocol, sasl_mechanism,
sasl_username, sasl_password, ssl_cafile, ssl_certfile, ssl_keyfile), plus extra settings for each
client (kafka_options: Java properties for Spark's Kafka source and sink; client_options:
kafka-python settings). The kafka_verify role writes it as JSON to a file only the job's user can
read and gives the jobs its path (--connection-file), so that no secret is ever on a command line,
where ps and Ansible's task output would show it.

Spark's Kafka connector gets the certificates as PEM text (ssl.truststore.certificates,
ssl.keystore.key and ssl.keystore.certificate.chain) rather than file locations: the driver reads
the files, and executors on other hosts need no copy of them. Kafka takes PEM text with an
unencrypted PKCS#8 key, which is what the kafka_broker role generates; a file-based PEM key store
would be read on every executor and, in older Kafka clients, needs an encrypted key.
"""

import json
import re
import sys
import traceback

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
LOGIN_MODULES = {
    "PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
    "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
}
DEFAULT_SASL_MECHANISM = "SCRAM-SHA-512"
# What a job without a connection file connects with, as before connection files existed.
PLAINTEXT = {"security_protocol": "PLAINTEXT"}
_KNOWN_KEYS = (
    "security_protocol", "sasl_mechanism", "sasl_username", "sasl_password",
    "ssl_cafile", "ssl_certfile", "ssl_keyfile", "kafka_options", "client_options",
)
# Shown instead of a secret in anything a job prints.
MASK = "********"


class ConnectionSettingsError(ValueError):
    """A connection description that cannot work; the message names the setting."""


def uses_sasl(connection):
    return connection.get("security_protocol", "PLAINTEXT").startswith("SASL_")


def uses_tls(connection):
    return connection.get("security_protocol", "PLAINTEXT") in ("SSL", "SASL_SSL")


def check_connection(connection):
    """Refuses, naming the setting, a description either client would reject or misread."""
    unknown = sorted(set(connection) - set(_KNOWN_KEYS))
    if unknown:
        raise ConnectionSettingsError("unknown connection settings: %s" % ", ".join(unknown))
    protocol = connection.get("security_protocol", "PLAINTEXT")
    if protocol not in SECURITY_PROTOCOLS:
        raise ConnectionSettingsError(
            "security_protocol: one of %s, not %r" % (", ".join(SECURITY_PROTOCOLS), protocol))
    if uses_sasl(connection):
        mechanism = connection.get("sasl_mechanism") or DEFAULT_SASL_MECHANISM
        if mechanism not in LOGIN_MODULES:
            raise ConnectionSettingsError("sasl_mechanism: one of %s, not %r" % (", ".join(LOGIN_MODULES), mechanism))
        for name in ("sasl_username", "sasl_password"):
            if not connection.get(name):
                raise ConnectionSettingsError("%s: required with security_protocol %s" % (name, protocol))
    if uses_tls(connection) and bool(connection.get("ssl_certfile")) != bool(connection.get("ssl_keyfile")):
        raise ConnectionSettingsError("ssl_certfile and ssl_keyfile go together (a client certificate and its key)")
    for name in ("kafka_options", "client_options"):
        if not isinstance(connection.get(name, {}), dict):
            raise ConnectionSettingsError("%s: a mapping of setting to value" % name)
    return connection


def read_connection(path):
    """The checked connection description in the JSON file at path; PLAINTEXT without a path."""
    if not path:
        return dict(PLAINTEXT)
    try:
        with open(path) as stream:
            connection = json.load(stream)
    except (OSError, ValueError) as error:
        raise ConnectionSettingsError("connection file %s: %s" % (path, error)) from None
    if not isinstance(connection, dict):
        raise ConnectionSettingsError("connection file %s: a JSON object of connection settings" % path)
    return check_connection(connection)


def python_client_settings(connection):
    """kafka-python settings (KafkaProducer, KafkaConsumer, KafkaAdminClient) for the connection."""
    settings = {"security_protocol": connection.get("security_protocol", "PLAINTEXT")}
    if uses_sasl(connection):
        settings.update(
            sasl_mechanism=connection.get("sasl_mechanism") or DEFAULT_SASL_MECHANISM,
            sasl_plain_username=connection["sasl_username"],
            sasl_plain_password=connection["sasl_password"],
        )
    if uses_tls(connection):
        for name in ("ssl_cafile", "ssl_certfile", "ssl_keyfile"):
            if connection.get(name):
                settings[name] = connection[name]
    return settings


def _jaas_quoted(value):
    # JAAS options are quoted strings in which a backslash escapes the next character.
    return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')


def jaas_config(mechanism, username, password):
    """sasl.jaas.config for a SASL/PLAIN or SCRAM login; double quotes, the form Spark's log redaction knows."""
    return "%s required username=%s password=%s;" % (
        LOGIN_MODULES[mechanism], _jaas_quoted(username), _jaas_quoted(password))


def _read_pem(connection, name):
    path = connection[name]
    try:
        with open(path) as stream:
            return stream.read()
    except OSError as error:
        raise ConnectionSettingsError("%s: cannot read %s: %s" % (name, path, error.strerror or error)) from None


def java_client_properties(connection):
    """Java client properties (without Spark's "kafka." prefix) for the connection."""
    properties = {"security.protocol": connection.get("security_protocol", "PLAINTEXT")}
    if uses_sasl(connection):
        mechanism = connection.get("sasl_mechanism") or DEFAULT_SASL_MECHANISM
        properties["sasl.mechanism"] = mechanism
        properties["sasl.jaas.config"] = jaas_config(
            mechanism, connection["sasl_username"], connection["sasl_password"])
    if uses_tls(connection):
        if connection.get("ssl_cafile"):
            properties["ssl.truststore.type"] = "PEM"
            properties["ssl.truststore.certificates"] = _read_pem(connection, "ssl_cafile")
        if connection.get("ssl_certfile"):
            properties["ssl.keystore.type"] = "PEM"
            properties["ssl.keystore.certificate.chain"] = _read_pem(connection, "ssl_certfile")
            key = _read_pem(connection, "ssl_keyfile")
            if "-----BEGIN PRIVATE KEY-----" not in key:
                # Kafka's Java client reads a PEM key without a password as unencrypted PKCS#8 only.
                raise ConnectionSettingsError(
                    "ssl_keyfile: %s is not an unencrypted PKCS#8 key (-----BEGIN PRIVATE KEY-----), which Spark's"
                    " Kafka client needs; convert it with openssl pkcs8 -topk8 -nocrypt" % connection["ssl_keyfile"])
            properties["ssl.keystore.key"] = key
    return properties


def secrets_of(*settings):
    """The values no output may show, from dicts of client settings: passwords, JAAS logins, keys."""
    secrets = set()
    for mapping in settings:
        for name, value in mapping.items():
            if value and _secret_name(name):
                secrets.add(str(value))
                if "jaas" in name.lower():
                    secrets.update(match.group(1) or match.group(2) or match.group(3)
                                   for match in _JAAS_PASSWORD.finditer(str(value)))
    return sorted((secret for secret in secrets if secret), key=len, reverse=True)


# A password inside a hand-written JAAS login: "quoted", 'quoted' or bare.
_JAAS_PASSWORD = re.compile(r"""password\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^\s;]+))""")


def _secret_name(name):
    lowered = name.lower()
    return any(word in lowered for word in ("password", "secret", "jaas", "token", "keystore.key"))


def redact(text, secrets):
    """text with every secret replaced by MASK (and each line of a multi-line secret, such as a key)."""
    for secret in secrets:
        text = text.replace(secret, MASK)
        for line in secret.splitlines():
            if len(line.strip()) >= 8:
                text = text.replace(line, MASK)
    return text


class JobClients:
    """A job's client settings: Java properties for Spark's Kafka source and sink (without Spark's
    "kafka." prefix), kafka-python settings, and the secrets among them, for redact()."""

    def __init__(self, java_properties, python_settings):
        self.java_properties = java_properties
        self.python_settings = python_settings
        self.secrets = secrets_of(java_properties, python_settings)

    def redact(self, text):
        return redact(text, self.secrets)


def job_clients(connection_file, kafka_option_pairs=(), client_option_pairs=()):
    """The client settings of a job: the connection file's, then its extra settings, then the command
    line's NAME=VALUE pairs, so an extra setting can override what the connection implies."""
    from kafkaops_verify.options import parse_client_options, parse_options

    connection = read_connection(connection_file)
    java = {**java_client_properties(connection),
            **{name: str(value) for name, value in connection.get("kafka_options", {}).items()},
            **parse_options(kafka_option_pairs, "--kafka-option")}
    # Numbers written as text are numbers to kafka-python, as on the command line.
    extra_python = {name: int(value) if isinstance(value, str) and value.lstrip("-").isdigit() else value
                    for name, value in connection.get("client_options", {}).items()}
    python = {**python_client_settings(connection), **extra_python, **parse_client_options(client_option_pairs)}
    return JobClients(java, python)


def add_connection_option(parser):
    """Declares --connection-file on a job's argument parser."""
    parser.add_argument(
        "--connection-file",
        default="",
        help="JSON file of how to reach the cluster (security_protocol, sasl_*, ssl_*, kafka_options,"
        " client_options); it holds the password, so keep it readable by you alone (default: PLAINTEXT)",
    )


def print_failure(job, clients, exit_code):
    """For a job's last-resort except clause: prints the traceback of the exception being handled, with
    every secret masked (Java errors may quote settings), and returns exit_code."""
    print("%s: %s" % (job, clients.redact(traceback.format_exc())), file=sys.stderr, flush=True)
    return exit_code
