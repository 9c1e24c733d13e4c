#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: kafka_consumer_group
short_description: Read a Kafka consumer group's lag, reset its offsets, or delete it
version_added: "0.3.0"
description:
  - Reads one consumer group - its state, its active members with what each consumes, and per
    partition the committed offset, the log's start and end offsets and the lag - speaking the Kafka
    protocol through kafka-python's admin client. No JVM tool runs.
  - With O(reset), moves the group's committed offsets as Kafka's C(kafka-consumer-groups --reset-offsets)
    does - to the earliest or latest offset, to the first record at or after a timestamp, to a given
    offset, or shifted by a number - and commits them in one request.
  - Every target offset is clamped to the partition's log, from its earliest to its latest offset,
    since a consumer could not start outside it.
  - Offsets are changed, and a group deleted, only while the group has no active members, since a
    consumer of the group would go on from its own position and overwrite them. With members the module fails
    naming each member (member id, client id, host) and changes nothing.
  - Only reports C(changed) when a committed offset differs from its target, so a reset to the
    earliest, the latest, a timestamp or an offset reports no change when repeated.
  - O(reset=shift) is relative by nature - it moves from the offsets committed when the module runs -
    so every run shifts again and reports C(changed), unless the targets are clamped to where the
    offsets already are. Check mode shows what one more run would do. For a repeatable outcome,
    reset to an offset or a timestamp instead.
  - Bad options (a timestamp that does not parse, reset options that do not go together, a negative
    offset) are refused naming the option before the module connects; an unknown topic or partition,
    or a partition without a committed offset to shift from, is refused before anything is written.
author:
  - kafkaops.cluster developers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.cluster.kafka_connection
options:
  group:
    description: Name of the consumer group (its C(group.id)).
    type: str
    required: true
  state:
    description:
      - V(present) reads the group and, with O(reset), resets its offsets. Committing offsets for a
        group the cluster does not know creates it, as a consumer's first commit does.
      - V(absent) deletes the group with all its committed offsets, when it exists and has no members.
    type: str
    choices: [present, absent]
    default: present
  topics:
    description:
      - The topics to read and reset, each V(name) for all its partitions or V(name:0,2) for some.
      - When not given, the partitions the group has committed offsets for or its members consume.
      - Partitions named here without a committed offset are shown with lag V(null) and, with O(reset),
        given one (except with O(reset=shift)).
    type: list
    elements: str
  reset:
    description:
      - How to reset the offsets of O(topics). Leave it out to only read the group.
      - V(earliest) and V(latest) - the log's first offset, or its end (only records written later are read).
      - V(timestamp) - the first record whose timestamp is at or after O(reset_timestamp); the end of the
        log where no record is that new.
      - V(offset) - O(reset_offset) in every partition (clamped to each log).
      - V(shift) - the committed offset plus O(reset_shift), which may be negative; every run shifts again.
    type: str
    choices: [earliest, latest, timestamp, offset, shift]
  reset_timestamp:
    description:
      - With O(reset=timestamp), milliseconds since the epoch, or an ISO-8601 date and time with a time zone
        such as V(2024-05-01T08:00:00Z) or V(2024-05-01T10:00:00.000+02:00).
      - A time without a zone is refused, so that the result does not depend on where the module runs.
    type: str
  reset_offset:
    description: With O(reset=offset), the offset for every partition; at least 0.
    type: int
  reset_shift:
    description: With O(reset=shift), how many records to move each committed offset; negative moves back.
    type: int
attributes:
  check_mode:
    description: Reads the group and computes the targets the same way, but commits nothing and deletes nothing.
    support: full
  diff_mode:
    description: Shows the committed offsets of the partitions reset (or of the group deleted) before and after.
    support: full
notes:
  - Needs the DESCRIBE and READ operations on the GROUP, DESCRIBE on the topics, and DELETE on the group
    for O(state=absent), when the cluster has an authorizer.
  - Lag is the log end offset minus the committed offset, counted in offsets (transaction markers included).
seealso:
  - module: kafkaops.cluster.kafka_topic
  - module: kafkaops.cluster.kafka_cluster_info
"""

EXAMPLES = r"""
- name: Read a group's members and lag
  kafkaops.cluster.kafka_consumer_group:
    bootstrap_servers: kafka1:9092
    group: billing
  register: billing

- name: Replay orders from the start of the day (the billing consumers are stopped)
  kafkaops.cluster.kafka_consumer_group:
    bootstrap_servers: kafka1:9092
    group: billing
    topics: [orders]
    reset: timestamp
    reset_timestamp: "2024-05-01T00:00:00Z"

- name: Skip everything not yet read in two partitions
  kafkaops.cluster.kafka_consumer_group:
    bootstrap_servers: kafka1:9092
    group: billing
    topics: ["orders:0,3"]
    reset: latest

- name: Read the last 100 records of each partition again (shifts again on every run)
  kafkaops.cluster.kafka_consumer_group:
    bootstrap_servers: kafka1:9092
    group: billing
    reset: shift
    reset_shift: -100

- name: Delete a group no consumer uses any more
  kafkaops.cluster.kafka_consumer_group:
    bootstrap_servers: kafka1:9092
    group: old-reporting
    state: absent
"""

RETURN = r"""
exists:
  description: Whether the group existed when the module read it (it has a state other than Dead or committed offsets).
  returned: always
  type: bool
state:
  description: The group's state as the coordinator reports it, such as V(Stable), V(Empty) or V(Dead).
  returned: always
  type: str
  sample: Empty
protocol_type:
  description: The group's protocol type, V(consumer) for consumers; empty when the group has none.
  returned: always
  type: str
members:
  description: The active members of the group.
  returned: always
  type: list
  elements: dict
  contains:
    member_id:
      description: The id the coordinator gave the member.
      type: str
    group_instance_id:
      description: The static member id (C(group.instance.id)), if the member has one.
      type: str
    client_id:
      description: The consumer's C(client.id).
      type: str
    host:
      description: The address the member connected from.
      type: str
    assignment:
      description: The partitions the member consumes, each C(topic) and C(partition).
      type: list
      elements: dict
partitions:
  description:
    - Per partition of O(topics) (or that the group has committed an offset for or its members consume),
      the committed offset - after the
      reset, or as check mode predicts it - the log's start and end offsets and the lag.
    - C(committed_offset) and C(lag) are null for a partition without a committed offset.
  returned: always
  type: list
  elements: dict
  sample:
    - {topic: orders, partition: 0, committed_offset: 40, log_start_offset: 0, log_end_offset: 52, lag: 12}
total_lag:
  description: The sum of the partitions' lags.
  returned: always
  type: int
  sample: 12
offsets_changed:
  description: The partitions whose committed offset the reset changed (or would change in check mode).
  returned: always
  type: list
  elements: dict
  sample:
    - {topic: orders, partition: 0, before: 40, after: 0}
deleted:
  description: Whether the group was deleted (or would be in check mode).
  returned: always
  type: bool
"""

from ansible_collections.kafkaops.cluster.plugins.module_utils._admin_module import KafkaAdminModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._consumer_group_changes import RESETS
from ansible_collections.kafkaops.cluster.plugins.module_utils._consumer_groups import (
    check_group_inputs,
    run_consumer_group,
    unchanged_group_result,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import NumberLimit

ARGUMENT_SPEC = dict(
    group=dict(type="str", required=True),
    state=dict(type="str", default="present", choices=["present", "absent"]),
    topics=dict(type="list", elements="str"),
    reset=dict(type="str", choices=list(RESETS)),
    reset_timestamp=dict(type="str"),
    reset_offset=dict(type="int"),
    reset_shift=dict(type="int"),
)
LIMITS = dict(reset_offset=NumberLimit(minimum=0))


def main():
    module = KafkaAdminModule(ARGUMENT_SPEC, limits=LIMITS)
    module.run(run_consumer_group, check_inputs=check_group_inputs, result=unchanged_group_result())


if __name__ == "__main__":
    main()
