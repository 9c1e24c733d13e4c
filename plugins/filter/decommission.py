# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether brokers can leave the cluster, and whether they still hold anything (playbooks/decommission.yml)."""

from __future__ import absolute_import, division, print_function


from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._waits import wait_failure


def _ids(broker_ids, field):
    if isinstance(broker_ids, str):
        broker_ids = [part.strip() for part in broker_ids.split(",") if part.strip()]
    try:
        ids = sorted(set(int(item) for item in broker_ids or []))
    except (TypeError, ValueError) as error:
        raise AnsibleFilterError("%s: expected broker ids such as 4,5, got %r" % (field, broker_ids)) from error
    if not ids:
        raise AnsibleFilterError("%s: name at least one broker id to decommission" % field)
    return ids


def kafka_decommission_check(cluster, broker_ids, default_min_insync_replicas=1, field="broker_ids"):
    """What decommissioning `broker_ids` means for the cluster as kafka_cluster_info read it (with configs).

    Returns {ids: broker_ids as a sorted list of ints,
    leaving: ids still registered (live or fenced), gone: ids no longer registered, remaining: live
    ids that stay, problems: sentences naming the topic or broker}. The remaining brokers must hold every topic's
    replication factor and each topic's min.insync.replicas (its own setting, else the brokers' default),
    or acks=all producers would stall, and at least one broker must remain.
    """
    ids = _ids(broker_ids, field)
    live = sorted(int(broker["id"]) for broker in cluster.get("brokers") or [])
    # A fenced broker (KRaft: stopped, still registered) may leave too, but cannot hold what others shed.
    registered = sorted(set(live) | set(int(broker) for broker in cluster.get("fenced_brokers") or []))
    leaving = [broker for broker in ids if broker in registered]
    remaining = [broker for broker in live if broker not in ids]
    problems = []
    if not remaining:
        problems.append("%s: %s would leave no broker" % (field, ",".join(str(i) for i in ids)))
    for name, topic in sorted((cluster.get("topics") or {}).items()):
        factor = max([len(partition["replicas"]) for partition in topic.get("partitions") or []] or [0])
        min_insync = int((topic.get("config") or {}).get("min.insync.replicas", default_min_insync_replicas))
        if factor > len(remaining):
            problems.append("topic %s: replication factor %d, but only %d broker(s) would remain (%s); lower its "
                            "replication factor first, or keep more brokers"
                            % (name, factor, len(remaining), ",".join(str(i) for i in remaining) or "none"))
        elif min_insync > len(remaining):
            problems.append("topic %s: min.insync.replicas %d, but only %d broker(s) would remain; acks=all "
                            "producers would be refused" % (name, min_insync, len(remaining)))
    return dict(ids=ids, leaving=leaving, gone=[broker for broker in ids if broker not in registered],
                remaining=remaining, problems=problems)


def inventory_min_insync_replicas(broker_hosts, hostvars):
    """The brokers' min.insync.replicas as the inventory gives it: the first kafka_broker host's
    kafka_broker_min_insync_replicas when it sets one (the role's default, 1, when it does not), 1 without brokers."""
    if not broker_hosts:
        return 1
    return hostvars[broker_hosts[0]].get("kafka_broker_min_insync_replicas", 1)


def kafka_decommission_plan(cluster, broker_ids, groups, hostvars, field="broker_ids"):
    """What decommission.yml works out before anything moves: kafka_decommission_check with the inventory's
    min.insync.replicas, and what the moves and the run's output need: topics (every topic the cluster read,
    internal ones included, in its order) and summary (the lines that say what leaves and what remains)."""
    plan = kafka_decommission_check(cluster, broker_ids,
                                    inventory_min_insync_replicas(groups.get("kafka_broker") or [], hostvars), field)
    plan["topics"] = list(cluster.get("topics") or {})
    plan["summary"] = ["Leaving: %s" % (", ".join(str(broker) for broker in plan["leaving"])
                                        or "none (already out of the cluster)"),
                       "Remaining: %s" % ", ".join(str(broker) for broker in plan["remaining"])]
    return plan


def kafka_replicas_on(cluster, broker_ids, field="broker_ids"):
    """The partitions that still have a replica on, or are led by, one of `broker_ids`: {replicas: [...],
    leaders: [...]}, as 'topic-partition' labels, sorted."""
    ids = set(_ids(broker_ids, field))
    replicas, leaders = [], []
    for name, topic in sorted((cluster.get("topics") or {}).items()):
        for partition in topic.get("partitions") or []:
            label = "%s-%s" % (name, partition["partition"])
            if ids & set(partition["replicas"]):
                replicas.append(label)
            if partition.get("leader") in ids:
                leaders.append(label)
    return dict(replicas=replicas, leaders=leaders)


def kafka_decommission_wait_failure(result, broker_ids, seconds=60, field="broker_ids"):
    """The sentence for the wait, after the units' stop, until no leaving id is registered (kafka_cluster_info
    read again), when it ended with some still registered or on a failed read."""
    ids = _ids(broker_ids, field)
    still = kafka_decommission_check(result, ids, field=field)["leaving"] if "brokers" in result else []
    return "%s. Their units are stopped; run the playbook again to finish" % wait_failure(
        result, "Brokers %s leaving the cluster within %s s of their stop" % (",".join(str(i) for i in ids), seconds),
        "still registered (live or fenced): %s" % (", ".join(str(i) for i in still) or "none"))


class FilterModule(object):
    def filters(self):
        return {
            "kafka_decommission_check": kafka_decommission_check,
            "kafka_decommission_plan": kafka_decommission_plan,
            "kafka_replicas_on": kafka_replicas_on,
            "kafka_decommission_wait_failure": kafka_decommission_wait_failure,
        }
