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


from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError
from ansible_collections.kafkaops.cluster.plugins.module_utils._log_dir_planner import size_text, volumes


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


class CapacityOrderError(Exception):
    """Moves remain and none of them fits the room the places its new replicas fill have left.

    needs: [(topic, partition, place, bytes the copy needs there, bytes of room the place has)] for each
    remaining move and each place short of room (a broker, or one filesystem of a broker's log dirs: see
    LogDirPlaces), in plan order.
    """

    def __init__(self, needs, remaining):
        shown = ["%s-%d needs %s on %s, which has %s"
                 % (topic, partition, size_text(count), place_name(place), size_text(room) if room > 0 else "none")
                 for topic, partition, place, count, room in needs[:5]]
        super(CapacityOrderError, self).__init__(
            "none of the %d move(s) left fits: %s%s" % (remaining, "; ".join(shown), " ..." if len(needs) > 5 else ""))
        self.needs = needs


# ---- places: what fills while the moves copy ------------------------------------------------------------
# A place is a broker (its disks, summed over its filesystems), keyed by its id, or, on a broker whose log dirs
# span two or more filesystems, one of those filesystems, keyed (broker, (its dirs' paths, sorted)).


def place_name(place):
    """"broker 4", or "broker 2's log dir /data/a" (one filesystem of a broker's log dirs), for messages."""
    if not isinstance(place, tuple):
        return "broker %d" % place
    broker, paths = place
    if len(paths) == 1:
        return "broker %d's log dir %s" % (broker, paths[0])
    return "broker %d's log dirs %s (one filesystem)" % (broker, ", ".join(paths))


def place_order(place):
    """Sorts brokers and their filesystems together: a broker, then its filesystems by path."""
    return place if isinstance(place, tuple) else (place, ())


class LogDirPlaces(object):
    """Which filesystems of a broker's log dirs a reassignment's copies fill and its completed moves free.

    Built from read_log_dirs()'s state (every broker's dirs, their volumes' total and usable bytes, and the dir
    each replica of the plan's topics is in) and the dirs the plan names (parse_log_dirs()). Only brokers whose
    dirs are on two or more filesystems (the log dir planner's volumes()) get places of their own: on one
    filesystem the broker's disks are that filesystem, and the broker's place counts it. figures holds each
    place's {"total_bytes", "used_bytes"} (used: total less usable, so other files count), for disk_room().

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
        self.wanted = wanted or {}
        self.place_of, self.open, self.held, self.figures = {}, {}, {}, {}
        for broker, described in state.items():
            paths_of = {}
            for path, volume in volumes(described["dirs"]).items():
                paths_of.setdefault(volume, []).append(path)
            if len(paths_of) < 2:
                continue
            for volume, paths in paths_of.items():
                place = (broker, tuple(sorted(paths)))
                for path in paths:
                    self.place_of[(broker, path)] = place
                if volume[0] == "volume":
                    self.figures[place] = dict(total_bytes=volume[1], used_bytes=volume[1] - volume[2])
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

    def per_log_dir(self, peaks, state):
        """{broker: {path: peak}} of disk_peaks()'s {place: peak}: a dir has its filesystem's, and on a broker
        whose dirs share one filesystem every dir has the broker's."""
        found = {}
        for broker, described in state.items():
            for path in described["dirs"]:
                place = self.place_of.get((broker, path), broker)
                if place in peaks:
                    found.setdefault(broker, {})[path] = peaks[place]
        return found


def disk_room(disks, max_fill):
    """{place: bytes it may still gain before it holds more than max_fill of its size}.

    disks: {place: {"total_bytes", "used_bytes"}}: read_disk_usage()'s brokers, LogDirPlaces.figures. Negative
    for a place already above the fill.
    """
    return dict((place, int(max_fill * disk["total_bytes"]) - disk["used_bytes"]) for place, disk in disks.items())


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


def place_broker(place):
    """The broker a place is on (a place is a broker's id, or one filesystem of its log dirs)."""
    return place[0] if isinstance(place, tuple) else place


class DiskLedger(object):
    """The room each place has while moves run, and what it holds: a copy takes room when its batch starts, an
    old replica gives its room back only once its broker has deleted it.

    Kafka does not delete a replica a move drops when the move completes. The broker renames the replica's log
    for deletion, DescribeLogDirs stops listing it at once, and deletes its files log.segment.delete.delay.ms
    later (the broker's name of file.delete.delay.ms; 60 s by default). So complete() holds a move's frees back
    until then (pending), delete() gives back the room of those whose time has come, and ready_at() tells when
    enough of them are gone for a batch's copies to fit. The delay counts from when the run saw the move
    complete; the broker renamed the replica when the move ended, no later. It is the broker's setting: a topic's
    own file.delete.delay.ms does not apply to deleting a whole replica. The usable bytes DescribeLogDirs gives
    for a dir still count such a replica, so a run's first read holds those an earlier run left.

    room: {place: bytes it may still gain} (disk_room()); a place missing from it is not limited. sizes as
    read_partition_sizes() gives them, places a LogDirPlaces (or None: brokers only), held {place: bytes on its
    disks now} to follow peaks, delays {broker: seconds it keeps a dropped replica} (a broker missing: none).
    """

    def __init__(self, room, sizes, places=None, held=None, delays=None):
        self.room = dict(room)
        self.sizes, self.places = sizes, places
        self.held = dict(held or {})
        self.peaks = dict(self.held)
        self.delays = delays or {}
        # [when the broker deletes it, place, bytes] of the dropped replicas still on disk.
        self.pending = []
        # Each move's copies and frees, worked out once: a move may wait through several batches.
        self._effects = {}

    def effects(self, entry):
        """({place: bytes its new copies receive}, {place: bytes its old copies free once deleted}) of a move."""
        key = (entry["topic"], entry["partition"])
        if key not in self._effects:
            self._effects[key] = _gains_and_frees(entry, self.sizes, self.places)
        return self._effects[key]

    def gains(self, entries):
        """{place: bytes} the entries' copies take."""
        total = {}
        for entry in entries:
            for place, count in self.effects(entry)[0].items():
                total[place] = total.get(place, 0) + count
        return total

    def short(self, gains, beside=None):
        """[(place, bytes, room left)] of the gains that do not fit the room now beside beside ({place: bytes}
        already taken), in place order."""
        beside = beside or {}
        return [(place, count, self.room[place] - beside.get(place, 0))
                for place, count in sorted(gains.items(), key=lambda item: place_order(item[0]))
                if place in self.room and beside.get(place, 0) + count > self.room[place]]

    def start(self, entries):
        """The entries' copies land: they take room, and their places hold them."""
        for place, count in self.gains(entries).items():
            if place in self.room:
                self.room[place] -= count
            if place in self.held:
                self.held[place] += count
                self.peaks[place] = max(self.peaks[place], self.held[place])

    def complete(self, entries, now=0):
        """The entries' moves were seen complete at now: each old replica is deleted its broker's delay later."""
        for entry in entries:
            for place, count in self.effects(entry)[1].items():
                self.pending.append([now + self.delays.get(place_broker(place), 0), place, count])
        self.delete(now)

    def _release(self, place, count):
        if place in self.room:
            self.room[place] += count
        if place in self.held:
            self.held[place] -= count

    def delete(self, now=None):
        """Give back the room of the replicas deleted by now (all of them without now)."""
        kept = []
        for item in self.pending:
            if now is None or item[0] <= now:
                self._release(item[1], item[2])
            else:
                kept.append(item)
        self.pending = kept

    def ready_at(self, entries):
        """(when the entries' copies fit once the replicas deleted by then are gone, [places short of room now]);
        (None, []) when they fit now. Where they do not fit even once every pending deletion is done (a move
        already copying, which goes whatever the room), the time of the last one (None when none is pending)."""
        needs = dict((place, count - room) for place, count, room in self.short(self.gains(entries)))
        if not needs:
            return None, []
        short = sorted(needs, key=place_order)
        for due, place, count in sorted(self.pending, key=lambda item: item[0]):
            if place in needs:
                needs[place] -= count
                if needs[place] <= 0:
                    del needs[place]
            if not needs:
                return due, short
        return max([item[0] for item in self.pending] or [None]), short

    def delete_least(self, entries):
        """Give back, place by place, only the room the entries' copies lack, from the replicas waiting there for
        deletion whenever those are deleted: the least a wait for them (ready_at()) frees, so what the places hold
        next is the most they can hold."""
        for place, count, room in self.short(self.gains(entries)):
            lacking = count - room
            for item in self.pending:
                if item[1] != place or lacking <= 0:
                    continue
                taken = min(item[2], lacking)
                item[2] -= taken
                lacking -= taken
                self._release(place, taken)
        self.pending = [item for item in self.pending if item[2] > 0]


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
    ledger = DiskLedger(room, sizes, places) if room is not None else None
    batches = []
    remaining = list(range(len(pending)))
    while remaining:
        load, gained = {}, {}
        batch, later, short = [], [], []
        for index in remaining:
            entry = pending[index]
            gains = ledger.gains([entry]) if ledger is not None else {}
            touched = set(entry["target"]) ^ set(entry["current"])
            lacking = [(entry["topic"], entry["partition"], place, count, left)
                       for place, count, left in (ledger.short(gains, gained) if ledger is not None else ())]
            counted = all(load.get(broker, 0) < max_moves_per_broker for broker in touched) or not batch
            if entry["in_progress"] or (counted and not lacking):
                batch.append(index)
                for broker in touched:
                    load[broker] = load.get(broker, 0) + 1
                for place, count in gains.items():
                    gained[place] = gained.get(place, 0) + count
            else:
                later.append(index)
                short.extend(lacking)
        if not batch:
            raise CapacityOrderError(short, len(remaining))
        chosen = [pending[index] for index in batch]
        if ledger is not None:
            ledger.start(chosen)
            ledger.complete(chosen)
        batches.append(chosen)
        remaining = later
    return batches


def disk_peaks(batches, sizes, disks, places=None, room=None, delays=None):
    """{place: the most bytes it holds while the batches run}, from disks' used bytes now ({place: {"used_bytes",
    ...}}, as disk_room() takes them); places as make_batches() takes them.

    Each batch's copies land before its moves free their old replicas. With delays ({broker: seconds it keeps a
    dropped replica}, DiskLedger), an old replica of such a broker counts until a batch that needs its room
    (room, as make_batches() takes it) waits for its deletion, and then only as much of it as that batch lacks:
    whether it is gone sooner depends on how long the copies take, so the peak is the most the place can hold.
    Without delays (or with 0) each batch's frees are gone before the next batch, and the peak is exact.
    """
    ledger = DiskLedger(room or {}, sizes, places, dict((place, disk["used_bytes"]) for place, disk in disks.items()),
                        delays)
    for batch in batches:
        ledger.delete_least(batch)
        ledger.start(batch)
        ledger.complete(batch)
    return ledger.peaks


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
    and while the next batch waits for brokers to delete replicas moved off them (waiting_for_deletions: its
    seconds_left and the places it needs room on), that."""
    parts = ["%d of %d %s" % (status["done"], status["total"], moved)]
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
