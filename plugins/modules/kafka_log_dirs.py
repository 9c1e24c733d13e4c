#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: kafka_log_dirs
short_description: Empty or even out the log dirs inside Kafka brokers (JBOD), throttled, in batches
version_added: "0.1.0"
description:
  - For brokers with several log dirs (C(log.dirs) with more than one path). Moves replicas between the dirs
    of their own broker with AlterReplicaLogDirs, which copies on that broker only and changes no partition's
    replicas; to move replicas to other brokers use M(kafkaops.cluster.kafka_reassignment).
  - O(evacuate) empties dirs (to remove a disk) - every replica there moves to the broker's other dirs - and
    O(balance) evens out the bytes among each broker's dirs, moving few bytes. Both can run together.
  - Reads every dir and replica with DescribeLogDirs and checks everything before changing anything - the brokers
    are live, each dir named exists on its broker (the message lists the dirs it has), an evacuated dir is online
    and not a broker's last, the other dirs have room - and fails naming the option (C(evacuate[1].log_dir)).
  - Replicas go only to dirs that are online, not cordoned and not being evacuated (Kafka refuses to copy into a
    cordoned or offline dir).
  - On Kafka 4.3 and later (KIP-1066) the dirs to evacuate are cordoned first, so that no new partition lands
    on them; they stay cordoned until O(uncordon) names them. Cordoning is the broker config
    C(cordoned.log.dirs), set on that broker with IncrementalAlterConfigs.
  - Whether the cluster can cordon is read from its finalized C(metadata.version) (DescribeFeatures); the
    controllers accept C(cordoned.log.dirs) from feature level 30 (4.3-IV0) on, and refuse it below.
    Each dir's cordon comes from DescribeLogDirs (C(IsCordoned), version 5).
  - With O(throttle), the brokers that move copy at most that many bytes per second between their dirs (broker
    config C(replica.alter.log.dirs.io.max.bytes.per.second)); afterwards, also after a failure, each broker's
    rate is put back as it was. Nothing is submitted until every such broker reports the rate (within 30
    seconds, or the run fails before moving anything). After a timeout the throttle stays on the brokers still
    copying (unthrottled, they could saturate their disks) and is removed everywhere else; a run with the same
    O(throttle) that finds nothing left to move removes it.
  - Submits in batches of at most O(max_moves_per_broker) moves per broker, in which each copy fits below
    O(max_disk_fill) of its dir's filesystem, and waits until each replica sits in its new dir with no future
    replica left.
  - Kafka deletes a moved replica's old copy only C(log.segment.delete.delay.ms) after the move (the broker's
    setting, 60 s by default); DescribeLogDirs stops listing it at once, but its disk holds it until then. So an
    old copy counts on its filesystem until that long after its move was seen complete, and a batch whose copies
    need that room waits for the deletion before it starts (shown in the progress, RV(deletion_waits)). The delay
    is read once a run from the planned brokers (RV(delete_delay_ms); Kafka's default, with a warning and
    RV(delete_delay_unread), where it cannot be read).
  - A second run after an evacuation or a balance finds nothing to move and reports no change, also when it is
    asked at once, while the first run's old copies are still on disk (see O(balance)).
author:
  - kafkaops.cluster developers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.cluster.kafka_connection
options:
  brokers:
    description:
      - The brokers whose dirs O(balance) evens out. Default every live broker with more than one log dir.
      - The brokers of O(evacuate) are always planned.
    type: list
    elements: int
  topics:
    description:
      - The topics whose replicas O(balance) may move; default all (internal topics included).
      - An evacuation moves every replica of its dirs, whatever the topic.
    type: list
    elements: str
  evacuate:
    description:
      - Log dirs to empty; every replica there moves to the other dirs of its broker.
      - Refused when a dir is offline (its replicas cannot be read; replace the disk and let replication restore
        them) or when it would leave its broker no online dir.
    type: list
    elements: dict
    suboptions:
      broker:
        description: The broker's id.
        type: int
        required: true
      log_dir:
        description: The dir's absolute path, as in the broker's C(log.dirs).
        type: str
        required: true
  cordon:
    description:
      - Cordon the dirs of O(evacuate) before moving, so that no new partition lands on them (Kafka 4.3+, KIP-1066).
      - Default true where the cluster supports it (RV(cordon_supported)) and false elsewhere; true on a
        cluster that does not is refused.
      - Without a cordon the run warns that Kafka may still place new replicas on the evacuated dirs (a later
        run moves those too).
    type: bool
  uncordon:
    description:
      - Log dirs to uncordon (remove from the broker's C(cordoned.log.dirs)), for example after a disk was
        replaced. Needs Kafka 4.3+ (KIP-1066).
      - The dir takes replicas again in this same run (a balance may move some onto it).
    type: list
    elements: dict
    suboptions:
      broker:
        description: The broker's id.
        type: int
        required: true
      log_dir:
        description: The dir's absolute path, as in the broker's C(log.dirs).
        type: str
        required: true
  balance:
    description:
      - Even out the bytes among each planned broker's open dirs (online, not cordoned, not evacuated).
      - When every open dir of a broker reports its volume's total bytes (Kafka 3.3+) and no two share a volume,
        by fill (used bytes of the volume over its total); otherwise (sizes not reported, or dirs on one
        filesystem, whose fill no move changes) by the bytes of the replicas in each dir.
      - Moves a replica from the fullest dir to a less full one while that lowers the sum of the squared fills;
        stops when no move helps or every fill is within half a per cent of the mean. RV(bytes_moved_lower_bound)
        says how few bytes any plan reaching the same balance would copy.
      - By fill, a filesystem's used bytes also count the old copies of replicas moved off it until the broker
        deletes them, and nothing Kafka reports tells them from other files; read as fill, they would make the
        run move more, and back once they are deleted. So when the first reading plans moves on a broker weighed by
        fill, the run waits until no copy runs there and the broker's C(log.segment.delete.delay.ms) and one
        O(poll_interval) have passed, reads the dirs again and plans from that (RV(settle_wait)); in check mode too,
        so that it predicts the real run. A run with nothing to move does not wait.
    type: bool
    default: false
  max_disk_fill:
    description:
      - No dir's filesystem may end above this fraction of its size with bytes moved onto it from another
        filesystem, nor pass it while a copy runs, counting the old copies of earlier moves until their broker
        deletes them (above 0, at most 1). Refused before any change, in check mode too, naming the dir, the
        replica and the bytes, when a plan does not fit even once every earlier old copy is deleted.
      - Each filesystem is held to its own size; a broker's disks as a whole are not (a move between its dirs
        fills one filesystem and frees another), so they hold at most the sum of their filesystems' limits.
      - Only dirs that report their size (Kafka 3.3+) are checked.
    type: float
    default: 0.85
  throttle:
    description:
      - Bytes per second each broker that moves may copy between its dirs while the moves run; 0 means none.
    type: int
    default: 0
  max_moves_per_broker:
    description: Largest number of replicas one broker moves at once (in one batch); at least 1.
    type: int
    default: 10
  wait:
    description:
      - Wait until every replica has moved. Without waiting every move is submitted at once, and no throttle can
        be set (nothing would remain to remove it).
    type: bool
    default: true
  timeout:
    description:
      - Seconds the run may wait, from its start - for old copies to be deleted before a balance plans (see
        O(balance)) and for the moves. On timeout the module fails naming the replicas still moving (topic,
        partition, broker, from and to dir), with the throttle kept on their brokers only; a wait for old copies
        that would pass it fails at once, with nothing in flight. At least 1.
    type: int
    default: 3600
  poll_interval:
    description: Seconds between checks of the moves (DescribeLogDirs); more than 0.
    type: float
    default: 2
  progress_interval:
    description:
      - Seconds between progress readings (replicas done, bytes copied, rate, time left); a move completing gives
        a reading too. More than 0.
    type: float
    default: 10
  progress_file:
    description: Append each progress reading, a JSON object per line, to this file on the host running the module.
    type: path
attributes:
  check_mode:
    description:
      - Reads the brokers and reports the plan (moves, bytes, bound, cordons); changes nothing. A balance by fill
        that finds moves waits and reads again as a real run does (see O(balance)).
    support: full
  diff_mode:
    description: Shows, per broker that moves and per dir, the replicas it holds before and after, and the
      broker's C(cordoned.log.dirs) before and after.
    support: full
notes:
  - Progress readings are logged to the system log of the host running the module, appended to O(progress_file)
    when given, and returned in RV(progress).
  - The paths are compared with what DescribeLogDirs reports, the absolute paths of C(log.dirs); give them the
    same way (no trailing slash).
seealso:
  - module: kafkaops.cluster.kafka_reassignment
  - module: kafkaops.cluster.kafka_cluster_info
"""

EXAMPLES = r"""
- name: Empty the disk mounted at /data/disk2 of broker 3 before removing it, at most 50 MB/s
  kafkaops.cluster.kafka_log_dirs:
    bootstrap_servers: [kafka1:9092]
    evacuate:
      - broker: 3
        log_dir: /data/disk2/kafka
    throttle: 52428800

- name: Even out the log dirs of every broker with several, showing the plan first
  kafkaops.cluster.kafka_log_dirs:
    bootstrap_servers: [kafka1:9092]
    balance: true
  check_mode: true
  diff: true

- name: The new disk is in; let it take replicas again and even the dirs out
  kafkaops.cluster.kafka_log_dirs:
    bootstrap_servers: [kafka1:9092]
    uncordon:
      - broker: 3
        log_dir: /data/disk2/kafka
    balance: true
    brokers: [3]
"""

RETURN = r"""
moves:
  description:
    - The replicas that move (or would move), each with its broker, the dir it leaves and the dir it goes to and
      its bytes. C(in_progress) marks a move an earlier run started that is still copying (waited for, not
      submitted again).
  returned: always
  type: list
  elements: dict
  sample:
    - {topic: orders, partition: 3, broker: 1, from_dir: /data/a, to_dir: /data/b, bytes: 1073741824}
bytes_moved:
  description: Bytes the planned moves copy, each replica's size once.
  returned: always
  type: int
bytes_moved_lower_bound:
  description:
    - The fewest bytes any plan copies that empties the same dirs and leaves every broker's open dirs within
      the fills this plan reaches - all the bytes of the evacuated dirs, plus what must leave dirs above the
      highest fill reached or arrive at dirs below the lowest. Equal to RV(bytes_moved) for an evacuation alone.
  returned: always
  type: int
brokers:
  description:
    - Per planned broker (by id), C(weights) (V(capacity) or V(bytes), see O(balance)), C(imbalance_before) and
      C(imbalance_after) (the fullest open dir's fill over the mean fill; 1.0 is even), C(bytes_moved),
      C(bytes_moved_lower_bound), and per dir C(bytes_before) and C(bytes_after) (the replicas' bytes) and
      C(fill_before) and C(fill_after) (its volume's fill, null when not reported).
    - C(held_to_dir_room) lists the broker's dirs that read as one filesystem (the same total and usable bytes)
      whose own room stopped the balance short of even, with a warning. Such dirs may be disks of one size filled
      alike, so every copy into one of them must fit below O(max_disk_fill) of its size, counting what earlier
      moves of the plan brought it from the others; a later run goes on from what the disks then report.
  returned: when the brokers were read
  type: dict
disk_peak_bytes:
  description:
    - Per broker and dir, the most bytes its filesystem holds while the moves run, as batched. Dirs on one
      filesystem show the same figure.
    - An old copy counts until a later batch that needs its room waits for its deletion, and then only as much of
      it as that batch lacks - whether it is gone sooner depends on how long the copies take. So on a broker that
      keeps old copies for a while the figure is an upper bound, at most the fill where a batch waited; with
      C(log.segment.delete.delay.ms) 0 it is exact.
  returned: when the brokers were read
  type: dict
  sample: {"1": {"/data/a": 41943040, "/data/b": 52428800}}
delete_delay_ms:
  description:
    - For each planned broker, the C(log.segment.delete.delay.ms) counted - how long it keeps a replica's old copy
      after a move (Kafka's default, 60000, where it could not be read).
  returned: when something moves (in check mode too)
  type: dict
  sample: {"1": 60000, "3": 15000}
delete_delay_unread:
  description:
    - The brokers whose C(log.segment.delete.delay.ms) could not be read (DescribeConfigs failed, or did not
      return it), with why; Kafka's default is counted for them, and a warning says so.
  returned: when something moves (in check mode too)
  type: dict
  sample: {"3": "KafkaConnectionError: ..."}
settle_wait:
  description:
    - The brokers a balance by fill waited for, before planning, until no old copy could be left on their disks,
      and the seconds it waited (see O(balance)).
  returned: when a balance by fill found moves on its first reading (in check mode too)
  type: dict
  sample: {brokers: [1], seconds: 62.0}
deletion_waits:
  description:
    - Each wait before a batch for brokers to delete old copies earlier batches left, because the batch's copies
      needed that room - the batch (from 1), the seconds waited and the filesystems short of room.
  returned: when replicas moved and O(wait) is true
  type: list
  elements: dict
  sample: [{batch: 2, seconds: 60.0, places: ["broker 1's log dir /data/b"]}]
deletion_wait_seconds:
  description: The seconds spent in RV(deletion_waits) in all.
  returned: when replicas moved and O(wait) is true
  type: float
  sample: 60.0
cordon_supported:
  description:
    - Whether the cluster can cordon log dirs (finalized metadata.version at feature level 30, 4.3-IV0, or later).
      Null when neither O(evacuate) nor O(uncordon) was given (not read).
  returned: when the brokers were read
  type: bool
cordoned:
  description: Per broker, the dirs this run cordoned (or would cordon).
  returned: always
  type: dict
  sample: {"3": [/data/disk2/kafka]}
uncordoned:
  description: Per broker, the dirs this run uncordoned (or would uncordon).
  returned: always
  type: dict
throttled:
  description: The brokers whose copy throttle was set during the run (put back at the end).
  returned: when replicas moved with O(throttle) and O(wait)
  type: list
  elements: int
throttle_removed:
  description: Brokers that still carried the O(throttle) rate a timed-out run left, removed because nothing moved.
  returned: when nothing moved and O(throttle) is set, not in check mode
  type: list
  elements: int
moved:
  description: Number of replicas moved by this run.
  returned: when replicas moved and O(wait) is true
  type: int
progress:
  description:
    - Progress readings - replicas done of the total, seconds elapsed, bytes to copy in all and copied so far,
      the rate so far (bytes/s) and the seconds left (at the throttle, else at the rate so far).
    - While the next batch waits for old copies to be deleted, a reading as the wait starts and every
      O(progress_interval) seconds carries C(waiting_for_deletions) - C(seconds_left) and the C(places) (log dirs'
      filesystems) it needs the room of. The readings while a balance waits to plan (RV(settle_wait)) carry
      C(settling) - C(seconds_left) (null while copies an earlier run left still run) and the C(brokers); they are
      logged and written to O(progress_file), not returned here.
  returned: when replicas moved and O(wait) is true
  type: list
  elements: dict
elapsed:
  description: Seconds the moves took.
  returned: when replicas moved and O(wait) is true
  type: float
rate:
  description: RV(bytes_moved) over RV(elapsed) less RV(deletion_wait_seconds), bytes per second.
  returned: when replicas moved and O(wait) is true
  type: int
"""

from ansible_collections.kafkaops.cluster.plugins.module_utils._admin_module import KafkaAdminModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import MOVE_LIMITS
from ansible_collections.kafkaops.cluster.plugins.module_utils._log_dirs import (
    check_log_dirs_inputs,
    run_log_dirs,
    unchanged_log_dirs_result,
)

LOG_DIR_ITEM = dict(broker=dict(type="int", required=True), log_dir=dict(type="str", required=True))
ARGUMENT_SPEC = dict(
    brokers=dict(type="list", elements="int"),
    topics=dict(type="list", elements="str"),
    evacuate=dict(type="list", elements="dict", options=LOG_DIR_ITEM),
    cordon=dict(type="bool"),
    uncordon=dict(type="list", elements="dict", options=LOG_DIR_ITEM),
    balance=dict(type="bool", default=False),
    max_disk_fill=dict(type="float", default=0.85),
    throttle=dict(type="int", default=0),
    max_moves_per_broker=dict(type="int", default=10),
    wait=dict(type="bool", default=True),
    timeout=dict(type="int", default=3600),
    poll_interval=dict(type="float", default=2),
    progress_interval=dict(type="float", default=10),
    progress_file=dict(type="path"),
)


def main():
    module = KafkaAdminModule(ARGUMENT_SPEC, limits=MOVE_LIMITS)
    module.run(run_log_dirs, check_inputs=check_log_dirs_inputs, result=unchanged_log_dirs_result())


if __name__ == "__main__":
    main()
