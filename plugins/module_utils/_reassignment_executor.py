# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The reassignment executor: carrying out a plan on the cluster for the module kafka_reassignment.

It reads the cluster's state, checks the plan against it (the pure checks are in
_reassignment_moves.py), then throttles, submits in batches, waits, cleans up and elects the
preferred leaders. Throttles are recorded before they are set and restored afterwards, so a failure
never leaves them behind; a timeout keeps them only on the moves still copying (unthrottled, those
could saturate the network), and a re-run or a cancel of the same plan removes them once nothing of
the plan moves. run_reassignment is the module's whole run.
"""

from __future__ import absolute_import, division, print_function


import collections
import functools
import json
import time

try:
    from kafka import TopicPartition, TopicPartitionReplica
except ImportError:
    TopicPartition = TopicPartitionReplica = None

from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import (
    current_assignment,
    delete_delay_warning,
    read_brokers,
    read_copies_and_disks,
    read_delete_delays_counted,
    read_partition_sizes,
    read_reassignments,
    read_topics,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._disk_ledger import (
    CapacityOrderError,
    DiskLedger,
    RoomTooLate,
    disk_room,
    place_name,
    place_order,
    size_text,
    wait_for_room,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import (
    KafkaAdminError,
    describe_error,
    forget_controller,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._leader_election import elect as ask_for_elections
from ansible_collections.kafkaops.cluster.plugins.module_utils._log_dirs import finished as in_their_dirs
from ansible_collections.kafkaops.cluster.plugins.module_utils._log_dirs import read_log_dirs
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_throttle import (
    Throttle,
    remove_after_failure,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_moves import (
    LogDirPlaces,
    PlanInputError,
    bytes_left,
    bytes_to_copy,
    check_against_cluster,
    copies_within_brokers,
    describe_progress,
    disk_peaks,
    expected_seconds,
    make_batches,
    parse_log_dirs,
    parse_plan,
    progress_status,
    reassignment_effects,
)


def read_state(client, topic_names):
    """The cluster's state for checking a plan: topics' replicas, live broker ids, ongoing moves."""
    assignment = current_assignment(read_topics(client, sorted(topic_names), missing_ok=True))
    brokers = [broker["id"] for broker in read_brokers(client)["brokers"]]
    # A move in flight lists every replica, the ones it removes included; its target is the rest, in order.
    ongoing = dict(((item["topic"], item["partition"]),
                    [broker for broker in item["replicas"] if broker not in item["removing_replicas"]])
                   for item in read_reassignments(client, sorted(topic_names)))
    return assignment, brokers, ongoing


def note_adding_replicas(client, pending):
    """Give each move in progress its "adding" replicas, so a re-run throttles what is still being copied."""
    moving = [entry for entry in pending if entry["in_progress"]]
    if not moving:
        return
    adding = dict(((item["topic"], item["partition"]), item["adding_replicas"])
                  for item in read_reassignments(client, sorted(set(entry["topic"] for entry in moving))))
    for entry in moving:
        entry["adding"] = adding.get((entry["topic"], entry["partition"]), [])


class ReassignmentTimedOut(KafkaAdminError):
    """The wait ran out while moves were still copying; in_flight holds their pending entries."""

    def __init__(self, message, in_flight):
        super(ReassignmentTimedOut, self).__init__(message)
        self.in_flight = in_flight


def submit(client, batch, timeout_ms):
    request = dict((TopicPartition(entry["topic"], entry["partition"]), entry["target"])
                   for entry in batch if not entry["in_progress"])
    if not request:
        return
    outcome = client.alter_partition_reassignments(request, timeout_ms=timeout_ms)
    failures = ["%s-%d: %s" % (tp.topic, tp.partition, describe_error(error) if isinstance(error, Exception)
                               else getattr(error, "__name__", error))
                for tp, error in sorted(outcome.items(), key=lambda item: (item[0].topic, item[0].partition))
                if error is not None]
    if failures:
        raise KafkaAdminError("the controller refused %d partition(s): %s" % (len(failures), "; ".join(failures[:10])))


def cancel(client, keys, timeout_ms):
    outcome = client.alter_partition_reassignments(dict((TopicPartition(topic, partition), None)
                                                        for topic, partition in keys), timeout_ms=timeout_ms)
    return sorted("%s-%d" % (tp.topic, tp.partition) for tp, error in outcome.items() if error is None)


def finished(client, batch):
    """The entries of the batch whose move is complete (no longer listed as ongoing, replicas at target)."""
    topic_names = sorted(set(entry["topic"] for entry in batch))
    ongoing = set((item["topic"], item["partition"]) for item in read_reassignments(client, topic_names))
    replicas = current_assignment(read_topics(client, topic_names, missing_ok=True))
    return [entry for entry in batch if (entry["topic"], entry["partition"]) not in ongoing
            and replicas.get(entry["topic"], {}).get(entry["partition"]) == entry["target"]]


# How long the preferred election after a move waits for preferred replicas to rejoin their ISR. A broker that
# restarted during the moves (or was just added) may still be catching up when the last move completes; Kafka
# refuses its election (PREFERRED_LEADER_NOT_AVAILABLE) until it is in sync again.
ELECTION_WAIT_SECONDS = 120


def elect_preferred_leaders(client, keys, timeout_ms, wait=0, poll_interval=1, sleep=time.sleep, clock=time.time):
    """Preferred leader election for the given partitions; returns [{"partition", "error"}] of those that failed.

    Partitions whose election fails are asked again every poll_interval seconds for up to wait seconds (only
    those), so a preferred replica that is still catching up gets its leadership back once it is in sync.
    """
    if not keys:
        return []
    deadline = clock() + wait
    elections = [dict(topic=topic, number=partition) for topic, partition in keys]
    while True:
        failed = ask_for_elections(client, "preferred", elections, timeout_ms)
        if not failed or clock() >= deadline:
            return failed
        names = set(entry["partition"] for entry in failed)
        elections = [election for election in elections if "%s-%d" % (election["topic"], election["number"]) in names]
        sleep(poll_interval)


def _remaining_sizes(client, entries):
    """What the copies of the entries' partitions hold now, or None when DescribeLogDirs cannot tell."""
    topics = {}
    for entry in entries:
        topics.setdefault(entry["topic"], []).append(entry["partition"])
    try:
        return read_partition_sizes(client, topics) if topics else {}
    except Exception:  # pylint: disable=broad-except
        # Progress only informs the operator; the moves are judged by ListPartitionReassignments.
        return None


def _unreported_disks(state):
    """Where DescribeLogDirs tells no size: each broker listing no log dir, each dir with no total or usable bytes."""
    found = []
    for broker, described in sorted(state.items()):
        if not described["dirs"]:
            found.append("broker %d lists no log dir (it refused DescribeLogDirs)" % broker)
        for path, info in sorted(described["dirs"].items()):
            if info["total_bytes"] is None or info["usable_bytes"] is None:
                found.append("broker %d's log dir %s%s" % (broker, path, "" if info["online"] else
                                                           " (offline: %s)" % info["error"]))
    return found


# What check_disk_room() found for execute(): room ({place: bytes it may still gain}), places (LogDirPlaces) and
# delays ({broker: seconds it keeps a replica a move dropped before deleting it}).
DiskLimits = collections.namedtuple("DiskLimits", "room places delays")


def check_disk_room(client, pending, max_disk_fill, max_moves_per_broker, wanted_dirs=None, dir_requests=()):
    """(DiskLimits, figures for the result) for max_disk_fill, or PlanInputError naming max_disk_fill.

    Reads each replica's size and dir and each log dir's total and usable bytes (one DescribeLogDirs round) and
    orders the moves as execute() will (make_batches with the room of every broker and of every filesystem of a
    broker's log dirs, LogDirPlaces: which dirs a copy fills, the one the plan names or, where it names none,
    each dir Kafka may choose), so a plan that would take a broker's disks or one of its log dirs past the fill
    while copying is refused before anything changes, in check mode too. An old replica's room counts as free
    for a later batch, since execute() waits for its deletion where a batch needs that room. wanted_dirs: the
    plan's log dirs (parse_log_dirs()); dir_requests: log_dir_requests()'s, whose moves between the dirs of a
    broker holding the replica count from the start (copies_within_brokers()).

    Then reads how long each broker that gives up replicas keeps them before deleting them (DELETE_DELAY_KEY,
    Kafka's default where it cannot be read). figures: disk_peak_bytes ({broker: the most bytes its disks may
    hold while the moves run}), disk_peak_bytes_per_log_dir ({broker: {log dir: the same of its filesystem}}),
    delete_delay_ms ({broker: ms counted}) and delete_delay_unread ({broker: why its delay could not be read}).
    """
    try:
        sizes, disks, state = read_copies_and_disks(client, sorted(set(entry["topic"] for entry in pending)
                                                                   | set(item["topic"] for item in dir_requests)))
    except Exception as error:  # pylint: disable=broad-except
        raise PlanInputError("max_disk_fill", "cannot read the replicas' sizes and the brokers' disks to keep "
                             "them under %s: %s" % (max_disk_fill, describe_error(error))) from None
    unreported = _unreported_disks(state)
    if disks is None or unreported:
        raise PlanInputError("max_disk_fill", "the brokers do not report the size of their log dirs' disks (Kafka "
                             "3.3 and later do; an offline dir does not), so the fill cannot be kept: %s"
                             % "; ".join(unreported or ["no broker reported its disks"]))
    places = LogDirPlaces(state, wanted_dirs)
    figures = dict(disks)
    figures.update(places.figures)
    added = copies_within_brokers(dir_requests, sizes, places)
    for place, count in added.items():
        if place in figures:
            figures[place] = dict(figures[place], used_bytes=figures[place]["used_bytes"] + count)
    room = disk_room(figures, max_disk_fill)
    over = [place for place in sorted(added, key=place_order) if place in room and room[place] < 0]
    if over:
        raise PlanInputError("max_disk_fill", "the plan moves replicas between the log dirs of a broker that holds "
                             "them, each copied whole before its old dir frees it and all before the first batch, "
                             "and no disk may pass %s of its size: %s. Free space there, or move those replicas "
                             "with kafka_log_dirs, which orders them" % (max_disk_fill, "; ".join(
                                 "%s gains %s and has room for %s" % (place_name(place), size_text(added[place]),
                                                                      size_text(max(0, room[place] + added[place])))
                                 for place in over)))
    try:
        batches = make_batches(pending, max_moves_per_broker, sizes, room, places)
    except CapacityOrderError as error:
        named = wanted_dirs or {}
        unnamed = sorted(set("%s-%d" % (topic, partition) for topic, partition, place, unused, unused in error.needs
                             if isinstance(place, tuple) and place[0] not in named.get((topic, partition), {})))
        hint = (" A copy whose dir the plan does not name (%s) counts against every open log dir of its broker, "
                "since Kafka may put it in any of them: name a dir for it in the plan's log_dirs "
                "(kafka_reassignment_plan does) to count it against that dir alone." % ", ".join(unnamed)
                if unnamed else "")
        raise PlanInputError("max_disk_fill", "no broker's disks may pass %s of their size while the moves copy, "
                             "nor any filesystem of its log dirs (a new copy lands before the old replica is "
                             "deleted), and %s. Free space there, move less at once, or raise max_disk_fill.%s"
                             % (max_disk_fill, error, hint)) from None
    # Only the brokers whose disks are held to the fill and that give replicas up: their deletions free room.
    giving = set(broker for entry in pending for broker in entry["current"] if broker not in entry["target"])
    delays_ms, unread = read_delete_delays_counted(client, sorted(giving & set(disks)))
    delays = dict((broker, count / 1000.0) for broker, count in delays_ms.items())
    peaks = disk_peaks(batches, sizes, figures, places, room, delays)
    found = dict(disk_peak_bytes=dict((place, count) for place, count in peaks.items() if not isinstance(place, tuple)),
                 disk_peak_bytes_per_log_dir=places.per_log_dir(peaks, state), delete_delay_ms=delays_ms,
                 delete_delay_unread=unread)
    return DiskLimits(room, places, delays), found


def execute(client, pending, throttle_rate, max_moves_per_broker, timeout, poll_interval, timeout_ms, report,
            elect=True, plan_entries=None, progress_every=10, limits=None):
    """Throttle, submit batch by batch, wait for each, then remove the throttle.

    report(status) is called as partitions complete and every progress_every seconds in between, with
    progress_status()'s reading (partitions done, bytes copied, rate, time left). Returns a summary dict;
    raises KafkaAdminError on timeout naming what is still moving, with the throttle removed from
    everything but those moves (they would otherwise copy unthrottled), and on any other failure with
    the throttle removed.
    The summary includes the bytes the moves copy (read before submitting), the least time they take
    at the throttle and the rate they achieved; sizes_error says why the sizes could not be read.
    limits (check_disk_room()'s DiskLimits: the room of every broker and of every filesystem of a broker's log
    dirs, which of those each copy fills, and how long each broker keeps a replica a move dropped) orders the
    batches so no place passes its room while copying; without the sizes that needs, nothing is submitted. An old
    replica's bytes count on its broker and dir until its broker's delay has passed since its move was seen
    complete (DiskLedger); a batch whose copies need that room waits for it (a reading with
    waiting_for_deletions while it does), and the summary's deletion_waits says which batch waited, for which
    places and how long.
    """
    started = time.time()
    throttle = Throttle(client, throttle_rate, pending, plan_entries) if throttle_rate else None
    progress = []
    throttled = dict(brokers=[], topics=[])
    done = []
    total = len(pending)
    last_error = None
    sizes, sizes_error = None, None
    try:
        sizes = read_partition_sizes(client, sorted(set(entry["topic"] for entry in pending)))
    except Exception as error:  # pylint: disable=broad-except
        # Without a disk limit the sizes only inform the result (DescribeLogDirs may not be authorized); the moves
        # go ahead without them.
        if limits is not None:
            raise KafkaAdminError("cannot read the replicas' sizes to order the moves within max_disk_fill: %s"
                                  % describe_error(error)) from error
        sizes_error = describe_error(error)
    try:
        batches = make_batches(pending, max_moves_per_broker, sizes, limits and limits.room, limits and limits.places)
    except CapacityOrderError as error:
        # check_disk_room() found an order; the partitions have grown since it read their sizes.
        raise KafkaAdminError("the partitions grew since max_disk_fill was checked, and now %s; nothing was "
                              "submitted" % error) from None
    ledger = (DiskLedger(limits.room, reassignment_effects(sizes, limits.places), delays=limits.delays)
              if limits is not None else None)
    # [{batch, seconds, places}] of the waits for deletions a batch's copies needed the room of.
    waits = []

    def reading(now, waiting, later, **extra):
        """A progress reading at now (None: the time now)."""
        now = time.time() if now is None else now
        remaining = _remaining_sizes(client, waiting + later) if copied_total is not None else None
        waited = sum(item["seconds"] for item in waits)
        status = progress_status(
            len(done), total, now - started, now - moves_started - waited, copied_total,
            bytes_left(waiting, later, remaining) if remaining is not None else None, throttle_rate)
        status.update(extra)
        progress.append(status)
        report(status)

    try:
        if throttle:
            note_adding_replicas(client, pending)
            throttled = throttle.apply()
        moves_started = last_report = time.time()
        copied_total = bytes_to_copy(pending, sizes)[1] if sizes is not None else None
        for batch_index, batch in enumerate(batches):
            later = [entry for later_batch in batches[batch_index + 1:] for entry in later_batch]
            if ledger is not None:
                try:
                    waited = wait_for_room(ledger, batch, started + timeout, time,
                                           functools.partial(reading, None, [], batch + later), progress_every)
                except RoomTooLate as late:
                    raise ReassignmentTimedOut(late.explain(len(done), total, timeout, "partition(s)", "the same plan"),
                                               []) from None
                if waited:
                    waits.append(dict(batch=batch_index + 1, **waited))
                    last_report = time.time()
            submit(client, batch, timeout_ms)
            waiting = list(batch)
            while waiting:
                try:
                    complete = finished(client, waiting)
                except Exception as error:  # pylint: disable=broad-except
                    # A busy or restarting broker may not answer one poll; the timeout still bounds the wait.
                    # The controller may be the broker that died: find it again for the next poll.
                    last_error = describe_error(error)
                    forget_controller(client)
                    complete = []
                if complete:
                    if ledger is not None:
                        ledger.complete(complete, time.time())
                    done.extend(complete)
                    keys = set((entry["topic"], entry["partition"]) for entry in complete)
                    waiting = [entry for entry in waiting if (entry["topic"], entry["partition"]) not in keys]
                now = time.time()
                if complete or now - last_report >= progress_every:
                    last_report = now
                    reading(now, waiting, later)
                if not waiting:
                    break
                if time.time() - started > timeout:
                    still = ["%s-%d" % (entry["topic"], entry["partition"]) for entry in waiting]
                    raise ReassignmentTimedOut(
                        "timed out after %d s with %d of %d partition(s) moved; still moving: %s%s.%s" % (
                            timeout, len(done), total, ", ".join(still[:20]), " ..." if len(still) > 20 else "",
                            " Last error while polling: %s." % last_error if last_error else ""), waiting)
                time.sleep(poll_interval)
        moves_ended = time.time()
    except Exception as error:
        in_flight = error.in_flight if isinstance(error, ReassignmentTimedOut) else ()
        kept = remove_after_failure(throttle, error, in_flight) if throttle else dict(brokers=[], topics=[])
        if not in_flight:
            raise
        if kept["brokers"]:
            what = ("The throttle (%d bytes/s) stays on broker(s) %s for the moves still copying, so they do "
                    "not saturate the network; it was removed from the brokers with nothing in flight. Run "
                    "again with the same plan and throttle to wait for them and finish the rest (that run "
                    "removes the throttle when nothing of the plan moves any more), or cancel them with "
                    "state: absent, the same plan and the same throttle, which removes it too." % (
                        throttle_rate, ", ".join(map(str, kept["brokers"]))))
        else:
            what = ("Run again with the same plan to wait for them and finish the rest, or cancel them with "
                    "state: absent and the same plan.")
        raise KafkaAdminError("%s %s" % (describe_error(error), what)) from error
    if throttle:
        throttle.remove()
    keys = [(entry["topic"], entry["partition"]) for entry in done]
    election_failed, election_error = [], None
    if elect:
        try:
            wait = max(0, min(ELECTION_WAIT_SECONDS, timeout - (time.time() - started)))
            failures = elect_preferred_leaders(client, keys, timeout_ms, wait, poll_interval, time.sleep, time.time)
            election_failed = [entry["partition"] for entry in failures]
            if failures:
                election_error = "after %d s, %s" % (wait, ", ".join(
                    "%s: %s" % (entry["partition"], entry["error"]) for entry in failures))
        except Exception as error:  # pylint: disable=broad-except
            # The data has moved; a failed election leaves leaders to Kafka's automatic rebalance.
            election_failed = ["%s-%d" % key for key in keys]
            election_error = describe_error(error)
    copied = bytes_to_copy(pending, sizes)[1] if sizes is not None else None
    waited = sum(item["seconds"] for item in waits)
    moving = moves_ended - moves_started - waited
    summary = dict(moved=len(done), progress=progress, throttled=throttled, elapsed=round(time.time() - started, 1),
                   election_failed=election_failed, election_error=election_error, bytes_to_move=copied,
                   expected_seconds=expected_seconds(batches, sizes, throttle_rate) if sizes is not None else None,
                   rate=round(copied / moving) if copied is not None and moving > 0 else None, sizes_error=sizes_error)
    if ledger is not None:
        summary.update(deletion_waits=waits, deletion_wait_seconds=round(waited, 1))
    return summary


# ---- log dirs a plan names (Kafka's "log_dirs", one per replica) ----------------------------------------

# What AlterReplicaLogDirs answers for a replica its broker does not hold yet; the broker keeps the dir for it
# (the replica is created there), and asking again once it exists moves it if it landed elsewhere.
NOT_THERE_YET = ("ReplicaNotAvailableError", "NotLeaderForPartitionError", "UnknownTopicOrPartitionError")


def log_dir_requests(client, parsed, wanted, field):
    """[{topic, partition, broker, to_dir}] of the dirs the plan names that their replicas are not in yet.

    Refuses (PlanInputError naming plan.partitions[i].log_dirs) a dir its broker does not have, an offline one and
    a cordoned one (Kafka places no replica there).
    """
    if not wanted:
        return []
    index_of = dict(((topic, partition), index) for index, (topic, partition, unused) in enumerate(parsed))
    topics = {}
    for topic, partition in wanted:
        topics.setdefault(topic, []).append(partition)
    state = read_log_dirs(client, sorted(set(broker for dirs in wanted.values() for broker in dirs)), topics)
    requests = []
    for key, dirs in sorted(wanted.items()):
        where = "%s.partitions[%d].log_dirs" % (field, index_of[key])
        for broker, path in sorted(dirs.items()):
            held = state.get(broker, dict(dirs={}, replicas={}, future={}))
            info = held["dirs"].get(path)
            if info is None:
                raise PlanInputError(where, "broker %d has no log dir %s; its log dirs are %s" % (
                    broker, path, ", ".join(sorted(held["dirs"])) or "unknown"))
            if not info["online"] or info["cordoned"]:
                raise PlanInputError(where, "broker %d's log dir %s is %s: Kafka places no replica there" % (
                    broker, path, "offline (%s)" % info["error"] if not info["online"] else "cordoned"))
            if held["replicas"].get(key, {}).get("dir") != path or key in held["future"]:
                requests.append(dict(topic=key[0], partition=key[1], broker=broker, to_dir=path))
    return requests


def send_log_dirs(client, requests):
    """AlterReplicaLogDirs for the requests; returns those whose broker does not hold the replica yet."""
    if not requests:
        return []
    by_replica = dict((TopicPartitionReplica(item["topic"], item["partition"], item["broker"]), item)
                      for item in requests)
    outcome = client.alter_replica_log_dirs(dict((replica, item["to_dir"]) for replica, item in by_replica.items()))
    later, failures = [], []
    for replica, error in sorted(outcome.items()):
        name = getattr(error, "__name__", str(error))
        if name in NOT_THERE_YET:
            later.append(by_replica[replica])
        elif getattr(error, "errno", 0):
            failures.append("%s-%d on broker %d to %s: %s" % (
                replica.topic, replica.partition, replica.broker_id, by_replica[replica]["to_dir"], name))
    if failures:
        raise KafkaAdminError("the brokers refused the plan's log dirs: %s" % "; ".join(failures[:10]))
    return later


def place_in_log_dirs(client, not_yet_asked, requests, deadline, poll_interval):
    """Ask again for the replicas that did not exist yet, and wait until every replica sits in its dir."""
    waiting = list(requests)
    while True:
        not_yet_asked = send_log_dirs(client, not_yet_asked)
        topics = {}
        for item in waiting:
            topics.setdefault(item["topic"], set()).add(item["partition"])
        state = read_log_dirs(client, sorted(set(item["broker"] for item in waiting)),
                              dict((topic, sorted(partitions)) for topic, partitions in topics.items()))
        done = in_their_dirs(state, waiting)[0]
        waiting = [item for item in waiting if item not in done]
        if not waiting:
            return
        if time.time() > deadline:
            raise KafkaAdminError("the partitions moved, but timed out waiting for replicas to reach the plan's log "
                                  "dirs: %s. Run again with the same plan to wait for them" % ", ".join(
                                      "%s-%d on broker %d to %s" % (item["topic"], item["partition"], item["broker"],
                                                                    item["to_dir"]) for item in waiting[:20]))
        time.sleep(poll_interval)


# ---- the module's run ------------------------------------------------------------------------


def unchanged_reassignment_result():
    """What kafka_reassignment returns when nothing moves (a failure returns it too, with what was found)."""
    return dict(changed=False, partitions=[], already_in_place=0)


def load_plan(params):
    """The plan given inline or in plan_file, and the option it came from (for messages naming the field)."""
    if params["plan"] is not None:
        return params["plan"], "plan"
    try:
        with open(params["plan_file"]) as handle:
            return json.load(handle), "plan_file"
    except (OSError, ValueError) as error:
        raise PlanInputError("plan_file", "cannot read %s: %s" % (params["plan_file"], error)) from None


def check_reassignment_inputs(module):
    """The plan, read and checked before connecting: (entries as parse_plan gives them, option name, the log
    dirs it names as parse_log_dirs gives them)."""
    params = module.params
    if params["throttle"] and not params["wait"]:
        raise PlanInputError("throttle", "needs wait: true, so the throttle can be removed when the moves end")
    if params["max_disk_fill"] is not None and not params["wait"]:
        raise PlanInputError("max_disk_fill", "needs wait: true: the moves are kept under it batch by batch, and "
                             "without waiting all of them are submitted at once")
    plan, field = load_plan(params)
    parsed = parse_plan(plan, field)
    return parsed, field, parse_log_dirs(plan, field)


def _plan_entries(parsed, assignment):
    """Every partition of the plan with its current and target replicas, for the throttle's bookkeeping."""
    return [dict(topic=topic, partition=partition, current=list(assignment.get(topic, {}).get(partition, [])),
                 target=list(replicas), in_progress=False) for topic, partition, replicas in parsed]


def remove_left_over_throttle(module, client, rate, plan_entries):
    """Once nothing of the plan moves: remove the throttle an earlier run of it left on moves then in flight.

    Returns the brokers and topics found with it (removed unless in check mode).
    """
    throttle = Throttle(client, rate, [], plan_entries)
    found = throttle.left_over()
    if (found["brokers"] or found["topics"]) and not module.check_mode:
        throttle.remove()
    return found


def run_reassignment(module, client, inputs):
    """kafka_reassignment: cancel (state absent) or carry out the checked plan, filling module.result."""
    parsed, field, wanted_dirs = inputs
    params, result = module.params, module.result
    started = time.time()
    assignment, brokers, ongoing = read_state(client, set(entry[0] for entry in parsed))
    timeout_ms = params["request_timeout"] * 1000
    plan_entries = _plan_entries(parsed, assignment)

    if params["state"] == "absent":
        keys = [(topic, partition) for topic, partition, unused in parsed if (topic, partition) in ongoing]
        result["partitions"] = ["%s-%d" % key for key in keys]
        result["cancelled"] = result["partitions"] if module.check_mode else cancel(client, keys, timeout_ms)
        result["throttle_removed"] = remove_left_over_throttle(module, client, params["throttle"], plan_entries)
        removed = result["throttle_removed"]
        result["changed"] = bool(keys or removed["brokers"] or removed["topics"])
        return

    pending = check_against_cluster(parsed, assignment, brokers, ongoing, field)
    dir_requests = log_dir_requests(client, parsed, wanted_dirs, field)
    result.update(changed=bool(pending or dir_requests), already_in_place=len(parsed) - len(pending),
                  partitions=["%s-%d" % (entry["topic"], entry["partition"]) for entry in pending])
    if wanted_dirs:
        result["log_dir_moves"] = ["%s-%d on broker %d to %s" % (
            item["topic"], item["partition"], item["broker"], item["to_dir"]) for item in dir_requests]
    if module.diff:
        result["diff"] = dict(
            before=dict(("%s-%d" % (entry["topic"], entry["partition"]), entry["current"]) for entry in pending),
            after=dict(("%s-%d" % (entry["topic"], entry["partition"]), entry["target"]) for entry in pending))
    limits = None
    if params["max_disk_fill"] is not None and (pending or dir_requests):
        limits, found = check_disk_room(client, pending, params["max_disk_fill"], params["max_moves_per_broker"],
                                        wanted_dirs, dir_requests)
        result.update(found)
        if found["delete_delay_unread"]:
            module.warn(delete_delay_warning(found["delete_delay_unread"]))
    if not pending:
        # Everything is in place: what a timed-out run of this plan left on its moves then in flight goes now.
        result["throttle_removed"] = remove_left_over_throttle(module, client, params["throttle"], plan_entries)
        result["changed"] = bool(dir_requests or result["throttle_removed"]["brokers"]
                                 or result["throttle_removed"]["topics"])
        if dir_requests and not module.check_mode:
            not_yet = send_log_dirs(client, dir_requests)
            if params["wait"]:
                place_in_log_dirs(client, not_yet, dir_requests, started + params["timeout"], params["poll_interval"])
        return
    if module.check_mode:
        return
    # As Kafka's tool does: the dirs first, so a replica the move creates lands in its dir; a broker that does
    # not hold a replica yet keeps the dir for it, and is asked again once the moves are done.
    not_yet = send_log_dirs(client, dir_requests)
    if not params["wait"]:
        submit(client, pending, timeout_ms)
        return

    if not params["throttle"]:
        # Asked to move unthrottled: a throttle an earlier run of the plan left would still hold the moves back.
        result["throttle_removed"] = remove_left_over_throttle(module, client, 0, plan_entries)

    report = module.progress_reporter("kafka_reassignment", describe_progress, params["progress_file"])
    result.update(execute(client, pending, params["throttle"], params["max_moves_per_broker"], params["timeout"],
                          params["poll_interval"], timeout_ms, report, params["elect_leaders"], plan_entries,
                          params["progress_interval"], limits))
    if dir_requests:
        place_in_log_dirs(client, not_yet, dir_requests, started + params["timeout"], params["poll_interval"])
    sizes_error = result.pop("sizes_error")
    if sizes_error:
        module.warn("the partition sizes could not be read (%s), so bytes_to_move, expected_seconds "
                    "and rate are null; the moves themselves are done" % sizes_error)
    if result.get("election_error"):
        module.warn("the partitions moved, but the preferred leader election failed (%s); run "
                    "it again later or rely on auto.leader.rebalance.enable" % result["election_error"])
