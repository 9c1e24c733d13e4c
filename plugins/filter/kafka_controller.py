# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the kafka_controller role: its defaults from the inventory, the host model and what follows from it
(the files to write, the installed Kafka's tools, what the host holds, the restart order, the node state, a failed
migration step), and kafka_installed_markers, which the service roles' node state reads share. The logic is in
plugin_utils/_controller_host_model.py; these read Ansible's hostvars into plain data for it."""

from __future__ import absolute_import, division, print_function


from collections.abc import Mapping

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.module_utils.six import string_types
from ansible.plugins.test.core import version_compare
from ansible_collections.kafkaops.cluster.plugins.filter.kafka_broker import host_variables
from ansible_collections.kafkaops.cluster.plugins.filter.kafka_broker import zookeeper_connect
from ansible_collections.kafkaops.cluster.plugins.plugin_utils import _controller_host_model as controller
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._kafka_node import installed_markers

# Kafka 4 logs through log4j 2: compared by Ansible's own version test, as the role's tasks compare versions.
LOG4J2_FROM = "4.0"


def _mapping(filter_name, name, value):
    if not isinstance(value, Mapping):
        raise AnsibleFilterError("%s: %s must be a mapping, got %s" % (filter_name, name, type(value).__name__))
    return value


def kafka_controller_defaults(groups, hostvars):
    """The defaults of the role's variables that come from the rest of the inventory (the kafka_broker group's first
    host, the zookeeper group's client addresses), by variable name."""
    _mapping("kafka_controller_defaults", "groups", groups)
    brokers = groups.get("kafka_broker") or []
    first_broker = host_variables(hostvars, brokers[0], controller.BROKER_VARIABLES) if brokers else None
    return controller.inventory_defaults(first_broker, zookeeper_connect(groups, hostvars))


def kafka_controller_host_model(inputs, settings, cluster, hostvars):
    """The kafka_controller role's host model (plugin_utils/_controller_host_model.py says what it holds), with
    what the hosts of kafka_controller_hosts define of MEMBER_VARIABLES read from hostvars."""
    for name, value in (("inputs", inputs), ("settings", settings), ("cluster", cluster)):
        _mapping("kafka_controller_host_model", name, value)
    members = {host: host_variables(hostvars, host, controller.MEMBER_VARIABLES)
               for host in inputs.get("kafka_controller_hosts") or []}
    return controller.host_model(inputs, settings, dict(cluster, members=members))


def kafka_controller_installed(model, version, classpath):
    """What depends on the installed Kafka: logging settings, the tools' command lines, the release version."""
    _mapping("kafka_controller_installed", "model", model)
    if not isinstance(version, string_types) or not version:
        raise AnsibleFilterError("kafka_controller_installed: expected the installed Kafka's version, got %r"
                                 % (version,))
    return controller.installed(model, version_compare(version, LOG4J2_FROM, ">="), version, classpath)


def kafka_controller_files(model, templates, log4j2):
    """The folders and files the role writes on the host and the paths whose change restarts the controller."""
    _mapping("kafka_controller_files", "model", model)
    _mapping("kafka_controller_files", "templates", templates)
    try:
        log4j2 = boolean(log4j2, strict=True)
    except TypeError:
        raise AnsibleFilterError("kafka_controller_files: log4j2: expected a boolean, got %r" % (log4j2,)) from None
    return controller.controller_files(model, templates, log4j2)


def kafka_controller_host_state(model, state):
    """What preflight's read of the host says: the refused change of migration mode, if any, and the storage."""
    _mapping("kafka_controller_host_state", "model", model)
    return controller.host_state(model, _mapping("kafka_controller_host_state", "state", state))


def kafka_controller_restart_order(model, hostvars, play_hosts, restart_all=False):
    """The play's controllers to restart, followers before the leader: those whose restart is owed
    (__kafka_controller_restart_pending), or all of them with restart_all. The leader is the first one any of them
    saw (its registered __kafka_controller_quorum)."""
    _mapping("kafka_controller_restart_order", "model", model)
    controllers = [item for item in model["controllers"] if item["host"] in play_hosts]
    wanted = ("__kafka_controller_quorum", "__kafka_controller_restart_pending")
    variables = {item["host"]: host_variables(hostvars, item["host"], wanted) for item in controllers}
    leader_ids = [(variables[item["host"]].get("__kafka_controller_quorum") or {}).get("leader_id")
                  for item in controllers]
    pending = {host: found.get("__kafka_controller_restart_pending") for host, found in variables.items()}
    return controller.restart_order(controllers, play_hosts, leader_ids, pending, restart_all=restart_all)


def kafka_controller_node_state(model, read, installed_read):
    """The controller's state for the playbooks that act on the whole cluster (kafka_controller_node_state)."""
    for name, value in (("model", model), ("read", read), ("installed_read", installed_read)):
        _mapping("kafka_controller_node_state", name, value)
    return controller.node_state(model, read, installed_read)


def kafka_controller_migration_failure(results, step, failure, failed_phase=None, phase=None, inventory_sources=()):
    """The message of a failed migration step with the brokers, from the registered results of the task that read
    each controller's last migration fault (looped over the model's controllers)."""
    if not isinstance(results, list):
        raise AnsibleFilterError("kafka_controller_migration_failure: expected the registered results, a list, got %r"
                                 % (results,))
    faults = []
    for result in results:
        item = result.get("item")
        faults.append((item.get("host") if isinstance(item, Mapping) else item, result.get("stdout") or ""))
    return controller.migration_failure(faults, step, failure, failed_phase, phase, list(inventory_sources or []))


def kafka_installed_markers(read, unit_files):
    """The version markers (role kafka_distribution's) of the installed Kafkas these unit files run, to read next,
    from a host_state_info result that holds the units' text."""
    _mapping("kafka_installed_markers", "read", read)
    if isinstance(unit_files, string_types) or not isinstance(unit_files, list):
        raise AnsibleFilterError("kafka_installed_markers: expected a list of unit files, got %r" % (unit_files,))
    return installed_markers(read.get("files"), unit_files)


class FilterModule(object):
    def filters(self):
        return {
            "kafka_controller_defaults": kafka_controller_defaults,
            "kafka_controller_host_model": kafka_controller_host_model,
            "kafka_controller_installed": kafka_controller_installed,
            "kafka_controller_files": kafka_controller_files,
            "kafka_controller_host_state": kafka_controller_host_state,
            "kafka_controller_restart_order": kafka_controller_restart_order,
            "kafka_controller_node_state": kafka_controller_node_state,
            "kafka_controller_migration_failure": kafka_controller_migration_failure,
            "kafka_installed_markers": kafka_installed_markers,
        }
