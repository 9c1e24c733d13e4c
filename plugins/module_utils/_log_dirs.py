# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The module kafka_log_dirs' run: reading brokers' log dirs, cordoning, and moving replicas between them.

It reads each broker's log dirs and the replicas in them (DescribeLogDirs), checks the options against
them, plans with the pure planner (_log_dir_planner.py), then cordons the dirs to empty (KIP-1066, Kafka
4.3+), sets the intra-broker copy throttle, submits AlterReplicaLogDirs batch by batch and waits until each
replica sits in its new dir with no future replica left, then removes the throttle. A timeout keeps the
throttle on the brokers still copying (unthrottled, the copies could saturate their disks) and removes it
everywhere else; a re-run with the same throttle waits for them and removes it.

Old copies
----------
A move between the dirs of a broker copies the replica into its new dir; once the copy has caught up it takes
the old replica's place, and the broker renames the old one for deletion and deletes it
log.segment.delete.delay.ms later (60 s by default). DescribeLogDirs stops listing it at once, but its
filesystem's usable bytes count it until then. While the moves run, one DiskLedger (_disk_ledger, shared with
kafka_reassignment) counts each old copy on its filesystem until its broker's delay has passed since the move
was seen complete, and a batch whose copies need that room waits for the deletions. The delays are read once a
run, of the planned brokers, when anything is to move; where one cannot be read Kafka's default is counted and
the run warns.

What a balance reads
--------------------
A balance by fill (the planner's capacity weights) weighs each filesystem by its used bytes: total less usable,
so other files count, and so do old copies until they are deleted. Kafka reports no more than each dir's
filesystem's total and usable bytes and each replica's size: the bytes not accounted for (used less the replicas
listed) hold old copies and other files alike, and no single reading tells them apart. Read as fill, old copies
make a dir that has just given replicas look as full as before it gave them: a balance asked again within the
delay would move more, and once they are deleted the dirs would be uneven the other way. Counting only the
replicas' bytes instead would leave out what does fill a disk besides them: other files, and the blocks a
filesystem keeps for root.

So a broker balanced by fill is planned only from a reading taken when no old copy can be left on its disks
(wait_until_settled). When the first reading's plan moves anything on such a broker, the run waits until no
copy runs there (a move an earlier run left copying ends in an old copy too), then its broker's delay and one
poll interval more, reads again and plans from that: old copies of every move that ended before are gone by
then. A balance run twice within the delay thus moves nothing the second time: it waits, finds the dirs as the
first left them, and plans nothing. A first reading that plans nothing is taken as it is, so a run with nothing
to do does not wait: an old copy there can only make the dir that gave look fuller, which may hide a move for a
later run, never make one. The wait is the price of a balance that moves: the delay (60 s by default) before its
first copy, check mode included, since it must plan what the run would. A balance by bytes (dirs on one
filesystem, or sizes not reported) counts only the replicas listed and needs no wait.
"""

from __future__ import absolute_import, division, print_function


import functools
import time

try:
    from kafka import TopicPartitionReplica
except ImportError:
    TopicPartitionReplica = None

from ansible_collections.kafkaops.cluster.plugins.module_utils._broker_configs import (
    DELETE,
    SET,
    alter_dynamic_configs,
    read_dynamic_configs,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import (
    delete_delay_warning,
    log_dir_state,
    read_brokers,
    read_delete_delays_counted,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._disk_ledger import (
    DELETE_DELAY_KEY,
    RoomTooLate,
    sleep_until,
    wait_for_room,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import (
    KafkaAdminError,
    describe_error,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._log_dir_planner import (
    log_dir_ledger,
    order_moves,
    plan_log_dirs,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_moves import (
    describe_progress,
    progress_status,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_planner import check_max_disk_fill
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_throttle import (
    remove_after_failure,
    wait_until_applied,
)

# KIP-1066: the broker config listing the log dirs that take no new replica, and the metadata.version feature
# level that lets the controllers accept it (4.3-IV0; below it they refuse the config with INVALID_CONFIG).
CORDON_KEY = "cordoned.log.dirs"
CORDON_METADATA_LEVEL = 30
# The broker config that limits what the broker's intra-broker copies (AlterReplicaLogDirs) read and write.
THROTTLE_KEY = "replica.alter.log.dirs.io.max.bytes.per.second"


class LogDirInputError(InputError):
    """An option kafka_log_dirs cannot carry out; field names it (evacuate[1].log_dir, brokers[0])."""


class LogDirMovesTimedOut(KafkaAdminError):
    """The wait ran out with moves still copying; in_flight names their brokers."""

    def __init__(self, message, in_flight):
        super(LogDirMovesTimedOut, self).__init__(message)
        self.in_flight = in_flight


# ---- inputs --------------------------------------------------------------------------------------


def _dir_items(params, option):
    """[(field, broker, path)] of evacuate or uncordon, each path absolute and listed once."""
    items, seen = [], {}
    for index, item in enumerate(params[option] or []):
        where = "%s[%d]" % (option, index)
        path = item["log_dir"]
        if not path.startswith("/") or path != path.strip():
            raise LogDirInputError(where + ".log_dir", "an absolute path as the broker lists it in log.dirs, "
                                   "not %r" % (path,))
        path = path.rstrip("/") or "/"
        if (item["broker"], path) in seen:
            raise LogDirInputError(where, "broker %d's %s is already listed at %s" % (
                item["broker"], path, seen[(item["broker"], path)]))
        seen[(item["broker"], path)] = where
        items.append((where, item["broker"], path))
    return items


def check_log_dirs_inputs(module):
    """The options, checked before connecting: {evacuate, uncordon, max_disk_fill} or LogDirInputError."""
    params = module.params
    evacuate = _dir_items(params, "evacuate")
    uncordon = _dir_items(params, "uncordon")
    both = set((broker, path) for unused, broker, path in evacuate) & set(
        (broker, path) for unused, broker, path in uncordon)
    if both:
        broker, path = sorted(both)[0]
        raise LogDirInputError("uncordon", "broker %d's %s is also to be evacuated; an evacuated dir stays "
                               "cordoned until it is uncordoned by a later run" % (broker, path))
    if not (evacuate or uncordon or params["balance"]):
        raise LogDirInputError("evacuate", "nothing to do: give evacuate, balance: true or uncordon")
    if params["throttle"] and not params["wait"]:
        raise LogDirInputError("throttle", "needs wait: true, so the throttle can be removed when the moves end")
    if params["cordon"] and not evacuate:
        raise LogDirInputError("cordon", "cordons the dirs of evacuate, and none is given")
    return dict(evacuate=evacuate, uncordon=uncordon, max_disk_fill=check_max_disk_fill(params["max_disk_fill"]))


# ---- reading the cluster ---------------------------------------------------------------------


def read_log_dirs(client, broker_ids, topics=None):
    """{broker: {"dirs": {path: {total_bytes, usable_bytes, online, cordoned}}, "replicas": {(topic, partition):
    {dir, bytes}}, "future": {(topic, partition): {dir, bytes}}}} from one DescribeLogDirs round (log_dir_state).

    topics: {topic: [partitions]} to read only those (all when None).
    """
    return log_dir_state(client.describe_log_dirs(topics, brokers=list(broker_ids)))


def read_metadata_level(client):
    """The finalized metadata.version feature level, or None (ZooKeeper mode, or brokers before Kafka 2.4)."""
    try:
        features = client.describe_features()
    except Exception:  # pylint: disable=broad-except
        # Brokers too old for DescribeFeatures cannot cordon either.
        return None
    # kafka-python 3.0.12 answers {feature: {"supported": (min, max), "finalized": (min, max), ...}} (its
    # docstring describes another shape); the finalized range's top is the level in force.
    level = (features.get("metadata.version") or {}).get("finalized")
    return level[1] if level else None


# ---- checking the options against the brokers ---------------------------------------------------------


def _check_broker(field, broker, state, live):
    if broker not in live:
        raise LogDirInputError(field, "broker %d is not a live broker (live: %s)" % (
            broker, ", ".join(map(str, sorted(live)))))
    if broker not in state:
        raise LogDirInputError(field, "broker %d did not describe its log dirs" % broker)


def _check_dir(field, broker, path, state):
    dirs = state[broker]["dirs"]
    if path not in dirs:
        raise LogDirInputError(field, "broker %d has no log dir %s; its log dirs are %s" % (
            broker, path, ", ".join(sorted(dirs))))


def check_against_brokers(inputs, params, state, live):
    """The brokers to plan, checked: unknown brokers and dirs, offline or every dir evacuated, are refused."""
    for index, broker in enumerate(params["brokers"] or []):
        _check_broker("brokers[%d]" % index, broker, state, live)
    evacuate = {}
    for field, broker, path in inputs["evacuate"]:
        _check_broker(field + ".broker", broker, state, live)
        _check_dir(field + ".log_dir", broker, path, state)
        if not state[broker]["dirs"][path]["online"]:
            raise LogDirInputError(field + ".log_dir", "broker %d's %s is offline (%s): its replicas cannot be "
                                   "copied from it; replace the disk and let replication restore them" % (
                                       broker, path, state[broker]["dirs"][path]["error"]))
        evacuate.setdefault(broker, []).append((field, path))
    for broker, items in sorted(evacuate.items()):
        paths = set(path for unused, path in items)
        dirs = state[broker]["dirs"]
        left = sorted(path for path, info in dirs.items() if path not in paths and info["online"])
        if not left:
            raise LogDirInputError(items[-1][0] + ".log_dir", "would empty every online log dir of broker %d "
                                   "(%s): its replicas need another dir of the broker; move them to other "
                                   "brokers with a reassignment instead" % (broker, ", ".join(sorted(dirs))))
    for field, broker, path in inputs["uncordon"]:
        _check_broker(field + ".broker", broker, state, live)
        _check_dir(field + ".log_dir", broker, path, state)
    if params["brokers"] is not None:
        selected = set(params["brokers"])
    else:
        selected = set(broker for broker, held in state.items() if len(held["dirs"]) > 1)
    return sorted(selected | set(evacuate)), dict((broker, [path for unused, path in items])
                                                  for broker, items in evacuate.items())


def cordon_changes(state, evacuate, uncordon, cordon):
    """{broker: (cordoned dirs now, cordoned dirs wanted)} of the brokers whose cordoned dirs change."""
    changes = {}
    brokers = set(evacuate if cordon else ()) | set(broker for unused, broker, unused in uncordon)
    for broker in sorted(brokers):
        now = sorted(path for path, info in state[broker]["dirs"].items() if info["cordoned"])
        wanted = set(now) | (set(evacuate.get(broker, ())) if cordon else set())
        wanted -= set(path for unused, owner, path in uncordon if owner == broker)
        if sorted(wanted) != now:
            changes[broker] = (now, sorted(wanted))
    return changes


def set_cordoned(client, broker, wanted):
    """Set the broker's cordoned.log.dirs to wanted, on that broker (it checks each dir is in its log.dirs)."""
    # An empty list rather than no setting: a cordon in server.properties would otherwise come back.
    alter_dynamic_configs(client, str(broker), {CORDON_KEY: (SET, ",".join(wanted))}, validate_only=False)


def wait_until_cordons_apply(client, changes):
    """Return once every changed broker's DescribeLogDirs shows its dirs cordoned as set: the broker applies a
    config change a moment after accepting it, and until then refuses a copy into a dir just uncordoned
    (InvalidReplicaAssignment) or takes one into a dir just cordoned."""
    def behind():
        state = read_log_dirs(client, sorted(changes))
        lagging = []
        for broker, (_before, after) in sorted(changes.items()):
            wrong = [path for path, info in sorted(state.get(broker, {}).get("dirs", {}).items())
                     if info["online"] and info["cordoned"] != (path in after)]
            if wrong:
                lagging.append("%d (%s)" % (broker, ", ".join(wrong)))
        return "; ".join(lagging)

    # A DescribeLogDirs round per look: a little more time between them than for a config read.
    wait_until_applied(behind, "broker(s) %s did not apply the cordoned log dirs within %d s, so nothing was moved",
                       pause=0.2)


# ---- the throttle --------------------------------------------------------------------------------


class DirCopyThrottle(object):
    """replica.alter.log.dirs.io.max.bytes.per.second on the brokers that move, and what it was before."""

    def __init__(self, client, rate):
        self.client = client
        self.rate = rate
        self.before = {}

    def apply(self, brokers):
        for broker in brokers:
            current = read_dynamic_configs(self.client, "broker", str(broker)).get(THROTTLE_KEY)
            # A rate equal to this run's was left by a run of this module that timed out: it is this run's to remove.
            self.before[broker] = None if current == str(self.rate) else current
            alter_dynamic_configs(self.client, str(broker), {THROTTLE_KEY: (SET, str(self.rate))}, validate_only=False)
        self._wait_until_taken_on(brokers)
        return sorted(self.before)

    def _wait_until_taken_on(self, brokers):
        """Return once every broker reports the rate: a copy submitted before a broker applies it runs unthrottled."""
        wait_until_applied(lambda: ", ".join(str(broker) for broker in brokers if read_dynamic_configs(
            self.client, "broker", str(broker)).get(THROTTLE_KEY) != str(self.rate)),
            "broker(s) %s did not take on the copy throttle within %d s, so nothing was moved")

    def remove(self, keep=()):
        """Put back each broker's rate as it was, but on the brokers in keep. Returns the brokers it stays on."""
        failed = []
        for broker, before in sorted(self.before.items()):
            if broker in keep:
                continue
            operation = (SET, before) if before is not None else (DELETE, None)
            try:
                alter_dynamic_configs(self.client, str(broker), {THROTTLE_KEY: operation}, validate_only=False)
            except Exception as error:  # pylint: disable=broad-except
                failed.append("broker %d: %s" % (broker, describe_error(error)))
        kept = sorted(broker for broker in self.before if broker in keep)
        self.before = {}
        if failed:
            raise KafkaAdminError("the copy throttle could not be removed from %s; remove %s with kafka-configs "
                                  "--delete-config once the brokers answer" % ("; ".join(failed), THROTTLE_KEY))
        return kept


def remove_left_over_throttle(client, rate, brokers, check_mode):
    """The brokers still carrying this module's throttle (a rate equal to rate), a timed-out run's; removed."""
    found = []
    for broker in brokers:
        if read_dynamic_configs(client, "broker", str(broker)).get(THROTTLE_KEY) == str(rate):
            found.append(broker)
            if not check_mode:
                alter_dynamic_configs(client, str(broker), {THROTTLE_KEY: (DELETE, None)}, validate_only=False)
    return found


# ---- moving ----------------------------------------------------------------------------------------


def _label(move):
    return "%s-%d on broker %d" % (move["topic"], move["partition"], move["broker"])


def submit(client, batch):
    request = dict((TopicPartitionReplica(move["topic"], move["partition"], move["broker"]), move["to_dir"])
                   for move in batch if not move.get("in_progress"))
    if not request:
        return
    outcome = client.alter_replica_log_dirs(request)
    failures = ["%s-%d on broker %d to %s: %s" % (
        key.topic, key.partition, key.broker_id, request[key], getattr(error, "__name__", error))
        for key, error in sorted(outcome.items()) if getattr(error, "errno", 0)]
    if failures:
        raise KafkaAdminError("the brokers refused %d move(s): %s" % (len(failures), "; ".join(failures[:10])))


def finished(state, moves):
    """(the moves complete in state, {move index: bytes its future replica holds}) of read_log_dirs() output."""
    complete, copying = [], {}
    for index, move in enumerate(moves):
        held = state.get(move["broker"], dict(replicas={}, future={}))
        key = (move["topic"], move["partition"])
        if held["replicas"].get(key, {}).get("dir") == move["to_dir"] and key not in held["future"]:
            complete.append(move)
        elif key in held["future"]:
            copying[index] = held["future"][key]["bytes"]
    return complete, copying


def execute(client, batches, throttle_rate, timeout, poll_interval, report, progress_every=10, ledger=None,
            deadline=None):
    """Throttle, submit batch by batch, wait for each, remove the throttle: a summary, or KafkaAdminError.

    The waits end by deadline (a time.time(); default timeout seconds from now), and a timeout names timeout.

    ledger: log_dir_ledger()'s DiskLedger of the moves, with the brokers' delete delays. A move's old replica then
    counts on its filesystem until its broker's delay has passed since the move was seen complete, and a batch
    whose copies need that room waits for the deletions before it is submitted (a reading with
    waiting_for_deletions every progress_every seconds meanwhile; deletion_waits in the summary says which batch
    waited, how long and for which dirs). A wait that would pass the timeout fails at once, nothing in flight.
    """
    started = time.time()
    deadline = started + timeout if deadline is None else deadline
    throttle = DirCopyThrottle(client, throttle_rate) if throttle_rate else None
    moves = [move for batch in batches for move in batch]
    brokers = sorted(set(move["broker"] for move in moves))
    total_bytes = sum(move["bytes"] for move in moves)
    progress, done, last_error = [], [], None
    throttled = []
    # [{batch, seconds, places}] of the waits for deletions a batch's copies needed the room of.
    waits = []

    def reading(now, copying, later, **extra):
        """A progress reading at now (None: the time now); copying: [(move, bytes its new copy holds)] of the moves
        submitted and not done."""
        now = time.time() if now is None else now
        per_broker = {}
        for move, copied in copying:
            per_broker[move["broker"]] = per_broker.get(move["broker"], 0) + max(0, move["bytes"] - copied)
        for move in later:
            per_broker[move["broker"]] = per_broker.get(move["broker"], 0) + move["bytes"]
        waited = sum(item["seconds"] for item in waits)
        status = progress_status(len(done), len(moves), now - started, now - started - waited, total_bytes,
                                 (per_broker, sum(per_broker.values())), throttle_rate)
        status.update(extra)
        progress.append(status)
        report(status)

    try:
        if throttle:
            throttled = throttle.apply(brokers)
        last_report = time.time()
        for batch_index, batch in enumerate(batches):
            later = [move for later_batch in batches[batch_index + 1:] for move in later_batch]
            if ledger is not None:
                try:
                    waited = wait_for_room(ledger, batch, deadline, time,
                                           functools.partial(reading, None, [], batch + later), progress_every)
                except RoomTooLate as late:
                    raise LogDirMovesTimedOut(late.explain(len(done), len(moves), timeout, "replica(s)",
                                                           "the same options"), []) from None
                if waited:
                    waits.append(dict(batch=batch_index + 1, **waited))
                    last_report = time.time()
            submit(client, batch)
            waiting = list(batch)
            while waiting:
                copying = {}
                try:
                    asked = {}
                    for move in waiting:
                        asked.setdefault(move["topic"], set()).add(move["partition"])
                    complete, copying = finished(read_log_dirs(client, sorted(set(
                        move["broker"] for move in waiting)), dict(
                            (topic, sorted(partitions)) for topic, partitions in asked.items())), waiting)
                except Exception as error:  # pylint: disable=broad-except
                    # A busy broker may miss one poll; the timeout still bounds the wait.
                    last_error, complete = describe_error(error), []
                done.extend(complete)
                if complete and ledger is not None:
                    ledger.complete(complete, time.time())
                now = time.time()
                if complete or now - last_report >= progress_every:
                    last_report = now
                    reading(now, [(move, copying.get(index, 0)) for index, move in enumerate(waiting)
                                  if move not in complete], later)
                waiting = [move for move in waiting if move not in complete]
                if not waiting:
                    break
                if time.time() > deadline:
                    still = ["%s: %s -> %s" % (_label(move), move["from_dir"], move["to_dir"]) for move in waiting]
                    raise LogDirMovesTimedOut("timed out after %d s with %d of %d replica(s) moved; still moving: "
                                              "%s%s.%s" % (timeout, len(done), len(moves), ", ".join(still[:20]),
                                                           " ..." if len(still) > 20 else "",
                                                           " Last error while polling: %s." % last_error
                                                           if last_error else ""),
                                              sorted(set(move["broker"] for move in waiting)))
                time.sleep(poll_interval)
    except Exception as error:
        in_flight = error.in_flight if isinstance(error, LogDirMovesTimedOut) else ()
        kept = remove_after_failure(throttle, error, in_flight) if throttle else []
        if not in_flight:
            raise
        what = ("The copy throttle (%d bytes/s) stays on broker(s) %s, so the copies still running do not "
                "saturate their disks. " % (throttle_rate, ", ".join(map(str, kept))) if kept else "")
        raise KafkaAdminError("%s %sRun again with the same options and throttle to wait for them (that run "
                              "removes the throttle at the end)." % (describe_error(error), what)) from error
    if throttle:
        throttle.remove()
    elapsed = time.time() - started
    waited = sum(item["seconds"] for item in waits)
    summary = dict(moved=len(done), progress=progress, throttled=throttled, elapsed=round(elapsed, 1),
                   rate=int(round(total_bytes / (elapsed - waited))) if elapsed - waited > 0 else None)
    if ledger is not None:
        summary.update(deletion_waits=waits, deletion_wait_seconds=round(waited, 1))
    return summary


# ---- the module's run ------------------------------------------------------------------------


def unchanged_log_dirs_result():
    """What kafka_log_dirs returns when nothing moves (a failure returns it too, with what was found)."""
    return dict(changed=False, moves=[], bytes_moved=0, bytes_moved_lower_bound=0, cordoned={}, uncordoned={})


def _in_flight_moves(state, plan_state, plan):
    """Moves an earlier run started that are still copying and that the plan leaves going where they go."""
    planned = set((move["broker"], move["topic"], move["partition"]) for move in plan["moves"])
    moves = []
    for broker in sorted(plan_state):
        for key, future in sorted(state[broker]["future"].items()):
            current = state[broker]["replicas"].get(key)
            if current is None or (broker,) + key in planned:
                continue
            moves.append(dict(topic=key[0], partition=key[1], broker=broker, from_dir=current["dir"],
                              to_dir=future["dir"], bytes=current["bytes"], in_progress=True))
    return moves


def _planner_state(state, brokers, uncordoned):
    """The planner's brokers: a replica being copied counts in the dir it goes to; a dir to uncordon is open."""
    planned = {}
    for broker in brokers:
        held = state[broker]
        dirs = dict((path, dict(info, cordoned=info["cordoned"] and (broker, path) not in uncordoned))
                    for path, info in held["dirs"].items())
        replicas = dict((key, dict(replica, dir=held["future"][key]["dir"]) if key in held["future"] else replica)
                        for key, replica in held["replicas"].items())
        planned[broker] = dict(dirs=dirs, replicas=replicas)
    return planned


def _diff(plan_state, moves):
    """Per broker and dir, the replicas it holds before and after ("topic-partition"), for diff mode."""
    before, after = {}, {}
    moved = dict(((move["broker"], move["topic"], move["partition"]), move["to_dir"]) for move in moves)
    for broker, held in sorted(plan_state.items()):
        if not any(move["broker"] == broker for move in moves):
            continue
        dirs_before = before.setdefault(str(broker), dict((path, []) for path in sorted(held["dirs"])))
        dirs_after = after.setdefault(str(broker), dict((path, []) for path in sorted(held["dirs"])))
        for key, replica in sorted(held["replicas"].items()):
            dirs_before[replica["dir"]].append("%s-%d" % key)
            dirs_after[moved.get((broker,) + key, replica["dir"])].append("%s-%d" % key)
    return dict(before=before, after=after)


def brokers_to_settle(plan, moves, balance):
    """The brokers a balance weighs by fill (capacity weights) and moves something on: their plan must come from a
    reading without old copies (the module docstring)."""
    if not balance:
        return []
    moving = set(move["broker"] for move in moves)
    return sorted(broker for broker in moving if plan["brokers"].get(broker, {}).get("weights") == "capacity")


def wait_until_settled(client, brokers, state, read_at, delays, poll_interval, deadline, report, every):
    """Return, with the seconds waited, once the brokers' disks hold no old copy of a replica moved off a dir before
    now: then a reading of them is one a balance by fill may plan from (the module docstring says why).

    state: read_log_dirs()'s reading of the brokers, taken at read_at. While a copy an earlier run left running
    (a future replica) is seen on them, it reads again every poll_interval: such a move ends in an old copy too.
    From the first reading without one, every old copy was renamed for deletion by then and goes within its
    broker's delay (delays {broker: seconds}); it sleeps that long from that reading, and one poll_interval more
    for the deletion itself. report(seconds left, or None while copies run, brokers) as the wait starts and every
    `every` seconds. Raises KafkaAdminError (field timeout) when the wait would pass deadline.
    """
    started = time.time()
    reported = None
    while any(state.get(broker, {}).get("future") for broker in brokers):
        now = time.time()
        if now > deadline:
            raise KafkaAdminError("timeout: copies an earlier run left on broker(s) %s are still running, and a "
                                  "balance by fill plans only once they are done and their old copies deleted; run "
                                  "again with the same options and throttle once they are done"
                                  % ", ".join(map(str, brokers)), field="timeout")
        if reported is None or now - reported >= every:
            reported = now
            report(None, brokers)
        time.sleep(poll_interval)
        state = read_log_dirs(client, brokers)
        read_at = time.time()
    due = read_at + max(delays.get(broker, 0) for broker in brokers) + poll_interval
    if due > deadline:
        kept = ", ".join("%d s on broker %d" % (delays.get(broker, 0), broker) for broker in brokers)
        raise KafkaAdminError("timeout: a balance by fill plans broker(s) %s from a reading taken once the old copies "
                              "earlier moves may have left there are deleted (%s: %s), %d s from now, after the "
                              "run's timeout; raise timeout" % (
                                  ", ".join(map(str, brokers)), DELETE_DELAY_KEY, kept, due - time.time()),
                              field="timeout")
    sleep_until(due, time, lambda seconds_left: report(seconds_left, brokers), every)
    return round(time.time() - started, 1)


def _read_delays(module, client, brokers, delays):
    """delays ({broker: seconds it keeps an old copy}) with those of the brokers not in it yet: read in one round,
    put in the result (delete_delay_ms, delete_delay_unread), Kafka's default counted and a warning where unread."""
    missing = [broker for broker in brokers if broker not in delays]
    if not missing:
        return delays
    delays_ms, unread = read_delete_delays_counted(client, missing)
    module.result.setdefault("delete_delay_ms", {}).update((str(broker), count) for broker, count in delays_ms.items())
    module.result.setdefault("delete_delay_unread", {}).update((str(broker), why) for broker, why in unread.items())
    if unread:
        module.warn(delete_delay_warning(unread))
    found = dict(delays)
    found.update((broker, count / 1000.0) for broker, count in delays_ms.items())
    return found


def _no_progress(reading):
    """Check mode's progress: none (it moves nothing, and writes no progress_file)."""


def _plan(state, brokers, evacuate, params, inputs, uncordoned, field):
    """(the planner's brokers, the plan, the moves: those an earlier run left running, then the plan's)."""
    plan_state = _planner_state(state, brokers, uncordoned)
    plan = plan_log_dirs(plan_state, evacuate, params["balance"], params["topics"], inputs["max_disk_fill"], field)
    return plan_state, plan, _in_flight_moves(state, plan_state, plan) + plan["moves"]


def run_log_dirs(module, client, inputs):
    """kafka_log_dirs: plan, cordon, move and wait, filling module.result (check mode: the plan alone)."""
    params, result = module.params, module.result
    deadline = time.time() + params["timeout"]
    live = [broker["id"] for broker in read_brokers(client)["brokers"]]
    asked = sorted(set(live) & (set(params["brokers"] or live) | set(
        broker for unused, broker, unused in inputs["evacuate"]) | set(
        broker for unused, broker, unused in inputs["uncordon"])))
    state = read_log_dirs(client, asked)
    read_at = time.time()
    brokers, evacuate = check_against_brokers(inputs, params, state, live)
    asked_for_cordons = bool(inputs["evacuate"] or inputs["uncordon"])
    level = read_metadata_level(client) if asked_for_cordons else None
    supported = level is not None and level >= CORDON_METADATA_LEVEL
    cordon = params["cordon"]
    if cordon is None:
        cordon = supported and bool(inputs["evacuate"])
    for option, wanted in (("cordon", cordon), ("uncordon", inputs["uncordon"])):
        if wanted and not supported:
            raise LogDirInputError(option, "cordoning log dirs (KIP-1066) needs metadata.version 4.3-IV0 (feature "
                                   "level %d) or later, and this cluster's is %s" % (
                                       CORDON_METADATA_LEVEL, "level %d" % level if level is not None else
                                       "not finalized (ZooKeeper mode or brokers before Kafka 2.4)"))
    uncordoned = set((broker, path) for unused, broker, path in inputs["uncordon"])
    field = dict(((broker, path), where + ".log_dir") for where, broker, path in inputs["evacuate"])
    plan_state, plan, moves = _plan(state, brokers, evacuate, params, inputs, uncordoned, field)
    delays = _read_delays(module, client, brokers, {}) if moves else None
    # Refused here, before any change, when no order keeps the fill.
    batches, peaks = order_moves(moves, plan_state, params["max_moves_per_broker"], inputs["max_disk_fill"], delays)
    changes = cordon_changes(state, evacuate, inputs["uncordon"], cordon)
    result.update(
        changed=bool(changes), cordon_supported=supported if asked_for_cordons else None,
        cordoned=dict((str(broker), sorted(set(after) - set(before))) for broker, (before, after) in changes.items()
                      if set(after) - set(before)),
        uncordoned=dict((str(broker), sorted(set(before) - set(after))) for broker, (before, after) in changes.items()
                        if set(before) - set(after)))
    report = _no_progress
    if not module.check_mode:
        report = module.progress_reporter("kafka_log_dirs", lambda reading: describe_progress(
            reading, "replicas moved"), params["progress_file"])
        for broker, (_now, after) in sorted(changes.items()):
            set_cordoned(client, broker, after)
        if changes:
            wait_until_cordons_apply(client, changes)
    settling = brokers_to_settle(plan, moves, params["balance"])
    if settling:
        started = time.time()

        def settle_reading(seconds_left, waiting_on):
            report(dict(progress_status(0, len(moves), time.time() - started, 0, None, None, None),
                        settling=dict(seconds_left=seconds_left, brokers=waiting_on)))

        seconds = wait_until_settled(client, settling, state, read_at, delays, params["poll_interval"], deadline,
                                     settle_reading, params["progress_interval"])
        result["settle_wait"] = dict(brokers=settling, seconds=seconds)
        state = read_log_dirs(client, asked)
        brokers, evacuate = check_against_brokers(inputs, params, state, live)
        plan_state, plan, moves = _plan(state, brokers, evacuate, params, inputs, uncordoned, field)
        # The brokers to plan are those of the first reading, unless one changed its log dirs meanwhile.
        delays = _read_delays(module, client, brokers, delays)
        batches, peaks = order_moves(moves, plan_state, params["max_moves_per_broker"], inputs["max_disk_fill"],
                                     delays)
    result.update(
        changed=bool(moves or changes), moves=moves, bytes_moved=plan["bytes_moved"],
        bytes_moved_lower_bound=plan["bytes_moved_lower_bound"],
        brokers=dict((str(broker), summary) for broker, summary in plan["brokers"].items()),
        disk_peak_bytes=dict((str(broker), by_dir) for broker, by_dir in peaks.items()))
    if module.diff:
        result["diff"] = _diff(plan_state, moves)
        for broker, (before, after) in changes.items():
            result["diff"]["before"].setdefault(str(broker), {})[CORDON_KEY] = before
            result["diff"]["after"].setdefault(str(broker), {})[CORDON_KEY] = after
    held_back = dict((broker, summary["held_to_dir_room"]) for broker, summary in sorted(plan["brokers"].items())
                     if summary.get("held_to_dir_room"))
    if held_back:
        where = "; ".join("broker %d's %s" % (broker, ", ".join(paths)) for broker, paths in held_back.items())
        module.warn("the balance stopped short of even on %s: log dirs that read as one filesystem (the same size and "
                    "free bytes) may be disks of one size filled alike, so each is held to its own room below "
                    "max_disk_fill. Run again to go on from what the disks then report, or free space there" % where)
    if evacuate and not cordon:
        module.warn("the evacuated log dirs are not cordoned (%s), so Kafka may still place new partitions' "
                    "replicas on them; run again afterwards to move those too" % (
                        "cordon: false" if supported else "the cluster cannot cordon before metadata.version 4.3-IV0"))
    if module.check_mode:
        return
    if not moves:
        if params["throttle"]:
            # Everything is in place: a throttle a timed-out run left on its copies goes now.
            result["throttle_removed"] = remove_left_over_throttle(client, params["throttle"], brokers, False)
            result["changed"] = result["changed"] or bool(result["throttle_removed"])
        return
    if not params["wait"]:
        for batch in batches:
            submit(client, batch)
        return
    result.update(execute(client, batches, params["throttle"], params["timeout"], params["poll_interval"], report,
                          params["progress_interval"], log_dir_ledger(plan_state, inputs["max_disk_fill"], delays)[0],
                          deadline))
