"""kafka_cluster_info against the live cluster, in either mode: what it says of the brokers matches a
read of the test's own, and in KRaft mode it reports a metadata quorum every broker follows; asked for
less (some topics, only the problems, no partition lists) it returns less and still counts it all."""

import time
import uuid

import pytest
from kafka.admin import NewTopic


def test_the_brokers_and_the_mode_are_reported(kafka, cluster):
    result = kafka("kafka_cluster_info", check=True)
    assert not result.failed, result.output
    assert result.changed is False
    assert [broker["id"] for broker in result["brokers"]] == cluster.broker_ids()
    assert result["mode"] in ("kraft", "zookeeper")
    print("\nmode: %s, quorum: %s" % (result["mode"], result["quorum"]))
    if result["mode"] == "zookeeper":
        assert result["quorum"] is None
        return
    quorum = result["quorum"]
    voters = [voter["id"] for voter in quorum["voters"]]
    assert quorum["leader_id"] in voters
    assert quorum["high_watermark"] > 0
    # Every broker fetches the metadata log as an observer (combined nodes are voters).
    assert set(cluster.broker_ids()) <= set(voters) | {observer["id"] for observer in quorum["observers"]}
    assert all(voter["lag"] is not None for voter in quorum["voters"])


# ---- asking for less: topics by name or pattern, only the problem partitions, no partition lists


def _settled(cluster, names, partitions):
    """Wait until every partition of the topics has its preferred leader and all its replicas in sync."""
    deadline = time.time() + 120
    while True:
        described = cluster.admin.describe_topics(names)
        if all(topic["error_code"] == 0 and len(topic["partitions"]) == partitions and all(
                partition["leader_id"] == partition["replica_nodes"][0]
                and sorted(partition["isr_nodes"]) == sorted(partition["replica_nodes"])
                for partition in topic["partitions"]) for topic in described):
            return
        assert time.time() < deadline, "the test topics did not settle: %s" % described
        time.sleep(0.5)


@pytest.fixture(scope="module")
def three_topics(cluster):
    """Topics <prefix>a-1, <prefix>a-2 (6 partitions each) and <prefix>b-1 (2 partitions), all in sync."""
    prefix = "it-%s-" % uuid.uuid4().hex[:8]
    factor = min(3, len(cluster.broker_ids()))
    layout = {prefix + "a-1": 6, prefix + "a-2": 6, prefix + "b-1": 2}
    cluster.admin.create_topics([NewTopic(name, count, factor) for name, count in layout.items()], timeout_ms=60000)
    for name, count in layout.items():
        _settled(cluster, [name], count)
    yield prefix, factor
    cluster.admin.delete_topics(list(layout), timeout_ms=60000)


def test_one_named_topic_is_all_that_is_returned_and_counted(kafka, three_topics):
    prefix, factor = three_topics
    info = kafka("kafka_cluster_info", topics=[prefix + "a-1"])
    assert not info.failed and not info.changed, info.output
    assert list(info["topics"]) == [prefix + "a-1"]
    topic = info["topics"][prefix + "a-1"]
    assert topic["partition_count"] == 6 and topic["replication_factor"] == factor
    assert [partition["partition"] for partition in topic["partitions"]] == list(range(6))
    assert info["summary"] == dict(topics=1, partitions=6, replicas=6 * factor, problem_partitions=0, offline=0,
                                   under_replicated=0, reassigning=0, leader_not_preferred=0)


def test_a_pattern_selects_the_matching_topics_and_none_leaves_out_the_partition_lists(kafka, three_topics):
    prefix, factor = three_topics
    info = kafka("kafka_cluster_info", topics=[prefix + "a-*"], partitions="none", include_sizes=True)
    assert not info.failed, info.output
    assert sorted(info["topics"]) == [prefix + "a-1", prefix + "a-2"]
    for topic in info["topics"].values():
        assert "partitions" not in topic, topic
        assert topic["partition_count"] == 6 and topic["size_bytes"] == 0
    assert (info["summary"]["topics"], info["summary"]["partitions"]) == (2, 12)


def test_problems_lists_nothing_on_healthy_topics_but_the_summary_counts_them_all(kafka, three_topics):
    prefix, factor = three_topics
    info = kafka("kafka_cluster_info", check=True, topics=[prefix + "*"], partitions="problems")
    assert not info.failed and not info.changed, info.output
    assert info["topics"] == {}
    assert info["summary"]["topics"] == 3 and info["summary"]["partitions"] == 14
    assert info["summary"]["replicas"] == 14 * factor and info["summary"]["problem_partitions"] == 0


def test_problems_over_the_whole_cluster_match_the_summary(kafka):
    # Other tests' topics may have problems of their own (leaders moved by a restart): whatever is
    # listed must be exactly what the summary counts.
    info = kafka("kafka_cluster_info", partitions="problems")
    assert not info.failed, info.output
    listed = [(name, partition) for name, topic in info["topics"].items() for partition in topic["partitions"]]
    assert len(listed) == info["summary"]["problem_partitions"]
    assert all(partition["problems"] for unused, partition in listed)
    for kind, labels in (("under_replicated", info["under_replicated_partitions"]),
                         ("offline", info["offline_partitions"]),
                         ("leader_not_preferred", info["leader_not_preferred_partitions"])):
        assert sorted("%s-%d" % (name, partition["partition"]) for name, partition in listed
                      if kind in partition["problems"]) == sorted(labels)
        assert info["summary"][kind] == len(labels)


def test_a_named_topic_that_does_not_exist_fails_naming_it(kafka, three_topics):
    prefix, unused = three_topics
    missing = kafka("kafka_cluster_info", topics=[prefix + "a-1", prefix + "nope"])
    assert missing.failed and missing["field"] == "topics" and prefix + "nope" in missing["msg"], missing.output
    # A pattern that matches nothing is a question with an empty answer.
    empty = kafka("kafka_cluster_info", topics=[prefix + "zz-*"])
    assert not empty.failed and empty["topics"] == {} and empty["summary"]["partitions"] == 0, empty.output
