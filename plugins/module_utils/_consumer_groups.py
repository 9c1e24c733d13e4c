# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The module kafka_consumer_group's run: read a group and its lag, reset its offsets or delete it.

Reads: DescribeGroups (state and members), OffsetFetch (committed offsets), Metadata (the
partitions of the topics named), ListOffsets (earliest, latest, by timestamp). Writes: one
OffsetCommit sent by the admin client as Kafka's AdminClient sends alterConsumerGroupOffsets (no
member id, no generation, so it joins no group and the coordinator takes it only while the group
has no members), or one DeleteGroups. The target offsets are computed without the network
(_consumer_group_changes.py).
"""

from __future__ import absolute_import, division, print_function


try:
    from kafka import TopicPartition
    from kafka.protocol.consumer import OffsetSpec
    from kafka.structs import OffsetAndMetadata
except ImportError:
    TopicPartition = OffsetSpec = OffsetAndMetadata = None

from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import read_topics
from ansible_collections.kafkaops.cluster.plugins.module_utils._consumer_group_changes import (
    GroupSpecError,
    check_group_options,
    describe_members,
    lag_report,
    offsets_by_topic,
    plan_reset,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import KafkaAdminError

# What DescribeGroups and DeleteGroups answer for a group the coordinator does not know.
GROUP_NOT_FOUND = "GroupIdNotFoundError"


def read_group(client, group):
    """{exists, state, protocol_type, members: [{member_id, group_instance_id, client_id, host, assignment}]}.

    assignment: [{topic, partition}] the member consumes. A group the coordinator does not know
    reads as state Dead with no members (older brokers answer so without an error).
    """
    described = client.describe_groups([group]).get(group)
    if described is None:
        raise KafkaAdminError("describing consumer group %r failed: no answer for it" % group, "group")
    error = described.get("error")
    if error and GROUP_NOT_FOUND not in error:
        raise KafkaAdminError("describing consumer group %r failed: %s" % (group, error), "group")
    members = []
    for member in described.get("members") or []:
        assignment = member.get("member_assignment")
        assigned = assignment.get("assigned_partitions", []) if isinstance(assignment, dict) else []
        members.append(dict(
            member_id=member["member_id"], group_instance_id=member.get("group_instance_id"),
            client_id=member["client_id"], host=member["client_host"],
            assignment=[dict(topic=topic["topic"], partition=partition)
                        for topic in assigned for partition in sorted(topic["partitions"])]))
    state = described.get("group_state") or "Dead"
    return dict(exists=not error and state != "Dead", state=state,
                protocol_type=described.get("protocol_type") or "", members=members)


def read_committed(client, group):
    """{(topic, partition): committed offset}; a partition without one (-1) is left out."""
    fetched = client.list_group_offsets({group: None}).get(group) or {}
    return dict(((tp.topic, tp.partition), committed.offset) for tp, committed in fetched.items()
                if committed.offset is not None and committed.offset >= 0)


def read_partitions(client, topics):
    """The partitions that O(topics) names, sorted; GroupSpecError names an unknown topic or partition."""
    existing = read_topics(client, [name for name, unused in topics], missing_ok=True)
    partitions = []
    for name, numbers in topics:
        if name not in existing:
            raise GroupSpecError("topics", "topic %r does not exist" % name)
        held = set(partition["partition"] for partition in existing[name])
        missing = [number for number in numbers or [] if number not in held]
        if missing:
            raise GroupSpecError("topics", "topic %r has no partition %s (it has %d)" % (
                name, ", ".join(str(number) for number in missing), len(held)))
        partitions.extend((name, number) for number in (numbers if numbers is not None else sorted(held)))
    return sorted(set(partitions))


def list_offsets(client, partitions, spec, timeout_ms):
    """{(topic, partition): offset} by ListOffsets.

    spec: an OffsetSpec, or a timestamp in ms (the offset is None where no record is that new).
    """
    if not partitions:
        return {}
    found = client.list_partition_offsets(dict((TopicPartition(topic, number), spec) for topic, number in partitions),
                                          timeout_ms=timeout_ms)
    return dict(((tp.topic, tp.partition), answer.offset if answer.offset >= 0 else None)
                for tp, answer in found.items())


def commit_offsets(client, group, targets):
    """Commit targets {(topic, partition): offset} for group; KafkaAdminError names the partitions refused."""
    answers = client.alter_group_offsets(group, dict(
        (TopicPartition(topic, number), OffsetAndMetadata(offset, "", None))
        for (topic, number), offset in targets.items()))
    refused = sorted("%s-%d: %s" % (tp.topic, tp.partition, error.__name__)
                     for tp, error in answers.items() if getattr(error, "errno", 0))
    if refused:
        raise KafkaAdminError("committing the offsets of consumer group %r failed (did a consumer of the group "
                              "start meanwhile?): %s" % (group, "; ".join(refused)), "group")


def delete_group(client, group):
    """DeleteGroups; True when deleted, False when the group was already gone."""
    outcome = client.delete_groups([group]).get(group)
    if outcome == "OK":
        return True
    if outcome == GROUP_NOT_FOUND:
        return False
    raise KafkaAdminError("deleting consumer group %r failed: %s" % (group, outcome), "group")


def _refuse_with_members(group, described, action):
    if described["members"]:
        raise KafkaAdminError("consumer group %r has %d active member(s), so its offsets cannot be %s; stop its "
                              "consumers first: %s" % (group, len(described["members"]), action,
                                                       describe_members(described["members"])), "group")


# ---- the module's run ------------------------------------------------------------------------


def unchanged_group_result():
    """What kafka_consumer_group returns when nothing changes (a failure returns it too)."""
    return dict(changed=False, exists=False, state="Dead", protocol_type="", members=[], partitions=[],
                total_lag=0, offsets_changed=[], deleted=False)


def check_group_inputs(module):
    """The options checked and normalised before connecting (GroupSpecError names the option)."""
    return check_group_options(module.params)


def run_consumer_group(module, client, inputs):
    """kafka_consumer_group: read the group; reset its offsets or delete it when asked, unless in check mode."""
    group = inputs["group"]
    timeout_ms = module.params["request_timeout"] * 1000
    described = read_group(client, group)
    committed = read_committed(client, group)
    module.result.update(exists=described["exists"] or bool(committed), state=described["state"],
                         protocol_type=described["protocol_type"], members=described["members"])
    if inputs["state"] == "absent":
        _run_delete(module, client, group, described, committed)
        return
    # Without topics: the partitions the group committed offsets for or its members consume (those
    # without a commit yet show as lag unknown). A reset needs the group without members, so it
    # moves the committed ones.
    if inputs["topics"] is not None:
        selected = read_partitions(client, inputs["topics"])
    else:
        consumed = set((item["topic"], item["partition"]) for member in described["members"]
                       for item in member["assignment"])
        selected = sorted(set(committed) | consumed)
    if inputs["reset"] is not None:
        if not selected:
            raise GroupSpecError("topics", "consumer group %r has no committed offsets; name the topics whose "
                                           "offsets to reset" % group)
        _refuse_with_members(group, described, "reset")
    earliest = list_offsets(client, selected, OffsetSpec.EARLIEST, timeout_ms)
    latest = list_offsets(client, selected, OffsetSpec.LATEST, timeout_ms)
    after = dict(committed)
    changes = []
    if inputs["reset"] is not None:
        by_timestamp = (list_offsets(client, selected, inputs["value"], timeout_ms)
                        if inputs["reset"] == "timestamp" else None)
        plan = plan_reset(inputs["reset"], inputs["value"], selected, committed, earliest, latest, by_timestamp)
        changes = plan["changes"]
        if plan["changed"] and not module.check_mode:
            commit_offsets(client, group, plan["targets"])
        after.update(plan["targets"])
        if module.diff:
            module.result["diff"] = dict(
                before=dict(offsets=offsets_by_topic(dict((partition, committed.get(partition))
                                                          for partition in selected))),
                after=dict(offsets=offsets_by_topic(dict((partition, plan["targets"][partition])
                                                         for partition in selected))))
    elif module.diff:
        module.result["diff"] = dict(before={}, after={})
    rows, total_lag = lag_report(selected, after, earliest, latest)
    module.result.update(changed=bool(changes), offsets_changed=changes, partitions=rows, total_lag=total_lag)


def _run_delete(module, client, group, described, committed):
    exists = described["exists"] or bool(committed)
    if exists:
        _refuse_with_members(group, described, "deleted")
    deleted = exists and (module.check_mode or delete_group(client, group))
    module.result.update(changed=bool(deleted), deleted=bool(deleted))
    if module.diff:
        module.result["diff"] = dict(before=dict(offsets=offsets_by_topic(committed)) if exists else {},
                                     after={})
