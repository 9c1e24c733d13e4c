"""kafka_consumer_group against a live cluster.

A fresh topic holds 30 records per partition with known timestamps; a group consumes them and
commits offset 10 everywhere. Every reset runs check mode, real, check mode again, real again:
check mode must predict the real result, the second pass must report no change (except a shift,
which moves again), and the committed offsets read here with kafka-python must be the ones the
module reported. A reset or delete while a consumer of the group is active must fail naming it
and leave the offsets as they were. Topics and groups made here are removed afterwards.
"""

import time
import uuid

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.structs import OffsetAndMetadata

PARTITIONS = 3
RECORDS = 30
# Record i of every partition is stamped BASE + i seconds: a timestamp picks a known offset. An hour
# ago, not a fixed date: the brokers' time-based retention would delete records stamped long ago.
BASE = (int(time.time()) - 3600) * 1000


@pytest.fixture(scope="module")
def topic(kafka, bootstrap_servers):
    name = "it-group-%s" % uuid.uuid4().hex[:8]
    made = kafka("kafka_topic", name=name, partitions=PARTITIONS, replication_factor=2)
    assert made.changed, made.output
    producer = KafkaProducer(bootstrap_servers=bootstrap_servers, acks="all", linger_ms=20)
    for partition in range(PARTITIONS):
        for index in range(RECORDS):
            producer.send(name, value=b"%d" % index, partition=partition, timestamp_ms=BASE + 1000 * index)
    producer.flush()
    producer.close()
    yield name
    kafka("kafka_topic", name=name, state="absent")


def _committed(cluster, group):
    """{(topic, partition): offset} the group has committed, read here rather than through the module."""
    fetched = cluster.admin.list_group_offsets({group: None}).get(group) or {}
    return {(tp.topic, tp.partition): committed.offset for tp, committed in fetched.items() if committed.offset >= 0}


def _consumer(bootstrap_servers, group, client_id):
    return KafkaConsumer(bootstrap_servers=bootstrap_servers, group_id=group, client_id=client_id,
                         auto_offset_reset="earliest", enable_auto_commit=False)


def _join(consumer, topic, timeout=60):
    """Subscribe and poll until the group has given the consumer its partitions."""
    consumer.subscribe([topic])
    deadline = time.monotonic() + timeout
    while not consumer.assignment():
        assert time.monotonic() < deadline, "the consumer got no partitions within %d s" % timeout
        consumer.poll(timeout_ms=500)


@pytest.fixture
def group(cluster, bootstrap_servers, topic):
    """A new group that consumed the topic as a member and committed offset 10 in every partition, then left."""
    name = "it-group-%s" % uuid.uuid4().hex[:8]
    # Removed however the test, or this setup, ends (a group already deleted only gives an answer saying so).
    try:
        consumer = _consumer(bootstrap_servers, name, "it-setup")
        try:
            _join(consumer, topic)
            consumer.commit({TopicPartition(topic, partition): OffsetAndMetadata(10, "", -1)
                             for partition in range(PARTITIONS)})
        finally:
            consumer.close()
        assert _committed(cluster, name) == {(topic, partition): 10 for partition in range(PARTITIONS)}
        yield name
    finally:
        cluster.admin.delete_groups([name])


def _every(topic, offset):
    return {(topic, partition): offset for partition in range(PARTITIONS)}


def _reported(result):
    return {(row["topic"], row["partition"]): row["committed_offset"] for row in result["partitions"]}


def _four_passes(kafka, cluster, group, expected, repeats_change=False, **args):
    """check, real, check, real; the committed offsets must be expected after the real run."""
    before = _committed(cluster, group)
    predicted = kafka("kafka_consumer_group", check=True, diff=True, group=group, **args)
    assert not predicted.failed and predicted.changed, predicted.output
    assert _committed(cluster, group) == before
    applied = kafka("kafka_consumer_group", diff=True, group=group, **args)
    assert not applied.failed and applied.changed, applied.output
    for key in ("offsets_changed", "partitions", "total_lag", "diff"):
        assert predicted[key] == applied[key], key
    assert _committed(cluster, group) == {**before, **expected} == {**before, **_reported(applied)}
    assert applied["offsets_changed"] == [dict(topic=topic, partition=partition, before=before.get((topic, partition)),
                                               after=offset)
                                          for (topic, partition), offset in sorted(expected.items())
                                          if before.get((topic, partition)) != offset]
    for check in (True, False):
        again = kafka("kafka_consumer_group", check=check, group=group, **args)
        assert not again.failed, again.output
        assert again.changed == repeats_change, again.output
    return applied


def test_reading_reports_the_lag(kafka, group, topic):
    result = kafka("kafka_consumer_group", group=group)
    assert not result.failed and not result.changed, result.output
    assert (result["exists"], result["state"], result["members"]) == (True, "Empty", [])
    assert result["partitions"] == [dict(topic=topic, partition=partition, committed_offset=10, log_start_offset=0,
                                         log_end_offset=RECORDS, lag=RECORDS - 10) for partition in range(PARTITIONS)]
    assert result["total_lag"] == PARTITIONS * (RECORDS - 10)


def test_each_reset_in_four_passes(kafka, cluster, group, topic):
    applied = _four_passes(kafka, cluster, group, _every(topic, 0), reset="earliest")
    assert applied["diff"]["before"]["offsets"][topic] == {str(partition): 10 for partition in range(PARTITIONS)}
    assert applied["total_lag"] == PARTITIONS * RECORDS
    # The first record at or after BASE + 5.5 s is the one stamped BASE + 6 s: offset 6.
    _four_passes(kafka, cluster, group, _every(topic, 6), reset="timestamp",
                 reset_timestamp=time.strftime("%Y-%m-%dT%H:%M:%S.500Z", time.gmtime(BASE // 1000 + 5)))
    _four_passes(kafka, cluster, group, _every(topic, 25), reset="offset", reset_offset=25)
    # Newer than every record: the end of the log, where the module must stop, as it must for an
    # offset past the end.
    _four_passes(kafka, cluster, group, _every(topic, RECORDS), reset="timestamp",
                 reset_timestamp=str(BASE + 1000 * RECORDS + 1))
    _four_passes(kafka, cluster, group, {(topic, 1): 0}, topics=["%s:1" % topic], reset="earliest")
    _four_passes(kafka, cluster, group, _every(topic, RECORDS), reset="offset", reset_offset=10 ** 9)


def test_a_shift_moves_again_on_every_run(kafka, cluster, group, topic):
    # check mode, real (-3 from 10), then check mode again predicts the next -3, which the real run does.
    _four_passes(kafka, cluster, group, _every(topic, 7), repeats_change=True, reset="shift", reset_shift=-3)
    assert _committed(cluster, group) == _every(topic, 4)
    clamped = kafka("kafka_consumer_group", group=group, reset="shift", reset_shift=-50)
    assert clamped.changed and _committed(cluster, group) == _every(topic, 0)
    again = kafka("kafka_consumer_group", group=group, reset="shift", reset_shift=-50)
    assert not again.changed, again.output


def test_a_reset_or_delete_is_refused_while_a_consumer_is_active(kafka, cluster, group, topic, bootstrap_servers):
    client_id = "it-active-%s" % uuid.uuid4().hex[:6]
    consumer = _consumer(bootstrap_servers, group, client_id)
    try:
        _join(consumer, topic)
        read = kafka("kafka_consumer_group", group=group)
        assert not read.failed and read["state"] == "Stable", read.output
        [member] = read["members"]
        assert member["client_id"] == client_id
        assert sorted(item["partition"] for item in member["assignment"]) == list(range(PARTITIONS))
        for args in (dict(reset="earliest"), dict(state="absent")):
            refused = kafka("kafka_consumer_group", group=group, **args)
            assert refused.failed and refused.get("field") == "group", refused.output
            assert member["member_id"] in refused["msg"] and client_id in refused["msg"], refused["msg"]
            assert _committed(cluster, group) == _every(topic, 10)
    finally:
        consumer.close()


@pytest.mark.parametrize("args, field, words", [
    (dict(topics=["it-group-missing"], reset="earliest"), "topics", "does not exist"),
    (dict(topics=["{topic}:0,9"], reset="earliest"), "topics", "has no partition 9"),
    (dict(reset="timestamp", reset_timestamp="2024-05-01T08:00:00"), "reset_timestamp", "no time zone"),
    (dict(reset="offset", reset_offset=-1), "reset_offset", "at least 0"),
    (dict(reset="latest", reset_offset=3), "reset_offset", "goes only with reset=offset"),
])
def test_refused_input_names_the_option_and_changes_nothing(kafka, cluster, group, topic, args, field, words):
    if "topics" in args:
        args = dict(args, topics=[item.format(topic=topic) for item in args["topics"]])
    refused = kafka("kafka_consumer_group", group=group, **args)
    assert refused.failed and refused.get("field") == field and words in refused["msg"], refused.output
    assert _committed(cluster, group) == _every(topic, 10)


def test_delete_in_four_passes(kafka, cluster, group, topic):
    predicted = kafka("kafka_consumer_group", check=True, diff=True, group=group, state="absent")
    assert not predicted.failed and predicted.changed and predicted["deleted"], predicted.output
    assert _committed(cluster, group) == _every(topic, 10)
    applied = kafka("kafka_consumer_group", diff=True, group=group, state="absent")
    assert applied.changed and applied["deleted"] and applied["diff"] == predicted["diff"], applied.output
    assert _committed(cluster, group) == {}
    for check in (True, False):
        again = kafka("kafka_consumer_group", check=check, group=group, state="absent")
        assert not again.failed and not again.changed and not again["exists"], again.output
