#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: kafka_reassignment_plan
short_description: Plan a partition reassignment that balances the brokers' bytes or replicas, moving the least
version_added: "0.1.0"
description:
  - Plans how to spread the selected topics over the brokers in O(broker_list) - after brokers were added,
    or before brokers are removed (every replica moves off brokers not in the list).
  - O(mode) narrows what may change - only onto new brokers (V(add)), only off leaving brokers (V(remove)),
    only which replica leads (V(demote)), only the replicas that are offline (V(fix_offline)) - and the
    summary's bounds are then bounds for that mode.
  - Unlike Kafka's C(--generate), replicas stay where they are unless a move is needed. By default it evens out
    the bytes on the brokers' disks (their fill, from DescribeLogDirs), copying as few bytes as that balance
    allows and reporting a lower bound on them; with O(balance=replicas) it evens out replica counts with the
    minimum number of replica moves (every target broker holds the floor or ceiling of the average), reported
    as a proven lower bound.
  - With racks, no two replicas of a partition share a rack wherever there are enough racks.
  - Brokers with several log dirs (JBOD) - a replica copied onto a broker with two or more open log dirs (online
    and not cordoned) is placed in a dir - the one least full after taking it among those that stay at or below
    O(max_disk_fill) (up to their size with O(balance=replicas), or where every broker's dirs report one
    filesystem, as the bytes balance then sets no limit either), the largest replicas first - and the plan names
    it in Kafka's C(log_dirs), beside C(replicas). Kafka would put it in the dir holding the fewest partitions,
    whatever their bytes. The dirs are read from the cluster (DescribeLogDirs; by replicas only when the plan
    copies a replica) or given with O(log_dirs). Entries name a dir only where there is one to choose, so plans
    for brokers with one log dir are as before.
  - Orders each partition's replicas so preferred leaders are balanced over the brokers, without moving data.
  - Reads the cluster (brokers, racks, replicas, reassignments in progress) through the Kafka protocol, or plans
    offline from O(current_assignment) or O(current_assignment_file), and O(broker_racks).
  - The plan is in Kafka's own JSON format and holds only the partitions that change; the rollback plan holds
    their current replicas. With O(dest), writes the plan there (and the rollback plan beside it) and returns
    only the summary unless O(return_plan) asks for the plans too; it reports C(changed) only when a file's
    content changes.
  - A plan of many partitions is cheap to compute but costly for Ansible to carry in a result (every item
    is scrubbed for secrets, serialised and registered). For large clusters give O(dest) and leave
    O(return_plan) unset, and hand a large offline assignment over as O(current_assignment_file).
author:
  - kafkaops.cluster developers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.cluster.kafka_connection
options:
  bootstrap_servers:
    description:
      - Brokers to read the cluster from, as C(host:port). Not needed when planning offline (O(current_assignment),
        O(current_assignment_file)).
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
      - Required with O(mode=full), O(mode=add) and O(mode=remove). With O(mode=fix_offline) the brokers that
        may take the offline replicas (default every live broker; it must list every live broker holding
        replicas of the selected topics). Not with O(mode=demote).
    type: raw
  mode:
    description:
      - What the plan may change. Every mode keeps the replication factor (O(replication_factor) goes with
        V(full) only) and, with racks, never puts more replicas of a partition in one rack than the rack rule
        allows or it has there now.
      - V(full) - a full rebalance over O(broker_list), as described above.
      - V(add) - after brokers were added - replicas move only onto the new brokers (O(new_brokers), by
        default the brokers of O(broker_list) that hold none of the selected partitions), never between the
        others; counts or bytes as even as that allows. Every broker holding replicas must be in O(broker_list).
      - V(remove) - before brokers are removed - only the replicas on brokers left out of O(broker_list) move,
        onto the listed brokers, where they even out counts or bytes best; nothing else moves. Refused when no
        broker holding replicas is left out.
      - V(demote) - no data moves; each partition's replicas are reordered so that no broker of
        O(demote_brokers) is the preferred leader where another replica can lead, with leaders spread evenly
        over the others, changing as few as possible. Partitions whose every replica is demoted keep their
        leader and are counted and named in RV(summary) (C(demote_impossible),
        C(demote_impossible_partitions)) rather than refused, so the rest can go ahead.
      - V(fix_offline) - replicas on brokers that are not live, and on failed log dirs (the metadata's
        offline replicas, or O(offline_replicas)), are placed on live brokers; nothing else moves, and
        leaders change only where the leader's replica is offline. Partitions with no live replica to copy
        from are left as they are and named in RV(summary) (C(offline_unrecoverable)). Nothing offline
        gives an empty plan.
      - Balance - V(add), V(remove) and V(fix_offline) work with either O(balance); V(demote) moves no data, so
        O(balance) and the byte options do not apply (V(auto) means V(replicas)).
      - When planning offline, O(broker_racks) says which brokers are live.
    type: str
    choices: [full, add, remove, demote, fix_offline]
    default: full
  new_brokers:
    description:
      - With O(mode=add), the brokers replicas may move onto; each must be in O(broker_list). Give them to plan
        again after some replicas reached them (they are then no longer brokers without replicas).
    type: list
    elements: int
  demote_brokers:
    description: With O(mode=demote), the brokers that should lead no partition.
    type: list
    elements: int
  offline_replicas:
    description:
      - With O(mode=fix_offline), replicas on failed log dirs of live brokers, as a mapping of topic to a
        mapping of partition to broker ids. When reading a cluster, replaces the offline replicas its metadata
        lists. Replicas on brokers that are not live are offline without being named here.
    type: dict
  replication_factor:
    description: New replication factor for the selected topics, at least 1; default unchanged.
    type: int
  current_assignment:
    description:
      - Plan offline from this assignment instead of reading a cluster - Kafka's JSON format (a mapping, or
        the JSON text), as C(kafka-reassign-partitions --generate) prints it.
      - Ansible copies a task argument several times and echoes it in the result; for more than about
        100,000 partitions use O(current_assignment_file).
    type: raw
  current_assignment_file:
    description:
      - Plan offline from the assignment in this file, on the host running the module - Kafka's JSON format,
        as for O(current_assignment).
    type: path
  broker_racks:
    description:
      - When planning offline, the live brokers - a mapping of broker id to rack (null for none), or a list of
        ids. Default, the brokers named in the current assignment and O(broker_list), without racks.
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
  balance:
    description:
      - What the plan evens out over the target brokers.
      - V(replicas) - the number of replicas per broker, moving the fewest replicas (the proven minimum).
      - V(bytes) - the fill of the brokers' disks - the bytes of the selected partitions (each partition's
        largest replica, read with DescribeLogDirs, or O(partition_sizes)), over the disks' size where known
        (DescribeLogDirs on Kafka 3.3 and later, or O(broker_capacities); else every broker weighs the same),
        counting what else the disks hold. It copies as few bytes as that balance allows and reports a lower
        bound on them (C(bytes_moved_lower_bound) in RV(summary)). Replica counts stay within half the average of
        each broker's share.
      - V(auto) - V(bytes) wherever sizes can be read (from the cluster, or given with O(partition_sizes) and
        the other byte options), else V(replicas) - planning offline without sizes, or when the selected
        partitions hold no data. RV(summary) says which it chose and why (C(balance), C(balance_chosen)).
      - Brokers whose log dirs report the same filesystem (the same total bytes, used bytes within 64 MiB of
        each other - containers or processes on one host) weigh alike, and what else that disk holds counts for
        none of them (C(capacities_from) says so); O(broker_capacities) gives their real disks.
    type: str
    choices: [auto, replicas, bytes]
    default: auto
  partition_sizes:
    description:
      - With O(balance=bytes), the size in bytes of each partition (its largest replica), as a mapping of topic
        to a mapping of partition to bytes. Needed when planning offline; when reading a cluster, replaces
        what DescribeLogDirs reports.
    type: dict
  partition_sizes_file:
    description:
      - As O(partition_sizes), from a JSON file on the host running the module; for large clusters.
    type: path
  broker_capacities:
    description:
      - With O(balance=bytes), each target broker's disks - total bytes, or a mapping with C(total_bytes) and
        C(used_bytes) (all the disks hold now, the selected partitions included) - keyed by broker id.
      - When reading a cluster, replaces what DescribeLogDirs reports.
    type: dict
  log_dirs:
    description:
      - With O(balance=bytes), the brokers' log dirs, one entry per broker and dir - as
        RV(kafkaops.cluster.kafka_cluster_info#module:log_dirs) returns them (with C(include_sizes)), with
        C(cordoned) and C(partitions) besides. Replicas copied onto a broker with two or more open dirs are placed
        in one of them (see the description).
      - Needed to place replicas in dirs when planning offline; when reading a cluster, replaces what
        DescribeLogDirs reports of the dirs. The balance between brokers still takes their disks from
        O(broker_capacities) or DescribeLogDirs.
    type: list
    elements: dict
    suboptions:
      broker:
        description: The broker's id.
        type: int
        required: true
      log_dir:
        description: The dir's absolute path, as the broker lists it in C(log.dirs).
        type: str
        required: true
      bytes:
        description:
          - What the dir holds of the selected topics; it counts where the dirs' volumes are not known (or are
            one filesystem), and stays where it is.
        type: int
      total_bytes:
        description: The size of the dir's volume; leave it out when not known.
        type: int
      usable_bytes:
        description: The free bytes of the dir's volume; leave it out when not known.
        type: int
      error_code:
        description: Kafka's error code for the dir; not 0 means the dir is offline and takes no replica.
        type: int
        default: 0
      cordoned:
        description: The dir is cordoned (C(cordoned.log.dirs), Kafka 4.3+) and takes no replica.
        type: bool
        default: false
      partitions:
        description:
          - The partitions with a replica in the dir, as a mapping of topic to a list of partition numbers. A
            replica the plan removes then frees its bytes there, and the rollback plan puts it back in this dir.
        type: dict
  max_disk_fill:
    description:
      - With O(balance=bytes) and the disks' sizes known, no target broker may end above this fraction of its
        disks (the selected partitions and everything else they hold). A plan that cannot keep to it is refused,
        naming the brokers and the bytes. Default V(0.85).
      - A log dir that receives replicas (see O(log_dirs)) may not end above it either - the volume's used bytes
        over its size, where the broker reports them. A replica no open dir of its broker can take is refused,
        naming the broker, the partition, its bytes and each dir's room.
    type: float
  return_plan:
    description:
      - Return the plan and the rollback plan (RV(plan), RV(rollback_plan)) beside the summary.
      - Default V(true) without O(dest), where they are the only output, and V(false) with O(dest), where
        they are in the files.
    type: bool
attributes:
  check_mode:
    description: Plans as usual, writes no file.
    support: full
  diff_mode:
    description:
      - Shows each file that changes (the plan, the rollback plan) before and after, when O(dest) is given.
      - When either side holds more than 100 partitions, the diff shows instead a line per side with the
        number of partitions, the size and the SHA-256 of the file.
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

- name: Even out replica counts instead, with the fewest replica moves
  kafkaops.cluster.kafka_reassignment_plan:
    bootstrap_servers: [kafka1:9092]
    broker_list: 1,2,3,4
    balance: replicas
    dest: reassignment-plan.json

- name: Spread onto new brokers 4 and 5 only; nothing moves between brokers 1-3
  kafkaops.cluster.kafka_reassignment_plan:
    bootstrap_servers: [kafka1:9092]
    broker_list: 1,2,3,4,5
    mode: add
    dest: add-brokers.json

- name: Empty broker 3; only its replicas move
  kafkaops.cluster.kafka_reassignment_plan:
    bootstrap_servers: [kafka1:9092]
    broker_list: [1, 2, 4]
    mode: remove
    dest: remove-3.json

- name: Broker 2 should lead nothing (no data moves)
  kafkaops.cluster.kafka_reassignment_plan:
    bootstrap_servers: [kafka1:9092]
    mode: demote
    demote_brokers: [2]
    dest: demote-2.json

- name: Place the replicas of dead brokers and failed log dirs on live brokers
  kafkaops.cluster.kafka_reassignment_plan:
    bootstrap_servers: [kafka1:9092]
    mode: fix_offline
    dest: fix-offline.json

- name: Plan a large cluster offline from a file; only the summary comes back
  kafkaops.cluster.kafka_reassignment_plan:
    current_assignment_file: /var/tmp/current.json
    broker_list: "{{ range(1, 221) | join(',') }}"
    dest: /var/tmp/reassignment-plan.json
"""

RETURN = r"""
plan:
  description:
    - The partitions that change, with their new replicas, in Kafka's reassignment JSON format.
    - An entry whose new replicas include one copied onto a broker with two or more open log dirs also holds
      C(log_dirs), one per replica - the dir chosen for it, V(any) for the others (replicas that stay, brokers with
      one open dir). M(kafkaops.cluster.kafka_reassignment) puts each replica in its dir.
  returned: when O(return_plan) is true, by default when O(dest) is not given
  type: dict
  sample: {version: 1, partitions: [{topic: topic1, partition: 0, replicas: [4, 1, 2], log_dirs: [/data/b, any, any]}]}
rollback_plan:
  description:
    - The same partitions with their current replicas.
    - With C(log_dirs) where a replica the plan removes from a broker with several log dirs sat in a known, open dir -
      rolled back, it returns there.
  returned: when O(return_plan) is true, by default when O(dest) is not given
  type: dict
summary:
  description:
    - Figures of the plan - C(replica_moves) (replicas copied onto a broker that lacks them), C(lower_bound)
      (the proven minimum of moves; equal to C(replica_moves)), C(counting_bound), C(partitions_changed),
      per-broker C(replicas_before), C(replicas_after), C(leaders_before), C(leaders_after), and the
      max-min spreads of replicas and leaders before and after; C(balance) (what the plan balanced - V(replicas)
      or V(bytes)) and C(balance_chosen) (why - asked for, or what V(auto) saw).
    - With bytes - C(bytes_moved) (bytes copied onto brokers that lack them),
      C(bytes_moved_lower_bound) (no plan reaching the same balance copies less), C(imbalance_before) and
      C(imbalance_after) (the fullest broker's fill over the mean fill), C(imbalance_lower_bound) (the lowest
      imbalance any placement of the selected partitions on the target brokers can reach, to judge
      C(imbalance_after) by), C(max_disk_fill), C(sizes_from) and
      C(capacities_from) (where the figures came from), and per broker C(bytes_before), C(bytes_after),
      C(capacity_bytes) and C(other_bytes). C(lower_bound) and C(counting_bound) are then null (they are
      bounds on replica moves).
    - C(mode), and its figures - C(new_brokers) (V(add)), C(leaving_brokers) (V(remove)), C(demote_brokers),
      C(demote_impossible) and C(demote_impossible_partitions) (V(demote), the first 100 named),
      C(offline_replicas) (how many were placed), C(offline_unrecoverable) and
      C(offline_unrecoverable_partitions) (V(fix_offline)). The bounds hold for the mode - no plan the mode
      allows, reaching the same balance, moves fewer replicas (C(lower_bound)) or copies fewer bytes
      (C(bytes_moved_lower_bound)). With V(demote) C(replica_moves) and the bounds are 0 (with bytes,
      C(bytes_moved) too).
    - With brokers with two or more log dirs, C(log_dirs) - one row per dir of those brokers, with
      C(broker), C(log_dir), C(open), C(bytes_before) and C(bytes_after) (the selected partitions' bytes in the
      dir, and what else O(log_dirs) counts there; after the plan with the copies in their chosen dirs and the
      removed replicas gone), C(fill_before) and C(fill_after) (its volume's used bytes over its size, null when
      not reported), C(replicas_placed) - and C(log_dirs_from) (V(DescribeLogDirs) or V(log_dirs)). The choice of
      dirs copies no byte between brokers, so C(bytes_moved) and its bound are those of the plan without it.
  returned: always
  type: dict
dest:
  description: Where the plan was written.
  returned: when O(dest) is given
  type: str
rollback_dest:
  description: Where the rollback plan was written, beside the plan.
  returned: when O(dest) is given
  type: str
"""

from ansible_collections.kafkaops.cluster.plugins.module_utils._admin_module import KafkaAdminModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import NumberLimit
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_planner_io import (
    check_plan_inputs,
    run_reassignment_plan,
)

ARGUMENT_SPEC = dict(
    topics=dict(type="list", elements="str", default=[]),
    broker_list=dict(type="raw"),
    mode=dict(type="str", choices=["full", "add", "remove", "demote", "fix_offline"], default="full"),
    new_brokers=dict(type="list", elements="int"),
    demote_brokers=dict(type="list", elements="int"),
    offline_replicas=dict(type="dict"),
    replication_factor=dict(type="int"),
    current_assignment=dict(type="raw"),
    current_assignment_file=dict(type="path"),
    broker_racks=dict(type="raw"),
    rack_aware=dict(type="bool", default=True),
    dest=dict(type="path"),
    return_plan=dict(type="bool"),
    balance=dict(type="str", choices=["auto", "replicas", "bytes"], default="auto"),
    partition_sizes=dict(type="dict"),
    partition_sizes_file=dict(type="path"),
    broker_capacities=dict(type="dict"),
    max_disk_fill=dict(type="float"),
    log_dirs=dict(type="list", elements="dict", options=dict(
        broker=dict(type="int", required=True), log_dir=dict(type="str", required=True), bytes=dict(type="int"),
        total_bytes=dict(type="int"), usable_bytes=dict(type="int"), error_code=dict(type="int", default=0),
        cordoned=dict(type="bool", default=False), partitions=dict(type="dict"))),
)
LIMITS = dict(replication_factor=NumberLimit(minimum=1))


def main():
    # With a current assignment the module plans offline: no cluster, no kafka-python.
    offline = ("current_assignment", "current_assignment_file")
    module = KafkaAdminModule(ARGUMENT_SPEC, limits=LIMITS, offline_options=offline, unexpected="planning failed",
                              required_one_of=[("bootstrap_servers",) + offline],
                              mutually_exclusive=[("bootstrap_servers",) + offline,
                                                  ("partition_sizes", "partition_sizes_file")])
    module.run(run_reassignment_plan, check_inputs=check_plan_inputs)


if __name__ == "__main__":
    main()
