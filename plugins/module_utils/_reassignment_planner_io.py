# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The planner's inputs and outputs for the module kafka_reassignment_plan.

The planner (_reassignment_planner.py) is pure. Here its inputs are read from the cluster or taken
from an offline current assignment, and the plan and rollback plan it returns are written to
files. run_reassignment_plan is the module's whole run.
"""

from __future__ import absolute_import, division, print_function


import json
import os

from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import (
    current_assignment,
    read_brokers,
    read_reassignments,
    read_topics,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_planner import (
    PlanError,
    assignment_from_kafka_json,
    plan_reassignment,
)


def topic_names(params):
    """The topics option as a sorted list of names: items may themselves be comma-separated."""
    names = []
    for item in params["topics"]:
        names.extend(part.strip() for part in str(item).split(",") if part.strip())
    return sorted(set(names))


def broker_list_option(value):
    """broker_list as the planner takes it: YAML may give one id as a number, or ids as strings."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    if isinstance(value, list):
        return [int(item) if isinstance(item, str) and item.strip().isdigit() else item for item in value]
    return value


def broker_list_ids(broker_list):
    """The ids in broker_list, leaving errors to the planner, which names the field."""
    items = broker_list.split(",") if isinstance(broker_list, str) else broker_list
    return [int(item) for item in items if str(item).strip().isdigit()]


def offline_inputs(params):
    """The current assignment and brokers (with racks when given) of an offline run, or PlanError."""
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
    """The current assignment of the topics (all when empty) and {broker id: rack}, read from the cluster.

    Refuses to plan while partitions of those topics are being reassigned.
    """
    partitions = read_topics(client, topics or None)
    ongoing = ["%s-%d" % (item["topic"], item["partition"]) for item in read_reassignments(client, topics or None)
               if item["topic"] in partitions]
    if ongoing:
        raise PlanError("topics", "partitions are being reassigned now: %s; wait until that ends (or cancel it) "
                                  "before planning the next" % ", ".join(ongoing[:20]))
    brokers = dict((broker["id"], broker["rack"]) for broker in read_brokers(client)["brokers"])
    return current_assignment(partitions), brokers


def write_file(module, path, content):
    """Write content unless the file holds it already (not in check mode); returns (changed, text before)."""
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


def check_plan_inputs(module):
    """The options the planner takes, checked before connecting; offline runs also get their assignment.

    Returns {topics, broker_list, offline}: offline is (assignment, brokers) when current_assignment
    is given, else None (the assignment is read from the cluster).
    """
    params = module.params
    topics = topic_names(params)
    broker_list = broker_list_option(params["broker_list"])
    offline = None
    if params["current_assignment"] is not None:
        assignment, brokers = offline_inputs(params)
        if brokers is None:
            # Without broker_racks, the brokers are those the assignment uses and those the plan targets.
            brokers = set(broker for partitions in assignment.values() for replicas in partitions.values()
                          for broker in replicas)
            brokers = sorted(brokers | set(broker_list_ids(broker_list)))
        offline = (assignment, brokers)
    return dict(topics=topics, broker_list=broker_list, offline=offline)


def run_reassignment_plan(module, client, inputs):
    """kafka_reassignment_plan: plan from the cluster's state (or the offline one) and write the plan files."""
    params = module.params
    if inputs["offline"] is not None:
        assignment, brokers = inputs["offline"]
    else:
        assignment, brokers = cluster_inputs(client, inputs["topics"])
    planned = plan_reassignment(assignment, brokers, inputs["broker_list"], topics=inputs["topics"] or None,
                                replication_factor=params["replication_factor"], rack_aware=params["rack_aware"])
    # Built apart and handed over at the end: a failed run reports only what went wrong.
    result = dict(changed=False)
    result.update(planned)
    if params["dest"]:
        text = json.dumps(planned["plan"], indent=2, sort_keys=True) + "\n"
        rollback = json.dumps(planned["rollback_plan"], indent=2, sort_keys=True) + "\n"
        changed, before = write_file(module, params["dest"], text)
        rollback_path = os.path.splitext(params["dest"])[0] + ".rollback.json"
        rollback_changed, unused = write_file(module, rollback_path, rollback)
        result.update(changed=changed or rollback_changed, dest=params["dest"], rollback_dest=rollback_path)
        if module.diff and changed:
            result["diff"] = dict(before=before, after=text, before_header=params["dest"],
                                  after_header=params["dest"])
    module.result.update(result)
