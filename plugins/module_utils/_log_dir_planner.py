# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where each replica lives inside its broker (JBOD): emptying log dirs, evening them out, and the dirs for the
replicas a reassignment copies onto a broker. Pure: no I/O.

A broker with several log dirs keeps each replica in one of them. Kafka places a new replica in the dir
holding the fewest partitions, not the fewest bytes, so dirs drift apart; a disk to be removed must be
emptied first. Moving a replica between dirs of one broker (AlterReplicaLogDirs) copies its bytes on that
broker only, so each broker is planned on its own.

Terms
-----
* A broker's *open* dirs: online, not cordoned and not being evacuated. Only they receive replicas (Kafka
  refuses AlterReplicaLogDirs into a cordoned or offline dir).
* A *volume*: the filesystem a dir is on. Dirs of one broker that report the same total bytes and usable bytes
  within ``SHARED_FILESYSTEM_SLACK`` (64 MiB: files written between two dirs' answers) are one (``volumes``,
  _disk_ledger); the brokers' disks (_cluster) and the one-host check of the reassignment planner count by the
  same rule.
* ``L_d``: what dir d holds. With *capacity* weights (every open dir reports its volume's total bytes,
  Kafka 3.3+, and no two of them are on one volume) it is the volume's used bytes (total - usable:
  other files count, they never move) and ``w_d`` its total bytes; otherwise (*bytes* weights: sizes not
  reported, or dirs on one filesystem, where a move changes no volume's fill) ``L_d`` is the bytes of the
  replicas in d and ``w_d = 1``. The *fill* of d is ``L_d / w_d``. The used bytes also count the old copy of a
  replica moved off the volume until its broker deletes it, and nothing Kafka reports tells such a copy from
  other files: kafka_log_dirs plans a balance by capacity from a reading taken once they are gone
  (_log_dirs.wait_until_settled), so that they do not read as fill.
* ``imbalance``: the largest fill over the mean fill (sum of L over sum of w) of the open dirs; 1.0 is even.
* ``bytes_moved``: the sizes of the replicas whose dir changes: each is copied once, on its broker.

How the plan is found
---------------------
1. Evacuation: every replica of an evacuated dir moves, the largest first, to the open dir with the lowest
   fill after taking it among those with room below ``max_disk_fill`` (where the volume reports its size).
   Between dirs read as one filesystem the room counts what the target has gained from the others so far:
   their figures cannot tell one filesystem from two equal disks filled alike (``_Broker.room``).
2. Balance (when asked): while the fullest open dir can give a replica of a selected topic to a less full
   one so that ``sum over d of L_d^2 / w_d`` falls, it gives the one whose size best fits
   ``s* = (f_h - f_l) / (1 / w_h + 1 / w_l)`` (the size that would make the two fills equal): the largest
   not above ``s*``, else the smallest below ``2 s*`` (any such size lowers the sum). The sum falls at
   every step and takes finitely many values, so this ends; it ends with no such move from any dir to a
   less full one, or every fill within half a per cent of the mean. Planning again on the result finds
   the same end at once: nothing moves.
3. Order (``order_moves``): the moves in batches, each copy fitting its filesystem beside the old replicas of
   earlier moves not yet deleted (the one DiskLedger kafka_reassignment orders its moves with).

The lower bound
---------------
Let ``U`` and ``M`` be the largest and the smallest fill the plan reaches over a broker's open dirs, and
``E`` the bytes of the replicas in its evacuated dirs. Every plan that empties the evacuated dirs and ends
with every open dir's fill between ``M`` and ``U`` (the same balance or better) copies at least:

* ``E + sum over open d of max(0, L_d - U * w_d)``: every byte of an evacuated dir must leave it, and a dir
  above ``U`` must shed the bytes above it; replicas are never dropped inside a broker, so each byte that
  leaves a dir is copied into another, and the two kinds of bytes leave different dirs.
* ``sum over open d of max(0, M * w_d - L_d)``: a dir below ``M`` gains its missing bytes only as copies.

Each holds on its own for every such plan, so their largest, ``bytes_moved_lower_bound``, does too, however
the plan was found. Without balance, ``U`` and ``M`` are what the evacuation leaves, and the plan moves
exactly ``E``: the bound is met.

Dirs for the replicas a reassignment copies in
----------------------------------------------
A reassignment (kafka_reassignment_plan) copies replicas onto brokers; on a broker with several log dirs Kafka
puts each copy in the dir holding the fewest partitions, whatever their bytes, unless the plan names one in
Kafka's ``log_dirs`` (one entry per replica, ``"any"`` or a path). ``place_arrivals`` names one for every copy
onto a broker with two or more open dirs, with the terms above (open dirs, ``L_d``, ``w_d``, fill):

1. The replicas the reassignment removes from the broker leave their dirs first: the end state counts, as
   the reassignment planner counts each broker's disks after the plan.
2. The copies, the largest first (ties by topic and partition, so the same input gives the same dirs), each
   go to the open dir with the lowest fill after taking it, ``(L_d + s) / w_d``, among those whose volume stays
   at or below ``max_disk_fill`` of its size (a dir whose size is not reported is not limited); between dirs
   equally full after it, the one holding the fewest replicas (Kafka's own rule: copies of empty partitions,
   which fill nothing, then spread over the dirs), then by path. A copy no open dir can take is refused, naming
   the broker, the partition, its bytes and each open dir's room.

What that promises: for every copy r (size s) in dir h and every other open dir e of its broker with room for
r at the end, ``(L_e + s) / w_e >= L_h / w_h`` after the plan: moving r to e would leave e at least as full as h
is, so no such single move lowers the broker's largest fill. Proof: let z be the last copy placed in h (r or
a later one, so ``z <= s``). When z was placed, h had the lowest fill after taking it among the dirs with room,
and e had room for z (a dir's room only shrinks while copies are placed, and e has room for ``s >= z`` at the
end), so ``L_h / w_h = (L_h' + z) / w_h <= (L_e' + z) / w_e <= (L_e + s) / w_e``, ``L'`` the loads then. It
says nothing of replicas that stay: they do not move, so evening them out is kafka_log_dirs' balance.

The choice copies no byte between brokers: which brokers take which replicas, hence ``bytes_moved`` and
``bytes_moved_lower_bound`` of the reassignment (_byte_balance), are those of the plan without dirs, and a
broker with one open dir (or one dir) is left to Kafka, so its plan entries are as they were. Only the end
state of a dir is checked here: while the reassignment runs a dir holds its copies before the replicas leaving
it are deleted, and kafka_reassignment's max_disk_fill orders the moves so that no broker's disks and no
filesystem of its dirs pass the fill meanwhile (_reassignment_moves.LogDirPlaces).
"""

from __future__ import absolute_import, division, print_function


import fractions
import math

from ansible_collections.kafkaops.cluster.plugins.module_utils._disk_ledger import (
    CapacityOrderError,
    DiskLedger,
    Filesystems,
    cut_batches,
    disk_room,
    ledger_peaks,
    size_text,
    volumes,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError

# Fills within this fraction of the mean count as even: past it a move copies bytes for a gain no disk notices.
BALANCE_TOLERANCE = 0.005
# A guard against a bug looping forever; each move lowers a finite sum, so a correct run never reaches it.
MOST_BALANCE_STEPS = 100000


class LogDirPlanError(InputError):
    """A plan the brokers' log dirs cannot carry; field names the option (evacuate[0].log_dir, brokers)."""


class _Broker(object):
    """One broker's dirs while it is planned: what each holds, where each replica is, how full each volume is."""

    def __init__(self, broker_id, state, evacuate, max_disk_fill):
        self.id = broker_id
        self.dirs = state["dirs"]
        self.replicas = state["replicas"]
        self.evacuate = set(evacuate)
        self.max_disk_fill = max_disk_fill
        self.open = sorted(path for path, info in self.dirs.items()
                           if info["online"] and not info["cordoned"] and path not in self.evacuate)
        self.volume = volumes(self.dirs)
        self.volume_total, self.volume_used = {}, {}
        for volume in self.volume.values():
            if volume[0] == "volume":
                self.volume_total[volume] = volume[1]
                self.volume_used[volume] = volume[1] - volume[2]
        open_volumes = [self.volume[path] for path in self.open]
        self.weights = ("capacity" if open_volumes and all(volume[0] == "volume" for volume in open_volumes)
                        and len(set(open_volumes)) == len(open_volumes) else "bytes")
        self.where = dict((key, replica["dir"]) for key, replica in self.replicas.items())
        # Net bytes each dir has gained from dirs read as the same filesystem (room()).
        self.gained = dict((path, 0) for path in self.dirs)
        # Bytes a dir holds besides the replicas listed (planning offline from a dir's bytes alone); they stay.
        self.replica_bytes = dict((path, info.get("other_bytes", 0)) for path, info in self.dirs.items())
        for replica in self.replicas.values():
            self.replica_bytes[replica["dir"]] += replica["bytes"]

    def load(self, path):
        if self.weights == "capacity" and self.volume[path] in self.volume_used:
            return self.volume_used[self.volume[path]]
        return self.replica_bytes[path]

    def weight(self, path):
        if self.weights == "capacity" and self.volume[path] in self.volume_total:
            return self.volume_total[self.volume[path]]
        return 1

    def fill(self, path):
        return self.load(path) / float(self.weight(path))

    def volume_fill(self, path):
        """The fill of the dir's volume, or None when the broker does not report it."""
        volume = self.volume[path]
        if volume not in self.volume_used:
            return None
        return round(self.volume_used[volume] / float(self.volume_total[volume]), 4)

    def room(self, source, target):
        """Bytes the target may still gain from source below max_disk_fill; None when not limited (its volume's
        size not reported).

        Between dirs read as one filesystem the target's room is checked too, less what it has gained from the
        others already. Their figures cannot tell one filesystem from two disks of one size filled alike (two
        100 GiB disks at 61 GiB each read as one), and on two disks each copy stays where it lands. On one
        filesystem the copy needs the room as well: AlterReplicaLogDirs copies first and the broker deletes the
        old replica log.segment.delete.delay.ms later."""
        room = self.arrival_room(target)
        if room is not None and self.volume[target] == self.volume[source]:
            room -= max(0, self.gained[target])
        return room

    def move(self, key, path):
        size = self.replicas[key]["bytes"]
        source = self.where[key]
        self.replica_bytes[source] -= size
        self.replica_bytes[path] += size
        if self.volume[source] == self.volume[path]:
            self.gained[source] -= size
            self.gained[path] += size
        else:
            if self.volume[source] in self.volume_used:
                self.volume_used[self.volume[source]] -= size
            if self.volume[path] in self.volume_used:
                self.volume_used[self.volume[path]] += size
        self.where[key] = path

    def change(self, path, size):
        """The dir gains size bytes (loses them when negative) from another broker: a copy arrives or leaves."""
        self.replica_bytes[path] += size
        if self.volume[path] in self.volume_used:
            self.volume_used[self.volume[path]] += size

    def arrival_room(self, path):
        """Bytes the dir's volume may still gain below max_disk_fill (a copy from another broker; room() adds the rule
        between dirs read as one filesystem); None when not limited."""
        volume = self.volume[path]
        if volume not in self.volume_used:
            return None
        return int(self.max_disk_fill * self.volume_total[volume]) - self.volume_used[volume]

    def loads(self):
        return dict((path, self.load(path)) for path in self.dirs)

    def imbalance(self, loads=None):
        """The largest fill of the open dirs over their mean fill (None without open dirs)."""
        loads = self.loads() if loads is None else loads
        if not self.open:
            return None
        mean = sum(loads[path] for path in self.open) / float(sum(self.weight(path) for path in self.open))
        if mean <= 0:
            return 1.0
        return round(max(loads[path] / float(self.weight(path)) for path in self.open) / mean, 4)


def _evacuate(broker, field):
    """Step 1: every replica of the broker's evacuated dirs to an open dir with room, the largest first."""
    leaving = sorted((key for key, path in broker.where.items() if path in broker.evacuate),
                     key=lambda key: (-broker.replicas[key]["bytes"], key))
    for key in leaving:
        size, source = broker.replicas[key]["bytes"], broker.where[key]
        fitting = [path for path in broker.open
                   if broker.room(source, path) is None or broker.room(source, path) >= size]
        if not fitting:
            rooms = ", ".join("%s can take %s more" % (path, size_text(max(0, broker.room(source, path))))
                              for path in broker.open)
            raise LogDirPlanError(field[source], "no room on broker %d for %s-%d (%s) from %s: its open log "
                                  "dirs must stay at or below max_disk_fill %s of their size, and %s. Free space "
                                  "there, add a disk, or move partitions to other brokers first"
                                  % (broker.id, key[0], key[1], size_text(size), source, broker.max_disk_fill,
                                     rooms or "it has none"))
        target = min(fitting, key=lambda path: ((broker.load(path) + size) / float(broker.weight(path)), path))
        broker.move(key, target)


def _best_fit(sizes_and_keys, ideal):
    """The (size, key) to give: the largest not above ideal, else the smallest below twice ideal; or None."""
    below = [item for item in sizes_and_keys if 0 < item[0] <= ideal]
    if below:
        return max(below, key=lambda item: (item[0], item[1]))
    lowering = [item for item in sizes_and_keys if ideal < item[0] < 2 * ideal]
    return min(lowering) if lowering else None


def _balance(broker, movable):
    """Step 2: moves that lower sum(L^2 / w) over the open dirs, fullest dir first, until none helps.

    Returns the dirs that ended it short of even only because each dir read as sharing its filesystem is held to
    its own room (room()): [] when it ended even or for another reason."""
    if len(broker.open) < 2:
        return []
    for _step in range(MOST_BALANCE_STEPS):
        mean = sum(broker.load(path) for path in broker.open) / float(sum(broker.weight(path) for path in broker.open))
        fills = [broker.fill(path) for path in broker.open]
        if mean <= 0 or (max(fills) <= mean * (1 + BALANCE_TOLERANCE) and min(fills) >= mean * (1 - BALANCE_TOLERANCE)):
            return []
        step, held_back = _balance_step(broker, movable)
        if step is None:
            return sorted(held_back)
        broker.move(*step)
    raise AssertionError("the log dir balance did not end within %d moves" % MOST_BALANCE_STEPS)


def _balance_step(broker, movable):
    """((replica, dir) of the next balancing move, or None when no move lowers the sum; the dirs whose own room, as
    room() counts it between dirs read as one filesystem, stopped a move the filesystem's room alone let through)."""
    held_back = set()
    for giver in sorted(broker.open, key=lambda path: (-broker.fill(path), path)):
        held = [(broker.replicas[key]["bytes"], key) for key in movable if broker.where[key] == giver]
        if not held:
            continue
        for receiver in sorted(broker.open, key=lambda path: (broker.fill(path), path)):
            if broker.fill(receiver) >= broker.fill(giver):
                break
            ideal = (broker.fill(giver) - broker.fill(receiver)) / (
                1.0 / broker.weight(giver) + 1.0 / broker.weight(receiver))
            room = broker.room(giver, receiver)
            chosen = _best_fit([item for item in held if room is None or item[0] <= room], ideal)
            if chosen is not None:
                return (chosen[1], receiver), held_back
            if room is not None and broker.volume[giver] == broker.volume[receiver] and broker.gained[receiver] > 0:
                wider = room + broker.gained[receiver]
                if _best_fit([item for item in held if item[0] <= wider], ideal) is not None:
                    held_back.add(receiver)
    return None, held_back


def _lower_bound(broker, before, evacuated_bytes):
    """bytes_moved_lower_bound of the broker (the module docstring argues it)."""
    if not broker.open:
        return evacuated_bytes
    # Exact fractions: a bound rounded up by floating point would not be one.
    reached = [fractions.Fraction(broker.load(path), broker.weight(path)) for path in broker.open]
    highest, lowest = max(reached), min(reached)
    leaving = evacuated_bytes + sum(max(0, before[path] - highest * broker.weight(path)) for path in broker.open)
    arriving = sum(max(0, lowest * broker.weight(path) - before[path]) for path in broker.open)
    return int(math.floor(max(leaving, arriving)))


def plan_log_dirs(brokers, evacuate=None, balance=False, topics=None, max_disk_fill=0.85, field=None):
    """The moves that empty the evacuated dirs and (with balance) even out each broker's open dirs.

    brokers: {broker id: {"dirs": {path: {"total_bytes", "usable_bytes" (None when not reported), "online",
    "cordoned"}}, "replicas": {(topic, partition): {"dir", "bytes"}}}}, the brokers to plan. evacuate:
    {broker id: [paths]}; every replica there moves (whatever topics says). topics: the topics balance may
    move (None: all). field: {(broker id, path): option name} for messages about an evacuated dir.

    Returns {"moves": [{topic, partition, broker, from_dir, to_dir, bytes}], "bytes_moved",
    "bytes_moved_lower_bound", "brokers": {broker id: {"weights", "dirs": {path: {bytes_before, bytes_after,
    fill_before, fill_after}}, "imbalance_before", "imbalance_after", "bytes_moved",
    "bytes_moved_lower_bound", "held_to_dir_room"}}}, fills those of each dir's volume (None when not reported),
    held_to_dir_room the dirs read as sharing a filesystem whose own room stopped the balance short of even (a
    later run, from a reading of the moved bytes, may go on); raises
    LogDirPlanError when a replica of an evacuated dir finds no room.
    """
    evacuate = evacuate or {}
    field = field or {}
    moves, summary = [], {}
    for broker_id in sorted(brokers):
        broker = _Broker(broker_id, brokers[broker_id], evacuate.get(broker_id, ()), max_disk_fill)
        before, bytes_before = broker.loads(), dict(broker.replica_bytes)
        fill_before = dict((path, broker.volume_fill(path)) for path in broker.dirs)
        imbalance_before = broker.imbalance()
        evacuated_bytes = sum(broker.replica_bytes[path] for path in broker.evacuate)
        _evacuate(broker, dict((path, field.get((broker_id, path), "evacuate")) for path in broker.evacuate))
        held_back = []
        if balance:
            held_back = _balance(broker, sorted(key for key in broker.replicas if topics is None or key[0] in topics))
        moved = [key for key in sorted(broker.replicas) if broker.where[key] != broker.replicas[key]["dir"]]
        moves.extend(dict(topic=key[0], partition=key[1], broker=broker_id, from_dir=broker.replicas[key]["dir"],
                          to_dir=broker.where[key], bytes=broker.replicas[key]["bytes"]) for key in moved)
        summary[broker_id] = dict(
            weights=broker.weights,
            dirs=dict((path, dict(bytes_before=bytes_before[path], bytes_after=broker.replica_bytes[path],
                                  fill_before=fill_before[path], fill_after=broker.volume_fill(path)))
                      for path in sorted(broker.dirs)),
            imbalance_before=imbalance_before, imbalance_after=broker.imbalance(),
            bytes_moved=sum(broker.replicas[key]["bytes"] for key in moved),
            bytes_moved_lower_bound=_lower_bound(broker, before, evacuated_bytes),
            held_to_dir_room=held_back)
    return dict(moves=moves, bytes_moved=sum(move["bytes"] for move in moves),
                bytes_moved_lower_bound=sum(item["bytes_moved_lower_bound"] for item in summary.values()),
                brokers=summary)


def _move_effects(filesystems, own_places):
    """DiskLedger's effects of kafka_log_dirs' moves: a copy fills the filesystem of the dir it goes to, and the
    replica it replaces frees the filesystem of the dir it leaves once its broker deletes it. A move inside one
    filesystem gains and frees the same place: it holds the copy beside the old replica until then. A dir read as
    sharing its filesystem with others also has a place of its own (own_places), which its copies fill and its old
    replicas free as well: the figures cannot tell that filesystem from disks of one size filled alike."""
    def effects(move):
        gains, frees = {}, {}
        for side, key in ((gains, "to_dir"), (frees, "from_dir")):
            spot = (move["broker"], move[key])
            side[filesystems.place_of[spot]] = move["bytes"]
            if spot in own_places:
                side[own_places[spot]] = move["bytes"]
        return gains, frees
    return effects


def log_dir_ledger(brokers, max_disk_fill, delays=None):
    """(the DiskLedger of kafka_log_dirs' moves on the brokers, their Filesystems).

    brokers: as plan_log_dirs takes them. Each filesystem of a broker's dirs is a place, a broker whose dirs share
    one having one, with the room it has below max_disk_fill of its size; one that does not report its size is not
    limited. delays: {broker: seconds it keeps a replica moved off a dir} (none: deleted at once).

    Dirs read as one filesystem (same total, usable within the slack) may be disks of one size filled alike, where
    each copy stays on the disk it lands on. So each of them is also a place of its own, (broker, (its path,)), with
    the filesystem's figures: a copy must fit both, the filesystem (one disk: the copy beside the old replica) and
    its dir (two disks: the copy where it lands, never freed by the old replica's deletion elsewhere).

    A broker's disks as a whole are no place here, unlike kafka_reassignment's, which copies between brokers: a
    move between the dirs of a broker fills one filesystem and frees another, and it is each filesystem that can
    run out of room. Held to their sum as well, a broker with a filesystem above the fill and the others not far
    below it could not be relieved at all: the copy would pass the sum while the full filesystem still held the
    old replica. With every filesystem within its fill (or what it held when that was more), the broker's disks
    hold at most the sum of those limits: within max_disk_fill of their size wherever none starts above it.
    """
    filesystems = Filesystems(brokers)
    figures, own_places = dict(filesystems.figures), {}
    for place, figure in filesystems.figures.items():
        broker, paths = place
        if len(paths) > 1:
            for path in paths:
                own_places[(broker, path)] = (broker, (path,))
                figures[(broker, (path,))] = figure
    held = dict((place, figure["used_bytes"]) for place, figure in figures.items())
    room = disk_room(figures, max_disk_fill)
    return DiskLedger(room, _move_effects(filesystems, own_places), held, delays), filesystems


def order_moves(moves, brokers, max_moves_per_broker, max_disk_fill, delays=None):
    """The moves cut into batches: per broker at most max_moves_per_broker, each copy fitting its filesystem.

    A copy fills the filesystem of its new dir before its broker deletes the replica it replaces, which happens
    log.segment.delete.delay.ms after the move completes (a move inside one filesystem needs the room for that
    long too). So a move waits for a later batch until its filesystem, with the batch's other copies, stays at or
    below max_disk_fill, counting the old replicas of earlier batches as freed: the executor starts a batch only
    once the deletions its copies need room from are done, waiting for them (DiskLedger, cut_batches). A move
    already in progress (in_progress true) goes first, whatever the room; it counts its whole size, what it has
    copied already included. Filesystems that do not report their size are not limited.

    Returns (batches, {broker: {path: the most bytes its filesystem holds meanwhile}}), counting with delays
    ({broker: seconds}) each old replica until a batch waits for its room (ledger_peaks: at most the fill where
    a batch waited; exact with no delay). Raises LogDirPlanError (field max_disk_fill) when moves remain and none
    fits even once every earlier old replica is deleted.
    """
    ledger, filesystems = log_dir_ledger(brokers, max_disk_fill)
    try:
        batches = cut_batches(moves, max_moves_per_broker, lambda move: [move["broker"]], ledger)
    except CapacityOrderError as error:
        raise LogDirPlanError("max_disk_fill", "a copy lands before its broker deletes the replica it replaces, so "
                              "no log dir's filesystem may pass %s of its size while the moves copy, and %s. Free "
                              "space there, or raise max_disk_fill" % (max_disk_fill, error)) from None
    peaks = ledger_peaks(batches, log_dir_ledger(brokers, max_disk_fill, delays)[0])
    return batches, filesystems.per_log_dir(peaks, brokers)


def place_arrivals(brokers, arrivals, departures=(), max_disk_fill=0.85):
    """The dirs for the replicas a reassignment copies onto brokers with several log dirs (module docstring).

    brokers: {broker id: {"dirs", "replicas"}} as plan_log_dirs takes them; brokers with fewer than two dirs are
    left to Kafka. arrivals: {(topic, partition, broker): bytes} of the replicas copied onto a broker;
    departures: the (topic, partition, broker) whose replicas the reassignment removes.

    Returns {"dirs": {(topic, partition, broker): path} of the replicas whose broker has two or more open dirs,
    "brokers": {broker id: {"weights", "dirs": {path: {open, bytes_before, bytes_after, fill_before, fill_after,
    replicas_placed}}}}}, fills those of each dir's volume (None when not reported); raises LogDirPlanError
    (field max_disk_fill) naming the broker, the partition, its bytes and each open dir's room when no open dir
    of the broker can take a replica.
    """
    chosen, summary = {}, {}
    # Sorted out by broker once: a plan may hold a million partitions over hundreds of brokers.
    leaving, coming_to = {}, {}
    for topic, partition, owner in departures:
        leaving.setdefault(owner, []).append((topic, partition))
    for key, size in arrivals.items():
        coming_to.setdefault(key[2], []).append((size, key))
    for broker_id in sorted(brokers):
        if len(brokers[broker_id]["dirs"]) < 2:
            continue
        broker = _Broker(broker_id, brokers[broker_id], (), max_disk_fill)
        bytes_before = dict(broker.replica_bytes)
        fill_before = dict((path, broker.volume_fill(path)) for path in broker.dirs)
        # The end state counts, as for the brokers' disks: the replicas leaving first, then those arriving.
        # Replicas per dir: among dirs equally full after a copy (empty partitions fill nothing), the one holding
        # the fewest takes it, as Kafka would choose, so new partitions do not all grow in one dir.
        held = dict((path, 0) for path in broker.dirs)
        for path in broker.where.values():
            held[path] += 1
        for key in leaving.get(broker_id, ()):
            if key in broker.where:
                broker.change(broker.where[key], -broker.replicas[key]["bytes"])
                held[broker.where[key]] -= 1
        placed = dict((path, 0) for path in broker.dirs)
        # Largest first, ties by name: the same input gives the same dirs, and small replicas even out what the
        # large ones leave.
        for size, key in sorted(coming_to.get(broker_id, ()), key=lambda item: (-item[0], item[1])):
            fitting = [path for path in broker.open
                       if broker.arrival_room(path) is None or broker.arrival_room(path) >= size]
            if not fitting:
                rooms = ", ".join("%s can take %s more" % (path, size_text(max(0, broker.arrival_room(path))))
                                  for path in broker.open)
                raise LogDirPlanError("max_disk_fill", "no open log dir of broker %d can take %s-%d (%s): its open "
                                      "log dirs must stay at or below max_disk_fill %s of their volume, and %s. Free "
                                      "space there, add a disk, or leave broker %d out of broker_list"
                                      % (broker_id, key[0], key[1], size_text(size), max_disk_fill,
                                         rooms or "it has none (every dir offline or cordoned)", broker_id))
            target = min(fitting, key=lambda path: ((broker.load(path) + size) / float(broker.weight(path)),
                                                    held[path], path))
            broker.change(target, size)
            placed[target] += 1
            held[target] += 1
            if len(broker.open) > 1:
                chosen[key] = target
        summary[broker_id] = dict(weights=broker.weights, dirs=dict(
            (path, dict(open=path in broker.open, bytes_before=bytes_before[path],
                        bytes_after=broker.replica_bytes[path], fill_before=fill_before[path],
                        fill_after=broker.volume_fill(path), replicas_placed=placed[path]))
            for path in sorted(broker.dirs)))
    return dict(dirs=chosen, brokers=summary)


def add_log_dirs(plan, rollback_plan, brokers, sizes, max_disk_fill=0.85):
    """Put Kafka's "log_dirs" into the entries of a reassignment plan and its rollback plan; returns the dirs'
    figures, [{broker, log_dir, open, bytes_before, bytes_after, fill_before, fill_after, replicas_placed}] of
    the brokers with two or more log dirs.

    plan and rollback_plan: Kafka's JSON, the same partitions in the same order (as the planner returns them).
    brokers: the brokers' dirs and replicas (place_arrivals); sizes: {topic: {partition: bytes}}, each partition's
    largest replica, the size of a copy. An entry gets log_dirs only when it names a dir: "any" elsewhere (a
    replica that stays, a broker left to Kafka), so a plan without a dir to choose is unchanged. The rollback
    names, for each replica the plan removes from a broker with several dirs, the dir it is in now where that is
    known and open: rolled back, the replica returns where it was.
    """
    arrivals, departures = {}, []
    for entry, before in zip(plan["partitions"], rollback_plan["partitions"], strict=True):
        topic, partition = entry["topic"], entry["partition"]
        for broker in entry["replicas"]:
            if broker not in before["replicas"]:
                arrivals[(topic, partition, broker)] = sizes.get(topic, {}).get(partition, 0)
        departures.extend((topic, partition, broker) for broker in before["replicas"]
                          if broker not in entry["replicas"])
    placed = place_arrivals(brokers, arrivals, departures, max_disk_fill)
    for entry, before in zip(plan["partitions"], rollback_plan["partitions"], strict=True):
        key = (entry["topic"], entry["partition"])
        dirs = [placed["dirs"].get(key + (broker,), "any") for broker in entry["replicas"]]
        if any(path != "any" for path in dirs):
            entry["log_dirs"] = dirs
        back = []
        for broker in before["replicas"]:
            state = brokers.get(broker, {})
            where = state.get("replicas", {}).get(key, {}).get("dir")
            info = state.get("dirs", {}).get(where)
            returning = broker not in entry["replicas"] and len(state.get("dirs", {})) > 1
            back.append(where if returning and info and info["online"] and not info["cordoned"] else "any")
        if any(path != "any" for path in back):
            before["log_dirs"] = back
    return [dict(broker=broker, log_dir=path, **figures) for broker, summary in sorted(placed["brokers"].items())
            for path, figures in sorted(summary["dirs"].items())]
