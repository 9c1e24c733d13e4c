# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Kafka nodes' states as the roles' node_state.yml entry points read them, gathered from the hosts of a play
(playbooks migrate_to_kraft.yml and upgrade.yml), and what the upgrade reads from the inventory besides.

Each broker host holds kafka_broker_node_state (one item per broker of the host), each controller host
kafka_controller_node_state (one item). Plain data in, plain data out: what a host holds comes as a mapping of its
variables per host, such as hostvars.
"""

from __future__ import absolute_import, division, print_function


from ansible_collections.kafkaops.cluster.plugins.plugin_utils._service_rules import in_play


class NodeStateError(ValueError):
    """A host of the play holds no node state: node_state.yml did not run there."""


def _state(host_variables, host, name):
    variables = host_variables.get(host) or {}
    if name not in variables:
        raise NodeStateError("%s: %s is not set; the host's node_state.yml (role %s) did not run in this play"
                             % (host, name, name[:-len("_node_state")]))
    return variables[name]


def node_states(broker_hosts, controller_hosts, play_hosts, host_variables):
    """{brokers, controllers}: every broker's state of the broker hosts in the play (a host's brokers one after
    another) and each controller host's state, the hosts in the order of their group, each once."""
    brokers = []
    for host in in_play(broker_hosts, play_hosts):
        brokers.extend(_state(host_variables, host, "kafka_broker_node_state"))
    controllers = [_state(host_variables, host, "kafka_controller_node_state")
                   for host in in_play(controller_hosts, play_hosts)]
    return {"brokers": brokers, "controllers": controllers}


def zookeeper_mode(brokers):
    """Whether the cluster runs in ZooKeeper mode: every broker's state (at least one) says zookeeper."""
    return bool(brokers) and all(broker.get("mode") == "zookeeper" for broker in brokers)


def upgrade_inventory(broker_hosts, play_hosts, host_variables):
    """What the upgrade's check reads from the inventory and the hosts: targets, {host of the play: the Kafka version
    of the archive this run unpacked there (fact kafka_distribution_version)}, and pinned_protocol, the
    inter.broker.protocol.version the first kafka_broker host's kafka_broker_properties pin ('' for none)."""
    targets = {}
    for host in play_hosts:
        variables = host_variables.get(host) or {}
        if "kafka_distribution_version" not in variables:
            raise NodeStateError("%s: kafka_distribution_version is not set; the kafka_distribution role did not run "
                                 "there in this play" % host)
        targets[host] = variables["kafka_distribution_version"]
    first = (host_variables.get(broker_hosts[0]) or {}) if broker_hosts else {}
    properties = first.get("kafka_broker_properties", {})
    return {"targets": targets, "pinned_protocol": str(properties.get("inter.broker.protocol.version", ""))}
