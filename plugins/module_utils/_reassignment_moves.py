# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The moves a reassignment plan asks for, worked out without talking to the cluster.

Plain data in, plain data out: checking a plan (Kafka's JSON format) and then checking it against
the cluster's state that the executor read, cutting the moves still pending into batches, and
what they need - the throttled-replica entries, the bytes to copy and the least time that takes.
The executor (_reassignment_executor.py) reads the state and carries the moves out.
"""

from __future__ import absolute_import, division, print_function


from ansible_collections.kafkaops.cluster.plugins.module_utils._disk_ledger import (
    DiskLedger,
    Filesystems,
    cut_batches,
    ledger_peaks,
    size_text,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError


class PlanInputError(InputError):
    """The plan cannot be carried out; field names the entry, such as plan.partitions[4].replicas."""


def parse_plan(plan, field="plan"):
    """Check the shape of a plan in Kafka's format; return [(topic, partition, replicas)] in plan order."""
    if not isinstance(plan, dict):
        raise PlanInputError(field, "must be a mapping like {\"version\": 1, \"partitions\": [...]}")
    if plan.get("version", 1) != 1:
        raise PlanInputError(field + ".version", "only version 1 is known, not %r" % (plan.get("version"),))
    entries = plan.get("partitions")
    if not isinstance(entries, list):
        raise PlanInputError(field + ".partitions", "must be a list")
    parsed, seen = [], {}
    for index, entry in enumerate(entries):
        where = "%s.partitions[%d]" % (field, index)
        if not isinstance(entry, dict):
            raise PlanInputError(where, "must be a mapping with topic, partition and replicas")
        topic, partition, replicas = entry.get("topic"), entry.get("partition"), entry.get("replicas")
        if not isinstance(topic, str) or not topic:
            raise PlanInputError(where + ".topic", "a topic name is required")
        if isinstance(partition, bool) or not isinstance(partition, int) or partition < 0:
            raise PlanInputError(where + ".partition", "must be a partition number (0 or more), not %r" % (partition,))
        if not isinstance(replicas, list) or not replicas:
            raise PlanInputError(where + ".replicas", "must be a non-empty list of broker ids")
        for broker in replicas:
            if isinstance(broker, bool) or not isinstance(broker, int):
                raise PlanInputError(where + ".replicas", "broker ids are whole numbers, not %r" % (broker,))
        duplicates = sorted(set(broker for broker in replicas if replicas.count(broker) > 1))
        if duplicates:
            raise PlanInputError(where + ".replicas", "broker %s listed twice for %s-%d"
                                 % (", ".join(map(str, duplicates)), topic, partition))
        if (topic, partition) in seen:
            raise PlanInputError(where, "%s-%d is already in the plan at partitions[%d]"
                                 % (topic, partition, seen[(topic, partition)]))
        seen[(topic, partition)] = index
        parsed.append((topic, partition, list(replicas)))
    return parsed


def parse_log_dirs(plan, field="plan"):
    """The log dirs a plan asks for (Kafka's optional "log_dirs" of an entry, one per replica, "any" or an
    absolute path): {(topic, partition): {broker: path}} without the "any" ones, or PlanInputError naming the entry.

    Call after parse_plan(), which checked the entries' shape.
    """
    wanted = {}
    for index, entry in enumerate(plan["partitions"]):
        dirs = entry.get("log_dirs")
        if dirs is None:
            continue
        where = "%s.partitions[%d].log_dirs" % (field, index)
        if not isinstance(dirs, list) or len(dirs) != len(entry["replicas"]):
            raise PlanInputError(where, "a list of one log dir per replica (%d), each \"any\" or an absolute path"
                                 % len(entry["replicas"]))
        for position, broker in enumerate(entry["replicas"]):
            path = dirs[position]
            if path == "any":
                continue
            if not isinstance(path, str) or not path.startswith("/"):
                raise PlanInputError(where, "%r for broker %d is neither \"any\" nor an absolute path" % (path, broker))
            wanted.setdefault((entry["topic"], entry["partition"]), {})[broker] = path.rstrip("/") or "/"
    return wanted


def check_against_cluster(parsed, topics, live_brokers, ongoing, field="plan"):
    """Validate a parsed plan against the cluster; return the entries whose replicas must change.

    topics: {topic: {partition: [replicas]}}; live_brokers: ids; ongoing: {(topic, partition): target}.
    Raises PlanInputError naming the first offending entry. Entries already at their target are
    left out; entries already moving to their target are returned with in_progress True.
    """
    live = set(live_brokers)
    pending = []
    new_factor = {}
    for index, (topic, partition, replicas) in enumerate(parsed):
        where = "%s.partitions[%d]" % (field, index)
        if topic not in topics:
            raise PlanInputError(where + ".topic", "topic %r does not exist" % topic)
        if partition not in topics[topic]:
            raise PlanInputError(where + ".partition", "topic %r has partitions 0-%d, not %d"
                                 % (topic, len(topics[topic]) - 1, partition))
        dead = [broker for broker in replicas if broker not in live]
        if dead:
            raise PlanInputError(where + ".replicas", "broker %s is not a live broker (live: %s)"
                                 % (", ".join(map(str, dead)), ", ".join(map(str, sorted(live)))))
        if topic in new_factor and new_factor[topic][0] != len(replicas):
            raise PlanInputError(where + ".replicas", "%d replicas, but partitions[%d] of the same topic has %d: "
                                 "a topic's replication factor must be the same for all its partitions"
                                 % (len(replicas), new_factor[topic][1], new_factor[topic][0]))
        new_factor.setdefault(topic, (len(replicas), index))
        current = topics[topic][partition]
        moving_to = ongoing.get((topic, partition))
        if moving_to is not None and moving_to != replicas:
            raise PlanInputError(where, "%s-%d is already being reassigned to %s; wait for it, or cancel it "
                                 "(state: absent with the plan that started it)" % (topic, partition, moving_to))
        if current != replicas or moving_to is not None:
            pending.append(dict(topic=topic, partition=partition, current=list(current), target=list(replicas),
                                in_progress=moving_to is not None))
    for topic, (factor, index) in sorted(new_factor.items()):
        # A partition in flight lists its old and new replicas together: it counts with the factor it moves to.
        current_factors = set(len(ongoing.get((topic, partition), replicas))
                              for partition, replicas in topics[topic].items())
        if current_factors != set([factor]):
            planned = set(partition for name, partition, unused in parsed if name == topic)
            if planned != set(topics[topic]):
                raise PlanInputError("%s.partitions[%d].replicas" % (field, index), "changes the replication "
                                     "factor of topic %r to %d, so the plan must list all its %d partitions"
                                     % (topic, factor, len(topics[topic])))
    return pending


class LogDirPlaces(Filesystems):
    """Which filesystems of a broker's log dirs a reassignment's copies fill and its completed moves free.

    Built from read_log_dirs()'s state (every broker's dirs, their volumes' total and usable bytes, and the dir
    each replica of the plan's topics is in) and the dirs the plan names (parse_log_dirs()). Only brokers whose
    dirs are on two or more filesystems (volumes()) get places of their own: on one filesystem the broker's disks
    are that filesystem, and the broker's place counts it. place_of and figures are Filesystems'.

    Where a copy lands (landing()):

    * a replica the broker holds already (a move in progress copying into it) fills the dir it is in;
    * a replica the plan names a dir for fills that dir: the executor asks for the dir with AlterReplicaLogDirs
      before the move, and a broker creates a replica in the dir asked for when there is one;
    * otherwise ("any") Kafka picks, and it counts against every online, uncordoned dir of its broker at once.

    Why every dir: the broker creates the replica in the dir Kafka's LogManager orders first, the online,
    uncordoned one holding the fewest partitions (every topic's, future replicas included; sizes play no part),
    and on KRaft with several dirs the controller leaves a new replica's dir unassigned (KIP-858) for the broker
    to choose so. That count is not read here (DescribeLogDirs is asked for the plan's topics only), it changes
    as every copy of a batch and any topic created meanwhile lands, and it can send them all to one dir: a
    disk added empty takes every new replica until it holds as many partitions as the others. So the copies
    of a batch with no dir named may all land in any one dir, and a dir stays within its limit whatever Kafka
    chooses exactly when its room covers the copies named for it plus every unnamed copy onto its broker;
    counting each unnamed copy against each of those dirs is that condition. Counting it against one dir only,
    such as the fullest by fill, is not safe: a less full but smaller dir can have less room, and Kafka may pick
    it. Once landed, such a copy stays counted in every dir, since where it went is not read again; the
    batches are fixed before the first is submitted, so they hold for whatever Kafka chose. Plans of
    kafka_reassignment_plan name a dir for each copy onto a broker with two or more open dirs, so this bound
    costs room only with plans written elsewhere.

    A move frees (holding()) the dir its old replica is in, as it frees its broker, once the broker deletes that
    replica (DiskLedger says when).
    """

    def __init__(self, state, wanted=None):
        super(LogDirPlaces, self).__init__(state, several_only=True)
        self.wanted = wanted or {}
        self.open, self.held = {}, {}
        for broker in self.broker_places:
            described = state[broker]
            self.open[broker] = sorted(set(self.place_of[(broker, path)] for path, info in described["dirs"].items()
                                           if info["online"] and not info["cordoned"]))
            for (topic, partition), replica in described["replicas"].items():
                self.held[(topic, partition, broker)] = self.place_of[(broker, replica["dir"])]

    def landing(self, topic, partition, broker):
        """The places of the broker's filesystems a copy of the partition onto it fills (the class docstring)."""
        if (topic, partition, broker) in self.held:
            return [self.held[(topic, partition, broker)]]
        named = self.place_of.get((broker, self.wanted.get((topic, partition), {}).get(broker)))
        return [named] if named is not None else list(self.open.get(broker, ()))

    def holding(self, topic, partition, broker):
        """The place of the broker's filesystems its replica of the partition is in, as a list (empty: none)."""
        place = self.held.get((topic, partition, broker))
        return [place] if place is not None else []


def copies_within_brokers(requests, sizes, places):
    """{place: bytes} the plan's moves of replicas between the log dirs of a broker that holds them add.

    requests: log_dir_requests()'s; those whose broker does not hold the replica yet are copies from another
    broker, counted by the batches. The others are sent before the first batch, all at once, and each makes a
    second copy of its replica (the whole partition, counted at its largest copy) in its new dir, filling its
    broker and that dir's filesystem, until it catches up and the old one goes. Nothing waits for that before the
    batches run, so each counts as held for the whole run.
    """
    added = {}
    for item in requests:
        copies = sizes.get(item["topic"], {}).get(item["partition"], {})
        if item["broker"] not in copies:
            continue
        size = max(copies.values())
        target = places.place_of.get((item["broker"], item["to_dir"]))
        for place in [item["broker"]] + ([target] if target is not None else []):
            added[place] = added.get(place, 0) + size
    return added


def _gains_and_frees(entry, sizes, places=None):
    """({place: bytes its new copies receive}, {place: bytes its old copies free once their brokers delete them,
    a while after the move completes: DiskLedger}).

    The places are the brokers, and with places (LogDirPlaces) the filesystems of their log dirs too.
    """
    gains = bytes_to_copy([entry], sizes)[0]
    copies = sizes.get(entry["topic"], {}).get(entry["partition"], {})
    frees = dict((broker, copies.get(broker, 0)) for broker in entry["current"] if broker not in entry["target"])
    if places is not None:
        for effects, where in ((gains, places.landing), (frees, places.holding)):
            for broker, count in list(effects.items()):
                for place in where(entry["topic"], entry["partition"], broker):
                    effects[place] = effects.get(place, 0) + count
    return gains, frees


def reassignment_effects(sizes, places=None):
    """DiskLedger's effects of a reassignment's entries: _gains_and_frees() with these sizes and places."""
    return lambda entry: _gains_and_frees(entry, sizes, places)


def make_batches(pending, max_moves_per_broker, sizes=None, room=None, places=None):
    """Cut pending entries into batches in which no broker gains or loses more than the limit of replicas.

    Reorders (no replica added) cost nothing and go in the first batch. Moves keep the plan's order otherwise.

    With room ({place: bytes it may still gain}, disk_room()) and sizes (read_partition_sizes()), a move also
    waits for a later batch until every place it copies to has room for the copy beside the batch's other
    copies there. A place is a broker, and with places (LogDirPlaces) also each filesystem of the log dirs of a
    broker that has several, filled as LogDirPlaces.landing() says. A place gains a copy while its batch runs
    and frees an old replica only once its broker deletes it, a while after the move that drops it completes
    (DiskLedger). Here the room grows by a batch's frees before the next batch: the executor starts a batch only
    once the deletions its copies need room from are done, waiting for them where they are not. A move already
    in progress goes in the first batch whatever the room (it is copying already). A place missing from room is
    not limited. Without room the batches are those of the count limit alone. The order is greedy: a batch
    takes every move that fits, in plan order. When moves remain and none fits even with every earlier old
    replica deleted (such as two full brokers exchanging replicas, each waiting for the other to free space),
    raises CapacityOrderError naming what each needs.
    """
    ledger = DiskLedger(room, reassignment_effects(sizes, places)) if room is not None else None
    return cut_batches(pending, max_moves_per_broker, lambda entry: set(entry["target"]) ^ set(entry["current"]),
                       ledger)


def disk_peaks(batches, sizes, disks, places=None, room=None, delays=None):
    """{place: the most bytes it holds while the batches run}, from disks' used bytes now ({place: {"used_bytes",
    ...}}, as disk_room() takes them); places as make_batches() takes them.

    Each batch's copies land before its moves free their old replicas. With delays ({broker: seconds it keeps a
    dropped replica}, DiskLedger), an old replica of such a broker counts until a batch that needs its room
    (room, as make_batches() takes it) waits for its deletion, and then only as much of it as that batch lacks:
    whether it is gone sooner depends on how long the copies take, so the peak is the most the place can hold.
    Without delays (or with 0) each batch's frees are gone before the next batch, and the peak is exact.
    """
    held = dict((place, disk["used_bytes"]) for place, disk in disks.items())
    return ledger_peaks(batches, DiskLedger(room or {}, reassignment_effects(sizes, places), held, delays))


def throttle_entries(pending):
    """The throttled-replica list entries a move needs: leaders on the current replicas, followers on new ones.

    A move already in progress (a re-run) lists its target among its current replicas; its entry's
    "adding" (from ListPartitionReassignments) names the replicas still being copied.
    """
    leaders, followers = {}, {}
    for entry in pending:
        if entry.get("in_progress"):
            added = list(entry.get("adding") or [])
        else:
            added = [broker for broker in entry["target"] if broker not in entry["current"]]
        if not added:
            continue
        leaders.setdefault(entry["topic"], set()).update("%d:%d" % (entry["partition"], broker)
                                                         for broker in entry["current"])
        followers.setdefault(entry["topic"], set()).update("%d:%d" % (entry["partition"], broker) for broker in added)
    return leaders, followers


def bytes_to_copy(pending, sizes):
    """Bytes replication must copy for the pending entries: ({broker: bytes it must receive}, total).

    sizes: {topic: {partition: {broker: bytes}}} as read_partition_sizes() returns. A partition's size
    is its largest copy among the current replicas (a lagging follower holds less than the leader). A
    replica the move adds must receive all of it; for a move already in progress (its current replicas
    include the target ones) each target replica receives what its copy still lacks.
    """
    per_broker = {}
    for entry in pending:
        copies = sizes.get(entry["topic"], {}).get(entry["partition"], {})
        size = max([copies.get(broker, 0) for broker in entry["current"]] or [0])
        for broker in entry["target"]:
            if broker in entry["current"] and not entry["in_progress"]:
                continue
            missing = max(0, size - copies.get(broker, 0))
            if missing:
                per_broker[broker] = per_broker.get(broker, 0) + missing
    return per_broker, sum(per_broker.values())


def expected_seconds(batches, sizes, rate):
    """The least time the batches take at a throttle of rate bytes/s per broker, or None without a throttle.

    The follower throttle caps what each broker receives, and batches run one after another, so each
    batch takes at least its busiest receiver's bytes divided by the rate. Moves already in progress
    bound nothing: throttle_entries() leaves them unthrottled.
    """
    if not rate:
        return None
    busiest = [max(list(bytes_to_copy([entry for entry in batch if not entry["in_progress"]], sizes)[0].values())
                   or [0]) for batch in batches]
    return round(sum(busiest) / float(rate), 1)


def bytes_left(in_flight, not_submitted, sizes):
    """Bytes replication still has to copy: ({broker: bytes}, total).

    in_flight: entries submitted and not yet complete (their new replicas are partly copied; sizes holds what
    each copy has now); not_submitted: entries of later batches. sizes as read_partition_sizes() returns.
    """
    copying = [dict(entry, current=sorted(set(entry["current"]) | set(entry["target"])), in_progress=True)
               for entry in in_flight]
    per_broker = {}
    for part in (bytes_to_copy(copying, sizes)[0], bytes_to_copy(not_submitted, sizes)[0]):
        for broker, count in part.items():
            per_broker[broker] = per_broker.get(broker, 0) + count
    return per_broker, sum(per_broker.values())


def progress_status(done, total, elapsed, moving_seconds, bytes_total, left, throttle_rate):
    """One progress reading of a running reassignment, as plain numbers.

    left: ({broker: bytes}, total) as bytes_left() returns, or None when the sizes could not be read.
    seconds_left is what the throttle allows at best (the busiest receiving broker's bytes over the rate),
    or without a throttle the bytes left at the rate achieved so far; None when it cannot be told.
    """
    status = dict(done=done, total=total, elapsed=round(elapsed, 1), bytes_total=bytes_total, bytes_copied=None,
                  rate=None, seconds_left=None)
    if left is None or bytes_total is None:
        return status
    per_broker, remaining = left
    copied = max(0, bytes_total - remaining)
    status["bytes_copied"] = copied
    if moving_seconds > 0:
        status["rate"] = int(round(copied / moving_seconds))
    if throttle_rate:
        status["seconds_left"] = round(max(list(per_broker.values()) or [0]) / float(throttle_rate), 1)
    elif status["rate"]:
        status["seconds_left"] = round(remaining / float(status["rate"]), 1)
    return status


def _duration(seconds):
    seconds = int(round(seconds))
    if seconds >= 3600:
        return "%d h %02d min" % (seconds // 3600, seconds % 3600 // 60)
    if seconds >= 60:
        return "%d min %02d s" % (seconds // 60, seconds % 60)
    return "%d s" % seconds


def describe_progress(status, moved="partitions moved"):
    """A line for the operator: partitions done (or what moved says), bytes copied, rate, time left, time spent,
    while the next batch waits for brokers to delete replicas moved off them (waiting_for_deletions: its
    seconds_left and the places it needs room on), that, and while a balance waits to plan from disks without old
    copies (settling: seconds_left, None while copies an earlier run left still run, and the brokers), that."""
    parts = ["%d of %d %s" % (status["done"], status["total"], moved)]
    settling = status.get("settling")
    if settling:
        brokers = ", ".join(map(str, settling["brokers"]))
        if settling["seconds_left"] is None:
            parts.append("the plan waits for the copies running on broker(s) %s to end and their old replicas to be "
                         "deleted" % brokers)
        else:
            parts.append("the plan waits %s for broker(s) %s to delete the old replicas earlier moves may have left"
                         % (_duration(settling["seconds_left"]), brokers))
    waiting = status.get("waiting_for_deletions")
    if waiting:
        parts.append("the next batch waits %s for deletions to free room on %s"
                     % (_duration(waiting["seconds_left"]), ", ".join(waiting["places"])))
    if status.get("bytes_copied") is not None:
        parts.append("%s of %s copied" % (size_text(status["bytes_copied"]), size_text(status["bytes_total"])))
    if status.get("rate") is not None:
        parts.append("%s/s" % size_text(status["rate"]))
    if status.get("seconds_left") is not None:
        parts.append("about %s left" % _duration(status["seconds_left"]))
    parts.append("%s elapsed" % _duration(status["elapsed"]))
    return ", ".join(parts)
