#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: kafka_reassignment
short_description: Carry out (or cancel) a partition reassignment plan, throttled, in batches, and clean up
version_added: "0.1.0"
description:
  - Takes a plan in Kafka's reassignment JSON format (as written by M(kafkaops.cluster.kafka_reassignment_plan)
    or Kafka's own tool) and moves the partitions to their planned replicas.
  - Checks everything before changing anything - the topics and partitions exist, every broker in the plan is
    alive, no broker is listed twice for a partition, a topic's replication factor is the same across its
    partitions - and fails naming the offending entry (C(plan.partitions[4].replicas)).
  - Skips partitions already at their target, so a second run with the same plan changes nothing.
  - With O(throttle), limits replication to that many bytes per second on the brokers involved and marks
    only the moving replicas as throttled, adding to any throttled-replica lists already set; afterwards
    (also after a failure) puts back exactly what it changed. After a timeout the throttle stays on the
    moves still copying (unthrottled, they could saturate the network) and is removed everywhere else.
  - Throttles the plan's own partitions carry (a timed-out run left them) are removed once nothing of the plan
    moves - by a re-run that finds the plan in place or waits for the rest, or by O(state=absent). A broker
    rate counts as the plan's when a throttled replica of the plan names that broker or the rate equals
    O(throttle); any other rate or throttled replica is the operator's and is left as it was.
  - Brokers apply a config change a moment after it is made, so nothing is submitted until every broker
    involved reports the throttle; a broker that does not within 30 seconds fails the run before it submits.
  - Submits with AlterPartitionReassignments in batches in which no broker gains or loses more than
    O(max_moves_per_broker) replicas, waits for each batch, then runs a preferred leader election for the moved
    partitions so leadership follows the plan's first replicas.
  - With O(state=absent), cancels the plan's reassignments that are in progress, then removes the throttle of
    the plan's partitions.
  - Numbers out of range (O(timeout), O(poll_interval), O(progress_interval), O(throttle), O(max_moves_per_broker),
    O(max_disk_fill), O(request_timeout)) are refused, naming the option, before the plan is read or the cluster
    contacted.
author:
  - kafkaops.cluster developers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.cluster.kafka_connection
options:
  plan:
    description:
      - 'The plan, C({"version": 1, "partitions": [{"topic": ..., "partition": ..., "replicas": [...]}]}).'
      - An entry may carry Kafka's C(log_dirs), one per replica, each V(any) or the absolute path of a log dir of
        that replica's broker. Each named dir is checked first (the broker has it, online and not cordoned), asked
        for with AlterReplicaLogDirs before the partition moves (a broker that does not hold the replica yet keeps
        the dir for it) and again once it moves, and waited for until the replica sits there (with O(wait)).
        A replica already in its dir changes nothing; one in another dir is moved there even when its partition's
        replicas stay (RV(log_dir_moves)).
    type: dict
  plan_file:
    description: A JSON file on the host running the module holding the plan.
    type: path
  state:
    description: V(present) carries the plan out, V(absent) cancels its reassignments in progress.
    type: str
    choices: [present, absent]
    default: present
  throttle:
    description:
      - Replication throttle in bytes per second for the brokers involved while the plan runs; 0 means none
        (a throttle an earlier run of the plan left is then removed before waiting).
    type: int
    default: 0
  max_moves_per_broker:
    description: Largest number of replicas any one broker gains or loses in one batch; at least 1.
    type: int
    default: 20
  max_disk_fill:
    description:
      - Keep every broker's disks at or below this fraction of their size while the moves copy (above 0, at most
        1). A new copy lands before Kafka deletes the old replica, so a broker receiving data holds both for a
        while; the batches are ordered so that a copy waits until its broker has room (the moves off it in
        earlier batches have freed theirs), in the plan's order otherwise.
      - Kafka does not free an old replica's bytes when its move completes. The broker renames the replica's log for
        deletion (DescribeLogDirs stops listing it) and deletes it C(log.segment.delete.delay.ms) later (the
        broker's name of C(file.delete.delay.ms); 60000 by default; set in C(server.properties) or at run time, per
        broker or cluster-wide; a topic's own C(file.delete.delay.ms) does not apply to it). That setting is read
        once per run from each broker giving replicas up (Kafka's default is counted, with a warning and
        RV(delete_delay_unread), where it cannot be read), and a replica's bytes count against its broker and log
        dir until that long after its move was seen complete. A batch whose copies need that room waits for it
        before it starts (shown in the progress, RV(deletion_waits)); a plan is not refused for it, only when it
        does not fit even once every earlier deletion is done. A wait that would pass O(timeout) fails the run at
        once, with nothing in flight; run it again once the replicas are deleted.
      - On a broker whose log dirs are on two or more filesystems (JBOD), each filesystem is kept at or below the
        fraction of its own size too (dirs on one filesystem count as one). A copy counts against the dir the
        plan's C(log_dirs) names for it. Where it names none, Kafka picks the online, uncordoned dir holding the
        fewest partitions, whatever their bytes, so such a copy may land in any of them; it counts against every
        one, and a dir gets only what it has room for whichever it is. Plans of
        M(kafkaops.cluster.kafka_reassignment_plan) name a dir for each copy onto such a broker. A move of a
        replica between the dirs of a broker that holds it counts against its new dir from the start.
      - Read with DescribeLogDirs (each replica's size and dir, each log dir's total and usable bytes; Kafka 3.3 or
        later; a dir that does not report them, an offline one too, is named and the plan refused). Before any
        change, in check mode too, the plan is refused naming each move and broker or log dir short of room, with
        the bytes, when no move left fits (for example two full brokers exchanging replicas);
        RV(disk_peak_bytes) and RV(disk_peak_bytes_per_log_dir) say how full each broker and log dir may get.
      - Not set, the disks are not checked. Needs O(wait=true).
    type: float
  wait:
    description:
      - Wait until every partition has moved. Without waiting all partitions are submitted at once, and no
        throttle can be set (nothing would remain to remove it).
    type: bool
    default: true
  timeout:
    description:
      - Seconds to wait for the moves. On timeout the module fails naming the partitions still moving, with
        the throttle kept on those moves only; running it again with the same plan and throttle waits for
        them, finishes the rest and removes the throttle, and O(state=absent) cancels them and removes it.
      - At least 1.
    type: int
    default: 3600
  poll_interval:
    description: Seconds between progress checks; more than 0.
    type: float
    default: 2
  elect_leaders:
    description:
      - After the moves, run a preferred leader election for the moved partitions.
      - A partition whose preferred replica is not in sync yet (a broker that restarted during the moves) is asked
        again every O(poll_interval) for up to 120 seconds.
    type: bool
    default: true
  progress_interval:
    description:
      - Seconds between progress readings while the moves run (partitions done, bytes copied read with
        DescribeLogDirs, rate, time left); a partition completing gives a reading too. More than 0.
    type: float
    default: 10
  progress_file:
    description:
      - Append each progress reading, a JSON object per line, to this file on the host running the module.
      - When the module runs on the controller (a local connection) its action shows each reading in the play's
        output as it comes, through a file of its own when this is not set.
    type: path
attributes:
  check_mode:
    description: Validates the plan against the cluster and reports what would move; changes nothing.
    support: full
  diff_mode:
    description: Shows each partition's replicas before and after.
    support: full
notes:
  - Progress (partitions done of total, bytes copied, rate, time left at the throttle, seconds elapsed) is shown
    in the play's output every O(progress_interval) seconds when the module runs on the controller, appended to
    O(progress_file) when given, logged to the system log of the host running the module, and returned in
    RV(progress).
seealso:
  - module: kafkaops.cluster.kafka_reassignment_plan
"""

EXAMPLES = r"""
- name: Move partitions as planned, at most 10 MB/s of replication traffic per broker
  kafkaops.cluster.kafka_reassignment:
    bootstrap_servers: [kafka1:9092]
    plan_file: reassignment-plan.json
    throttle: 10485760
    timeout: 7200

- name: Cancel what is still moving
  kafkaops.cluster.kafka_reassignment:
    bootstrap_servers: [kafka1:9092]
    plan_file: reassignment-plan.json
    state: absent
"""

RETURN = r"""
partitions:
  description: The partitions that changed (or would change), as C(topic-partition).
  returned: always
  type: list
  elements: str
  sample: [orders-0, orders-3]
log_dir_moves:
  description: The replicas not yet in the log dir the plan names for them, as C(topic-partition on broker N to /dir).
  returned: when the plan names log dirs (state present)
  type: list
  elements: str
  sample: [orders-3 on broker 4 to /data/disk2/kafka]
already_in_place:
  description: Number of plan partitions already at their target.
  returned: always
  type: int
moved:
  description: Number of partitions moved by this run.
  returned: when state is present and not in check mode
  type: int
progress:
  description:
    - The progress readings, each time partitions completed and every O(progress_interval) seconds in between -
      partitions done of the total, seconds elapsed, bytes to copy in all and copied so far, the rate so far
      (bytes/s, waits for deletions left out) and the seconds left (at best, at the throttle; else at the rate so
      far). The byte figures are null when the sizes could not be read.
    - While the next batch waits for brokers to delete replicas moved off them (O(max_disk_fill)), a reading as
      the wait starts and every O(progress_interval) seconds carries C(waiting_for_deletions) - C(seconds_left)
      and the C(places) (brokers, log dirs) it needs the room of.
  returned: when state is present and not in check mode
  type: list
  elements: dict
  sample:
    - {done: 4, total: 12, elapsed: 3.1, bytes_total: 6144000, bytes_copied: 2048000, rate: 1003520, seconds_left: 4.1}
throttled:
  description: The brokers and topics throttled during the run (all throttles removed again at the end).
  returned: when state is present and not in check mode
  type: dict
throttle_removed:
  description:
    - The brokers and topics that still carried a throttle of the plan's (left by a run that timed out), removed
      by this run (in check mode, that would be removed).
  returned: when nothing of the plan was left to move, with O(state=absent), or with O(throttle=0)
  type: dict
  sample: {brokers: [1, 2, 4], topics: [orders]}
cancelled:
  description: Partitions whose reassignment was cancelled.
  returned: when state is absent
  type: list
  elements: str
election_failed:
  description:
    - Moved partitions whose preferred leader election still failed after up to 120 seconds of asking again (bounded
      by O(timeout)), for example because the preferred replica never caught up.
  returned: when state is present and not in check mode
  type: list
  elements: str
election_error:
  description:
    - Why the election failed, if it did (the moves themselves succeeded). Either the request's error, or each
      partition in RV(election_failed) with Kafka's error for it.
  returned: when state is present and not in check mode
  type: str
elapsed:
  description: Seconds the moves took.
  returned: when state is present and not in check mode
  type: float
bytes_to_move:
  description:
    - Bytes replication had to copy, read with DescribeLogDirs before submitting - each moving partition's size
      once for every replica it gains (for a move already in progress, what its new replicas still lacked).
    - Null when the sizes could not be read (a warning says why).
  returned: when state is present, O(wait) is true and not in check mode
  type: int
  sample: 6144000
expected_seconds:
  description:
    - The least time the moves this run starts take at O(throttle) - batch by batch, the bytes the busiest
      receiving broker must copy divided by the throttle. Compare it with RV(elapsed) to see the throttle at work.
    - Kafka lets a new replica's first fetch (up to C(replica.fetch.max.bytes), 1 MiB by default) through before
      the throttle applies, so moves of a few MiB per broker can finish somewhat sooner.
    - Null without a throttle or when the sizes could not be read.
  returned: when state is present, O(wait) is true and not in check mode
  type: float
  sample: 6.1
disk_peak_bytes:
  description:
    - With O(max_disk_fill), the most bytes each broker's disks may hold while the moves run, as ordered (what they
      hold now, plus each batch's copies, less the old replicas its broker has deleted by then).
    - An old replica counts until a later batch that needs its room waits for its deletion, and then only as much
      of it as that batch lacks - whether it is gone sooner depends on how long the copies take. So on a broker
      that gives replicas up and keeps them for a while (C(log.segment.delete.delay.ms) above 0) the figure is an
      upper bound, at most the fill where a batch waited; with the delay 0 it is exact.
  returned: when O(max_disk_fill) is set and something moves (in check mode too)
  type: dict
  sample: {"1": 52428800, "2": 73400320, "4": 31457280}
disk_peak_bytes_per_log_dir:
  description:
    - With O(max_disk_fill), per broker and log dir, the most bytes the dir's filesystem may hold while the moves
      run, as ordered, counted as RV(disk_peak_bytes) is. Dirs on one filesystem show the same figure; on a broker
      whose dirs are all on one filesystem it is the broker's RV(disk_peak_bytes).
    - A copy whose dir the plan does not name counts in every dir it may land in until the end, so the figure is
      an upper bound on a broker receiving such copies; it is exact where the plan names each copy's dir and the
      broker deletes the replicas it gives up at once.
  returned: when O(max_disk_fill) is set and something moves (in check mode too)
  type: dict
  sample: {"1": {"/data/disk1/kafka": 41943040, "/data/disk2/kafka": 52428800}, "4": {"/data/kafka": 31457280}}
delete_delay_ms:
  description:
    - With O(max_disk_fill), for each broker that gives replicas up, the C(log.segment.delete.delay.ms) counted -
      how long it keeps a replica moved off it before deleting it (Kafka's default, 60000, where it could not be
      read).
  returned: when O(max_disk_fill) is set and something moves (in check mode too)
  type: dict
  sample: {"1": 60000, "3": 0}
delete_delay_unread:
  description:
    - The brokers whose C(log.segment.delete.delay.ms) could not be read (DescribeConfigs failed, or did not
      return it), with why; Kafka's default is counted for them, and a warning says so.
  returned: when O(max_disk_fill) is set and something moves (in check mode too)
  type: dict
  sample: {"3": "KafkaConnectionError: ..."}
deletion_waits:
  description:
    - With O(max_disk_fill), each wait before a batch for brokers to delete replicas earlier batches moved off
      them, because the batch's copies needed that room - the batch (from 1), the seconds waited and the places
      (brokers, log dirs) short of room.
  returned: when O(max_disk_fill) is set and partitions move (not in check mode)
  type: list
  elements: dict
  sample: [{batch: 2, seconds: 60.0, places: ["broker 4's log dir /data/disk1/kafka"]}]
deletion_wait_seconds:
  description: With O(max_disk_fill), the seconds spent in RV(deletion_waits) in all.
  returned: when O(max_disk_fill) is set and partitions move (not in check mode)
  type: float
  sample: 60.0
rate:
  description:
    - Bytes per second the moves achieved, RV(bytes_to_move) over the seconds from the first submission until the
      last partition was seen complete (seen by polling, so up to O(poll_interval) late), less the
      RV(deletion_wait_seconds).
    - Null when the sizes could not be read.
  returned: when state is present, O(wait) is true and not in check mode
  type: int
  sample: 1003520
"""

from ansible_collections.kafkaops.cluster.plugins.module_utils._admin_module import KafkaAdminModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import MOVE_LIMITS
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_executor import (
    check_reassignment_inputs,
    run_reassignment,
    unchanged_reassignment_result,
)

ARGUMENT_SPEC = dict(
    plan=dict(type="dict"),
    plan_file=dict(type="path"),
    state=dict(type="str", default="present", choices=["present", "absent"]),
    throttle=dict(type="int", default=0),
    max_moves_per_broker=dict(type="int", default=20),
    max_disk_fill=dict(type="float"),
    wait=dict(type="bool", default=True),
    timeout=dict(type="int", default=3600),
    poll_interval=dict(type="float", default=2),
    elect_leaders=dict(type="bool", default=True),
    progress_interval=dict(type="float", default=10),
    progress_file=dict(type="path"),
)


def main():
    module = KafkaAdminModule(ARGUMENT_SPEC, limits=MOVE_LIMITS, mutually_exclusive=[("plan", "plan_file")],
                              required_one_of=[("plan", "plan_file")])
    module.run(run_reassignment, check_inputs=check_reassignment_inputs, result=unchanged_reassignment_result())


if __name__ == "__main__":
    main()
