#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: kafka_leader_election
short_description: Elect Kafka partition leaders, preferred or (when asked by name) unclean
version_added: "0.1.0"
description:
  - A preferred election makes each partition's first replica its leader again where that replica is in sync,
    spreading leadership back over the brokers after restarts or moves, without moving data.
  - An unclean election gives a partition with no leader (no in-sync replica alive) a leader among its live
    replicas that were out of sync. The partition serves again, and the records only its lost in-sync replicas
    held are gone; the module warns naming the partitions. It runs only with O(election_type=unclean).
  - Chooses the partitions first (one Metadata request) and asks only for those that need the election and can
    have it (one ElectLeaders request); a partition that needs one and cannot have it is returned in
    RV(not_eligible) with the reason. Nothing to elect is no change, so a second run reports none.
  - Check mode reports the partitions it would elect; diff mode shows their leaders before and after.
  - Partitions and topics that do not exist are refused before any election, naming the entry.
author:
  - kafkaops.cluster developers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.cluster.kafka_connection
options:
  partitions:
    description: Partitions to consider, each C({topic, partition}). With neither this nor O(topics), every
      partition of the cluster (internal topics included).
    type: list
    elements: dict
  topics:
    description: Topics whose every partition is considered.
    type: list
    elements: str
  election_type:
    description:
      - V(preferred) elects each partition's first replica where it is in sync and not leading.
      - V(unclean) elects a live out-of-sync replica for each partition that has no leader; acknowledged records
        can be lost.
    type: str
    choices: [preferred, unclean]
    default: preferred
"""

EXAMPLES = r"""
- name: After a rolling restart, give every partition its preferred leader back
  kafkaops.cluster.kafka_leader_election:
    bootstrap_servers: ["kafka1:9092"]

- name: Preferred leaders for two topics, in check mode first
  kafkaops.cluster.kafka_leader_election:
    bootstrap_servers: ["kafka1:9092"]
    topics: [orders, payments]
  check_mode: true
  register: would_elect

- name: Bring back a partition whose in-sync replicas are all lost, accepting data loss
  kafkaops.cluster.kafka_leader_election:
    bootstrap_servers: ["kafka1:9092"]
    partitions:
      - {topic: orders, partition: 3}
    election_type: unclean
"""

RETURN = r"""
elected:
  description: Partitions elected (in check mode, that would be), as C(topic-partition).
  returned: always
  type: list
  elements: str
  sample: [orders-0, orders-3]
not_eligible:
  description: Partitions that need the election and cannot have it, each with the reason.
  returned: always
  type: list
  elements: dict
  sample: [{partition: orders-5, reason: "its preferred replica, broker 3, is not in sync"}]
failed_elections:
  description: Partitions the cluster refused to elect, each with Kafka's error (the module then fails).
  returned: when an election failed
  type: list
  elements: dict
"""

from ansible_collections.kafkaops.cluster.plugins.module_utils._admin_module import KafkaAdminModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._leader_election import (
    check_election_inputs,
    run_leader_election,
)

ARGUMENT_SPEC = dict(
    partitions=dict(type="list", elements="dict"),
    topics=dict(type="list", elements="str"),
    election_type=dict(type="str", default="preferred", choices=["preferred", "unclean"]),
)


def main():
    module = KafkaAdminModule(ARGUMENT_SPEC)
    module.run(run_leader_election, check_inputs=check_election_inputs,
               result=dict(changed=False, elected=[], not_eligible=[]))


if __name__ == "__main__":
    main()
