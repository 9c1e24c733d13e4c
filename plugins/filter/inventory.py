# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the inventory and the cluster agree on the brokers (playbooks/inventory_check.yml)."""

from __future__ import absolute_import, division, print_function


from ansible.errors import AnsibleFilterError

NEW_BROKERS = ("allowed", "refused")


def _int(value, field):
    try:
        return int(value)
    except (TypeError, ValueError):
        raise AnsibleFilterError("%s: expected a broker id (an integer), got %r" % (field, value)) from None


def kafka_inventory_broker_ids(group_hosts, hostvars, only=None, flat=False):
    """{host: [broker ids]} of the kafka_broker group's hosts, as the kafka_broker role numbers them; with `only`,
    of those hosts alone (numbered by their place in the whole group); with `flat`, their ids as one sorted list.

    A host the role has run on in this play (its instances worked out, __kafka_broker_instances) gives
    those; a host outside the play (--limit) gives what its inventory says: kafka_broker_instances' ids,
    else kafka_broker_id, else the role's default, its position in the group plus one.
    """
    ids = {}
    for position, host in enumerate(group_hosts or []):
        variables = hostvars[host]
        worked_out = variables.get("__kafka_broker_instances")
        declared = variables.get("kafka_broker_instances") or []
        if worked_out:
            ids[host] = [_int(item["broker_id"], "%s: broker_id" % host) for item in worked_out]
        elif declared:
            ids[host] = [_int(item.get("broker_id"), "%s: kafka_broker_instances[].broker_id" % host)
                         for item in declared]
        elif variables.get("kafka_broker_id") not in (None, ""):
            ids[host] = [_int(variables.get("kafka_broker_id"), "%s: kafka_broker_id" % host)]
        else:
            ids[host] = [position + 1]
    if only is not None:
        ids = dict((host, found) for host, found in ids.items() if host in set(only))
    return sorted(broker for found in ids.values() for broker in found) if flat else ids


def kafka_inventory_drift(cluster, inventory_ids, new_brokers="allowed", leaving=None, playbook="this playbook"):
    """Compare the brokers a kafka_cluster_info result knows with the inventory's ({host: [ids]}).

    The cluster knows a broker that is registered (live, or fenced in KRaft mode) or that any partition's
    replica list names (a ZooKeeper-mode broker that is down is registered nowhere, but still holds
    replicas). Returns {missing: [{id, where}], unknown: [{id, host}], problems: [sentences], summary}:
    missing, ids the cluster knows and the inventory lacks (always a problem); unknown, ids of the
    inventory the cluster does not know (a problem with new_brokers=refused, unless in leaving); summary, the
    sentence that says they agree, naming the registered brokers and the new ones.
    """
    if new_brokers not in NEW_BROKERS:
        raise AnsibleFilterError("new_brokers: %r is not one of %s" % (new_brokers, ", ".join(NEW_BROKERS)))
    if isinstance(leaving, str):
        leaving = [part for part in leaving.split(",") if part.strip()]
    leaving = set(_int(item, "leaving") for item in (leaving or []))
    live = dict((_int(broker["id"], "brokers[].id"), broker) for broker in cluster.get("brokers") or [])
    fenced = set(_int(item, "fenced_brokers[]") for item in cluster.get("fenced_brokers") or [])
    holding = {}
    for name, topic in sorted((cluster.get("topics") or {}).items()):
        for partition in topic.get("partitions") or []:
            for replica in partition.get("replicas") or []:
                holding.setdefault(_int(replica, "replicas[]"), []).append("%s-%s" % (name, partition["partition"]))
    known = set(live) | fenced | set(holding)
    owners = {}
    for host, ids in sorted((inventory_ids or {}).items()):
        for broker_id in ids:
            owners[int(broker_id)] = host

    missing, problems = [], []
    for broker_id in sorted(known - set(owners)):
        if broker_id in live:
            where = "registered, at %s:%s" % (live[broker_id].get("host"), live[broker_id].get("port"))
        elif broker_id in fenced:
            where = "registered and fenced (stopped)"
        else:
            where = "registered nowhere (down), still named as a replica"
        if broker_id in holding:
            where += ", holding replicas of %d partition(s) such as %s" % (
                len(holding[broker_id]), holding[broker_id][0])
        missing.append(dict(id=broker_id, where=where))
        problems.append(
            "broker %d (%s) is not in the inventory's kafka_broker group; %s would leave it out. Add its host to "
            "kafka_broker (with kafka_broker_id: %d), or take it out of the cluster first "
            "(kafkaops.cluster.decommission -e broker_ids=%d)" % (broker_id, where, playbook, broker_id, broker_id))
    unknown = [dict(id=broker_id, host=owners[broker_id]) for broker_id in sorted(set(owners) - known)]
    if new_brokers == "refused":
        for item in unknown:
            if item["id"] in leaving:
                continue
            problems.append("broker %d (inventory host %s) is not known to the cluster: %s needs every broker of the "
                            "inventory running in it. Deploy it first (kafkaops.cluster.scale_out or site.yml), or "
                            "take the host out of kafka_broker" % (item["id"], item["host"], playbook))
    summary = "The inventory names every broker the cluster knows (%s)" % ", ".join(
        str(broker_id) for broker_id in sorted(set(live) | fenced))
    if unknown:
        summary += " and new ones: %s" % ", ".join(str(item["id"]) for item in unknown)
    return dict(missing=missing, unknown=unknown, problems=problems, summary=summary)


class FilterModule(object):
    def filters(self):
        return {
            "kafka_inventory_broker_ids": kafka_inventory_broker_ids,
            "kafka_inventory_drift": kafka_inventory_drift,
        }
