# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The planner's inputs and outputs for the module kafka_reassignment_plan.

The planner (_reassignment_planner.py) is pure. Here its inputs are read from the cluster or taken
from an offline current assignment (an option's value or a file), and the plan and rollback plan it
returns are written to files. run_reassignment_plan is the module's whole run.

A plan can hold a million partitions. Everything the module returns passes through Ansible's
scrubbing of secrets, serialising and registering, which costs far more per item than planning, so
with dest the plans stay in their files unless return_plan asks for them, and the diff of a large
file is a summary of it.
"""

from __future__ import absolute_import, division, print_function


import hashlib
import json
import os

from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import (
    current_assignment,
    read_brokers,
    read_disk_usage,
    read_reassignments,
    read_topics,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._disk_ledger import same_filesystem
from ansible_collections.kafkaops.cluster.plugins.module_utils._log_dir_planner import add_log_dirs
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_planner import (
    PlanError,
    assignment_from_kafka_json,
    check_max_disk_fill,
    check_mode_options,
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


# Plan files of more partitions than this show in the diff as a summary, not as their whole text.
DIFF_PARTITIONS = 100


def read_json_file(path, option="current_assignment_file"):
    """The parsed content of the JSON file at path, or PlanError naming the option that gave the path."""
    try:
        with open(path, "rb") as handle:
            return json.load(handle)
    except OSError as error:
        raise PlanError(option, "cannot read %s: %s" % (path, error.strerror or error)) from None
    except ValueError as error:
        raise PlanError(option, "%s is not valid JSON: %s" % (path, error)) from None


def offline_assignment(params):
    """The current assignment of an offline run, from current_assignment or current_assignment_file.

    The planner calls its argument "assignment"; a failure here names the option it came from.
    """
    if params["current_assignment_file"] is not None:
        option, document = "current_assignment_file", read_json_file(params["current_assignment_file"])
    else:
        option, document = "current_assignment", params["current_assignment"]
    try:
        return assignment_from_kafka_json(document)
    except PlanError as error:
        if error.field != "assignment":
            raise
        raise PlanError(option, error.message) from None


def offline_inputs(params):
    """The current assignment and brokers (with racks when given) of an offline run, or PlanError."""
    assignment = offline_assignment(params)
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
    """The current assignment of the topics (all when empty), {broker id: rack} and the offline replicas
    ({topic: {partition: [broker ids]}}, as the metadata lists them), read from the cluster.

    Refuses to plan while partitions of those topics are being reassigned.
    """
    partitions = read_topics(client, topics or None)
    ongoing = ["%s-%d" % (item["topic"], item["partition"]) for item in read_reassignments(client, topics or None)
               if item["topic"] in partitions]
    if ongoing:
        raise PlanError("topics", "partitions are being reassigned now: %s; wait until that ends (or cancel it) "
                                  "before planning the next" % ", ".join(ongoing[:20]))
    brokers = dict((broker["id"], broker["rack"]) for broker in read_brokers(client)["brokers"])
    offline = {}
    for topic, items in partitions.items():
        for item in items:
            if item["offline_replicas"]:
                offline.setdefault(topic, {})[item["partition"]] = list(item["offline_replicas"])
    return current_assignment(partitions), brokers, offline


# One partition of a plan file, laid out as json.dumps(indent=2, sort_keys=True) lays it out.
_ENTRY = '    {\n      "partition": %d,\n      "replicas": [\n        %s\n      ],\n      "topic": %s\n    }'
# The same with Kafka's log_dirs, which sorts first.
_DIRS = '    {\n      "log_dirs": [\n        %s\n      ],\n' + _ENTRY[6:]


def kafka_json_text(document):
    """The plan file's text: what json.dumps(document, indent=2, sort_keys=True) gives, plus a newline.

    Built from one format per partition: the json module indents in pure Python, several times
    slower on a plan of a million partitions. Files written before keep comparing equal.
    """
    topics = {}
    entries = []
    for entry in document["partitions"]:
        topic = entry["topic"]
        encoded = topics.get(topic)
        if encoded is None:
            encoded = topics[topic] = json.dumps(topic)
        replicas = ",\n        ".join(map(str, entry["replicas"]))
        if "log_dirs" in entry:
            dirs = ",\n        ".join(json.dumps(path) for path in entry["log_dirs"])
            entries.append(_DIRS % (dirs, entry["partition"], replicas, encoded))
        else:
            entries.append(_ENTRY % (entry["partition"], replicas, encoded))
    partitions = "[\n%s\n  ]" % ",\n".join(entries) if entries else "[]"
    return '{\n  "partitions": %s,\n  "version": %d\n}\n' % (partitions, document["version"])


def file_summary(path, text):
    """One line that stands for a plan file in a diff; empty for no file."""
    if not text:
        return ""
    return "%s: %d partitions, %d bytes, sha256 %s (whole files are shown up to %d partitions)\n" % (
        path, text.count('"partition":'), len(text), hashlib.sha256(text.encode("utf-8")).hexdigest(),
        DIFF_PARTITIONS)


def file_diff(path, before, after):
    """The diff of a plan file: whole texts, or when either side holds many partitions a summary line each."""
    if max(before.count('"partition":'), after.count('"partition":')) > DIFF_PARTITIONS:
        before, after = file_summary(path, before), file_summary(path, after)
    return dict(before=before, after=after, before_header=path, after_header=path)


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


def _int_key(key, option, what):
    try:
        return int(key)
    except (TypeError, ValueError):
        raise PlanError(option, "keys are %s, not %r" % (what, key)) from None


BYTE_OPTIONS = ("partition_sizes", "partition_sizes_file", "broker_capacities", "log_dirs", "max_disk_fill")
AUTO_FROM_CLUSTER = "auto: the partitions' sizes read from the cluster (DescribeLogDirs)"


def _byte_options_given(params):
    return [name for name in BYTE_OPTIONS if params[name] is not None]


def choose_balance(params, offline):
    """(balance, why): what balance=auto becomes before the cluster is read, or the balance asked for.

    Bytes wherever sizes can be read: from the cluster (DescribeLogDirs), or given as options. Offline
    without sizes there is nothing to weigh, so replicas. run_reassignment_plan falls back to replicas
    when the selected partitions turn out to hold no data."""
    balance = params["balance"]
    if balance != "auto":
        return balance, "asked for"
    if params["mode"] == "demote":
        return "replicas", "auto: mode=demote moves no data"
    given = _byte_options_given(params)
    if given:
        return "bytes", "auto: %s given" % given[0]
    if offline:
        return "replicas", "auto: planning offline without partition_sizes, so without sizes to balance"
    return "bytes", AUTO_FROM_CLUSTER


def shared_filesystem(disks, brokers, replica_bytes):
    """Whether the brokers' log dirs look like one filesystem: two or more brokers, the fullest and the emptiest
    disk one filesystem by the log dir planner's rule (same_filesystem: the same total bytes, used bytes within
    SHARED_FILESYSTEM_SLACK) and every other of the same total, and each disk holding at least replica_bytes (the
    bytes of every replica of the selected partitions, on all brokers together). Brokers on one host always
    agree so; separate disks cannot, as each would hold every broker's replicas (full disks of one size
    included)."""
    reported = [disks[broker] for broker in brokers if broker in disks]
    if len(reported) < 2 or len(reported) < len(brokers):
        return False
    figures = sorted((disk["total_bytes"], disk["total_bytes"] - disk["used_bytes"]) for disk in reported)
    return (figures[0][0] == figures[-1][0] and same_filesystem(min(figures, key=lambda item: item[1]),
                                                                max(figures, key=lambda item: item[1]))
            and min(disk["used_bytes"] for disk in reported) >= replica_bytes)


def byte_inputs(params, offline, balance):
    """(sizes, capacities) the bytes balance takes from the options (keys made ints), checked before
    connecting; refused where the options do not go together."""
    given = _byte_options_given(params)
    if given and params["mode"] == "demote":
        raise PlanError(given[0], "does not go with mode=demote, which moves no data")
    if balance == "replicas" or params["mode"] == "demote":
        if given:
            raise PlanError(given[0], "goes with balance=bytes, not balance=replicas")
        return None, None
    check_max_disk_fill(params["max_disk_fill"])
    option, sizes = "partition_sizes", params["partition_sizes"]
    if params["partition_sizes_file"] is not None:
        option = "partition_sizes_file"
        sizes = read_json_file(params["partition_sizes_file"], option)
    if sizes is None and offline:
        raise PlanError("partition_sizes", "needed with balance=bytes when planning offline (the cluster is "
                                           "not read, so neither are the partitions' sizes)")
    if sizes is not None:
        if not isinstance(sizes, dict):
            raise PlanError(option, "a mapping of topic to {partition: bytes}")
        checked = {}
        for topic, by_partition in sizes.items():
            if not isinstance(by_partition, dict):
                raise PlanError(option, "topic %s: a mapping of partition to bytes" % (topic,))
            checked[str(topic)] = dict((_int_key(partition, option, "partition numbers"), size)
                                       for partition, size in by_partition.items())
        sizes = checked
    capacities = params["broker_capacities"]
    if capacities is not None:
        if not isinstance(capacities, dict):
            raise PlanError("broker_capacities", "a mapping of broker id to its disks' total bytes")
        capacities = dict((_int_key(broker, "broker_capacities", "broker ids"), value)
                          for broker, value in capacities.items())
    return sizes, capacities


def log_dirs_option(items):
    """The log_dirs option checked before connecting: {broker: {path: entry}}, or PlanError naming the entry.

    Each entry as the option gives it (kafka_cluster_info's log_dirs, with cordoned and partitions besides);
    log_dir_state() turns it into the brokers' dirs once the partitions' sizes are known.
    """
    if items is None:
        return None
    checked = {}
    for index, item in enumerate(items):
        where = "log_dirs[%d]" % index
        path = item["log_dir"]
        if not path.startswith("/") or path != path.strip():
            raise PlanError(where + ".log_dir", "an absolute path as the broker lists it in log.dirs, not %r"
                            % (path,))
        path = path.rstrip("/") or "/"
        dirs = checked.setdefault(item["broker"], {})
        if path in dirs:
            raise PlanError(where, "broker %d's %s is listed twice" % (item["broker"], path))
        for name in ("bytes", "total_bytes", "usable_bytes"):
            if item[name] is not None and item[name] < 0:
                raise PlanError("%s.%s" % (where, name), "bytes (0 or more), not %d; leave it out where unknown"
                                % item[name])
        partitions = {}
        for topic, numbers in (item["partitions"] or {}).items():
            if not isinstance(numbers, list) or not all(
                    isinstance(number, int) and not isinstance(number, bool) for number in numbers):
                raise PlanError(where + ".partitions", "topic %s: a list of partition numbers" % (topic,))
            partitions[str(topic)] = numbers
        dirs[path] = dict(item, log_dir=path, partitions=partitions)
    return checked


def log_dir_state(checked, sizes):
    """The brokers' dirs and replicas (as DescribeLogDirs gives them, _cluster.log_dir_state) of the checked
    log_dirs option: a listed partition's replica holds its size, and what else a dir's bytes count stays."""
    state = {}
    for broker, dirs in checked.items():
        replicas, described = {}, {}
        for path, item in dirs.items():
            listed = 0
            for topic, numbers in item["partitions"].items():
                for number in numbers:
                    size = sizes.get(topic, {}).get(number, 0)
                    replicas[(topic, number)] = dict(dir=path, bytes=size)
                    listed += size
            described[path] = dict(total_bytes=item["total_bytes"], usable_bytes=item["usable_bytes"],
                                   online=not item["error_code"], cordoned=item["cordoned"],
                                   other_bytes=max(0, (item["bytes"] or 0) - listed))
        state[broker] = dict(dirs=described, replicas=replicas)
    return state


def check_plan_inputs(module):
    """The options the planner takes, checked before connecting; offline runs also get their assignment.

    Returns {topics, broker_list, offline}: offline is (assignment, brokers) when current_assignment
    is given, else None (the assignment is read from the cluster).
    """
    params = module.params
    topics = topic_names(params)
    broker_list = broker_list_option(params["broker_list"])
    check_mode_options(params["mode"], broker_list, params["replication_factor"], params["new_brokers"],
                       params["demote_brokers"], params["offline_replicas"])
    offline_replicas = offline_replicas_option(params["offline_replicas"])
    offline = None
    if params["current_assignment"] is not None or params["current_assignment_file"] is not None:
        assignment, brokers = offline_inputs(params)
        if brokers is None:
            # Without broker_racks, the brokers are those the assignment uses and those the plan targets.
            brokers = set(broker for partitions in assignment.values() for replicas in partitions.values()
                          for broker in replicas)
            brokers = sorted(brokers | set(broker_list_ids(broker_list or [])))
        offline = (assignment, brokers)
    balance, why = choose_balance(params, offline is not None)
    sizes, capacities = byte_inputs(params, offline is not None, balance)
    return dict(topics=topics, broker_list=broker_list, offline=offline, sizes=sizes, capacities=capacities,
                balance=balance, balance_why=why, offline_replicas=offline_replicas,
                log_dirs=log_dirs_option(params["log_dirs"]))


def offline_replicas_option(value):
    """offline_replicas with partition keys made ints (YAML gives them as strings); the planner checks the rest."""
    if value is None:
        return None
    checked = {}
    for topic, partitions in value.items():
        if not isinstance(partitions, dict):
            raise PlanError("offline_replicas", "topic %s: a mapping of partition to broker ids" % (topic,))
        checked[str(topic)] = dict((_int_key(partition, "offline_replicas", "partition numbers"),
                                    broker_list_option(brokers)) for partition, brokers in partitions.items())
    return checked


def name_log_dirs(client, planned, inputs, assignment, balance, dirs, sizes, max_disk_fill):
    """Name in the plans the dirs of the copies onto brokers with several log dirs (add_log_dirs), and put the
    dirs' figures in the summary; Kafka alone would put each copy in the dir holding the fewest partitions.

    dirs and sizes: the brokers' dirs and the partitions' sizes the run read already (None when it did not). By
    bytes they come from the cluster or the options; by replicas the cluster is read once more, only when the
    plan copies a replica, and a dir may fill up to its size (that balance weighs no bytes: max_disk_fill goes
    with bytes). Planning offline by replicas there are no dirs to name.
    """
    dirs_from = "DescribeLogDirs"
    if inputs.get("log_dirs") is not None:
        dirs, dirs_from = log_dir_state(inputs["log_dirs"], sizes), "log_dirs"
    if balance == "replicas":
        max_disk_fill = 1.0
        copying = any(set(entry["replicas"]) - set(before["replicas"]) for entry, before in zip(
            planned["plan"]["partitions"], planned["rollback_plan"]["partitions"], strict=True))
        if inputs["offline"] is not None or not copying:
            return
        if dirs is None:
            sizes, unused_disks, unused_unread, dirs = read_disk_usage(client, dict(
                (topic, sorted(partitions)) for topic, partitions in assignment.items()))
    if dirs and any(len(held["dirs"]) > 1 for held in dirs.values()):
        planned["summary"].update(log_dirs_from=dirs_from, log_dirs=add_log_dirs(
            planned["plan"], planned["rollback_plan"], dirs, sizes or {}, check_max_disk_fill(max_disk_fill)))


def run_reassignment_plan(module, client, inputs):
    """kafka_reassignment_plan: plan from the cluster's state (or the offline one) and write the plan files.

    Returns the summary, and the plans themselves when return_plan is true (by default only
    without dest, where they are the only output).
    """
    params = module.params
    mode = params["mode"]
    offline_replicas = inputs["offline_replicas"]
    if inputs["offline"] is not None:
        assignment, brokers = inputs["offline"]
    else:
        assignment, brokers, read_offline = cluster_inputs(client, inputs["topics"])
        if offline_replicas is None and mode == "fix_offline":
            offline_replicas = read_offline
    sizes, capacities = inputs.get("sizes"), inputs.get("capacities")
    balance, why = inputs["balance"], inputs["balance_why"]
    sources, sizes_unread, dirs, read_sizes = {}, False, None, None
    # demote moves no data: no sizes to read.
    if balance == "bytes" and mode != "demote":
        given = "partition_sizes_file" if params["partition_sizes_file"] is not None else "partition_sizes"
        sources = dict(sizes_from=given if sizes is not None else "DescribeLogDirs",
                       capacities_from="broker_capacities" if capacities is not None else None)
        if inputs["offline"] is None and (sizes is None or capacities is None):
            # One DescribeLogDirs round gives both: the largest replica of each partition, and the disks.
            read_sizes, disks, unread, dirs = read_disk_usage(client, dict(
                (topic, sorted(partitions)) for topic, partitions in assignment.items()))
            if unread and sizes is None:
                cause = ("broker(s) %s answered DescribeLogDirs with no log dir: the login lacks Describe on the "
                         "Cluster resource, so the partitions' sizes cannot be read" % ", ".join(map(str, unread)))
                if why != AUTO_FROM_CLUSTER:
                    raise PlanError("balance", "balance=bytes: %s; grant it, give partition_sizes, or plan with "
                                               "balance=replicas" % cause)
                # auto plans by bytes only where sizes can be read, and says why it did not.
                read_sizes, why, sizes_unread = {}, "auto: %s" % cause, True
            if sizes is None:
                sizes = read_sizes
            if capacities is None and disks is not None:
                replica_bytes = sum(read_sizes.get(topic, {}).get(partition, 0) * len(replicas)
                                    for topic, partitions in assignment.items()
                                    for partition, replicas in partitions.items())
                if shared_filesystem(disks, sorted(disks), replica_bytes):
                    sources["capacities_from"] = ("none: every broker's log dirs report the same filesystem (the "
                                                  "same total and used bytes), so the disks weigh alike and what "
                                                  "else they hold is no broker's own")
                else:
                    capacities, sources["capacities_from"] = disks, "DescribeLogDirs"
        # Nothing to weigh: the replica counts, with the fewest moves, are then the better plan.
        if sizes_unread:
            balance, sizes, capacities, sources = "replicas", None, None, {}
        elif why == AUTO_FROM_CLUSTER and not any(size for partitions in sizes.values()
                                                  for size in partitions.values()):
            balance, why, sizes, capacities, sources = "replicas", "auto: the selected partitions hold no data", \
                None, None, {}
    planned = plan_reassignment(assignment, brokers, inputs["broker_list"], topics=inputs["topics"] or None,
                                replication_factor=params["replication_factor"], rack_aware=params["rack_aware"],
                                balance=balance, sizes=sizes, capacities=capacities,
                                max_disk_fill=params["max_disk_fill"] if balance == "bytes" else None, mode=mode,
                                new_brokers=params["new_brokers"], demote_brokers=params["demote_brokers"],
                                offline_replicas=offline_replicas)
    planned["summary"].update(sources, balance_chosen=why)
    if mode != "demote":
        # Brokers on one host: the bytes balance sets no limit on a disk that is none of theirs, nor do the dirs.
        one_host = (sources.get("capacities_from") or "").startswith("none")
        name_log_dirs(client, planned, inputs, assignment, balance, dirs, sizes if balance == "bytes" else read_sizes,
                      1.0 if one_host else params["max_disk_fill"])
    return_plan = params["return_plan"] if params["return_plan"] is not None else not params["dest"]
    # Built apart and handed over at the end: a failed run reports only what went wrong.
    result = dict(changed=False, summary=planned["summary"])
    if return_plan:
        result.update(plan=planned["plan"], rollback_plan=planned["rollback_plan"])
    if params["dest"]:
        rollback_path = os.path.splitext(params["dest"])[0] + ".rollback.json"
        diffs = []
        for path, document in ((params["dest"], planned["plan"]), (rollback_path, planned["rollback_plan"])):
            text = kafka_json_text(document)
            changed, before = write_file(module, path, text)
            if changed:
                result["changed"] = True
                if module.diff:
                    diffs.append(file_diff(path, before, text))
        result.update(dest=params["dest"], rollback_dest=rollback_path)
        if diffs:
            result["diff"] = diffs
    module.result.update(result)
