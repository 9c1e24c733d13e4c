#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: kafka_reassignment_plan
short_description: Plan a partition reassignment that moves the fewest replicas and balances replicas and leaders
version_added: "0.1.0"
description:
  - Plans how to spread the selected topics over the brokers in O(broker_list) - after brokers were added,
    or before brokers are removed (every replica moves off brokers not in the list).
  - Unlike Kafka's C(--generate), replicas stay where they are unless a move is needed. The number of replica
    moves is the minimum for a balanced result (every target broker holds the floor or ceiling of the
    average number of replicas), and the module reports that minimum as a proven lower bound.
  - With racks, no two replicas of a partition share a rack wherever there are enough racks.
  - Orders each partition's replicas so preferred leaders are balanced over the brokers, without moving data.
  - Reads the cluster (brokers, racks, replicas, reassignments in progress) through the Kafka protocol, or plans
    offline from O(current_assignment) and O(broker_racks).
  - The plan is in Kafka's own JSON format and holds only the partitions that change; the rollback plan holds
    their current replicas. With O(dest), writes the plan there (and the rollback plan beside it); it reports
    C(changed) only when a file's content changes.
author:
  - kafkaops.cluster developers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.cluster.kafka_connection
options:
  bootstrap_servers:
    description:
      - Brokers to read the cluster from, as C(host:port). Not needed with O(current_assignment).
    type: list
    elements: str
    required: false
  topics:
    description:
      - Topics to move (a list, or a comma-separated string). Empty means every topic (without the cluster's
        internal topics when reading a cluster).
    type: list
    elements: str
    default: []
  broker_list:
    description:
      - Target brokers, a list of ids or a comma-separated string as Kafka's tool takes it (C(1001,1002,1003)).
      - Every id must be a live broker; brokers left out end with none of the selected topics' replicas.
    type: raw
    required: true
  replication_factor:
    description: New replication factor for the selected topics, at least 1; default unchanged.
    type: int
  current_assignment:
    description:
      - Plan offline from this assignment instead of reading a cluster - Kafka's JSON format (a mapping, or
        the JSON text), as C(kafka-reassign-partitions --generate) prints it.
    type: raw
  broker_racks:
    description:
      - With O(current_assignment), the live brokers - a mapping of broker id to rack (null for none), or a
        list of ids. Default, the brokers named in O(current_assignment) and O(broker_list), without racks.
    type: raw
  rack_aware:
    description: Keep replicas of a partition on different racks when the brokers have racks.
    type: bool
    default: true
  dest:
    description:
      - Write the plan here as JSON, and the rollback plan beside it (C(<name>.rollback.json)), on the host
        running the module.
    type: path
attributes:
  check_mode:
    description: Plans as usual, writes no file.
    support: full
  diff_mode:
    description: Shows the plan file before and after when O(dest) is given.
    support: full
seealso:
  - module: kafkaops.cluster.kafka_reassignment
"""

EXAMPLES = r"""
- name: Spread topic1 and topic2 over brokers 1-5 after two brokers were added
  kafkaops.cluster.kafka_reassignment_plan:
    bootstrap_servers: [kafka1:9092]
    topics: [topic1, topic2]
    broker_list: 1,2,3,4,5
    dest: reassignment-plan.json
  register: planned

- name: Show what moves
  ansible.builtin.debug:
    var: planned.summary

- name: Empty broker 3 before it is removed (every topic)
  kafkaops.cluster.kafka_reassignment_plan:
    bootstrap_servers: [kafka1:9092]
    broker_list: [1, 2, 4]
    dest: decommission-3.json

- name: Plan offline from an assignment captured earlier
  kafkaops.cluster.kafka_reassignment_plan:
    current_assignment: "{{ lookup('ansible.builtin.file', 'current.json') }}"
    broker_racks: {1: a, 2: b, 3: c, 4: a}
    broker_list: 1,2,3,4
"""

RETURN = r"""
plan:
  description: The partitions that change, with their new replicas, in Kafka's reassignment JSON format.
  returned: always
  type: dict
  sample: {version: 1, partitions: [{topic: topic1, partition: 0, replicas: [4, 1, 2]}]}
rollback_plan:
  description: The same partitions with their current replicas.
  returned: always
  type: dict
summary:
  description:
    - Figures of the plan - C(replica_moves) (replicas copied onto a broker that lacks them), C(lower_bound)
      (the proven minimum of moves; equal to C(replica_moves)), C(counting_bound), C(partitions_changed),
      per-broker C(replicas_before), C(replicas_after), C(leaders_before), C(leaders_after), and the
      max-min spreads of replicas and leaders before and after.
  returned: always
  type: dict
dest:
  description: Where the plan was written.
  returned: when dest is given
  type: str
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_planner import (
    PlanError,
    assignment_from_kafka_json,
    plan_reassignment,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import (
    current_assignment,
    read_brokers,
    read_reassignments,
    read_topics,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import (
    HAS_KAFKA,
    KAFKA_IMPORT_ERROR,
    admin_client,
    check_admin_options,
    close_quietly,
    connection_argument_spec,
    failure_details,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import NumberLimit

LIMITS = dict(replication_factor=NumberLimit(minimum=1))


def _topic_names(params):
    names = []
    for item in params["topics"]:
        names.extend(part.strip() for part in str(item).split(",") if part.strip())
    return sorted(set(names))


def offline_inputs(params):
    assignment = assignment_from_kafka_json(params["current_assignment"])
    racks = params["broker_racks"]
    if racks is None:
        return assignment, None
    if isinstance(racks, dict):
        brokers = {}
        for key, rack in racks.items():
            try:
                brokers[int(key)] = rack
            except (TypeError, ValueError):
                raise PlanError("broker_racks", "keys are broker ids, not %r" % (key,)) from None
        return assignment, brokers
    if isinstance(racks, list):
        return assignment, racks
    raise PlanError("broker_racks", "a mapping of broker id to rack, or a list of broker ids")


def cluster_inputs(client, topics):
    partitions = read_topics(client, topics or None)
    ongoing = ["%s-%d" % (item["topic"], item["partition"]) for item in read_reassignments(client, topics or None)
               if item["topic"] in partitions]
    if ongoing:
        raise PlanError("topics", "partitions are being reassigned now: %s; wait until that ends (or cancel it) "
                                  "before planning the next" % ", ".join(ongoing[:20]))
    brokers = dict((broker["id"], broker["rack"]) for broker in read_brokers(client)["brokers"])
    return current_assignment(partitions), brokers


def write_file(module, path, content):
    """Write content unless the file holds it already; returns (changed, before text)."""
    before = ""
    if os.path.exists(path):
        with open(path) as handle:
            before = handle.read()
    if before == content:
        return False, before
    if not module.check_mode:
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise PlanError("dest", "folder %s does not exist" % directory)
        temporary = path + ".tmp"
        with open(temporary, "w") as handle:
            handle.write(content)
        module.atomic_move(temporary, path)
    return True, before


def main():
    argument_spec = connection_argument_spec()
    argument_spec["bootstrap_servers"]["required"] = False
    argument_spec.update(
        topics=dict(type="list", elements="str", default=[]),
        broker_list=dict(type="raw", required=True),
        replication_factor=dict(type="int"),
        current_assignment=dict(type="raw"),
        broker_racks=dict(type="raw"),
        rack_aware=dict(type="bool", default=True),
        dest=dict(type="path"),
    )
    module = AnsibleModule(argument_spec=argument_spec, supports_check_mode=True,
                           required_one_of=[("bootstrap_servers", "current_assignment")],
                           mutually_exclusive=[("bootstrap_servers", "current_assignment")])
    params = module.params
    if params["current_assignment"] is None and not HAS_KAFKA:
        module.fail_json(msg=missing_required_lib("kafka-python"), exception=KAFKA_IMPORT_ERROR)

    client = None
    result = dict(changed=False)
    try:
        check_admin_options(params, LIMITS)
        topics = _topic_names(params)
        broker_list = _broker_list(params["broker_list"])
        if params["current_assignment"] is not None:
            assignment, brokers = offline_inputs(params)
            if brokers is None:
                brokers = sorted(set(broker for partitions in assignment.values() for replicas in partitions.values()
                                     for broker in replicas))
                brokers = sorted(set(brokers) | set(_broker_list_ids(broker_list)))
        else:
            client = admin_client(params)
            assignment, brokers = cluster_inputs(client, topics)
        planned = plan_reassignment(assignment, brokers, broker_list, topics=topics or None,
                                    replication_factor=params["replication_factor"], rack_aware=params["rack_aware"])
        result.update(planned)
        if params["dest"]:
            text = json.dumps(planned["plan"], indent=2, sort_keys=True) + "\n"
            rollback = json.dumps(planned["rollback_plan"], indent=2, sort_keys=True) + "\n"
            changed, before = write_file(module, params["dest"], text)
            rollback_path = os.path.splitext(params["dest"])[0] + ".rollback.json"
            rollback_changed, unused = write_file(module, rollback_path, rollback)
            result.update(changed=changed or rollback_changed, dest=params["dest"], rollback_dest=rollback_path)
            if module._diff and changed:
                result["diff"] = dict(before=before, after=text, before_header=params["dest"],
                                      after_header=params["dest"])
    except Exception as error:  # pylint: disable=broad-except
        module.fail_json(**failure_details(error, unexpected="planning failed"))
    finally:
        close_quietly(client)
    module.exit_json(**result)


def _broker_list(value):
    """broker_list as the planner takes it: YAML may give one id as a number, or ids as strings."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    if isinstance(value, list):
        return [int(item) if isinstance(item, str) and item.strip().isdigit() else item for item in value]
    return value


def _broker_list_ids(broker_list):
    """The ids in broker_list, leaving errors to the planner, which names the field."""
    items = broker_list.split(",") if isinstance(broker_list, str) else broker_list
    return [int(item) for item in items if str(item).strip().isdigit()]


if __name__ == "__main__":
    main()
