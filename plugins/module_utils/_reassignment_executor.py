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


import json
import time

try:
    from kafka import TopicPartition
    from kafka.admin import ConfigResource, ConfigResourceType
except ImportError:
    TopicPartition = ConfigResource = ConfigResourceType = None

from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import (
    THROTTLE_RATE_KEYS,
    THROTTLED_REPLICAS_KEYS,
    TOPIC_OVERRIDE_SOURCE,
    current_assignment,
    read_brokers,
    read_partition_sizes,
    read_reassignments,
    read_topics,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import (
    KafkaAdminError,
    describe_error,
    forget_controller,
    refresh_brokers,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_moves import (
    PlanInputError,
    bytes_left,
    bytes_to_copy,
    check_against_cluster,
    describe_progress,
    expected_seconds,
    make_batches,
    parse_plan,
    progress_status,
    throttle_entries,
)

BROKER_RATE_KEYS = THROTTLE_RATE_KEYS
LEADER_LIST_KEY, FOLLOWER_LIST_KEY = THROTTLED_REPLICAS_KEYS
# How long removing the throttle keeps trying a broker that does not answer (one killed comes back).
THROTTLE_REMOVE_SECONDS = 120
# How long the brokers may take to take on a throttle before the run gives up without submitting anything.
THROTTLE_TAKE_ON_SECONDS = 30


def _split_list(value):
    return [item.strip() for item in (value or "").split(",") if item.strip()]


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


def _plan_brokers(entries):
    return sorted(set(broker for entry in entries for broker in entry["current"] + entry["target"]))


class Throttle(object):
    """Replication throttles set for one run, and exactly what must be restored afterwards.

    What belongs to the plan: the throttled-replica entries of the plan's partitions (also those an
    earlier run of it left on moves in flight when it timed out), and a broker rate on a broker those
    entries name or equal to this run's rate (left the same way). Everything else found set is the operator's and is
    put back as it was. plan_entries: every (topic, partition, current, target) of the plan, as pending
    entries; defaults to the pending ones.
    """

    def __init__(self, client, rate, pending, plan_entries=None):
        self.client = client
        self.rate = rate
        self.pending = pending
        self.plan_entries = pending if plan_entries is None else plan_entries
        self.broker_before = {}
        self.topic_added = {}
        self.topic_had_override = {}

    def _describe(self, resource_type, names):
        described = self.client.describe_configs([ConfigResource(resource_type, str(name)) for name in names],
                                                 config_filter="all")
        return described.get("broker" if resource_type == ConfigResourceType.BROKER else "topic", {})

    def _alter(self, resources):
        if not resources:
            return
        outcome = self.client.alter_configs(resources, raise_on_unknown=False, incremental=True)
        failures = ["%s %s: %s" % (kind, name, result) for kind, results in outcome.items()
                    for name, result in results.items() if result not in (None, "OK", 0)]
        if failures:
            raise KafkaAdminError("changing replication throttles failed: %s" % "; ".join(failures))

    def _read(self, throttled_brokers, topics):
        """Record what is set now on the plan's topics and brokers: the operator's values and the plan's own.

        Returns {(topic, key): [entries]} as set now on the topics read.
        """
        plan_partitions = {}
        for entry in self.plan_entries:
            plan_partitions.setdefault(entry["topic"], set()).add(str(entry["partition"]))
        topics = sorted(set(topics) | set(plan_partitions))
        existing = {}
        left_on = set()
        for name, entries in (self._describe(ConfigResourceType.TOPIC, topics).items() if topics else ()):
            for key in (LEADER_LIST_KEY, FOLLOWER_LIST_KEY):
                entry = entries.get(key) or {}
                items = _split_list(entry.get("value"))
                existing[(name, key)] = items
                if "*" in items:
                    continue
                owned = set(item for item in items if item.split(":")[0] in plan_partitions.get(name, set()))
                self.topic_added[(name, key)] = owned
                self.topic_had_override[(name, key)] = entry.get("config_source") == TOPIC_OVERRIDE_SOURCE and (
                    not items or bool(set(items) - owned))
                left_on.update(int(item.split(":")[1]) for item in owned if item.split(":")[1].isdigit())
        brokers = sorted(set(_plan_brokers(self.plan_entries)) | set(throttled_brokers))
        for name, entries in (self._describe(ConfigResourceType.BROKER, brokers).items() if brokers else ()):
            set_now = dict((key, entries[key]["value"]) for key in BROKER_RATE_KEYS if key in entries
                           and entries[key].get("config_source") == "DYNAMIC_BROKER_CONFIG")
            # A rate on a broker the plan's throttled replicas name, or equal to this run's, was left by an
            # earlier run of the plan that timed out with moves in flight: it is the plan's to remove.
            left = int(name) in left_on or bool(self.rate) and str(self.rate) in set_now.values()
            if int(name) in throttled_brokers or (left and set_now):
                self.broker_before[int(name)] = dict((key, None if left else set_now.get(key))
                                                     for key in BROKER_RATE_KEYS)
        return existing

    def left_over(self):
        """Without setting anything: the throttles an earlier run of the plan left (brokers, topics)."""
        self._read([], [])
        topics = sorted(set(name for (name, unused), owned in self.topic_added.items() if owned))
        return dict(brokers=sorted(self.broker_before), topics=topics)

    def apply(self):
        brokers = _plan_brokers(self.pending)
        leaders, followers = throttle_entries(self.pending)
        topics = sorted(set(leaders) | set(followers))
        if not brokers or not topics:
            return dict(brokers=[], topics=[])
        existing = self._read(brokers, topics)
        resources = []
        for name in topics:
            operations = {}
            for key, wanted in ((LEADER_LIST_KEY, leaders.get(name, set())),
                                (FOLLOWER_LIST_KEY, followers.get(name, set()))):
                items = existing.get((name, key), [])
                if "*" in items:
                    continue
                self.topic_added[(name, key)] = self.topic_added.get((name, key), set()) | wanted
                added = sorted(wanted - set(items))
                if added:
                    operations[key] = ("SET", ",".join(items + added))
            if operations:
                resources.append(ConfigResource(ConfigResourceType.TOPIC, name, operations))
        self._alter(resources)
        self._alter([ConfigResource(ConfigResourceType.BROKER, str(broker),
                                    dict((key, ("SET", str(self.rate))) for key in BROKER_RATE_KEYS))
                     for broker in brokers])
        self._wait_until_taken_on(brokers)
        return dict(brokers=brokers, topics=topics)

    def _wait_until_taken_on(self, brokers):
        """Return once every broker reports the rate; raise if one does not within THROTTLE_TAKE_ON_SECONDS.

        A broker applies a config change when it reads it from ZooKeeper (or the metadata log), a moment
        after the request succeeded; a move submitted before that copies unthrottled. A broker reads config
        changes in order, so one that reports the rate has the throttled-replica lists set before it too.
        """
        deadline = time.time() + THROTTLE_TAKE_ON_SECONDS
        while True:
            described = self._describe(ConfigResourceType.BROKER, brokers)
            behind = [broker for broker in brokers if any(
                (described.get(str(broker), {}).get(key) or {}).get("value") != str(self.rate)
                for key in BROKER_RATE_KEYS)]
            if not behind:
                return
            if time.time() > deadline:
                raise KafkaAdminError("broker(s) %s did not take on the replication throttle within %d s, so "
                                      "nothing was submitted" % (", ".join(map(str, behind)), THROTTLE_TAKE_ON_SECONDS))
            time.sleep(0.1)

    def remove(self, keep=()):
        """Put back what apply() changed, but for the throttle the moves in keep (still copying) need.

        Safe to call when apply() stopped half way. Returns the brokers and topics that keep a throttle.
        """
        kept_leaders, kept_followers = throttle_entries(keep)
        kept = {LEADER_LIST_KEY: kept_leaders, FOLLOWER_LIST_KEY: kept_followers}
        kept_brokers = set(_plan_brokers(keep)) & set(self.broker_before)
        kept_topics = sorted(set(kept_leaders) | set(kept_followers))
        resources = []
        topics = sorted(set(name for (name, key), owned in self.topic_added.items()
                            if owned - kept[key].get(name, set())))
        if topics:
            described = self._describe(ConfigResourceType.TOPIC, topics)
            for name in topics:
                operations = {}
                for key in (LEADER_LIST_KEY, FOLLOWER_LIST_KEY):
                    added = set(self.topic_added.get((name, key), [])) - kept[key].get(name, set())
                    if not added:
                        continue
                    remaining = [item for item in _split_list((described.get(name, {}).get(key) or {}).get("value"))
                                 if item not in added]
                    if remaining or self.topic_had_override.get((name, key)):
                        operations[key] = ("SET", ",".join(remaining))
                    else:
                        operations[key] = ("DELETE", None)
                if operations:
                    resources.append(ConfigResource(ConfigResourceType.TOPIC, name, operations))
        # The topic lists go to any broker; a broker's rates only to that broker, which may be down for a
        # while (killed, restarting). Every part is tried, the failed ones again until the deadline.
        parts = [("topics %s" % ", ".join(topics), resources)] if resources else []
        parts += [("broker %d" % broker, [ConfigResource(ConfigResourceType.BROKER, str(broker), dict(
            (key, ("SET", value) if value is not None else ("DELETE", None)) for key, value in before.items()))])
            for broker, before in sorted(self.broker_before.items()) if broker not in kept_brokers]
        deadline = time.time() + THROTTLE_REMOVE_SECONDS
        while True:
            failed = []
            for name, part in parts:
                try:
                    self._alter(part)
                except Exception as error:  # pylint: disable=broad-except
                    failed.append((name, part, describe_error(error)))
            parts = [(name, part) for name, part, unused in failed]
            if not failed or time.time() > deadline:
                break
            time.sleep(2)
            # A broker that was down when the client last read the brokers is unknown to it until it reads again.
            refresh_brokers(self.client)
        self.topic_added, self.broker_before = {}, {}
        if failed:
            raise KafkaAdminError(
                "the replication throttle could not be removed from %s within %d s (%s); remove the keys %s "
                "with kafka-configs --delete-config once the brokers answer" % (
                    ", ".join(name for name, unused, unused in failed), THROTTLE_REMOVE_SECONDS,
                    "; ".join("%s: %s" % (name, reason) for name, unused, reason in failed),
                    ", ".join(BROKER_RATE_KEYS + (LEADER_LIST_KEY, FOLLOWER_LIST_KEY))))
        return dict(brokers=sorted(kept_brokers), topics=kept_topics)


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


def elect_preferred_leaders(client, keys, timeout_ms):
    """Preferred leader election for the given partitions; returns those whose election failed."""
    if not keys:
        return []
    by_topic = {}
    for topic, partition in keys:
        by_topic.setdefault(topic, []).append(partition)
    response = client.elect_leaders(0, by_topic, timeout_ms=timeout_ms, raise_errors=False)
    failed = []
    for result in getattr(response, "replica_election_results", []) or []:
        for partition in result.partition_result:
            # 84: ELECTION_NOT_NEEDED, the preferred leader already leads.
            if partition.error_code not in (0, 84):
                failed.append("%s-%d" % (result.topic, partition.partition_id))
    return failed


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


def execute(client, pending, throttle_rate, max_moves_per_broker, timeout, poll_interval, timeout_ms, report,
            elect=True, plan_entries=None, progress_every=10):
    """Throttle, submit batch by batch, wait for each, then remove the throttle.

    report(status) is called as partitions complete and every progress_every seconds in between, with
    progress_status()'s reading (partitions done, bytes copied, rate, time left). Returns a summary dict;
    raises KafkaAdminError on timeout naming what is still moving, with the throttle removed from
    everything but those moves (they would otherwise copy unthrottled), and on any other failure with
    the throttle removed.
    The summary includes the bytes the moves copy (read before submitting), the least time they take
    at the throttle and the rate they achieved; sizes_error says why the sizes could not be read.
    """
    started = time.time()
    throttle = Throttle(client, throttle_rate, pending, plan_entries) if throttle_rate else None
    progress = []
    throttled = dict(brokers=[], topics=[])
    done = []
    total = len(pending)
    last_error = None
    batches = make_batches(pending, max_moves_per_broker)
    sizes, sizes_error = None, None
    try:
        sizes = read_partition_sizes(client, sorted(set(entry["topic"] for entry in pending)))
    except Exception as error:  # pylint: disable=broad-except
        # The sizes only inform the result (DescribeLogDirs may not be authorized); the moves go ahead without them.
        sizes_error = describe_error(error)
    try:
        if throttle:
            note_adding_replicas(client, pending)
            throttled = throttle.apply()
        moves_started = last_report = time.time()
        copied_total = bytes_to_copy(pending, sizes)[1] if sizes is not None else None
        for batch_index, batch in enumerate(batches):
            submit(client, batch, timeout_ms)
            waiting = list(batch)
            later = [entry for later_batch in batches[batch_index + 1:] for entry in later_batch]
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
                    done.extend(complete)
                    keys = set((entry["topic"], entry["partition"]) for entry in complete)
                    waiting = [entry for entry in waiting if (entry["topic"], entry["partition"]) not in keys]
                now = time.time()
                if complete or now - last_report >= progress_every:
                    last_report = now
                    remaining = _remaining_sizes(client, waiting + later) if copied_total is not None else None
                    status = progress_status(
                        len(done), total, now - started, now - moves_started, copied_total,
                        bytes_left(waiting, later, remaining) if remaining is not None else None, throttle_rate)
                    progress.append(status)
                    report(status)
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
        kept = dict(brokers=[], topics=[])
        if throttle:
            try:
                kept = throttle.remove(keep=in_flight)
            except KafkaAdminError as leftover:
                raise KafkaAdminError("%s. Also, %s" % (describe_error(error), leftover)) from error
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
            election_failed = elect_preferred_leaders(client, keys, timeout_ms)
        except Exception as error:  # pylint: disable=broad-except
            # The data has moved; a failed election leaves leaders to Kafka's automatic rebalance.
            election_failed = ["%s-%d" % key for key in keys]
            election_error = describe_error(error)
    copied = bytes_to_copy(pending, sizes)[1] if sizes is not None else None
    moving = moves_ended - moves_started
    return dict(moved=len(done), progress=progress, throttled=throttled, elapsed=round(time.time() - started, 1),
                election_failed=election_failed, election_error=election_error, bytes_to_move=copied,
                expected_seconds=expected_seconds(batches, sizes, throttle_rate) if sizes is not None else None,
                rate=round(copied / moving) if copied is not None and moving > 0 else None, sizes_error=sizes_error)


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
    """The plan, read and checked before connecting: (entries as parse_plan gives them, option name)."""
    params = module.params
    if params["throttle"] and not params["wait"]:
        raise PlanInputError("throttle", "needs wait: true, so the throttle can be removed when the moves end")
    plan, field = load_plan(params)
    return parse_plan(plan, field), field


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
    parsed, field = inputs
    params, result = module.params, module.result
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
    result.update(changed=bool(pending), already_in_place=len(parsed) - len(pending),
                  partitions=["%s-%d" % (entry["topic"], entry["partition"]) for entry in pending])
    if module.diff:
        result["diff"] = dict(
            before=dict(("%s-%d" % (entry["topic"], entry["partition"]), entry["current"]) for entry in pending),
            after=dict(("%s-%d" % (entry["topic"], entry["partition"]), entry["target"]) for entry in pending))
    if not pending:
        # Everything is in place: what a timed-out run of this plan left on its moves then in flight goes now.
        result["throttle_removed"] = remove_left_over_throttle(module, client, params["throttle"], plan_entries)
        result["changed"] = bool(result["throttle_removed"]["brokers"] or result["throttle_removed"]["topics"])
        return
    if module.check_mode:
        return
    if not params["wait"]:
        submit(client, pending, timeout_ms)
        return

    if not params["throttle"]:
        # Asked to move unthrottled: a throttle an earlier run of the plan left would still hold the moves back.
        result["throttle_removed"] = remove_left_over_throttle(module, client, 0, plan_entries)

    def report(status):
        module.log("kafka_reassignment: %s" % describe_progress(status))
        if params["progress_file"]:
            # One JSON line per reading; the action plugin (or an operator's tail -f) follows the file.
            with open(params["progress_file"], "a") as handle:
                handle.write(json.dumps(status) + "\n")

    result.update(execute(client, pending, params["throttle"], params["max_moves_per_broker"], params["timeout"],
                          params["poll_interval"], timeout_ms, report, params["elect_leaders"], plan_entries,
                          params["progress_interval"]))
    sizes_error = result.pop("sizes_error")
    if sizes_error:
        module.warn("the partition sizes could not be read (%s), so bytes_to_move, expected_seconds "
                    "and rate are null; the moves themselves are done" % sizes_error)
    if result.get("election_error"):
        module.warn("the partitions moved, but the preferred leader election failed (%s); run "
                    "it again later or rely on auto.leader.rebalance.enable" % result["election_error"])
