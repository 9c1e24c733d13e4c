"""How the verifier asks for records and offsets: transactional topics read_committed, the others as written
(fakes in place of Spark's Kafka source and kafka-python's consumer)."""

import json

import kafka

from kafkaops_verify import kafka_io


class _Reader:
    """Spark's DataFrameReader for the Kafka source, recording each read's options."""

    def __init__(self, reads):
        self.reads, self.options = reads, {}

    def format(self, name):
        assert name == "kafka"
        return self

    def option(self, name, value):
        self.options[name] = value
        return self

    def load(self):
        self.reads.append(self.options)
        return _Frame([self.options])

    def select(self, *columns):
        return self


class _Frame:
    def __init__(self, reads):
        self.reads = reads

    def select(self, *columns):
        return self

    def unionByName(self, other):
        return _Frame(self.reads + other.reads)


class _Spark:
    def __init__(self):
        self.reads = []

    @property
    def read(self):
        return _Reader(self.reads)


def test_transactional_topics_are_read_committed_and_the_others_as_written():
    bounds = {("plain", 0): (0, 5), ("txn", 0): (2, 9), ("txn", 1): (0, 4)}
    frame = kafka_io.read_topics(_Spark(), "b:9092", bounds, {"isolation.level": "read_uncommitted"}, {"txn"})
    plain, committed = frame.reads
    assert json.loads(plain["assign"]) == {"plain": [0]}
    assert plain["kafka.isolation.level"] == "read_uncommitted"
    assert json.loads(committed["assign"]) == {"txn": [0, 1]}
    # Forced, whatever the options say: an uncommitted read would show aborted records.
    assert committed["kafka.isolation.level"] == "read_committed"
    assert json.loads(committed["endingOffsets"]) == {"txn": {"0": 9, "1": 4}}


def test_without_transactional_topics_there_is_one_read():
    frame = kafka_io.read_topics(_Spark(), "b:9092", {("plain", 0): (0, 5)}, {})
    assert len(frame.reads) == 1 and "kafka.isolation.level" not in frame.reads[0]


class _Consumer:
    made = []

    def __init__(self, bootstrap_servers, enable_auto_commit, **settings):
        self.settings = settings
        type(self).made.append(settings)

    def partitions_for_topic(self, topic):
        return {0} if topic != "gone" else None

    def beginning_offsets(self, partitions):
        return dict.fromkeys(partitions, 0)

    def end_offsets(self, partitions):
        # The last stable offset stops before an open transaction; the high watermark does not.
        end = 7 if self.settings["isolation_level"] == "read_committed" else 10
        return dict.fromkeys(partitions, end)

    def close(self):
        pass


def test_the_end_of_a_transactional_topic_is_its_last_stable_offset(monkeypatch):
    monkeypatch.setattr(kafka, "KafkaConsumer", _Consumer)
    bounds, missing = kafka_io.capture_offsets("b:9092", ["plain", "txn", "gone"], {"request_timeout_ms": 1}, {"txn"})
    assert bounds == {("plain", 0): (0, 10), ("txn", 0): (0, 7)}
    assert missing == ["gone"]
    assert [settings["isolation_level"] for settings in _Consumer.made] == ["read_uncommitted", "read_committed"]
