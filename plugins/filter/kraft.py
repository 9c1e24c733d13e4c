# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of KRaft clusters: Kafka ids, the controllers' addresses, the initial quorum, meta.properties."""

from __future__ import absolute_import, division, print_function


import base64
import hashlib

from ansible.errors import AnsibleFilterError
from ansible.module_utils.six import string_types
from ansible_collections.kafkaops.cluster.plugins.module_utils._java_properties import parse_java_properties
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._controller_host_model import controller_address
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._kafka_list_values import (
    LIST_VALUE_BREAKERS_TEXT, is_kafka_list_value)

# Ids Kafka keeps for itself (Uuid.ZERO_UUID, Uuid.ONE_UUID): never a cluster's or a directory's.
RESERVED_UUIDS = ("AAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAQ")


def kafka_uuid(seed):
    """A Kafka Uuid (22 characters, URL-safe base64 of 16 bytes) made from a seed: the same seed, the same id.

    Like Kafka's own ids, never a reserved one and never one that starts with '-' (which its tools
    would read as an option).
    """
    if not isinstance(seed, string_types) or not seed:
        raise AnsibleFilterError("kafka_uuid: expected a non-empty string as seed, got %r" % (seed,))
    text = seed
    while True:
        digest = hashlib.sha256(text.encode("utf-8")).digest()[:16]
        uuid = base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")
        if uuid not in RESERVED_UUIDS and not uuid.startswith("-"):
            return uuid
        text += "+"


SCRAM_MECHANISMS = ("SCRAM-SHA-256", "SCRAM-SHA-512")


def kafka_scram_format_arguments(users, mechanism="SCRAM-SHA-512", iterations=8192):
    """kafka-storage format's --add-scram arguments that start a new metadata log with these SCRAM users.

    users: a list of {name, password}. The result goes into an argv list, so no shell quoting is
    involved; a value holding a character the tool's [key=value,...] syntax would cut at is refused,
    naming the user (never the password).
    """
    if mechanism not in SCRAM_MECHANISMS:
        raise AnsibleFilterError("kafka_scram_format_arguments: mechanism must be one of %s, got %r"
                                 % (", ".join(SCRAM_MECHANISMS), mechanism))
    if not isinstance(users, list):
        raise AnsibleFilterError("kafka_scram_format_arguments: expected a list of {name, password}")
    arguments = []
    for index, user in enumerate(users):
        if not isinstance(user, dict) or not user.get("name") or not user.get("password"):
            raise AnsibleFilterError("kafka_scram_format_arguments: user %d needs a name and a password" % index)
        for field in ("name", "password"):
            if not is_kafka_list_value(user[field]):
                raise AnsibleFilterError(
                    "kafka_scram_format_arguments: the %s of user %s holds %s, which the storage tool's syntax "
                    "cannot carry" % (field, index if field == "name" else user["name"], LIST_VALUE_BREAKERS_TEXT))
        arguments += ["--add-scram", "%s=[name=%s,password=%s,iterations=%d]"
                      % (mechanism, user["name"], user["password"], int(iterations))]
    return arguments


def java_properties(text):
    """key -> value of a Java properties file such as meta.properties (no line continuations)."""
    if text is None:
        return {}
    if not isinstance(text, string_types):
        raise AnsibleFilterError("java_properties: expected the file's text, got %r" % (text,))
    return parse_java_properties(text)


def kafka_controller_address(member):
    """'address:port' of a controller's listener, from a (hostvars of the node, inventory name) pair: the role
    kafka_controller's rule (controller_address in plugin_utils/_controller_host_model.py)."""
    variables, name = member
    return controller_address(variables, name)


def kafka_initial_controllers(controllers, cluster_id):
    """The --initial-controllers value of Kafka's storage tool: 'id@host:port:directory_id,...'.

    controllers: dicts with node_id and address ('host:port'), or [node_id, address] pairs. Each
    directory id is made from the cluster id and the node id, so every controller formatted for the
    same new cluster, in this run or in a run that resumes a bootstrap cut short, gets the same list.
    """
    if not isinstance(controllers, list) or not controllers:
        raise AnsibleFilterError("kafka_initial_controllers: expected a non-empty list of controllers, got %r"
                                 % (controllers,))
    entries = []
    seen = set()
    for controller in controllers:
        try:
            if isinstance(controller, dict):
                node_id, address = int(controller["node_id"]), controller["address"]
            else:
                node_id, address = int(controller[0]), controller[1]
        except (IndexError, KeyError, TypeError, ValueError):
            raise AnsibleFilterError("kafka_initial_controllers: each controller needs node_id and address, got %r"
                                     % (controller,)) from None
        if node_id in seen:
            raise AnsibleFilterError("kafka_initial_controllers: node id %d is given twice" % node_id)
        seen.add(node_id)
        entries.append("%d@%s:%s" % (node_id, address, kafka_uuid("%s/%d" % (cluster_id, node_id))))
    return ",".join(entries)


def kafka_storage_plan(nodes, cluster_id="", inherited_ids=None, seed="", field="cluster_id"):
    """Which nodes to format, for which cluster, and whether with the initial voters; or what is wrong.

    nodes: one dict per node of the run: host, node_id, meta (the text of its meta.properties, empty
    when not formatted), active (its unit runs), controller_address ('host:port' for a controller,
    else empty). cluster_id: the id set by the user, or empty. inherited_ids: the ids the cluster's
    controllers settled in this run (for brokers of dedicated controllers). seed: a random string; a new
    id is made from it when nothing else gives one (empty: none may be made). field: the variable the
    messages name.

    Returns {cluster_id, new_quorum, initial_controllers, format: {host: [node ids]}, problems: [...]}.
    A new quorum is one where no node of the run runs yet: its controllers are all formatted with the
    same initial voters (KIP-853); else an unformatted controller joins as an observer.
    """
    problems = []
    formatted = {}
    for node in nodes:
        meta = java_properties(node.get("meta") or "")
        if meta.get("cluster.id"):
            formatted[(node["host"], int(node["node_id"]))] = meta
            if meta.get("node.id") not in (None, str(node["node_id"])):
                problems.append("%s: node %s's storage is formatted for node %s; storage is never formatted again"
                                % (node["host"], node["node_id"], meta.get("node.id")))
    found = sorted(set(meta["cluster.id"] for meta in formatted.values()))
    inherited = sorted(set(name for name in (inherited_ids or []) if name))
    if len(inherited) > 1:
        problems.append("%s: the controllers of this run hold several cluster ids: %s" % (field, ", ".join(inherited)))
    chosen = cluster_id or (inherited[0] if inherited else "") or (found[0] if len(found) == 1 else "")
    if not chosen and not found and seed:
        chosen = kafka_uuid(seed)
    if not chosen and not found:
        problems.append("%s: not known; run the kafka_controller role in the same run (site.yml does), or set it "
                        "to the id the controllers were formatted with" % field)
    if cluster_id and inherited and cluster_id != inherited[0]:
        problems.append("%s: set to %s, but the controllers hold %s" % (field, cluster_id, inherited[0]))
    strangers = sorted("%s (node %d: %s)" % (host, node_id, meta["cluster.id"])
                       for (host, node_id), meta in formatted.items() if meta["cluster.id"] != chosen)
    if strangers:
        problems.append("%s: storage formatted for another cluster than %s: %s; it is never formatted again: "
                        "fix the inventory or clear that node's storage"
                        % (field, chosen or "one id", ", ".join(strangers)))
    new_quorum = not any(node.get("active") for node in nodes)
    controllers = [(node["node_id"], node["controller_address"]) for node in nodes if node.get("controller_address")]
    plan = dict(cluster_id=chosen, new_quorum=new_quorum, problems=problems, format={},
                initial_controllers=kafka_initial_controllers(controllers, chosen) if controllers and chosen else "")
    for node in nodes:
        if (node["host"], int(node["node_id"])) not in formatted:
            plan["format"].setdefault(node["host"], []).append(int(node["node_id"]))
    return plan


class FilterModule(object):
    def filters(self):
        return {
            "kafka_uuid": kafka_uuid,
            "java_properties": java_properties,
            "kafka_controller_address": kafka_controller_address,
            "kafka_initial_controllers": kafka_initial_controllers,
            "kafka_storage_plan": kafka_storage_plan,
            "kafka_scram_format_arguments": kafka_scram_format_arguments,
        }
