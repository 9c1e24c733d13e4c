#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: kafka_topic
short_description: Create, grow, reconfigure and delete Kafka topics, one or thousands per call
version_added: "0.1.0"
description:
  - Makes Kafka topics match a declaration, speaking the Kafka protocol through kafka-python's admin
    client. No JVM tool runs.
  - Declare one topic with O(name), or many with O(topics). However many topics are declared, the
    module sends a handful of requests - one to read the topics, one for their configs, then at most one
    per kind of change, except that topics to create go in up to 4 CreateTopics requests sent side by
    side over connections of their own (from 50 topics on). Against a ZooKeeper-mode cluster the
    controller then starts the new topics in fewer, larger rounds instead of about one round per topic,
    which saves the brokers much of their work; the time a large creation takes is the brokers' work of
    creating the partitions, not round trips.
  - Creates missing topics, raises partition counts, sets topic configs and, with O(state=absent),
    deletes topics.
  - Every change is first sent to the cluster with C(validate_only), so the brokers' own checks (topic
    names, config keys and values, counts) pass for all declared topics before any topic changes. A
    refused declaration fails naming the entry and the reason, and leaves the cluster as it was.
  - Refuses to lower a partition count (Kafka cannot) and to change the replication factor of an
    existing topic; that moves data and is the job of a reassignment, which the error message spells out.
  - Only reports C(changed) when the cluster differs from the declaration; check mode predicts the
    same result, and diff mode shows each changed topic before and after.
author:
  - kafkaops.cluster developers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.cluster.kafka_connection
options:
  name:
    description:
      - Name of the one topic to manage. Use O(topics) for several.
      - Legal names have up to 249 characters from C(a-z A-Z 0-9 . _ -).
    type: str
  topics:
    description:
      - Topics to manage in one call. Each item takes the keys O(name), O(partitions),
        O(replication_factor), O(config) and O(state); where an item leaves one out, the module-level
        option of the same name applies.
    type: list
    elements: dict
  partitions:
    description:
      - Number of partitions. A new topic is created with it (the broker's C(num.partitions) when not
        given); an existing topic with fewer partitions is raised to it.
      - Lower than the current count is refused, and so is less than 1 (before the cluster is contacted).
    type: int
  replication_factor:
    description:
      - Replicas per partition for a new topic (the broker's C(default.replication.factor) when not given).
      - At least 1, and not more than the number of live brokers. For an existing topic a different value is
        refused with the reassignment command that changes it.
    type: int
  config:
    description:
      - Topic configs, such as C(retention.ms) or C(cleanup.policy). Values may be strings, numbers or
        booleans; lists are joined with commas.
      - Only the keys given change (incrementally), unless O(config_mode=replace).
    type: dict
    default: {}
  config_mode:
    description:
      - V(merge) sets the keys given and leaves other topic-level settings alone.
      - V(replace) also removes topic-level settings not given, so those keys follow the broker defaults
        again. Replication throttle lists, which reassignments manage, are left alone.
    type: str
    choices: [merge, replace]
    default: merge
  state:
    description: V(present) to create or update, V(absent) to delete.
    type: str
    choices: [present, absent]
    default: present
  wait:
    description:
      - After creating topics or adding partitions, wait until every partition has a leader (up to
        O(request_timeout) seconds), so the topics can be used at once.
    type: bool
    default: true
attributes:
  check_mode:
    description: Reads the cluster and validates the changes with the brokers, but changes nothing.
    support: full
  diff_mode:
    description: Shows each changed topic's partitions, replication factor and topic-level configs before and after.
    support: full
notes:
  - Topic deletion needs C(delete.topic.enable=true) on the brokers (Kafka's default).
seealso:
  - module: kafkaops.cluster.kafka_cluster_info
"""

EXAMPLES = r"""
- name: One topic with 3 partitions on 3 brokers
  kafkaops.cluster.kafka_topic:
    bootstrap_servers: [kafka1:9092, kafka2:9092]
    name: myTopic
    partitions: 3
    replication_factor: 3
    config:
      min.insync.replicas: 2
      retention.ms: 604800000

- name: Many topics in one call; the module-level partitions and replication factor are their defaults
  kafkaops.cluster.kafka_topic:
    bootstrap_servers: kafka1:9092
    partitions: 6
    replication_factor: 3
    topics:
      - name: orders
        config: {cleanup.policy: compact}
      - name: payments
        partitions: 12
      - name: old-audit
        state: absent

- name: Keep only the listed topic-level settings
  kafkaops.cluster.kafka_topic:
    bootstrap_servers: kafka1:9092
    name: orders
    config: {cleanup.policy: compact}
    config_mode: replace

- name: Over TLS with SASL/SCRAM
  kafkaops.cluster.kafka_topic:
    bootstrap_servers: kafka1:9094
    security_protocol: SASL_SSL
    sasl_mechanism: SCRAM-SHA-512
    sasl_username: admin
    sasl_password: "{{ vault_kafka_admin_password }}"
    ssl_cafile: /etc/kafka/ca.pem
    name: myTopic
    partitions: 3
"""

RETURN = r"""
topics:
  description: Names of the topics that changed (or would change in check mode).
  returned: always
  type: list
  elements: str
  sample: [myTopic]
created:
  description: Names of the topics created.
  returned: always
  type: list
  elements: str
deleted:
  description: Names of the topics deleted.
  returned: always
  type: list
  elements: str
partitions_added:
  description: New partition count of each topic whose count was raised.
  returned: always
  type: dict
  sample: {myTopic: 6}
configs_altered:
  description: Per topic, the config keys set (with their new value) or removed (null).
  returned: always
  type: dict
  sample: {myTopic: {retention.ms: "86400000", cleanup.policy: null}}
"""

from ansible_collections.kafkaops.cluster.plugins.module_utils._admin_module import KafkaAdminModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import NumberLimit
from ansible_collections.kafkaops.cluster.plugins.module_utils._topics import (
    check_topic_inputs,
    run_topic,
    unchanged_topic_result,
)

ARGUMENT_SPEC = dict(
    name=dict(type="str"),
    topics=dict(type="list", elements="dict"),
    partitions=dict(type="int"),
    replication_factor=dict(type="int"),
    config=dict(type="dict", default={}),
    config_mode=dict(type="str", default="merge", choices=["merge", "replace"]),
    state=dict(type="str", default="present", choices=["present", "absent"]),
    wait=dict(type="bool", default=True),
)
# Checked here as well as per topic, so that a bad default is named as the option, not as topics[0].
LIMITS = dict(partitions=NumberLimit(minimum=1), replication_factor=NumberLimit(minimum=1))


def main():
    module = KafkaAdminModule(ARGUMENT_SPEC, limits=LIMITS, mutually_exclusive=[("name", "topics")],
                              required_one_of=[("name", "topics")])
    module.run(run_topic, check_inputs=check_topic_inputs, result=unchanged_topic_result())


if __name__ == "__main__":
    main()
