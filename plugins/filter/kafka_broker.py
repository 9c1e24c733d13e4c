# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the zookeeper and kafka_broker roles: broker instances of a host, the kafka_broker role's defaults from
the inventory, its host model and what follows from it (the host's read, the files, the restart decisions, plan and
order, the installed Kafka, the storage plan and format, the node state, the decommission's cluster tool), peer
addresses. The logic is in plugin_utils/_broker_host_model.py; these read Ansible's hostvars into plain data for it.
"""

from __future__ import absolute_import, division, print_function


import os
from collections.abc import Mapping

from ansible.errors import AnsibleFilterError
from ansible.module_utils.six import string_types
from ansible.plugins.filter.core import flatten
from ansible.plugins.test.core import version_compare
from ansible_collections.kafkaops.cluster.plugins.filter.kraft import kafka_scram_format_arguments, kafka_storage_plan
from ansible_collections.kafkaops.cluster.plugins.plugin_utils import _broker_host_model as broker
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._broker_host_model import (
    broker_files,
    broker_id_limit,
    host_model,
)
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._controller_host_model import controller_address
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._kafka_node import node_paths
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._service_rules import in_play
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


# What each broker host notes in the play for the others (role defaults are not visible through hostvars): the
# address other brokers reach it by and its instances.
HOST_NOTES = ("__kafka_broker_internal_address", "__kafka_broker_instances")


def host_variables(hostvars, host, names):
    """The variables of names a host defines, as hostvars shows them (templated); {} for a host not in the
    inventory."""
    if host not in hostvars:
        return {}
    variables = hostvars[host]
    return {name: variables[name] for name in names if name in variables}


def zookeeper_connect(groups, hostvars):
    """The zookeeper group's client addresses, joined as zookeeper.connect takes them ('' without the group)."""
    return ",".join(zookeeper_client_address((hostvars[name], name)) for name in groups.get("zookeeper") or [])


def _mapping(filter_name, name, value):
    if not isinstance(value, Mapping):
        raise AnsibleFilterError("%s: %s must be a mapping, got %s" % (filter_name, name, type(value).__name__))
    return value


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


def kafka_broker_defaults(groups, hostvars):
    """The defaults of the role's variables that come from the rest of the inventory, by variable name: the
    controller quorum's addresses (the kafka_controller group, each by the rule of kafka_controller_address) and
    zookeeper.connect (the zookeeper group's client addresses)."""
    _mapping("kafka_broker_defaults", "groups", groups)
    return {
        "kafka_broker_controller_quorum_servers": [controller_address(hostvars[name], name)
                                                   for name in groups.get("kafka_controller") or []],
        "kafka_broker_zookeeper_connect": zookeeper_connect(groups, hostvars),
    }


def kafka_client_defaults(groups, hostvars):
    """How the collection's client roles (kafka_topics, kafka_access, kafka_verify) reach the cluster by default:
    bootstrap_servers, the client addresses each host of the kafka_broker group noted (kafka_broker_client_addresses,
    set by the kafka_broker role), and admin_connection, the first admin connection one of them noted
    (kafka_broker_admin_connection), {} when none did."""
    _mapping("kafka_client_defaults", "groups", groups)
    noted = [host_variables(hostvars, host, ("kafka_broker_client_addresses", "kafka_broker_admin_connection"))
             for host in groups.get("kafka_broker") or []]
    connections = [found["kafka_broker_admin_connection"] for found in noted
                   if "kafka_broker_admin_connection" in found]
    return {"bootstrap_servers": flatten([found.get("kafka_broker_client_addresses", []) for found in noted]),
            "admin_connection": (connections[0] if connections else None) or {}}


def kafka_broker_host_model(inputs, settings, cluster, hostvars=None):
    """The kafka_broker role's host model (plugin_utils/_broker_host_model.py says what it holds), with the
    controller's own files behind the checks of provided TLS files (there, and the certificate its key's).

    With hostvars, what the cluster argument leaves to them is read there: this host's instances, the
    kafka_controller group (cluster's groups), and what each host of kafka_broker_hosts noted in the play."""
    for name, value in (("inputs", inputs), ("settings", settings), ("cluster", cluster)):
        _mapping("kafka_broker_host_model", name, value)
    if hostvars is not None:
        noted = dict((host, host_variables(hostvars, host, HOST_NOTES))
                     for host in inputs.get("kafka_broker_hosts") or [])
        own = host_variables(hostvars, cluster["host"], HOST_NOTES)
        cluster = dict(cluster, instances=own.get("__kafka_broker_instances") or [],
                       controller_hosts=(cluster.get("groups") or {}).get("kafka_controller") or [],
                       host_addresses=dict((host, found["__kafka_broker_internal_address"])
                                           for host, found in noted.items()
                                           if "__kafka_broker_internal_address" in found),
                       host_instances=dict((host, found["__kafka_broker_instances"]) for host, found in noted.items()
                                           if "__kafka_broker_instances" in found))
    return host_model(inputs, settings, cluster, os.path.isfile, key_problem_of("kafka_broker_host_model"))


def kafka_broker_host_state(model, state):
    """What preflight's read of the host says: the brokers that run another metadata mode than asked for, and in
    KRaft mode each broker's storage and state for the storage plan."""
    _mapping("kafka_broker_host_state", "model", model)
    return broker.host_state(model, _mapping("kafka_broker_host_state", "state", state))


def kafka_broker_restarts(model, state, write, written, keystore_copy=None):
    """Which of the host's brokers need a restart once configure.yml wrote their files (write: kafka_broker_files'
    result; written: config_files' result; keystore_copy: the registered copy of the JMX key store, changed or not
    as Ansible's changed test reads it), and the restart markers to write."""
    for name, value in (("model", model), ("state", state), ("write", write), ("written", written),
                        ("keystore_copy", keystore_copy or {})):
        _mapping("kafka_broker_restarts", name, value)
    return broker.restart_decisions(model, state, write.get("restart_paths") or {}, written.get("changed_paths"),
                                    bool((keystore_copy or {}).get("changed", False)))


def _version_compare(version, other, operator):
    return version_compare(version, other, operator)


def kafka_broker_installed(model, version, classpath):
    """What depends on the installed Kafka: whether it runs the metadata mode asked for, its logging, the feature
    tool and the metadata version a new combined cluster starts with (versions compared as Ansible's version test
    compares them)."""
    _mapping("kafka_broker_installed", "model", model)
    return broker.installed(model, version, classpath, _version_compare)


def kafka_broker_storage_plan(model, hostvars, play_hosts, seed=""):
    """KRaft: the storage plan (filter kafka_storage_plan) of the play's brokers, from each one's storage and state
    as its preflight read them (fact __kafka_broker_found), the cluster id set and those the dedicated
    controllers settled in this run (their kafka_controller_cluster_id); in combined mode a new cluster's id is
    made from seed."""
    _mapping("kafka_broker_storage_plan", "model", model)
    nodes = []
    for host in in_play(model["hosts"], play_hosts):
        found = host_variables(hostvars, host, ("__kafka_broker_found",)).get("__kafka_broker_found")
        if not isinstance(found, Mapping):
            raise AnsibleFilterError("kafka_broker_storage_plan: %s has not read its brokers' storage "
                                     "(__kafka_broker_found, set by the role's preflight.yml)" % host)
        nodes.extend(found.get("storage_nodes") or [])
    inherited = [host_variables(hostvars, host, ("kafka_controller_cluster_id",)).get("kafka_controller_cluster_id", "")
                 for host in model["controller_hosts"]]
    return kafka_storage_plan(nodes, cluster_id=model["cluster_id"], inherited_ids=inherited,
                              seed=seed if model["combined"] else "", field="kafka_broker_cluster_id")


def _scram_arguments(users, mechanism, iterations):
    return kafka_scram_format_arguments(users, mechanism=mechanism, iterations=iterations)


def kafka_broker_storage_format(model, installed, storage):
    """KRaft: the command line that formats each of this host's brokers the storage plan formats, and the folders
    to give back to the brokers' user afterwards."""
    _mapping("kafka_broker_storage_format", "model", model)
    _mapping("kafka_broker_storage_format", "storage", storage)
    if "log4j2" not in _mapping("kafka_broker_storage_format", "installed", installed):
        raise AnsibleFilterError("kafka_broker_storage_format: the installed Kafka's version is not known")
    return broker.storage_format(model, installed, storage, _scram_arguments)


def kafka_broker_node_state(model, read, installed_read):
    """Each broker's state for the playbooks that act on the whole cluster (fact kafka_broker_node_state)."""
    for name, value in (("model", model), ("read", read), ("installed_read", installed_read)):
        _mapping("kafka_broker_node_state", name, value)
    return broker.node_state(model, read, installed_read)


def kafka_broker_unregister_commands(model, read):
    """playbooks/decommission.yml: the cluster tool's command line that unregisters each stopped broker the
    controllers still have, from the read of the stopped brokers' unit files."""
    _mapping("kafka_broker_unregister_commands", "model", model)
    return broker.unregister_commands(model, _mapping("kafka_broker_unregister_commands", "read", read))


def kafka_broker_restart_plan(model, hostvars, play_hosts, controller_id, wait_timeout, restart_all=False):
    """The play's brokers to restart, one at a time, the controller last (kafka_broker_restart_order): those whose
    restart decision says so (__kafka_broker_restarts), or every one with restart_all (__kafka_broker_instances);
    each with its client address and its host's kafka_broker_restart_wait_timeout (else wait_timeout, this host's:
    role defaults are not visible through hostvars) for the waits around its restart."""
    _mapping("kafka_broker_restart_plan", "model", model)
    fact = "__kafka_broker_instances" if restart_all else "__kafka_broker_restarts"
    markers = {}
    addresses = {}
    timeouts = {}
    for host in in_play(model["hosts"], play_hosts):
        found = host_variables(hostvars, host, (fact, "kafka_broker_client_addresses",
                                                "kafka_broker_restart_wait_timeout"))
        if fact not in found or "kafka_broker_client_addresses" not in found:
            raise AnsibleFilterError("kafka_broker_restart_plan: %s has not noted its brokers (%s, "
                                     "kafka_broker_client_addresses)" % (host, fact))
        markers[host] = found[fact] if restart_all else found[fact]["decisions"]
        addresses[host] = found["kafka_broker_client_addresses"]
        timeouts[host] = found.get("kafka_broker_restart_wait_timeout", wait_timeout)
    order = kafka_broker_restart_order(markers, controller_id, restart_all=restart_all)
    return broker.restart_waits(order, addresses, timeouts)


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
            "kafka_broker_defaults": kafka_broker_defaults,
            "kafka_client_defaults": kafka_client_defaults,
            "kafka_broker_host_model": kafka_broker_host_model,
            "kafka_broker_host_state": kafka_broker_host_state,
            "kafka_broker_files": kafka_broker_files,
            "kafka_broker_restarts": kafka_broker_restarts,
            "kafka_broker_restart_plan": kafka_broker_restart_plan,
            "kafka_broker_installed": kafka_broker_installed,
            "kafka_broker_storage_plan": kafka_broker_storage_plan,
            "kafka_broker_storage_format": kafka_broker_storage_format,
            "kafka_broker_node_state": kafka_broker_node_state,
            "kafka_broker_unregister_commands": kafka_broker_unregister_commands,
            "zookeeper_client_address": zookeeper_client_address,
            "zookeeper_peer_address": zookeeper_peer_address,
            "unresolved_addresses": unresolved_addresses,
        }
