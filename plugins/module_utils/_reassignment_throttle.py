# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The replication throttle of one reassignment run, for the executor (_reassignment_executor.py).

Throttle.apply() records what it will change before it changes it (the throttled-replica lists of the
plan's topics, the rates of the brokers taking part) and waits until the brokers have taken it on;
remove() puts back what was there before, topic by topic and then broker by broker, trying a broker
that does not answer again for a while (one killed comes back), and can keep the throttle of moves a
timed-out run leaves copying; left_over() finds what an earlier run of the same plan left.
"""

from __future__ import absolute_import, division, print_function


import time

try:
    from kafka.admin import ConfigResource, ConfigResourceType
except ImportError:
    ConfigResource = ConfigResourceType = None

from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import (
    THROTTLE_RATE_KEYS,
    THROTTLED_REPLICAS_KEYS,
    TOPIC_OVERRIDE_SOURCE,
    read_brokers,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import (
    KafkaAdminError,
    describe_error,
    refresh_brokers,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_moves import throttle_entries

BROKER_RATE_KEYS = THROTTLE_RATE_KEYS
LEADER_LIST_KEY, FOLLOWER_LIST_KEY = THROTTLED_REPLICAS_KEYS
# How long removing the throttle keeps trying a broker that does not answer (one killed comes back).
THROTTLE_REMOVE_SECONDS = 120
# How long the brokers may take to take on a throttle before the run gives up without submitting anything.
THROTTLE_TAKE_ON_SECONDS = 30


def wait_until_applied(behind, failure, pause=0.1):
    """Return once behind() - what has not yet applied a config change the run made, as text - is empty.

    A broker applies a dynamic config a moment after the request that set it succeeded; a run that acts before
    then acts on the old value. Raises KafkaAdminError(failure % (what is behind, THROTTLE_TAKE_ON_SECONDS)) when
    it is not applied within THROTTLE_TAKE_ON_SECONDS.
    """
    deadline = time.time() + THROTTLE_TAKE_ON_SECONDS
    while True:
        lagging = behind()
        if not lagging:
            return
        if time.time() > deadline:
            raise KafkaAdminError(failure % (lagging, THROTTLE_TAKE_ON_SECONDS))
        time.sleep(pause)


def remove_after_failure(throttle, error, keep=()):
    """throttle.remove(keep) after error broke a run; when removing fails too, one error naming both."""
    try:
        return throttle.remove(keep=keep)
    except KafkaAdminError as leftover:
        raise KafkaAdminError("%s. Also, %s" % (describe_error(error), leftover)) from error


def _split_list(value):
    return [item.strip() for item in (value or "").split(",") if item.strip()]


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
        # The brokers apply() throttles are live already: only the plan's others are asked about.
        others = sorted(set(_plan_brokers(self.plan_entries)) - set(throttled_brokers))
        brokers = sorted(set(self._live(others)) | set(throttled_brokers))
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

    def _live(self, brokers):
        """The brokers that can take a rate: a broker that is down (mode fix_offline moves replicas off one)
        copies nothing, and its configs can only be changed through itself."""
        if not brokers:
            return []
        live = set(broker["id"] for broker in read_brokers(self.client)["brokers"])
        return [broker for broker in brokers if broker in live]

    def apply(self):
        brokers = self._live(_plan_brokers(self.pending))
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
        def behind():
            described = self._describe(ConfigResourceType.BROKER, brokers)
            return ", ".join(str(broker) for broker in brokers if any(
                (described.get(str(broker), {}).get(key) or {}).get("value") != str(self.rate)
                for key in BROKER_RATE_KEYS))

        wait_until_applied(behind, "broker(s) %s did not take on the replication throttle within %d s, so nothing "
                                   "was submitted")

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
