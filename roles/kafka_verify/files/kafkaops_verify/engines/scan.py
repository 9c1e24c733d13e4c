"""The scan engine (verify's default): the checks as one ordered pass over each Kafka partition, without
a shuffle.

Spark's Kafka source reads each topic-partition as one Spark partition, in offset order (the job
sets neither minPartitions nor maxRecordsPerPartition, which would split one). A Python worker
checks each partition's records batch by batch (mapInArrow; engines.partition_scan) with numpy,
keeping per key only the sequences seen so far (as ranges) and the last one; only small summaries
come back: counts, the ranges seen per key, a few examples. Should the input not have that layout
(a partition spread over Spark partitions, or offsets not increasing), the scan says so and runs
again over the records shuffled by partition and sorted by offset.
"""

import functools
import json

from kafkaops_verify.engines.partition_scan import SCAN_SCHEMA, scan_batches
from kafkaops_verify.ranges import count_within, missing_within
from kafkaops_verify.records import spark_parsed_columns
from kafkaops_verify.report import CHECKS, partition_entries, report_of
from kafkaops_verify.session import ship_package

SCAN_COLUMNS = ("topic_index", "partition", "offset", "identity", "sequence", "reason_code")
# Records per Arrow batch handed to the scan: fewer, larger batches spend less time in Python per record.
SCAN_BATCH_RECORDS = 100000


def scan_columns(raw, topics):
    """SCAN_COLUMNS of each record, computed in the JVM: its topic as an index into topics,
    partition, offset, identity (run id|key, null when unparseable), sequence and reason code."""
    from pyspark.sql import functions as F

    columns = {
        **spark_parsed_columns(F.col("value"), F.col("key")),
        "topic_index": F.array_position(F.array(*[F.lit(topic) for topic in topics]), F.col("topic")).cast("int") - 1,
        "partition": F.col("partition").cast("int"),
        "offset": F.col("offset").cast("long"),
    }
    return raw.select(*[columns[name].alias(name) for name in SCAN_COLUMNS])


def verify_with_scan(read, bounds, range_rows, examples_per_kind=5):
    """verify with the scan: reads once, shuffles nothing; matches the ranges seen against the
    acknowledged ones in the driver."""
    topics = sorted({topic for topic, partition in bounds})
    partitions, seen = scan_records(read(bounds), topics, examples_per_kind) if bounds else ({}, {})
    matches, losing = {}, []
    for row in sorted(range_rows):
        topic, partition, run_id, key, start, end = row
        found = count_within(seen.get((topic, partition, run_id, key), []), start, end)
        entry = matches.setdefault((topic, partition), {"expected": 0, "found": 0, "lost": 0})
        entry["expected"] += end - start
        entry["found"] += found
        entry["lost"] += end - start - found
        if found < end - start:
            losing.append(row)
    counts = {
        identity: {**summary, "found": matches.get(identity, {}).get("found", 0)}
        for identity, summary in partitions.items()
    }
    per_partition = partition_entries(bounds, counts, matches)
    examples = scan_examples(partitions, seen, bounds, losing, per_partition, examples_per_kind)
    return report_of(per_partition, examples)


def scan_examples(partitions, seen, bounds, losing, per_partition, limit):
    """The first offending records of each kind, in the order and shape of the sql engine's."""
    if limit <= 0:
        return []
    kinds = {check: sum(entry[check] for entry in per_partition) for check in CHECKS}
    fields = {
        "corrupt": ("offset", "run_id", "key", "sequence", "corrupt_reason"),
        "duplicates": ("offset", "run_id", "key", "sequence"),
        "out_of_order": ("offset", "run_id", "key", "sequence", "previous_sequence"),
        "offset_gaps": ("gap_start", "gap_end"),
    }
    found = {kind: [] for kind in fields}
    for (topic, partition), summary in partitions.items():
        for kind in fields:
            for values in summary["examples"][kind]:
                named = dict(zip(fields[kind], values, strict=True))
                found[kind].append({"topic": topic, "partition": partition, **named})
    # The scan sees holes between records; those at the ends of a partition come from its bounds.
    for (topic, partition), (start, end) in bounds.items():
        summary = partitions.get((topic, partition), {})
        first, last = summary.get("first_offset"), summary.get("last_offset")
        ends = [(start, end)] if first is None else [(start, first), (last + 1, end)]
        found["offset_gaps"].extend(
            {"topic": topic, "partition": partition, "gap_start": low, "gap_end": high}
            for low, high in ends
            if high > low
        )
    examples = []
    for kind in fields:
        if kinds[kind]:
            order = "gap_start" if kind == "offset_gaps" else "offset"
            chosen = sorted(found[kind], key=lambda example: (example["topic"], example["partition"], example[order]))
            examples.extend({"kind": kind, **example} for example in chosen[:limit])
    if kinds["lost"]:
        lost = []
        for topic, partition, run_id, key, start, end in losing:
            if len(lost) >= limit:
                break
            sequences = missing_within(seen.get((topic, partition, run_id, key), []), start, end, limit - len(lost))
            identity = {"topic": topic, "partition": partition, "run_id": run_id, "key": key}
            lost.extend({"kind": "lost", **identity, "sequence": number} for number in sequences)
        examples.extend(lost)
    return examples


def scan_frame(raw, topics, examples):
    """The scan's summaries (SCAN_SCHEMA) as a DataFrame: one mapInArrow over the records, no shuffle."""
    # The workers import scan_batches from the package, which on a cluster only the shipped copy provides.
    ship_package(raw.sparkSession)
    return scan_columns(raw, topics).mapInArrow(functools.partial(scan_batches, examples=examples), SCAN_SCHEMA)


def scan_partitions(raw, topics, examples):
    """({(topic, partition): summary}, {(topic, partition, run_id, key): ranges seen}) from one scan,
    or None when a Kafka partition was not in one Spark partition in offset order."""
    partitions, seen = {}, {}
    for row in scan_frame(raw, topics, examples).collect():
        if not 0 <= row.topic_index < len(topics):
            raise ValueError("the scan read a topic it was not asked for")
        where = (topics[row.topic_index], row.partition)
        summary = json.loads(row.summary)
        if row.kind == "partition":
            if where in partitions or not summary["ordered"]:
                return None
            partitions[where] = summary
        else:
            seen[(*where, summary["run_id"], summary["key"])] = summary["seen"]
    return partitions, seen


def scan_records(raw, topics, examples):
    """scan_partitions over raw records; when their layout does not suit the scan, over the records
    shuffled by partition and sorted by offset (a second read)."""
    scanned = scan_partitions(raw, topics, examples)
    if scanned is None:
        ordered = raw.repartition("topic", "partition").sortWithinPartitions("topic", "partition", "offset")
        scanned = scan_partitions(ordered, topics, examples)
        if scanned is None:
            raise ValueError("offsets repeat within a partition: the records cannot be from Kafka")
    return scanned
