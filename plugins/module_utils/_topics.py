# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The module kafka_topic's run: read the declared topics' state, then apply the difference.

The difference itself is computed without the network (_topic_changes.py). Here it is read and
sent with a handful of batched admin requests, whatever the number of topics: one Metadata, one
DescribeConfigs, then at most one CreatePartitions, IncrementalAlterConfigs and DeleteTopics, and
the topics to create in a few CreateTopics requests sent side by side (see create_batches). Each
write is also sent beforehand with validate_only, so the brokers' own checks run before anything
changes.
"""

from __future__ import absolute_import, division, print_function


import re
import time

try:
    from kafka.admin import ConfigResource, ConfigResourceType
except ImportError:
    ConfigResource = ConfigResourceType = None

from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import (
    read_brokers,
    read_topic_configs,
    read_topics,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import field_name
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import (
    AdminClientPool,
    KafkaAdminError,
    describe_error,
    error_name,
    run_side_by_side,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._leader_election import (
    unclean_declared,
    unclean_setting_warning,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._topic_changes import (
    TopicSpecError,
    declared_topics,
    normalize_topics,
    plan_topic_changes,
    topics_needing_configs,
)

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
            return field_name(topic["field"], suffix)
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


# ---- the module's run ------------------------------------------------------------------------


def unchanged_topic_result():
    """What kafka_topic returns when nothing changes (a failure returns it too)."""
    return dict(changed=False, topics=[], created=[], deleted=[], partitions_added={}, configs_altered={})


def check_topic_inputs(module):
    """The declared topics, normalised and checked before connecting (TopicSpecError names the field)."""
    items, field = declared_topics(module.params)
    return normalize_topics(items, module.params["state"], None if field == "name" else field)


def run_topic(module, client, desired):
    """kafka_topic: read the declared topics, compute the difference, validate it, apply it unless in check mode."""
    params = module.params
    unclean = [topic["name"] for topic in desired
               if topic["state"] == "present" and unclean_declared(topic["config"])]
    if unclean:
        module.warn(unclean_setting_warning("topic(s) " + ", ".join(unclean)))
    need_configs = topics_needing_configs(desired, params["config_mode"])
    actual = read_declared_topics(client, [topic["name"] for topic in desired], need_configs)
    live_brokers = len(read_brokers(client)["brokers"])
    changes = plan_topic_changes(desired, actual, live_brokers, params["config_mode"])
    if module.diff:
        # The diff shows each changed topic's configs, so read those not read yet and plan again.
        missing = [name for name in changes["topics"] if name in actual and name not in need_configs]
        if missing:
            add_configs(client, actual, missing)
            changes = plan_topic_changes(desired, actual, live_brokers, params["config_mode"])
    timeout_ms = params["request_timeout"] * 1000
    if changes["changed"]:
        clients = AdminClientPool(client, module.connect)
        try:
            validate_on_cluster(clients, changes, desired, timeout_ms)
            if not module.check_mode:
                apply_changes(clients, changes, desired, timeout_ms, params["wait"])
        finally:
            clients.close()
    module.result.update(
        changed=changes["changed"],
        topics=changes["topics"],
        created=[item["name"] for item in changes["create"]],
        deleted=list(changes["delete"]),
        partitions_added=dict(changes["add_partitions"]),
        configs_altered=dict((name, dict((key, value) for key, (unused, value) in operations.items()))
                             for name, operations in changes["alter_configs"].items()),
    )
    if module.diff:
        module.result["diff"] = dict(before=changes["before"], after=changes["after"])
