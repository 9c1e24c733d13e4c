"""kafka_topic and kafka_cluster_info against a live cluster.

Every change is run in the order check mode, real, check mode again, real again: check mode must
predict the real result, and the second pass must report no change. Every refused input must fail
naming the field and leave the cluster exactly as it was (described before and after).
"""

import time
import uuid

import pytest


def _prefix():
    return "it-%s-" % uuid.uuid4().hex[:8]


def _four_passes(kafka, **args):
    """check, real, check, real; returns the first two results after asserting the pattern."""
    predicted = kafka("kafka_topic", check=True, diff=True, **args)
    assert not predicted.failed, predicted.output
    assert predicted.changed
    applied = kafka("kafka_topic", diff=True, **args)
    assert not applied.failed, applied.output
    assert applied.changed
    for key in ("topics", "created", "deleted", "partitions_added", "configs_altered", "diff"):
        assert predicted[key] == applied[key], key
    again_check = kafka("kafka_topic", check=True, **args)
    assert not again_check.failed and not again_check.changed, again_check.output
    again = kafka("kafka_topic", **args)
    assert not again.failed and not again.changed, again.output
    return predicted, applied


def test_create_grow_reconfigure_and_delete_in_four_passes(kafka, cluster):
    name = _prefix() + "orders"
    unused, created = _four_passes(kafka, name=name, partitions=3, replication_factor=3,
                                   config={"retention.ms": 86400000, "cleanup.policy": ["compact", "delete"]})
    assert created["created"] == [name]
    assert created["diff"]["before"] == {name: None}
    assert cluster.topics([name]) == {name: (3, 3, {"retention.ms": "86400000",
                                                    "cleanup.policy": "compact,delete"})}

    unused, grown = _four_passes(kafka, name=name, partitions=5, config={"retention.ms": 3600000})
    assert grown["partitions_added"] == {name: 5}
    assert grown["configs_altered"] == {name: {"retention.ms": "3600000"}}
    assert grown["diff"]["before"][name]["partitions"] == 3 and grown["diff"]["after"][name]["partitions"] == 5
    assert cluster.topics([name]) == {name: (5, 3, {"retention.ms": "3600000", "cleanup.policy": "compact,delete"})}

    unused, replaced = _four_passes(kafka, name=name, config={"retention.ms": 3600000}, config_mode="replace")
    assert replaced["configs_altered"] == {name: {"cleanup.policy": None}}
    assert cluster.topics([name]) == {name: (5, 3, {"retention.ms": "3600000"})}

    unused, deleted = _four_passes(kafka, name=name, state="absent")
    assert deleted["deleted"] == [name]
    assert name not in cluster.topics()


def test_many_topics_in_one_call(kafka, cluster):
    prefix = _prefix()
    topics = [{"name": "%sbatch-%03d" % (prefix, index)} for index in range(200)]
    topics[7]["config"] = {"retention.ms": 7200000}
    # 200 topics at once: on a loaded 2-core machine the brokers take longer than the default 30 s
    # to answer CreateTopics (seen at load average 25); the test is about batching, not speed.
    unused, created = _four_passes(kafka, topics=topics, partitions=2, replication_factor=2, request_timeout=120)
    assert sorted(created["created"]) == sorted(topic["name"] for topic in topics)
    described = cluster.topics([topic["name"] for topic in topics])
    assert all(value[:2] == (2, 2) for value in described.values())
    assert described[topics[7]["name"]][2] == {"retention.ms": "7200000"}
    _four_passes(kafka, topics=topics, state="absent", request_timeout=120)


# One topic for the module: the tests that use it leave it as it was (they check that they do).
@pytest.fixture(scope="module")
def existing_topic(kafka):
    name = _prefix() + "steady"
    made = kafka("kafka_topic", name=name, partitions=3, replication_factor=2, config={"retention.ms": 600000})
    assert made.changed, made.output
    yield name
    kafka("kafka_topic", name=name, state="absent")


REFUSED = [
    # (module args builder, field, words in the message)
    (lambda name, brokers: {"name": name, "partitions": 2}, "partitions", "cannot reduce"),
    (lambda name, brokers: {"topics": [{"name": name + "-new", "replication_factor": brokers + 1}]},
     "topics[0].replication_factor", "live broker"),
    (lambda name, brokers: {"name": name, "replication_factor": 1}, "replication_factor", "reassignment"),
    (lambda name, brokers: {"topics": [{"name": name + "-ok"}, {"name": "bad name!"}]},
     "topics[1].name", "not a legal topic name"),
    (lambda name, brokers: {"topics": [{"name": name + "-ok"}, {"name": name, "config": {"no.such.key": 1}}]},
     "topics[1].config", "Unknown topic config name: no.such.key"),
    (lambda name, brokers: {"topics": [{"name": name + "-ok"},
                                       {"name": name + "-b", "config": {"retention.ms": "soon"}}]},
     "topics[1].config", "Invalid value soon for configuration retention.ms"),
    (lambda name, brokers: {"name": name, "config": {"cleanup.policy": "shred"}}, "config", "cleanup.policy"),
]


@pytest.mark.parametrize("build, field, words", REFUSED, ids=[
    "fewer-partitions", "replication-above-brokers", "replication-change", "invalid-name",
    "unknown-config-key", "invalid-config-value-on-create", "invalid-config-value-on-existing"])
def test_refused_input_names_the_field_and_changes_nothing(kafka, cluster, existing_topic, build, field, words):
    args = build(existing_topic, len(cluster.broker_ids()))
    before = cluster.topics()
    for check in (True, False):
        refused = kafka("kafka_topic", check=check, **args)
        assert refused.failed, refused.output
        assert refused["field"] == field
        assert refused["msg"].startswith(field + ":") and words in refused["msg"], refused["msg"]
        assert not refused.changed
    assert cluster.topics() == before


def test_unreachable_cluster_fails_within_the_timeout_naming_the_servers(kafka):
    started = time.monotonic()
    refused = kafka("kafka_topic", bootstrap_servers=["127.0.0.1:1", "127.0.0.1:2"], request_timeout=4, name="x")
    elapsed = time.monotonic() - started
    assert refused.failed
    assert "127.0.0.1:1, 127.0.0.1:2" in refused["msg"] and "within 4 s" in refused["msg"]
    # The timeout plus Ansible's own start-up, which takes seconds on a loaded machine; a module that
    # ignored the timeout would wait at least its default of 30 s.
    assert elapsed < 4 + 20, elapsed


def test_passwords_never_appear_in_the_output(kafka):
    secret = "pw-" + uuid.uuid4().hex
    refused = kafka("kafka_topic", security_protocol="SASL_PLAINTEXT", sasl_username="admin",
                    sasl_password=secret, ssl_password=secret, request_timeout=3, name="x")
    assert refused.failed
    assert secret not in refused.output


def test_cluster_info_reports_brokers_partitions_and_sizes(kafka, existing_topic, bootstrap_servers, client_settings):
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap_servers, acks="all", **client_settings)
    for index in range(300):
        producer.send(existing_topic, key=b"k%d" % index, value=b"x" * 100)
    producer.flush()
    producer.close()

    for check in (False, True):
        info = kafka("kafka_cluster_info", check=check, topics=[existing_topic], include_sizes=True,
                     include_configs=True)
        assert not info.failed and not info.changed, info.output
        broker_ids = [broker["id"] for broker in info["brokers"]]
        assert broker_ids == sorted(broker_ids) and len(broker_ids) >= 2
        assert info["controller_id"] in broker_ids and info["cluster_id"]
        topic = info["topics"][existing_topic]
        assert topic["partition_count"] == 3 and topic["replication_factor"] == 2
        assert topic["config"] == {"retention.ms": "600000"}
        for partition in topic["partitions"]:
            assert partition["leader"] in partition["replicas"] and sorted(partition["isr"]) == sorted(
                partition["replicas"])
            assert sorted(int(broker) for broker in partition["sizes"]) == sorted(partition["replicas"])
        assert topic["size_bytes"] > 300 * 100 * 2
        assert info["under_replicated_partitions"] == [] and info["offline_partitions"] == []
        assert info["reassignments"] == []
    missing = kafka("kafka_cluster_info", topics=[existing_topic + "-missing"])
    assert missing.failed and existing_topic + "-missing" in missing["msg"]
