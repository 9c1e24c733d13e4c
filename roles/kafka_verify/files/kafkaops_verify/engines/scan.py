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
from kafkaops_verify.ranges import count_within, missing_within, present_within
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


def verify_with_scan(read, bounds, range_rows, examples_per_kind=5, aborted_rows=(), committed_topics=()):
    """verify with the scan: reads once, shuffles nothing; matches the ranges seen against the
    acknowledged ones, and against the aborted ones, in the driver."""
    topics = sorted({topic for topic, partition in bounds})
    partitions, seen = scan_records(read(bounds), topics, examples_per_kind) if bounds else ({}, {})
    visible = aborted_visible(seen, aborted_rows, examples_per_kind)
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
        identity: {
            **summary,
            "found": matches.get(identity, {}).get("found", 0),
            "aborted_visible": visible["counts"].get(identity, 0),
        }
        for identity, summary in partitions.items()
    }
    per_partition = partition_entries(bounds, counts, matches, committed_topics)
    examples = scan_examples(partitions, seen, bounds, losing, per_partition, examples_per_kind, committed_topics)
    examples.extend(visible["examples"] if any(entry["aborted_visible"] for entry in per_partition) else [])
    return report_of(per_partition, examples)


def aborted_visible(seen, aborted_rows, limit):
    """Records of aborted ranges among those seen (first copies), in whichever partition of their topic:
    {"counts": {(topic, partition): n}, "examples": the first few, as the sql engine orders them}."""
    partitions_of = {}
    for topic, partition, run_id, key in seen:
        partitions_of.setdefault((topic, run_id, key), []).append(partition)
    counts, found = {}, []
    for topic, run_id, key, start, end in aborted_rows:
        for partition in partitions_of.get((topic, run_id, key), ()):
            ranges = seen[(topic, partition, run_id, key)]
            number = count_within(ranges, start, end)
            if number:
                counts[(topic, partition)] = counts.get((topic, partition), 0) + number
                found.extend(
                    {"topic": topic, "partition": partition, "run_id": run_id, "key": key, "sequence": sequence}
                    for sequence in present_within(ranges, start, end, limit)
                )
    order = ("topic", "partition", "run_id", "key", "sequence")
    chosen = sorted(found, key=lambda example: tuple(example[field] for field in order))[: max(limit, 0)]
    return {"counts": counts, "examples": [{"kind": "aborted_visible", **example} for example in chosen]}


def scan_examples(partitions, seen, bounds, losing, per_partition, limit, committed_topics=()):
    """The first offending records of each kind, in the order and shape of the sql engine's; aborted records
    that are visible come apart (aborted_visible)."""
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
            if kind == "offset_gaps" and topic in committed_topics:
                continue  # not holes there: report.partition_entries says why
            for values in summary["examples"][kind]:
                named = dict(zip(fields[kind], values, strict=True))
                found[kind].append({"topic": topic, "partition": partition, **named})
    # The scan sees holes between records; those at the ends of a partition come from its bounds.
    for (topic, partition), (start, end) in bounds.items():
        if topic in committed_topics:
            continue
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
