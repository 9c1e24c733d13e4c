# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Connecting to a Kafka cluster with kafka-python's admin client, shared by every admin module.

One function gives the connection options (documented once in the doc fragment
kafkaops.cluster.kafka_connection), one builds a client from them. Failures come back as
KafkaAdminError with a message that names the servers tried, so a module can say what went wrong.
"""

from __future__ import absolute_import, division, print_function


import os
import threading
import traceback

try:
    from kafka.admin import KafkaAdminClient
    from kafka import errors as kafka_errors
    HAS_KAFKA = True
    KAFKA_IMPORT_ERROR = None
except ImportError:
    KafkaAdminClient = None
    kafka_errors = None
    HAS_KAFKA = False
    KAFKA_IMPORT_ERROR = traceback.format_exc()

from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import (
    NumberLimit,
    check_limits,
)

SECURITY_PROTOCOLS = ["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"]
SASL_MECHANISMS = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]


class KafkaAdminError(Exception):
    """A request to the cluster failed; the message says which and why."""

    def __init__(self, message, field=None):
        super(KafkaAdminError, self).__init__(message)
        self.field = field


def connection_argument_spec():
    """A fresh argument spec of the connection options, to be merged into a module's own."""
    return dict(
        bootstrap_servers=dict(type="list", elements="str", required=True),
        security_protocol=dict(type="str", default="PLAINTEXT", choices=SECURITY_PROTOCOLS),
        sasl_mechanism=dict(type="str", default="PLAIN", choices=SASL_MECHANISMS),
        sasl_username=dict(type="str"),
        sasl_password=dict(type="str", no_log=True),
        ssl_cafile=dict(type="path"),
        ssl_certfile=dict(type="path"),
        ssl_keyfile=dict(type="path"),
        ssl_password=dict(type="str", no_log=True),
        ssl_check_hostname=dict(type="bool", default=True),
        request_timeout=dict(type="int", default=30),
    )


CONNECTION_LIMITS = dict(request_timeout=NumberLimit(minimum=1))


def check_admin_options(params, limits=None):
    """Refuse, naming the option, numbers that cannot work: the connection's and the module's own.

    Every admin module calls it first, before reading a plan, connecting or changing anything, so
    a bad number never costs a half-done change. Raises OptionValueError (it carries the field).
    """
    all_limits = dict(CONNECTION_LIMITS)
    all_limits.update(limits or {})
    check_limits(params, all_limits)


def bootstrap_list(params):
    """The bootstrap servers as a flat list: items may themselves be comma-separated."""
    servers = []
    for item in params["bootstrap_servers"]:
        servers.extend(part.strip() for part in str(item).split(",") if part.strip())
    return servers


def check_connection_params(params):
    """Raise KafkaAdminError or OptionValueError (both name the option) for connection settings that cannot work."""
    servers = bootstrap_list(params)
    if not servers:
        raise KafkaAdminError("bootstrap_servers: give at least one host:port", "bootstrap_servers")
    for server in servers:
        host, sep, port = server.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise KafkaAdminError("bootstrap_servers: %r is not host:port" % server, "bootstrap_servers")
    check_limits(params, CONNECTION_LIMITS)
    protocol = params["security_protocol"]
    if protocol.startswith("SASL_") and not (params.get("sasl_username") and params.get("sasl_password")):
        raise KafkaAdminError("sasl_username and sasl_password are required with security_protocol %s" % protocol,
                              "sasl_username")
    for option in ("ssl_cafile", "ssl_certfile", "ssl_keyfile"):
        path = params.get(option)
        if path and not os.path.isfile(path):
            raise KafkaAdminError("%s: no such file on the controller: %s" % (option, path), option)
    if bool(params.get("ssl_certfile")) != bool(params.get("ssl_keyfile")):
        raise KafkaAdminError("ssl_certfile and ssl_keyfile go together (client certificate and its key)",
                              "ssl_certfile")
    return servers


def client_settings(params, connect_timeout=None):
    """kafka-python settings for the connection options (secrets included: never log the result).

    connect_timeout: seconds the first connection may take, when not request_timeout (a wait polls a
    broker that may be down with short attempts, and reads the broker's unit between them).
    """
    servers = check_connection_params(params)
    timeout_ms = params["request_timeout"] * 1000
    settings = dict(
        bootstrap_servers=servers,
        client_id="kafkaops.cluster",
        request_timeout_ms=timeout_ms,
        # Without this the client retries an unreachable cluster for 30 s whatever the timeout.
        bootstrap_timeout_ms=timeout_ms if connect_timeout is None else int(connect_timeout * 1000),
        security_protocol=params["security_protocol"],
    )
    if params["security_protocol"].startswith("SASL_"):
        settings.update(sasl_mechanism=params["sasl_mechanism"],
                        sasl_plain_username=params["sasl_username"],
                        sasl_plain_password=params["sasl_password"])
    if params["security_protocol"] in ("SSL", "SASL_SSL"):
        settings.update(ssl_cafile=params.get("ssl_cafile"), ssl_certfile=params.get("ssl_certfile"),
                        ssl_keyfile=params.get("ssl_keyfile"), ssl_password=params.get("ssl_password"),
                        ssl_check_hostname=params["ssl_check_hostname"])
    return settings


def admin_client(params, connect_timeout=None):
    """A connected KafkaAdminClient, or KafkaAdminError naming the servers tried.

    connect_timeout: seconds the first connection may take (request_timeout when None).
    """
    settings = client_settings(params, connect_timeout)
    try:
        return KafkaAdminClient(**settings)
    except Exception as error:  # pylint: disable=broad-except
        raise KafkaAdminError("could not connect to any of %s within %s s (%s): %s" % (
            ", ".join(settings["bootstrap_servers"]), "%g" % (settings["bootstrap_timeout_ms"] / 1000.0),
            params["security_protocol"], describe_error(error)), "bootstrap_servers") from None


class AdminClientPool:
    """A connected admin client and, opened when first needed, more clients to the same cluster.

    A broker handles the requests of one connection one at a time, and kafka-python keeps one
    connection per broker and client: requests meant to be handled side by side need a client each.
    """

    def __init__(self, first, connect):
        """first: a connected client (the caller keeps it and closes it); connect: opens another."""
        self.first = first
        self._connect = connect
        self._more = []

    def at_most(self, count):
        """Up to count clients, the first one first; one that cannot connect is left out (fewer run at once)."""
        wanted = max(count, 1) - 1 - len(self._more)
        if wanted > 0:
            opened = [None] * wanted

            def open_one(index):
                try:
                    opened[index] = self._connect()
                except Exception:  # pylint: disable=broad-except
                    pass

            run_side_by_side(open_one, range(wanted))
            self._more.extend(client for client in opened if client is not None)
        return [self.first] + self._more[:max(count, 1) - 1]

    def close(self):
        """Close the clients this pool opened (not the first)."""
        for client in self._more:
            close_quietly(client)
        self._more = []


def run_side_by_side(function, items):
    """function(item) for every item, each in a thread of its own; the results in order of items.

    The calls wait on the network, so threads run them at the same time. When any call raises, the
    first one's exception is raised once all have finished.
    """
    items = list(items)
    if len(items) == 1:
        return [function(items[0])]
    results = [None] * len(items)
    failures = [None] * len(items)

    def run(index):
        try:
            results[index] = function(items[index])
        except Exception as error:  # pylint: disable=broad-except
            failures[index] = error

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(items))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for failure in failures:
        if failure is not None:
            raise failure
    return results


def describe_error(error):
    """A one-line description of a kafka-python error, without the class path noise."""
    text = str(error) or error.__class__.__name__
    if kafka_errors is not None and isinstance(error, kafka_errors.KafkaError):
        name = error.__class__.__name__
        if not text.startswith(name):
            text = "%s: %s" % (name, text)
    return text


def failure_details(error, unexpected="Kafka request failed"):
    """fail_json arguments for an error met while a module ran: msg, and field when the error names one.

    This collection's own errors (KafkaAdminError, and the InputErrors of the other module_utils,
    which carry a field) already say what went wrong; anything else is described with its class.
    """
    field = getattr(error, "field", None)
    if isinstance(error, (KafkaAdminError, InputError)):
        details = dict(msg=str(error))
    else:
        details = dict(msg="%s: %s" % (unexpected, describe_error(error)))
    if field is not None:
        details["field"] = field
    return details


def cluster_authorization_failed(error):
    """True for Kafka's CLUSTER_AUTHORIZATION_FAILED: the login lacks a permission on the Cluster resource."""
    return kafka_errors is not None and isinstance(error, kafka_errors.ClusterAuthorizationFailedError)


def cluster_describe_refused(client, what):
    """The error for a request the login may not make without Describe on the Cluster resource, or None.

    Kafka's own message for it (CLUSTER_AUTHORIZATION_FAILED) quotes the request's internals and says nothing
    of what to grant; this one names the login, what needed the permission and how to give it. field names the
    option that chose the login.
    """
    config = getattr(client, "config", None) or {}
    user, certificate = config.get("sasl_plain_username"), config.get("ssl_certfile")
    if user:
        login, field = "the login %r (User:%s)" % (user, user), "sasl_username"
    elif certificate:
        login, field = "the certificate %s" % certificate, "ssl_certfile"
    else:
        login, field = "this connection's principal", None
    return KafkaAdminError(
        "%s may not Describe the Cluster resource, which %s needs (as does reading partition sizes with "
        "DescribeLogDirs): grant it (kafkaops.cluster.kafka_acl with resource_type=cluster, operation=describe) "
        "or connect as a login that has it; nothing was changed" % (login, what), field)


def error_name(error_code):
    """The Kafka error name for a protocol error code (0 gives None)."""
    if not error_code:
        return None
    if kafka_errors is None:
        return "error %d" % error_code
    return kafka_errors.for_code(error_code).__name__


def close_quietly(client):
    if client is None:
        return
    try:
        client.close()
    except Exception:  # pylint: disable=broad-except
        pass


def forget_controller(client):
    """Make the client ask again which broker is the controller before its next controller request.

    kafka-python keeps the controller it found and asks again only when that broker answers
    NOT_CONTROLLER. After the controller dies it goes on sending to the dead broker (connection
    refused, then not ready) until its metadata ages out, 5 minutes later: a reassignment finished
    meanwhile looked unfinished for those minutes.
    """
    if getattr(client, "_controller_id", None) is not None:
        client._controller_id = None  # pylint: disable=protected-access


def refresh_brokers(client):
    """Read the cluster's brokers again, now.

    kafka-python drops a broker from its metadata when a refresh runs while the broker is down (a
    failed request to a killed broker triggers one), and reads the brokers again only when that
    metadata ages out, 5 minutes later: until then every request to the broker, back for long, fails
    with UnknownBrokerIdError. A refresh that fails leaves the client as it was.
    """
    manager = getattr(client, "_manager", None)
    cluster = getattr(manager, "cluster", None)
    if cluster is None:
        return
    try:
        manager.run(cluster.refresh_metadata)
    except Exception:  # pylint: disable=broad-except
        pass


def advertised_api_keys(client):
    """The numbers of the API keys the brokers advertise.

    kafka-python's api_versions() turns each into its ApiKey enum and fails on a key newer than the
    library (Kafka 4.4 advertises 93, which 3.0.12 does not know); the numbers are then read from the
    version data the same call reads.
    """
    try:
        return set(int(key) for key in client.api_versions())
    except ValueError:
        return set(int(key) for key in client._manager.broker_version_data.api_versions)  # pylint: disable=protected-access
