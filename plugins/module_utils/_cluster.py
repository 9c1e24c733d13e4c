# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading a cluster's state in a few batched requests: brokers, topics, replicas, reassignments, sizes.

kafka_cluster_info returns it; the reassignment modules plan and check against it.
"""

from __future__ import absolute_import, division, print_function


import fnmatch

try:
    from kafka.admin import ConfigResource, ConfigResourceType
except ImportError:
    ConfigResource = ConfigResourceType = None

from ansible_collections.kafkaops.cluster.plugins.module_utils._certificates import (
    expiry_sentence,
    read_served_certificates,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._disk_ledger import (
    DELETE_DELAY_DEFAULT_MS,
    DELETE_DELAY_KEY,
    volumes,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import (
    KafkaAdminError,
    advertised_api_keys,
    cluster_authorization_failed,
    cluster_describe_refused,
    describe_error,
    error_name,
    run_side_by_side,
)

# Where a topic config value comes from when it was set on the topic itself.
TOPIC_OVERRIDE_SOURCE = "DYNAMIC_TOPIC_CONFIG"
# The replication throttles Kafka's reassignment tool sets: rates on brokers, throttled replicas on topics.
THROTTLE_RATE_KEYS = ("leader.replication.throttled.rate", "follower.replication.throttled.rate")
THROTTLED_REPLICAS_KEYS = ("leader.replication.throttled.replicas", "follower.replication.throttled.replicas")
# Where a broker config value comes from when it was set at run time, on one broker or on all of them.
DYNAMIC_BROKER_SOURCES = ("DYNAMIC_BROKER_CONFIG", "DYNAMIC_DEFAULT_BROKER_CONFIG")
# DescribeQuorum: brokers of a KRaft cluster advertise it in ApiVersions, ZooKeeper-mode brokers do not.
DESCRIBE_QUORUM_API_KEY = 55
# What kafka_cluster_info lists of each topic's partitions: every one, the problem ones, none.
PARTITION_VIEWS = ("all", "problems", "none")
# The kinds of problem a partition can have, in the order a partition lists its own.
PROBLEM_KINDS = ("offline", "under_replicated", "reassigning", "leader_not_preferred")
# The connection's protocols that speak TLS: the brokers' addresses it reads are on a listener serving a certificate.
TLS_PROTOCOLS = ("SSL", "SASL_SSL")
# A topic name never holds these (Kafka allows letters, digits, '.', '_' and '-'): an item with one is a pattern.
PATTERN_CHARACTERS = "*?["


class TopicSelectionError(InputError):
    """The topics asked for cannot be read as given; field names the option."""


def read_brokers(client):
    """{cluster_id, controller_id, brokers: [{id, host, port, rack}], fenced_brokers: [id]}, each sorted by id.

    brokers are the live ones. In KRaft mode the controllers keep a broker that stopped or lost its
    session registered but fenced until it comes back or is unregistered, and kafka-python asks for those
    too (DescribeCluster v2, include_fenced_brokers): a fenced broker serves no client and takes no
    replica, so it is listed apart, by id. ZooKeeper mode has no fenced brokers.
    """
    described = client.describe_cluster()
    brokers = sorted((dict(id=broker["broker_id"], host=broker["host"], port=broker["port"], rack=broker.get("rack"))
                      for broker in described["brokers"] if not broker.get("is_fenced")),
                     key=lambda broker: broker["id"])
    fenced = sorted(broker["broker_id"] for broker in described["brokers"] if broker.get("is_fenced"))
    return dict(cluster_id=described.get("cluster_id"), controller_id=described.get("controller_id"), brokers=brokers,
                fenced_brokers=fenced)


def read_quorum(client):
    """(mode, quorum): ("zookeeper", None), or ("kraft", the metadata quorum as DescribeQuorum tells it), or
    ("mixed", None) while a migration has brokers in both modes.

    The quorum: leader_id, leader_epoch, high_watermark, and voters and observers, each a list of
    {id, log_end_offset, lag, last_caught_up_timestamp} sorted by id, where lag is how many records of
    the metadata log the replica is behind the high watermark (None when its offset is unknown).
    """
    if DESCRIBE_QUORUM_API_KEY not in advertised_api_keys(client):
        return "zookeeper", None
    try:
        described = client.describe_metadata_quorum()
    except Exception as error:  # pylint: disable=broad-except
        # Part-way through the ZooKeeper-to-KRaft migration some brokers run in each mode: the one the
        # request went to is still a ZooKeeper-mode broker, which does not serve DescribeQuorum.
        if type(error).__name__ != "IncompatibleBrokerVersion":
            raise
        return "mixed", None
    partition = described["topics"][0]["partitions"][0]
    if partition.get("error"):
        raise KafkaAdminError("describing the metadata quorum failed: %s" % partition["error"])
    high_watermark = partition["high_watermark"]

    def replica(state):
        offset = state["log_end_offset"]
        return dict(id=state["replica_id"], log_end_offset=offset,
                    lag=max(0, high_watermark - offset) if offset >= 0 else None,
                    last_caught_up_timestamp=state.get("last_caught_up_timestamp"))

    def replicas(states):
        return sorted((replica(state) for state in states), key=lambda item: item["id"])

    return "kraft", dict(leader_id=partition["leader_id"], leader_epoch=partition["leader_epoch"],
                         high_watermark=high_watermark, voters=replicas(partition["current_voters"]),
                         observers=replicas(partition["observers"]))


def split_topic_selection(items, field="topics"):
    """(names, patterns) of a list of topic names and shell-style patterns, each in order without repeats.

    An item holding '*', '?' or '[' is a pattern (no topic name holds them). An empty item raises
    TopicSelectionError naming it.
    """
    names, patterns = [], []
    for index, item in enumerate(items or []):
        if not isinstance(item, str) or not item.strip():
            raise TopicSelectionError("%s[%d]" % (field, index),
                                      "empty; give a topic name or a shell-style pattern such as orders-*")
        chosen = patterns if any(character in item for character in PATTERN_CHARACTERS) else names
        if item not in chosen:
            chosen.append(item)
    return names, patterns


def topic_selected(name, internal, names=(), patterns=(), include_internal=False):
    """Whether a topic is asked for: named, or matching a pattern, or any topic when neither is given.

    Internal topics count when named, otherwise only with include_internal.
    """
    if name in names:
        return True
    if internal and not include_internal:
        return False
    return not (names or patterns) or any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def read_topics(client, topics=None, include_internal=False, missing_ok=False, patterns=()):
    """{topic: [{partition, leader, replicas, isr, offline_replicas}]} for the named topics (all when None).

    patterns: shell-style patterns; topics matching one are read too. Kafka has no request for topic
    names alone, so with patterns every topic is described (one Metadata request) and the choice is
    made here. A named topic that does not exist raises KafkaAdminError naming it, or is left out with
    missing_ok; a pattern that matches nothing is no error.
    """
    names = list(topics or [])
    described = client.describe_topics(names if names and not patterns else None)
    result = {}
    for topic in described:
        name = topic["name"]
        if not topic_selected(name, topic.get("is_internal"), names, patterns, include_internal):
            continue
        if topic.get("error_code"):
            if error_name(topic["error_code"]) == "UnknownTopicOrPartitionError":
                continue
            raise KafkaAdminError("reading topic %r failed: %s" % (name, error_name(topic["error_code"])), "topics")
        result[name] = sorted((dict(partition=partition["partition_index"], leader=partition["leader_id"],
                                    replicas=list(partition["replica_nodes"]), isr=list(partition["isr_nodes"]),
                                    offline_replicas=list(partition.get("offline_replicas") or []))
                               for partition in topic["partitions"]), key=lambda item: item["partition"])
    missing = sorted(set(names) - set(result))
    if missing and not missing_ok:
        raise KafkaAdminError("topic(s) do not exist: %s" % ", ".join(missing), "topics")
    return result


def read_reassignments(client, topics=None):
    """Ongoing reassignments: [{topic, partition, replicas, adding_replicas, removing_replicas}]."""
    try:
        ongoing = client.list_partition_reassignments()
    except Exception as error:
        if cluster_authorization_failed(error):
            raise cluster_describe_refused(client, "listing the ongoing reassignments") from error
        raise
    items = []
    for topic_partition, state in ongoing.items():
        if topics and topic_partition.topic not in topics:
            continue
        items.append(dict(topic=topic_partition.topic, partition=topic_partition.partition,
                          replicas=list(state.get("replicas") or []),
                          adding_replicas=list(state.get("adding_replicas") or []),
                          removing_replicas=list(state.get("removing_replicas") or [])))
    return sorted(items, key=lambda item: (item["topic"], item["partition"]))


def read_topic_configs(client, topics):
    """{topic: {"configs": every effective value, "overrides": the values set on the topic itself}}."""
    if not topics:
        return {}
    described = client.describe_configs([ConfigResource(ConfigResourceType.TOPIC, name) for name in topics],
                                        config_filter="all")
    configs = {}
    for name, entries in described.get("topic", {}).items():
        configs[name] = dict(
            configs=dict((key, entry["value"]) for key, entry in entries.items()),
            overrides=dict((key, entry["value"]) for key, entry in entries.items()
                           if entry.get("config_source") == TOPIC_OVERRIDE_SOURCE))
    return configs


def read_delete_delays(client, broker_ids):
    """({broker: its DELETE_DELAY_KEY in ms}, {broker: why it could not be read}) of the brokers given.

    One DescribeConfigs round (kafka-python asks each broker for its own); when it fails, each broker is asked
    alone, so one broker that does not answer leaves only itself unread."""
    def ask(ids):
        resources = [ConfigResource(ConfigResourceType.BROKER, str(broker), configs=[DELETE_DELAY_KEY])
                     for broker in ids]
        return client.describe_configs(resources, config_filter="all").get("broker", {})

    broker_ids = sorted(broker_ids)
    unread = {}
    try:
        answers = ask(broker_ids) if broker_ids else {}
    except Exception:  # pylint: disable=broad-except
        answers = {}
        for broker in broker_ids:
            try:
                answers.update(ask([broker]))
            except Exception as error:  # pylint: disable=broad-except
                unread[broker] = describe_error(error)
    delays = {}
    for broker in broker_ids:
        if broker in unread:
            continue
        value = (answers.get(str(broker)) or {}).get(DELETE_DELAY_KEY, {}).get("value")
        try:
            delays[broker] = int(value)
        except (TypeError, ValueError):
            unread[broker] = "its answer holds no %s" % DELETE_DELAY_KEY
    return delays, unread


def read_delete_delays_counted(client, broker_ids):
    """({broker: its DELETE_DELAY_KEY in ms, as counted}, {broker: why it could not be read}): read_delete_delays()
    with Kafka's default counted for the brokers not read."""
    delays, unread = read_delete_delays(client, broker_ids)
    delays.update((broker, DELETE_DELAY_DEFAULT_MS) for broker in unread)
    return delays, unread


def delete_delay_warning(unread):
    """The warning for the brokers whose delete delay could not be read ({broker: why}), or None."""
    if not unread:
        return None
    return ("%s could not be read from broker(s) %s, so Kafka's default (%d ms) is counted for how long they keep a "
            "replica moved off them: where it is set higher, a copy that needs that room may land before the replica "
            "is deleted" % (DELETE_DELAY_KEY, "; ".join("%d (%s)" % item for item in sorted(unread.items())),
                            DELETE_DELAY_DEFAULT_MS))


def _asked_topics(topics):
    if isinstance(topics, dict):
        return dict((name, list(partitions)) for name, partitions in topics.items())
    return list(topics) if topics else None


def _replica_sizes(responses):
    """(topic, partition, broker id, bytes) of every replica in DescribeLogDirs responses, future ones left out."""
    for broker in responses:
        for log_dir in broker.get("log_dirs", []):
            for topic in log_dir.get("topics", []):
                for partition in topic.get("partitions", []):
                    if not partition.get("is_future_key"):
                        yield topic["name"], partition["partition_index"], broker["broker"], partition["partition_size"]


def _copies(responses):
    """{topic: {partition: {broker_id: bytes}}} of DescribeLogDirs responses."""
    sizes = {}
    for topic, partition, broker, size in _replica_sizes(responses):
        sizes.setdefault(topic, {}).setdefault(partition, {})[broker] = size
    return sizes


def _disks(responses):
    """{broker_id: {"total_bytes", "used_bytes"}} summed over each broker's volumes, or None when a broker does
    not report its disks (Kafka before 3.3, KIP-827: -1). Log dirs of one broker on one filesystem (the log dir
    planner's volumes: the same total bytes, usable bytes within SHARED_FILESYSTEM_SLACK) count once: summed, a
    broker with two dirs on one disk would weigh twice the others and count that disk's other files twice."""
    disks = {}
    for broker in responses:
        dirs = {}
        for index, log_dir in enumerate(broker.get("log_dirs", [])):
            if log_dir.get("total_bytes", -1) < 0 or log_dir.get("usable_bytes", -1) < 0:
                return None
            dirs[(log_dir.get("log_dir") or "", index)] = dict(
                total_bytes=log_dir["total_bytes"], usable_bytes=log_dir["usable_bytes"])
        found = set(volume for volume in volumes(dirs).values() if volume[0] == "volume")
        total = sum(volume[1] for volume in found)
        if not total:
            return None
        disks[broker["broker"]] = {"total_bytes": total, "used_bytes": sum(volume[1] - volume[2] for volume in found)}
    return disks or None


def _log_dir_figures(responses):
    """One entry per broker and log dir of DescribeLogDirs responses: the bytes of the topics asked for that the
    dir holds, and its volume's total and usable bytes (None where the broker does not tell: Kafka before 3.3
    answers -1, KIP-827).

    Replicas a move between log dirs is still copying (future ones) are left out, as in the sizes per partition,
    so that a broker's dirs add up to what its partitions' sizes say it holds.
    """
    entries = []
    for broker in responses:
        for log_dir in broker.get("log_dirs", []):
            held = sum(partition["partition_size"] for topic in log_dir.get("topics", [])
                       for partition in topic.get("partitions", []) if not partition.get("is_future_key"))
            total, usable = log_dir.get("total_bytes", -1), log_dir.get("usable_bytes", -1)
            entries.append({"broker": broker["broker"], "log_dir": log_dir.get("log_dir"), "bytes": held,
                            "total_bytes": total if total >= 0 else None,
                            "usable_bytes": usable if usable >= 0 else None,
                            "error_code": log_dir.get("error_code", 0)})
    return sorted(entries, key=lambda entry: (entry["broker"], entry["log_dir"] or ""))


def log_dir_state(responses):
    """{broker: {"dirs": {path: {total_bytes, usable_bytes, online, cordoned, error}}, "replicas": {(topic,
    partition): {dir, bytes}}, "future": {(topic, partition): {dir, bytes}}}} of DescribeLogDirs responses.

    A dir the broker cannot read (KAFKA_STORAGE_ERROR) is offline and lists no replica. Sizes of -1 (Kafka
    before 3.3) become None. A future replica is the copy AlterReplicaLogDirs is making; it replaces the
    current one once it has caught up.
    """
    state = {}
    for answer in responses:
        dirs, replicas, future = {}, {}, {}
        for log_dir in answer.get("log_dirs", []):
            path = log_dir["log_dir"]
            total, usable = log_dir.get("total_bytes", -1), log_dir.get("usable_bytes", -1)
            dirs[path] = dict(total_bytes=total if total is not None and total >= 0 else None,
                              usable_bytes=usable if usable is not None and usable >= 0 else None,
                              online=not log_dir.get("error_code"), cordoned=bool(log_dir.get("is_cordoned")),
                              error=error_name(log_dir.get("error_code")))
            for topic in log_dir.get("topics", []):
                for partition in topic.get("partitions", []):
                    held = future if partition.get("is_future_key") else replicas
                    held[(topic["name"], partition["partition_index"])] = dict(
                        dir=path, bytes=partition["partition_size"])
        state[answer["broker"]] = dict(dirs=dirs, replicas=replicas, future=future)
    return state


def read_partition_sizes(client, topics):
    """{topic: {partition: {broker_id: bytes}}} from DescribeLogDirs on every broker.

    topics: topic names, or {topic: [partitions]} when the partitions are known already (kafka-python
    otherwise describes the named topics first to learn them: one more Metadata request).
    """
    return _copies(client.describe_log_dirs(_asked_topics(topics)))


def read_sizes_and_log_dirs(client, topics):
    """(read_partition_sizes()'s copies, one entry per broker and log dir) from one DescribeLogDirs round."""
    responses = client.describe_log_dirs(_asked_topics(topics))
    return _copies(responses), _log_dir_figures(responses)


def read_copies_and_disks(client, topics):
    """(read_partition_sizes()'s copies, read_disk_usage()'s disks, log_dir_state()'s dirs) from one DescribeLogDirs
    round."""
    responses = client.describe_log_dirs(_asked_topics(topics))
    return _copies(responses), _disks(responses), log_dir_state(responses)


def brokers_without_log_dirs(responses):
    """The brokers whose DescribeLogDirs answer lists no log dir. Every broker has one: a broker that lists none
    refused the request (Kafka answers CLUSTER_AUTHORIZATION_FAILED with no result to a login without Describe on
    the Cluster resource), so its replicas' sizes read as nothing."""
    return sorted(broker["broker"] for broker in responses if not broker.get("log_dirs"))


def read_disk_usage(client, topics):
    """(sizes, disks, unread, dirs) from one DescribeLogDirs round: sizes ``{topic: {partition: bytes of its largest
    replica}}``, disks ``{broker_id: {"total_bytes", "used_bytes"}}`` summed over each broker's log dirs,
    or None when a broker does not report its disks (Kafka before 3.3, KIP-827: -1), unread, the brokers
    that listed no log dir (brokers_without_log_dirs): their sizes are missing, not zero, and dirs, each broker's
    log dirs and the replicas in them (log_dir_state)."""
    responses = client.describe_log_dirs(_asked_topics(topics))
    copies, disks = _copies(responses), _disks(responses)
    sizes = dict((topic, dict((partition, max(by_broker.values())) for partition, by_broker in partitions.items()))
                 for topic, partitions in copies.items())
    return sizes, disks, brokers_without_log_dirs(responses), log_dir_state(responses)


def read_throttles(client, topics, broker_ids):
    """Replication throttles set now: {brokers: [{id, configs}], topics: [{topic, configs}]}.

    configs holds only the throttle keys set (a rate on a broker, set on it or as the cluster-wide
    default; the throttled replicas of a topic), so a throttle a reassignment left behind shows here.
    """
    def describe(resource_type, names, kind):
        # A broker's configs are asked of that broker, a topic's of any: one request per kind, as the
        # reassignment's throttle reads them.
        if not names:
            return {}
        resources = [ConfigResource(resource_type, str(name)) for name in names]
        return client.describe_configs(resources, config_filter="all").get(kind, {})

    described = dict(broker=describe(ConfigResourceType.BROKER, broker_ids, "broker"),
                     topic=describe(ConfigResourceType.TOPIC, topics, "topic"))

    def set_values(entries, keys, sources):
        return dict((key, entries[key]["value"]) for key in keys
                    if key in entries and entries[key].get("value") and entries[key].get("config_source") in sources)

    brokers = []
    for name, entries in described.get("broker", {}).items():
        configs = set_values(entries, THROTTLE_RATE_KEYS, DYNAMIC_BROKER_SOURCES)
        if configs:
            brokers.append(dict(id=int(name), configs=configs))
    throttled_topics = []
    for name, entries in described.get("topic", {}).items():
        configs = set_values(entries, THROTTLED_REPLICAS_KEYS, (TOPIC_OVERRIDE_SOURCE,))
        if configs:
            throttled_topics.append(dict(topic=name, configs=configs))
    return dict(brokers=sorted(brokers, key=lambda item: item["id"]),
                topics=sorted(throttled_topics, key=lambda item: item["topic"]))


def read_consumer_groups(client):
    """Every consumer group the brokers coordinate: [{group, state, protocol_type}] sorted by name.

    state is None where the brokers are too old to tell it in ListGroups (before Kafka 2.6).
    """
    groups = dict((group["group_id"], dict(group=group["group_id"], state=group.get("group_state") or None,
                                           protocol_type=group.get("protocol_type") or ""))
                  for group in client.list_groups())
    return [groups[name] for name in sorted(groups)]


def summarize_topics(topics):
    """Under-replicated and offline partitions of {topic: partitions}, as 'topic-partition' strings."""
    labels = summarize_partitions(topics)[1]
    return labels["under_replicated"], labels["offline"]


def current_assignment(topics):
    """{topic: {partition: [replicas]}} from read_topics() output."""
    return dict((name, dict((item["partition"], list(item["replicas"])) for item in partitions))
                for name, partitions in topics.items())


def partition_problems(partition, reassigning=False):
    """The problems of one partition of read_topics() output, in the order of PROBLEM_KINDS.

    offline: no leader. under_replicated: fewer in-sync replicas than replicas. reassigning: a
    reassignment of it is in progress (the caller knows). leader_not_preferred: a leader other than
    the first replica, the one a preferred leader election would choose.
    """
    problems = []
    if partition["leader"] < 0:
        problems.append("offline")
    if len(partition["isr"]) < len(partition["replicas"]):
        problems.append("under_replicated")
    if reassigning:
        problems.append("reassigning")
    if partition["leader"] >= 0 and partition["replicas"] and partition["leader"] != partition["replicas"][0]:
        problems.append("leader_not_preferred")
    return problems


def summarize_partitions(partitions_by_topic, reassigning=()):
    """(summary, labels, problems) over every partition of {topic: partitions} (read_topics() output).

    reassigning: (topic, partition) pairs being reassigned. summary: counts of topics, partitions,
    replicas, partitions with any problem (problem_partitions) and of each kind of PROBLEM_KINDS.
    labels: {kind: ['topic-partition', ...]} of each kind but reassigning (the reassignments are
    listed in full elsewhere), sorted by topic and partition. problems: {(topic, partition): [kinds]}
    of the partitions that have any.
    """
    reassigning = set(reassigning)
    summary = dict(topics=len(partitions_by_topic), partitions=0, replicas=0, problem_partitions=0)
    summary.update((kind, 0) for kind in PROBLEM_KINDS)
    labels = dict((kind, []) for kind in PROBLEM_KINDS if kind != "reassigning")
    problems = {}
    for name, partitions in sorted(partitions_by_topic.items()):
        summary["partitions"] += len(partitions)
        for partition in partitions:
            summary["replicas"] += len(partition["replicas"])
            key = (name, partition["partition"])
            kinds = partition_problems(partition, key in reassigning)
            if not kinds:
                continue
            problems[key] = kinds
            summary["problem_partitions"] += 1
            for kind in kinds:
                summary[kind] += 1
                if kind in labels:
                    labels[kind].append("%s-%d" % key)
    return summary, labels, problems


def topic_entries(partitions_by_topic, view="all", problems=None):
    """kafka_cluster_info's topics: {name: {partition_count, replication_factor[, partitions]}}.

    view all: every partition; problems: only the topics with a problem partition, each with those
    partitions alone and their kinds (problems, from summarize_partitions) as the partition's
    problems; none: no partition lists. partition_count and replication_factor count every partition.
    """
    problems = problems or {}
    topics = {}
    for name, partitions in partitions_by_topic.items():
        entry = dict(partition_count=len(partitions),
                     replication_factor=max([len(item["replicas"]) for item in partitions] or [0]))
        if view == "all":
            entry["partitions"] = partitions
        elif view == "problems":
            listed = [dict(partition, problems=problems[(name, partition["partition"])])
                      for partition in partitions if (name, partition["partition"]) in problems]
            if not listed:
                continue
            entry["partitions"] = listed
        topics[name] = entry
    return topics


def add_sizes(topics, partitions_by_topic, sizes):
    """Put each listed partition's sizes and each topic's size_bytes (over all its partitions) into topics."""
    for name, topic in topics.items():
        by_partition = sizes.get(name, {})
        for partition in topic.get("partitions", []):
            partition["sizes"] = by_partition.get(partition["partition"], {})
        topic["size_bytes"] = sum(sum(by_partition.get(partition["partition"], {}).values())
                                  for partition in partitions_by_topic[name])


def read_certificates(module, brokers):
    """(certificates, expiring): the certificate each live broker serves on the listener the module connects
    through, and those within certificate_warn_days, each also warned of. Empty when that listener is not TLS.

    A certificate that cannot be read (no handshake from here) is listed with its error and warned of too:
    a broker whose certificate nobody can see is no better than one about to expire.
    """
    params = module.params
    if params["security_protocol"] not in TLS_PROTOCOLS:
        return [], []
    entries = read_served_certificates(brokers, params, params["certificate_warn_days"], params["request_timeout"],
                                       run_side_by_side)
    for entry in entries:
        if "error" in entry:
            module.warn("broker %s at %s: its certificate could not be read: %s"
                        % (entry["broker"], entry["address"], entry["error"]))
        elif entry["expiring"]:
            module.warn("broker %s at %s serves a certificate within certificate_warn_days (%d): %s"
                        % (entry["broker"], entry["address"], params["certificate_warn_days"],
                           expiry_sentence("its certificate", entry)))
    return entries, [entry for entry in entries if entry.get("expiring")]


def check_cluster_info_inputs(module):
    """(names, patterns) of the topics asked for, checked before connecting (TopicSelectionError names the item)."""
    return split_topic_selection(module.params["topics"])


def run_cluster_info(module, client, selection):
    """kafka_cluster_info: the cluster, its topics and the optional configs and sizes, in module.result.

    selection: (names, patterns) from check_cluster_info_inputs. Configs and sizes are read only for
    the topics returned, so asking for fewer topics or only the problems also costs fewer requests.
    """
    params = module.params
    names, patterns = selection
    result = read_brokers(client)
    result["mode"], result["quorum"] = read_quorum(client)
    partitions_by_topic = read_topics(client, names, params["include_internal"], patterns=patterns)
    reassignments = read_reassignments(client, set(partitions_by_topic)) if partitions_by_topic else []
    summary, labels, problems = summarize_partitions(
        partitions_by_topic, [(item["topic"], item["partition"]) for item in reassignments])
    topics = topic_entries(partitions_by_topic, params["partitions"], problems)
    if params["include_configs"]:
        for name, configs in read_topic_configs(client, sorted(topics)).items():
            if name in topics:
                topics[name]["config"] = configs["overrides"]
    if params["include_sizes"]:
        result["log_dirs"] = []
    if params["include_sizes"] and topics:
        sizes, result["log_dirs"] = read_sizes_and_log_dirs(client, dict(
            (name, [partition["partition"] for partition in partitions_by_topic[name]]) for name in sorted(topics)))
        add_sizes(topics, partitions_by_topic, sizes)
    result.update(topics=topics, summary=summary, under_replicated_partitions=labels["under_replicated"],
                  offline_partitions=labels["offline"], leader_not_preferred_partitions=labels["leader_not_preferred"],
                  reassignments=reassignments)
    if params["include_throttles"]:
        result["throttles"] = read_throttles(client, sorted(topics), [broker["id"] for broker in result["brokers"]])
    if params["include_consumer_groups"]:
        result["consumer_groups"] = read_consumer_groups(client)
    if params["include_certificates"]:
        result["certificates"], result["certificates_expiring"] = read_certificates(module, result["brokers"])
    module.result.update(changed=False, **result)
