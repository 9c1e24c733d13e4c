"""The verifier's Kafka I/O: the offsets to read, captured with kafka-python, and the records, read
through Spark's Kafka source."""

import json


def capture_offsets(bootstrap_servers, topics, client_options, committed_topics=()):
    """{(topic, partition): (log start offset, end offset)} now, for every partition of the topics.

    Topics that do not exist are returned apart: their acknowledged records all count as lost. The end of
    a topic in committed_topics is its last stable offset (read_committed): a transaction still open there
    holds back what a read_committed reader is given, and reading up to the high watermark instead would
    wait on it.
    """
    bounds, missing = {}, []
    plain = [topic for topic in topics if topic not in committed_topics]
    committed = [topic for topic in topics if topic in committed_topics]
    for group, isolation in ((plain, "read_uncommitted"), (committed, "read_committed")):
        if group:
            found, absent = _capture(bootstrap_servers, group, {**client_options, "isolation_level": isolation})
            bounds.update(found)
            missing.extend(absent)
    return bounds, sorted(missing)


def _capture(bootstrap_servers, topics, client_options):
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(bootstrap_servers=bootstrap_servers, enable_auto_commit=False, **client_options)
    try:
        partitions, missing = [], []
        for topic in topics:
            numbers = consumer.partitions_for_topic(topic)
            if not numbers:
                missing.append(topic)
                continue
            partitions.extend(TopicPartition(topic, number) for number in sorted(numbers))
        starts = consumer.beginning_offsets(partitions) if partitions else {}
        ends = consumer.end_offsets(partitions) if partitions else {}
    finally:
        consumer.close()
    return {(tp.topic, tp.partition): (starts[tp], ends[tp]) for tp in partitions}, missing


def offsets_json(bounds, position):
    offsets = {}
    for (topic, partition), pair in bounds.items():
        offsets.setdefault(topic, {})[str(partition)] = pair[position]
    return json.dumps(offsets, sort_keys=True)


# The job reads whole partitions: larger fetches than the Java consumer's defaults (1 MiB per
# partition, 64 KiB socket buffer) cost fewer round trips; --kafka-option overrides them.
CONSUMER_DEFAULTS = {"max.partition.fetch.bytes": str(8 << 20), "receive.buffer.bytes": str(1 << 20)}


def read_topics(spark, bootstrap_servers, bounds, kafka_options, committed_topics=()):
    """The records in [start, end) of every partition in bounds, through Spark's Kafka source; topics in
    committed_topics with isolation.level read_committed (no record of an aborted transaction), the others
    as written. Two reads, put together: each topic-partition stays one Spark partition in offset order,
    which the scan engine counts on."""
    plain = {where: pair for where, pair in bounds.items() if where[0] not in committed_topics}
    committed = {where: pair for where, pair in bounds.items() if where[0] in committed_topics}
    frames = [
        _read(spark, bootstrap_servers, group, {**kafka_options, **extra})
        for group, extra in ((plain, {}), (committed, {"isolation.level": "read_committed"}))
        if group
    ]
    if not frames:
        return _read(spark, bootstrap_servers, bounds, kafka_options)
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame)
    return result


def _read(spark, bootstrap_servers, bounds, kafka_options):
    assign = {}
    for topic, partition in bounds:
        assign.setdefault(topic, []).append(partition)
    reader = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap_servers)
        .option("assign", json.dumps(assign, sort_keys=True))
        .option("startingOffsets", offsets_json(bounds, 0))
        .option("endingOffsets", offsets_json(bounds, 1))
        # Records deleted between capture and read must be reported, not abort the job.
        .option("failOnDataLoss", "false")
    )
    for name, value in {**CONSUMER_DEFAULTS, **kafka_options}.items():
        reader = reader.option("kafka." + name, value)
    return reader.load().select("topic", "partition", "offset", "key", "value")
