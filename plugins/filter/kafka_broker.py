# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the zookeeper and kafka_broker roles: broker instances of a host, the host model, restart order, peer
addresses."""

from __future__ import absolute_import, division, print_function


import os

from ansible.errors import AnsibleFilterError
from ansible.module_utils.six import string_types
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._broker_host_model import (
    broker_files,
    broker_id_limit,
    host_model,
)
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._kafka_node import node_paths
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._service_rules import (
    missing_files as host_missing_files,
)
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._service_rules import (
    unresolved_addresses as unresolved,
)
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._zookeeper_host_model import (
    client_address,
    peer_address,
)
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._tls_files import key_problem_of

INSTANCE_KEYS = ("broker_id", "port", "internal_port", "jmx_port", "prometheus_port", "rack", "log_dirs", "properties")
INTERNAL_PORT_OFFSET = 10000
JMX_PORT_OFFSET = 20000
# Below the client port rather than above: port + 30000 would land among Linux's ephemeral ports
# (32768-60999), which outgoing connections take, so the exporter could find its port in use.
PROMETHEUS_PORT_OFFSET = -2000


def _as_int(value, field, low, high):
    if isinstance(value, bool):
        raise AnsibleFilterError("%s: expected an integer, got %r" % (field, value))
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise AnsibleFilterError("%s: expected an integer, got %r" % (field, value)) from None
    if not low <= number <= high:
        raise AnsibleFilterError("%s: must be within %d-%d, got %d" % (field, low, high, number))
    return number


def kafka_broker_instances(instances, host_defaults):
    """Return one complete dict per broker instance of a host.

    host_defaults: broker_id, port, internal_port (None: port + 10000), jmx_port (None: port + 20000,
    0 disables JMX), prometheus_enabled (false: prometheus_port is 0), prometheus_port (None: port - 2000),
    rack, data_dir, properties. With several instances, broker_id and port must be given per instance,
    since the host-level ones can serve only one; so are internal, JMX and Prometheus ports, or derived.
    """
    if instances is None:
        instances = []
    if not isinstance(instances, list):
        raise AnsibleFilterError("kafka_broker_instances: expected a list of dicts, got %r" % (instances,))
    several = len(instances) > 1
    normalized = []
    for index, instance in enumerate(instances or [{}]):
        where = "kafka_broker_instances[%d]" % index
        if not isinstance(instance, dict):
            raise AnsibleFilterError("%s: expected a dict, got %r" % (where, instance))
        unknown = sorted(set(instance) - set(INSTANCE_KEYS))
        if unknown:
            raise AnsibleFilterError("%s: unknown keys %s (known: %s)" % (where, unknown, ", ".join(INSTANCE_KEYS)))
        for required in ("broker_id", "port"):
            if several and required not in instance:
                raise AnsibleFilterError("%s.%s: required when a host runs several brokers" % (where, required))
        broker_id = _as_int(instance.get("broker_id", host_defaults.get("broker_id")),
                            where + ".broker_id", 0, 2147483647)
        port = _as_int(instance.get("port", host_defaults.get("port")), where + ".port", 1, 65535)
        internal_default = host_defaults.get("internal_port") if not several else None
        internal_port = instance.get("internal_port", internal_default)
        internal_port = _as_int(port + INTERNAL_PORT_OFFSET if internal_port in (None, "") else internal_port,
                                where + ".internal_port", 1, 65535)
        jmx_default = host_defaults.get("jmx_port") if not several else None
        jmx_port = instance.get("jmx_port", jmx_default)
        jmx_port = _as_int(port + JMX_PORT_OFFSET if jmx_port in (None, "") else jmx_port,
                           where + ".jmx_port", 0, 65535)
        prometheus_port = _prometheus_port(instance, host_defaults, port, several, where)
        data_dir = host_defaults.get("data_dir", "/var/lib/kafka")
        log_dirs = instance.get("log_dirs") or ["%s/broker-%d" % (data_dir, broker_id)]
        if isinstance(log_dirs, string_types):
            log_dirs = [part.strip() for part in log_dirs.split(",") if part.strip()]
        properties = instance.get("properties") or {}
        if not isinstance(properties, dict):
            raise AnsibleFilterError("%s.properties: expected a dict, got %r" % (where, properties))
        entry = {
            "broker_id": broker_id,
            "port": port,
            "internal_port": internal_port,
            "jmx_port": jmx_port,
            "prometheus_port": prometheus_port,
            "rack": instance.get("rack", host_defaults.get("rack")) or "",
            "log_dirs": list(log_dirs),
            # Where the KRaft storage tool writes the broker's cluster and node ids.
            "meta_file": "%s/meta.properties" % log_dirs[0],
            "properties": properties,
        }
        entry.update(broker_paths(broker_id, host_defaults.get("config_dir") or "/etc/kafka",
                                  host_defaults.get("log_dir") or "/var/log/kafka"))
        normalized.append(entry)
    _check_host(normalized)
    return normalized


def broker_paths(broker_id, config_dir, log_dir):
    """Where one broker's files are and what its unit is called (node_paths of broker-<id>): unit, unit_file, folder,
    config_file, restart_view, restart_marker, log_folder and log_file."""
    return node_paths("broker-%d" % broker_id, config_dir, log_dir)


def _prometheus_port(instance, host_defaults, port, several, where):
    """The instance's Prometheus exporter port: 0 while the exporter is off, else the one given (the
    instance's, or the host's for a single instance), else the client port - 2000."""
    if not _as_bool(host_defaults.get("prometheus_enabled", False), "kafka_broker_prometheus_enabled"):
        return 0
    given = instance.get("prometheus_port", host_defaults.get("prometheus_port") if not several else None)
    if given not in (None, ""):
        return _as_int(given, where + ".prometheus_port", 1, 65535)
    if port + PROMETHEUS_PORT_OFFSET < 1:
        raise AnsibleFilterError("%s.prometheus_port: the default, port %d - %d, is below 1: give prometheus_port"
                                 % (where, port, -PROMETHEUS_PORT_OFFSET))
    return port + PROMETHEUS_PORT_OFFSET


def _as_bool(value, field):
    if isinstance(value, bool):
        return value
    words = {"true": True, "yes": True, "on": True, "1": True, "false": False, "no": False, "off": False, "0": False}
    if isinstance(value, string_types) and value.strip().lower() in words:
        return words[value.strip().lower()]
    raise AnsibleFilterError("%s: expected a boolean, got %r" % (field, value))


def _check_host(instances):
    seen_ids = {}
    seen_ports = {}
    seen_dirs = {}
    for index, instance in enumerate(instances):
        where = "kafka_broker_instances[%d]" % index
        if instance["broker_id"] in seen_ids:
            raise AnsibleFilterError("%s.broker_id: %d is already used by kafka_broker_instances[%d]"
                                     % (where, instance["broker_id"], seen_ids[instance["broker_id"]]))
        seen_ids[instance["broker_id"]] = index
        for field in ("port", "internal_port", "jmx_port", "prometheus_port"):
            port = instance[field]
            if field in ("jmx_port", "prometheus_port") and port == 0:
                continue
            if port in seen_ports:
                raise AnsibleFilterError("%s.%s: port %d clashes with %s on the same host"
                                         % (where, field, port, seen_ports[port]))
            seen_ports[port] = "%s.%s" % (where, field)
        for log_dir in instance["log_dirs"]:
            if log_dir in seen_dirs:
                raise AnsibleFilterError("%s.log_dirs: %s is already used by %s" % (where, log_dir, seen_dirs[log_dir]))
            seen_dirs[log_dir] = where


def kafka_broker_restart_order(markers_by_host, controller_id, restart_all=False):
    """The brokers to restart, as {"host", "instance"} dicts, the controller last.

    markers_by_host: host -> the role's restart decision per instance (each with "instance" and
    "stat", whose "exists" says whether the instance needs a restart). With restart_all (a rolling
    restart) every instance is restarted and the lists may hold the instances themselves.
    Restarting the controller last moves the controller role once instead of once per restart.
    """
    pending = []
    for host in sorted(markers_by_host):
        for marker in markers_by_host[host] or []:
            if restart_all:
                pending.append({"host": host, "instance": marker.get("instance", marker)})
            elif marker.get("stat", {}).get("exists"):
                pending.append({"host": host, "instance": marker["instance"]})
    return sorted(pending, key=lambda item: (item["instance"]["broker_id"] == controller_id,
                                             item["instance"]["broker_id"]))


def kafka_broker_id_limit(instance, host_properties):
    """A sentence when reserved.broker.max.id, set by hand, is below the instance's broker id; else ''."""
    return broker_id_limit(instance, host_properties)


def kafka_broker_files(model, templates, log4j2):
    """The folders and files of the kafka_broker role on a host and each broker's restart paths (broker_files in
    plugin_utils/_broker_host_model.py), once the installed Kafka is known."""
    return broker_files(model, templates, _as_bool(log4j2, "log4j2"))


def kafka_broker_host_model(inputs, settings, cluster):
    """The kafka_broker role's host model (plugin_utils/_broker_host_model.py says what it holds), with the
    controller's own files behind the checks of provided TLS files (there, and the certificate its key's)."""
    for name, value in (("inputs", inputs), ("settings", settings), ("cluster", cluster)):
        if not isinstance(value, dict):
            raise AnsibleFilterError("kafka_broker_host_model: %s must be a mapping, got %s"
                                     % (name, type(value).__name__))
    return host_model(inputs, settings, cluster, os.path.isfile, key_problem_of("kafka_broker_host_model"))


def zookeeper_peer_address(member):
    """How peers and brokers reach a ZooKeeper node, from a (hostvars of the node, inventory name) pair (the rule is
    plugin_utils/_zookeeper_host_model.py's peer_address)."""
    variables, name = member
    return peer_address(variables, name)


def zookeeper_client_address(member):
    """'address:port' of a ZooKeeper node, from a (hostvars of the node, inventory name) pair."""
    variables, name = member
    return client_address(variables, name)


def unresolved_addresses(names_by_node, owners):
    """What a node cannot resolve, as sentences naming the node, the name and the variable behind it.

    names_by_node: node -> the names result of host_state_info on it (name -> addresses, empty when
    the name does not resolve). owners: name -> the variable (and host) that gives it.
    """
    return unresolved(names_by_node, owners)


def missing_files(paths):
    """What is wrong with files the inventory names on the controller: {variable: path} -> sentences, first
    each variable left empty ("<variable>: not set"), then each naming no file there ("<variable>: no such file
    on the controller"), in the order given."""
    if not isinstance(paths, dict):
        raise AnsibleFilterError("missing_files: expected a mapping of variable to path, got %r" % (paths,))
    return host_missing_files(paths, os.path.isfile)


class FilterModule(object):
    def filters(self):
        return {
            "missing_files": missing_files,
            "kafka_broker_instances": kafka_broker_instances,
            "kafka_broker_restart_order": kafka_broker_restart_order,
            "kafka_broker_id_limit": kafka_broker_id_limit,
            "kafka_broker_host_model": kafka_broker_host_model,
            "kafka_broker_files": kafka_broker_files,
            "zookeeper_client_address": zookeeper_client_address,
            "zookeeper_peer_address": zookeeper_peer_address,
            "unresolved_addresses": unresolved_addresses,
        }
