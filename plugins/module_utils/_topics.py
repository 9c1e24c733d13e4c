# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Declared topics against the live ones: what to create, grow, reconfigure or delete.

The first half is pure (plain dicts in, plain dicts out) and unit-tested: normalising the declared
topics, checking them, and computing the difference from the cluster's state. The second half
reads that state and applies a difference with a handful of batched admin requests, whatever the
number of topics: one Metadata, one DescribeConfigs, then at most one CreatePartitions,
IncrementalAlterConfigs and DeleteTopics, and the topics to create in a few CreateTopics requests
sent side by side (see create_batches). Each write is also sent beforehand with validate_only, so
the brokers' own checks run before anything changes.
"""

from __future__ import absolute_import, division, print_function


import re
import time

try:
    from kafka.admin import ConfigResource, ConfigResourceType
except ImportError:
    ConfigResource = ConfigResourceType = None

from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import read_topic_configs, read_topics

from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import (
    KafkaAdminError,
    describe_error,
    error_name,
    run_side_by_side,
)

TOPIC_NAME = re.compile(r"^[a-zA-Z0-9._-]{1,249}$")
# Topics to create go in up to CREATE_REQUESTS_AT_ONCE CreateTopics requests sent side by side, each
# over a connection of its own (a broker handles one request per connection at a time), with at least
# FEWEST_TOPICS_PER_REQUEST topics each. With ZooKeeper the controller writes a request's topics one
# after another, a few ZooKeeper round trips each, and meanwhile starts the partitions of whatever
# topics have appeared since its last round: LeaderAndIsr and UpdateMetadata to the brokers, which
# cost each broker time in proportion to all the partitions it holds. For 1,000 topics one request
# made about 950 such rounds, 4 at once about 190 and 8 about 15; 8 was no faster end to end than 4
# (the brokers' own log creation is then the limit) and would occupy all of the controller's default
# 8 request handler threads. Figures: docs/benchmarks.md.
CREATE_REQUESTS_AT_ONCE = 4
FEWEST_TOPICS_PER_REQUEST = 25
# Set and cleared by the reassignment machinery; never reset by config_mode=replace.
REPLACE_EXEMPT_KEYS = frozenset(["leader.replication.throttled.replicas", "follower.replication.throttled.replicas"])


class TopicSpecError(Exception):
    """A declared topic cannot be applied; field names the offending input, such as topics[2].partitions."""

    def __init__(self, field, message):
        super(TopicSpecError, self).__init__("%s: %s" % (field, message))
        self.field = field


def config_value(value):
    """Kafka configs are strings on the wire; YAML gives booleans and numbers."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(config_value(item) for item in value)
    if value is None:
        return None
    return str(value)


def _positive_int(value, field, allow_none=True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool):
        raise TopicSpecError(field, "must be a whole number, not %r" % (value,))
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise TopicSpecError(field, "must be a whole number, not %r" % (value,)) from None
    if number < 1 or str(number) != str(value).strip():
        raise TopicSpecError(field, "must be a whole number of at least 1, not %r" % (value,))
    return number


def check_topic_name(name, field):
    if not isinstance(name, str) or not name:
        raise TopicSpecError(field, "a topic name is required")
    if name in (".", ".."):
        raise TopicSpecError(field, "%r is not a legal topic name" % name)
    if not TOPIC_NAME.match(name):
        raise TopicSpecError(field, "%r is not a legal topic name: use up to 249 of the characters "
                                    "a-z A-Z 0-9 . _ -" % name)
    return name


def normalize_topics(topics, default_state="present", field_prefix="topics"):
    """Declared topics as [{name, partitions, replication_factor, config, state}], checked.

    Raises TopicSpecError for a bad entry, naming it (topics[3].partitions) so a user can find it.
    """
    normalized = []
    seen = {}
    for index, item in enumerate(topics):
        # With a single topic (field_prefix None) the fields are the module options themselves.
        where = "%s[%d]" % (field_prefix, index) if field_prefix else ""
        if not isinstance(item, dict):
            raise TopicSpecError(where or "name", "each topic is a mapping with at least a name")
        unknown = sorted(set(item) - set(["name", "partitions", "replication_factor", "config", "state"]))
        if unknown:
            raise TopicSpecError(where or "topics", "unknown key(s) %s; a topic takes name, partitions, "
                                                    "replication_factor, config, state" % ", ".join(unknown))
        name = check_topic_name(item.get("name"), _join(where, "name"))
        if name in seen:
            raise TopicSpecError(_join(where, "name"), "topic %r is declared twice (also %s[%d])"
                                 % (name, field_prefix, seen[name]))
        seen[name] = index
        state = item.get("state") or default_state
        if state not in ("present", "absent"):
            raise TopicSpecError(_join(where, "state"), "must be present or absent, not %r" % (state,))
        config = item.get("config") or {}
        if not isinstance(config, dict):
            raise TopicSpecError(_join(where, "config"), "must be a mapping of topic config keys to values")
        clean_config = {}
        for key, value in config.items():
            if not isinstance(key, str) or not key.strip():
                raise TopicSpecError(_join(where, "config"), "config keys must be non-empty strings")
            if value is None:
                raise TopicSpecError(_join(where, "config." + key), "has no value")
            clean_config[key.strip()] = config_value(value)
        normalized.append(dict(
            name=name,
            state=state,
            partitions=_positive_int(item.get("partitions"), _join(where, "partitions")),
            replication_factor=_positive_int(item.get("replication_factor"), _join(where, "replication_factor")),
            config=clean_config,
            field=where,
        ))
    return normalized


def _join(where, field):
    return "%s.%s" % (where, field) if where else field


def topic_view(state):
    """What diff mode shows of one topic: its counts and the configs set on the topic itself."""
    if state is None:
        return None
    return dict(partitions=state["partitions"], replication_factor=state["replication_factor"],
                config=dict(sorted(state["overrides"].items())))


def plan_topic_changes(desired, actual, live_brokers, config_mode="merge"):
    """Compute the difference between declared topics and the cluster, or raise TopicSpecError.

    desired: normalize_topics() output.
    actual: {name: {partitions, replication_factor, configs: {key: value}, overrides: {key: value}}}
      for the declared topics that exist (configs: every effective value; overrides: those set on
      the topic itself).
    live_brokers: number of brokers alive now.
    Returns {create, add_partitions, alter_configs, delete, topics, changed, before, after}: the
    requests to send and, per changed topic, its state before and after.
    """
    create, add_partitions, alter_configs, delete = [], {}, {}, []
    before, after, changed_names = {}, {}, []
    for topic in desired:
        name, where = topic["name"], topic["field"]
        current = actual.get(name)
        if topic["state"] == "absent":
            if current is not None:
                delete.append(name)
                before[name], after[name] = topic_view(current), None
                changed_names.append(name)
            continue
        replication_factor = topic["replication_factor"]
        if replication_factor is not None and replication_factor > live_brokers:
            raise TopicSpecError(_join(where, "replication_factor"), "%d is more than the %d live broker(s) of the "
                                 "cluster; topic %r" % (replication_factor, live_brokers, name))
        if current is None:
            create.append(dict(name=name, partitions=topic["partitions"], replication_factor=replication_factor,
                               config=dict(topic["config"])))
            before[name] = None
            after[name] = dict(partitions=topic["partitions"], replication_factor=replication_factor,
                               config=dict(sorted(topic["config"].items())))
            changed_names.append(name)
            continue
        wanted = dict(partitions=current["partitions"], replication_factor=current["replication_factor"],
                      overrides=dict(current["overrides"]))
        if topic["partitions"] is not None:
            if topic["partitions"] < current["partitions"]:
                raise TopicSpecError(_join(where, "partitions"), "topic %r has %d partitions; Kafka cannot reduce "
                                     "that to %d (only raise it, or recreate the topic)"
                                     % (name, current["partitions"], topic["partitions"]))
            if topic["partitions"] > current["partitions"]:
                add_partitions[name] = topic["partitions"]
                wanted["partitions"] = topic["partitions"]
        if replication_factor is not None and replication_factor != current["replication_factor"]:
            raise TopicSpecError(_join(where, "replication_factor"), "topic %r has replication factor %d; changing "
                                 "it to %d moves data, so it is done by a reassignment: run "
                                 "ansible-playbook kafkaops.cluster.prepare_reassignment -e '{\"topics\": [\"%s\"], "
                                 "\"replication_factor\": %d}' and then kafkaops.cluster.execute_reassignment"
                                 % (name, current["replication_factor"], replication_factor, name,
                                    replication_factor))
        operations = {}
        for key, value in sorted(topic["config"].items()):
            if current["configs"].get(key) != value:
                operations[key] = ("SET", value)
                wanted["overrides"][key] = value
            elif key not in current["overrides"]:
                # The default already has this value; leave the topic following the default.
                pass
        if config_mode == "replace":
            for key in sorted(current["overrides"]):
                if key not in topic["config"] and key not in REPLACE_EXEMPT_KEYS:
                    operations[key] = ("DELETE", None)
                    del wanted["overrides"][key]
        if operations:
            alter_configs[name] = operations
        if wanted["partitions"] != current["partitions"] or operations:
            before[name], after[name] = topic_view(current), topic_view(wanted)
            changed_names.append(name)
    return dict(create=create, add_partitions=add_partitions, alter_configs=alter_configs, delete=delete,
                changed=bool(changed_names), topics=changed_names, before=before, after=after)


# ---- talking to the cluster ------------------------------------------------------------------


def read_declared_topics(client, names, config_names=None):
    """The state of the named topics that exist: {name: {partitions, replication_factor, configs, overrides}}.

    Configs are read only for config_names (all when None): a declaration without configs does not
    need them, and for a thousand topics they are most of what a run reads.
    """
    if not names:
        return {}
    existing = {}
    for name, partitions in read_topics(client, names, missing_ok=True).items():
        replication_factor = max(len(partition["replicas"]) for partition in partitions) if partitions else 0
        existing[name] = dict(partitions=len(partitions), replication_factor=replication_factor,
                              configs={}, overrides={})
    wanted = sorted(existing if config_names is None else set(existing) & set(config_names))
    add_configs(client, existing, wanted)
    return existing


def add_configs(client, existing, names):
    """Fill in configs and overrides of the named topics of read_declared_topics() output."""
    for name, configs in read_topic_configs(client, sorted(names)).items():
        if name in existing:
            existing[name].update(configs)


def topics_needing_configs(desired, config_mode):
    """Topics whose configs the difference depends on: those declaring configs, or all with replace."""
    return [topic["name"] for topic in desired
            if topic["state"] == "present" and (topic["config"] or config_mode == "replace")]


def create_batches(items, most=CREATE_REQUESTS_AT_ONCE, fewest=FEWEST_TOPICS_PER_REQUEST):
    """items in order, split into at most `most` batches of nearly equal size and at least `fewest` items.

    A list of lists; one batch when there are fewer than 2 * fewest items, none when there are none.
    """
    if not items:
        return []
    count = max(1, min(most, len(items) // max(fewest, 1)))
    size, larger = divmod(len(items), count)
    batches, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < larger else 0)
        batches.append(list(items[start:end]))
        start = end
    return batches


def _create_request(items):
    return dict((item["name"], dict(
        num_partitions=item["partitions"] or -1,
        replication_factor=item["replication_factor"] or -1,
        configs=item["config"])) for item in items)


def _create_topics(clients, items, timeout_ms, validate_only=False):
    """CreateTopics for items, split into batches sent side by side; the responses, one per batch.

    clients: an AdminClientPool; a batch goes over a client of its own.
    """
    connected = clients.at_most(len(create_batches(items)))
    batches = create_batches(items, most=len(connected))
    return run_side_by_side(
        lambda index: connected[index].create_topics(_create_request(batches[index]), timeout_ms=timeout_ms,
                                                     validate_only=validate_only, raise_errors=False),
        range(len(batches)))


def _field_of(name, desired, suffix):
    for topic in desired:
        if topic["name"] == name:
            return _join(topic["field"], suffix)
    return "topic %s" % name


def _collect_create_errors(result, desired, errors):
    for topic in result.get("topics", []):
        if topic.get("error_code"):
            message = topic.get("error_message") or error_name(topic["error_code"])
            suffix = "config" if "config" in message.lower() else "name"
            errors.append("%s: topic %r: %s" % (_field_of(topic["name"], desired, suffix), topic["name"], message))


def _collect_partition_errors(result, desired, errors):
    for topic in getattr(result, "results", []) or []:
        if topic.error_code:
            errors.append("%s: topic %r: %s" % (_field_of(topic.name, desired, "partitions"), topic.name,
                                                topic.error_message or error_name(topic.error_code)))


def _collect_config_errors(result, desired, errors):
    # kafka-python answers per topic with "OK" or the broker's error as text.
    for name, outcome in sorted((result or {}).get("topic", {}).items()):
        if outcome in (None, "OK", 0):
            continue
        text = describe_error(outcome) if isinstance(outcome, Exception) else str(outcome)
        errors.append("%s: topic %r: %s" % (_field_of(name, desired, "config"), name,
                                            _broker_message(text)))


def _broker_message(text):
    """The broker's own words, without the client's wrapping."""
    text = re.sub(r"^\[Error \d+\] ", "", text)
    return re.sub(r"^\w+Error: Invalid config value for resource ConfigResource\([^)]*\): ", "", text)


def _config_resources(changes):
    return [ConfigResource(ConfigResourceType.TOPIC, name, dict(operations))
            for name, operations in sorted(changes["alter_configs"].items())]


def validate_on_cluster(clients, changes, desired, timeout_ms):
    """Send every write with validate_only so the brokers check names, counts and configs first.

    clients: an AdminClientPool (the topics to create go in batches over several clients).
    """
    client = clients.first
    errors = []
    try:
        if changes["create"]:
            for result in _create_topics(clients, changes["create"], timeout_ms, validate_only=True):
                _collect_create_errors(result, desired, errors)
        if changes["add_partitions"]:
            _collect_partition_errors(client.create_partitions(dict(changes["add_partitions"]), timeout_ms=timeout_ms,
                                                               validate_only=True, raise_errors=False),
                                      desired, errors)
        if changes["alter_configs"]:
            _collect_config_errors(client.alter_configs(_config_resources(changes), validate_only=True,
                                                        raise_on_unknown=False, incremental=True), desired, errors)
    except KafkaAdminError:
        raise
    except Exception as error:  # pylint: disable=broad-except
        raise KafkaAdminError("validating the changes failed: %s" % describe_error(error)) from None
    if errors:
        raise TopicSpecError(errors[0].split(":", 1)[0], "; ".join(error.split(": ", 1)[1] for error in errors))


def apply_changes(clients, changes, desired, timeout_ms, wait=True):
    """Carry out a validated difference; raises KafkaAdminError naming the topics that failed.

    clients: an AdminClientPool, as for validate_on_cluster.
    """
    client = clients.first
    errors = []
    if changes["create"]:
        for result in _create_topics(clients, changes["create"], timeout_ms):
            _collect_create_errors(result, desired, errors)
    if changes["add_partitions"]:
        _collect_partition_errors(client.create_partitions(dict(changes["add_partitions"]), timeout_ms=timeout_ms,
                                                           raise_errors=False), desired, errors)
    if changes["alter_configs"]:
        _collect_config_errors(client.alter_configs(_config_resources(changes), raise_on_unknown=False,
                                                    incremental=True), desired, errors)
    if changes["delete"]:
        result = client.delete_topics(list(changes["delete"]), timeout_ms=timeout_ms, raise_errors=False)
        for topic in result.get("topics", []):
            if topic.get("error_code") and error_name(topic["error_code"]) != "UnknownTopicOrPartitionError":
                errors.append("topic %r: delete failed: %s" % (
                    topic["name"], topic.get("error_message") or error_name(topic["error_code"])))
    if errors:
        raise KafkaAdminError("; ".join(errors))
    if wait and (changes["create"] or changes["add_partitions"]):
        wait_for_partitions(client, changes, timeout_ms)


def wait_for_partitions(client, changes, timeout_ms):
    """Wait until new topics and partitions have leaders, so the next run (and producers) see them."""
    expected = dict((item["name"], item["partitions"]) for item in changes["create"])
    expected.update(changes["add_partitions"])
    deadline = time.time() + timeout_ms / 1000.0
    pending = sorted(expected)
    while True:
        ready = set()
        for topic in client.describe_topics(pending):
            partitions = topic.get("partitions") or []
            count_ok = expected[topic["name"]] is None or len(partitions) >= expected[topic["name"]]
            if not topic.get("error_code") and partitions and count_ok and all(
                    partition["leader_id"] >= 0 for partition in partitions):
                ready.add(topic["name"])
        pending = [name for name in pending if name not in ready]
        if not pending:
            return
        if time.time() > deadline:
            raise KafkaAdminError("changes were made, but %d topic(s) still have partitions without a leader "
                                  "after %d s: %s" % (len(pending), timeout_ms // 1000, ", ".join(pending[:10])))
        time.sleep(0.2)
