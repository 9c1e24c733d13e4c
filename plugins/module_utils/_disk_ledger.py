# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What moves of replicas fill on the brokers' disks while they run: one account for kafka_reassignment (moves
between brokers) and kafka_log_dirs (moves between the log dirs of one broker). Pure: no I/O; the waits here
take their clock from the caller.

Terms
-----
* A *volume*: the filesystem a log dir is on. Dirs of one broker that report the same total bytes and usable
  bytes within ``SHARED_FILESYSTEM_SLACK`` are one (``volumes``); every count of a broker's disks goes through it.
* A *place*: what a copy fills and a deletion frees, with a size. A broker (its disks, summed over their
  filesystems), keyed by its id, or one filesystem of a broker's log dirs, keyed (broker, (its dirs' paths,
  sorted)) (``Filesystems``). kafka_reassignment counts brokers and, on a broker whose dirs span two or more
  filesystems, each of them; kafka_log_dirs counts each filesystem of the brokers it plans.
* A place's *room*: the bytes it may still gain before it holds more than max_disk_fill of its size
  (``disk_room``); a place without a size is not limited.

Why old replicas count for a while
----------------------------------
A copy takes room the moment it starts. The replica it replaces (on another broker, or in another dir of the
same broker) does not give its room back when the move completes: the broker renames its log for deletion,
DescribeLogDirs stops listing it at once, and the broker deletes its files ``log.segment.delete.delay.ms`` later
(60 s by default). ``DiskLedger`` holds that room back until then; the executors order their moves in batches
with it (``cut_batches``), report how full each place gets (``ledger_peaks``) and make a batch whose copies need
that room wait for the deletions (``wait_for_room``).
"""

from __future__ import absolute_import, division, print_function


# How long a broker keeps a replica it no longer hosts before deleting its files: the broker's name of the log
# config file.delete.delay.ms, set in server.properties or at run time (per broker or cluster-wide), and Kafka's
# default for it. The broker renames the replica's log for deletion at once, and DescribeLogDirs stops listing it.
DELETE_DELAY_KEY = "log.segment.delete.delay.ms"
DELETE_DELAY_DEFAULT_MS = 60000
# Two figures of one filesystem read a moment apart: the same total bytes, the usable bytes this close (other
# files are written between two dirs' answers).
SHARED_FILESYSTEM_SLACK = 64 << 20


def size_text(count):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return "%.1f %s" % (count / float(scale), unit)
    return "%d B" % count


def same_filesystem(first, second):
    """Whether two (total bytes, usable bytes) figures of one broker's dirs are of one filesystem."""
    return first[0] == second[0] and abs(first[1] - second[1]) <= SHARED_FILESYSTEM_SLACK


def volumes(dirs):
    """{path: volume} of one broker's dirs ({path: {"total_bytes", "usable_bytes"}}, None when not reported).

    A volume is ("volume", total, usable) of the first dir (by path) of a filesystem; a later dir joins the first
    volume it is the same filesystem as (same_filesystem). A dir that does not report its size is ("dir", path).
    Every count of a broker's disks goes through here, so that a filesystem counts once wherever it is counted.
    """
    found, seen = {}, []
    for path in sorted(dirs):
        total, usable = dirs[path]["total_bytes"], dirs[path]["usable_bytes"]
        if total is None or total <= 0 or usable is None or usable < 0:
            found[path] = ("dir", path)
            continue
        joined = [volume for volume in seen if same_filesystem(volume[1:], (total, usable))]
        if not joined:
            joined = [("volume", total, usable)]
            seen.append(joined[0])
        found[path] = joined[0]
    return found


# ---- places ------------------------------------------------------------------------------------------------


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


def place_broker(place):
    """The broker a place is on (a place is a broker's id, or one filesystem of its log dirs)."""
    return place[0] if isinstance(place, tuple) else place


class Filesystems(object):
    """The filesystems of brokers' log dirs as places: place_of {(broker, path): place}, broker_places {broker:
    [its places]} and figures {place: {"total_bytes", "used_bytes"}} of those that report their size (used: total
    less usable, so other files count), for disk_room().

    state: {broker: {"dirs": {path: {"total_bytes", "usable_bytes", ...}}, ...}} (log_dir_state()). With
    several_only, only brokers whose dirs span two or more filesystems get places: on one filesystem a broker's
    disks are that filesystem, and a count by broker counts it already.
    """

    def __init__(self, state, several_only=False):
        self.place_of, self.broker_places, self.figures = {}, {}, {}
        for broker, described in state.items():
            paths_of = {}
            for path, volume in volumes(described["dirs"]).items():
                paths_of.setdefault(volume, []).append(path)
            if several_only and len(paths_of) < 2:
                continue
            for volume, paths in paths_of.items():
                place = (broker, tuple(sorted(paths)))
                self.broker_places.setdefault(broker, []).append(place)
                for path in paths:
                    self.place_of[(broker, path)] = place
                if volume[0] == "volume":
                    self.figures[place] = dict(total_bytes=volume[1], used_bytes=volume[1] - volume[2])

    def per_log_dir(self, peaks, state):
        """{broker: {path: peak}} of {place: peak}: a dir has its filesystem's, and a dir without a place of its
        own (a broker whose dirs share one filesystem, with several_only) has its broker's."""
        found = {}
        for broker, described in state.items():
            for path in described["dirs"]:
                place = self.place_of.get((broker, path), broker)
                if place in peaks:
                    found.setdefault(broker, {})[path] = peaks[place]
        return found


def disk_room(disks, max_fill):
    """{place: bytes it may still gain before it holds more than max_fill of its size}.

    disks: {place: {"total_bytes", "used_bytes"}}: read_disk_usage()'s brokers, Filesystems.figures. Negative
    for a place already above the fill.
    """
    return dict((place, int(max_fill * disk["total_bytes"]) - disk["used_bytes"]) for place, disk in disks.items())


# ---- the ledger ------------------------------------------------------------------------------------------------


class CapacityOrderError(Exception):
    """Moves remain and none of them fits the room the places its copies fill have left.

    needs: [(topic, partition, place, bytes the copy needs there, bytes of room the place has)] for each
    remaining move and each place short of room, in the moves' order.
    """

    def __init__(self, needs, remaining):
        shown = ["%s-%d needs %s on %s, which has %s"
                 % (topic, partition, size_text(count), place_name(place), size_text(room) if room > 0 else "none")
                 for topic, partition, place, count, room in needs[:5]]
        super(CapacityOrderError, self).__init__(
            "none of the %d move(s) left fits: %s%s" % (remaining, "; ".join(shown), " ..." if len(needs) > 5 else ""))
        self.needs = needs


class DiskLedger(object):
    """The room each place has while moves run, and what it holds: a copy takes room when its batch starts, an
    old replica gives its room back only once its broker has deleted it.

    Kafka does not delete a replica a move drops when the move completes. The broker renames the replica's log
    for deletion, DescribeLogDirs stops listing it at once, and deletes its files log.segment.delete.delay.ms
    later (the broker's name of file.delete.delay.ms; 60 s by default). That holds for a move between brokers
    and for one between the log dirs of a broker alike (AlterReplicaLogDirs: the future replica takes the old
    one's place and the old one is renamed so). So complete() holds a move's frees back until then (pending),
    delete() gives back the room of those whose time has come, and ready_at() tells when enough of them are gone
    for a batch's copies to fit. The delay counts from when the run saw the move complete; the broker renamed the
    replica when the move ended, no later. It is the broker's setting: a topic's own file.delete.delay.ms does not
    apply to deleting a whole replica. The usable bytes DescribeLogDirs gives for a dir still count such a
    replica, so a run's first read holds those an earlier run left.

    room: {place: bytes it may still gain} (disk_room()); a place missing from it is not limited. effects: the
    move's ({place: bytes its copies take}, {place: bytes its old replicas free once deleted}), a function of a
    move (an entry with topic, partition and, for a move inside a broker, broker); held: {place: bytes on its
    disks now} to follow peaks; delays: {broker: seconds it keeps a dropped replica} (a broker missing: none).
    """

    def __init__(self, room, effects, held=None, delays=None):
        self.room = dict(room)
        self.effects_of = effects
        self.held = dict(held or {})
        self.peaks = dict(self.held)
        self.delays = delays or {}
        # [when the broker deletes it, place, bytes] of the dropped replicas still on disk.
        self.pending = []
        # Each move's copies and frees, worked out once: a move may wait through several batches.
        self._effects = {}

    def effects(self, entry):
        """({place: bytes its new copies receive}, {place: bytes its old copies free once deleted}) of a move."""
        key = (entry["topic"], entry["partition"], entry.get("broker"))
        if key not in self._effects:
            self._effects[key] = self.effects_of(entry)
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


def cut_batches(pending, max_moves_per_broker, touched, ledger=None):
    """Cut moves into batches in which no broker takes part in more than max_moves_per_broker of them.

    touched(move): the brokers a move counts against. With a ledger (DiskLedger), a move also waits for a later
    batch until every place it copies to has room for the copy beside the batch's other copies there. The room
    grows by a batch's frees before the next batch: the executors start a batch only once the deletions its
    copies need room from are done, waiting for them where they are not (wait_for_room()). A move already in
    progress (in_progress true) goes in the first batch whatever the count and the room: it is copying already.
    The order is greedy: a batch takes every move that fits, in the moves' order. When moves remain and none
    fits even with every earlier old replica deleted (such as two full places exchanging replicas, each waiting
    for the other to free space), raises CapacityOrderError naming what each needs.
    """
    batches = []
    remaining = list(pending)
    while remaining:
        load, gained = {}, {}
        batch, later, short = [], [], []
        for entry in remaining:
            gains = ledger.gains([entry]) if ledger is not None else {}
            brokers = touched(entry)
            lacking = [(entry["topic"], entry["partition"], place, count, left)
                       for place, count, left in (ledger.short(gains, gained) if ledger is not None else ())]
            counted = all(load.get(broker, 0) < max_moves_per_broker for broker in brokers) or not batch
            if entry.get("in_progress") or (counted and not lacking):
                batch.append(entry)
                for broker in brokers:
                    load[broker] = load.get(broker, 0) + 1
                for place, count in gains.items():
                    gained[place] = gained.get(place, 0) + count
            else:
                later.append(entry)
                short.extend(lacking)
        if not batch:
            raise CapacityOrderError(short, len(remaining))
        if ledger is not None:
            ledger.start(batch)
            ledger.complete(batch)
        batches.append(batch)
        remaining = later
    return batches


def ledger_peaks(batches, ledger):
    """{place: the most bytes it holds while the batches run}, of the places the ledger holds.

    Each batch's copies land before its moves free their old replicas. With the ledger's delays, an old replica
    counts until a batch that needs its room waits for its deletion, and then only as much of it as that batch
    lacks: whether it is gone sooner depends on how long the copies take, so the peak is the most the place can
    hold. Without delays (or with 0) each batch's frees are gone before the next batch, and the peak is exact.
    """
    for batch in batches:
        ledger.delete_least(batch)
        ledger.start(batch)
        ledger.complete(batch)
    return ledger.peaks


class RoomTooLate(Exception):
    """A batch's copies need room that deletions give back only past the deadline: seconds from now, and the
    names of the places short of room."""

    def __init__(self, seconds, places):
        super(RoomTooLate, self).__init__("room on %s comes back in %d s" % (", ".join(places), seconds))
        self.seconds = seconds
        self.places = places

    def explain(self, done, total, timeout, moved, again):
        """The run's failure, in words: done of total moved (moved says of what), and what to run again."""
        return ("timed out: %d of %d %s moved, and the next batch needs room on %s that the replicas earlier "
                "batches moved off give back only once their brokers delete them (%s), %d s from now, past the "
                "timeout of %d s. Run again with %s once they are deleted" % (
                    done, total, moved, ", ".join(self.places), DELETE_DELAY_KEY, self.seconds, timeout, again))


def wait_for_room(ledger, batch, deadline, clock, on_wait, every):
    """Sleep until the deletions the batch's copies need room from are done (DiskLedger.ready_at()), then let the
    copies take their room: call just before submitting the batch.

    clock: time() and sleep() (the executor's time module). on_wait(waiting_for_deletions={"seconds_left", "places"
    (their names)}) is called as the wait starts and every `every` seconds of it: a progress reading's fields.
    Returns {"seconds", "places"} of the wait, or None when the batch fits at once; raises RoomTooLate, without
    waiting, when the deletions are due after deadline (a time of clock).
    """
    due, short = ledger.ready_at(batch)
    waited = None
    if due is not None and due > clock.time():
        names = [place_name(place) for place in short]
        if due > deadline:
            raise RoomTooLate(due - clock.time(), names)
        waited = dict(seconds=sleep_until(due, clock, lambda seconds_left: on_wait(
            waiting_for_deletions=dict(seconds_left=seconds_left, places=names)), every), places=names)
    ledger.delete(clock.time())
    ledger.start(batch)
    return waited


def sleep_until(due, clock, on_wait, every):
    """Sleep until due (a time of clock), calling on_wait(seconds left) as the wait starts and every `every`
    seconds of it; returns the seconds slept."""
    started = now = clock.time()
    reported = None
    while now < due:
        if reported is None or now - reported >= every:
            reported = now
            on_wait(round(due - now, 1))
        clock.sleep(min(every, due - now))
        now = clock.time()
    return round(now - started, 1)
