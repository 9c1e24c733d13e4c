"""Proves that every acknowledged record is in Kafka exactly once, in order per key, and intact.

Reads the chosen topics with Spark's Kafka source in batch, from each partition's log start to the
end offset captured when the job starts, and checks per partition and key:

- lost: a sequence a manifest says was acknowledged has no record.
- duplicates: a record whose (run, key, sequence) already appeared earlier in its partition; each
  extra copy counts once.
- out_of_order: a record whose sequence is below the one before it in its key and partition, by
  offset; extra copies of a record count as duplicates, not here.
- corrupt: a value that does not parse, whose key field differs from the record key, or whose
  payload does not match its crc32.
- offset_gaps: offsets in [start, end) with no record. Spark's Kafka source skips unreadable
  offsets without a word, so this is counted here. It assumes plain topics: compaction removes
  offsets and transaction markers take offsets (both show up as gaps), so verify topics with
  cleanup.policy=delete written without transactions.

Values are parsed in the JVM (Spark SQL expressions). The checks then run one of two ways, with the
same results: the scan engine (the default) reads each partition once, in offset order, and checks
it in a single pass in Spark's Python workers (mapInArrow, numpy), shuffling nothing; the sql engine
evaluates them as Spark SQL window functions, joins and aggregates over the records shuffled by
partition and key. Writes the JSON report, prints a summary and exits 1 when a check fails (2 when
the job cannot run).
"""

import argparse
import bisect
import json
import os
import sys
import time
from datetime import UTC, datetime

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from kafkaops_records import (  # noqa: E402
    CORRUPT_REASONS,
    SEPARATOR,
    ManifestError,
    manifest_ranges,
    parse_client_options,
    parse_options,
    read_manifest,
)

CHECKS = ("lost", "duplicates", "out_of_order", "corrupt", "offset_gaps")
RANGE_COLUMNS = ("topic", "partition", "run_id", "key", "range_start", "range_end")
BOUNDS_COLUMNS = ("topic", "partition", "start_offset", "end_offset")


# The checks as Spark SQL (the sql engine): functions over DataFrames, so each can be tested on a few rows.
#
# raw:     topic, partition, offset, key (binary), value (binary)  as Spark's Kafka source gives them
# records: topic, partition, offset, run_id, key, sequence, corrupt_reason  (parse_records)
# ranges:  topic, partition, run_id, key, range_start, range_end   (acknowledged, half-open)
# bounds:  topic, partition, start_offset, end_offset              (what was to be read, half-open)


def parse_records(raw):
    from pyspark.sql import functions as F

    from kafkaops_records import spark_parsed_columns

    parsed = spark_parsed_columns(F.col("value"), F.col("key"))
    return raw.select(
        "topic",
        F.col("partition").cast("int").alias("partition"),
        F.col("offset").cast("long").alias("offset"),
        parsed["run_id"].alias("run_id"),
        parsed["key"].alias("key"),
        parsed["sequence"].alias("sequence"),
        parsed["corrupt_reason"].alias("corrupt_reason"),
    )


def flag_records(records):
    """Adds is_duplicate, is_out_of_order and previous_sequence to every record.

    One shuffle by (topic, partition, run, key) serves both windows and the aggregation after them.
    An unparseable record has no identity: it is never a duplicate nor out of order.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    identity = ["topic", "partition", "run_id", "key"]
    by_sequence = Window.partitionBy(*identity, "sequence").orderBy("offset")
    # The previous first copy: later copies of a record must not hide a real reordering.
    before = Window.partitionBy(*identity).orderBy("offset").rowsBetween(Window.unboundedPreceding, -1)
    identified = F.col("sequence").isNotNull()
    first_copy_sequence = F.when(F.col("copy") == 1, F.col("sequence"))
    return (
        records.repartition(*identity)
        .withColumn("copy", F.when(identified, F.row_number().over(by_sequence)).otherwise(F.lit(1)))
        .withColumn("previous_sequence", F.last(first_copy_sequence, ignorenulls=True).over(before))
        .withColumn("is_duplicate", identified & (F.col("copy") > 1))
        .withColumn(
            "is_out_of_order",
            F.coalesce(
                identified & (F.col("copy") == 1) & (F.col("sequence") < F.col("previous_sequence")),
                F.lit(False),
            ),
        )
        .drop("copy")
    )


def find_corrupt(records):
    from pyspark.sql import functions as F

    return records.where(F.col("corrupt_reason").isNotNull())


def find_duplicates(flagged):
    return flagged.where("is_duplicate")


def find_out_of_order(flagged):
    return flagged.where("is_out_of_order")


def assign_ranges(flagged, ranges):
    """Adds range_start and range_end: the acknowledged range each first copy of a record falls in.

    Ranges are few (about one per run and key) and are broadcast, so the records are not shuffled
    again; a record outside every range (not acknowledged, or a duplicate) gets nulls.
    """
    from pyspark.sql import functions as F

    renamed = ranges.select(*[F.col(column).alias("acknowledged_" + column) for column in RANGE_COLUMNS])
    condition = (
        (F.col("topic") == F.col("acknowledged_topic"))
        & (F.col("partition") == F.col("acknowledged_partition"))
        & (F.col("run_id") == F.col("acknowledged_run_id"))
        & (F.col("key") == F.col("acknowledged_key"))
        & (F.col("sequence") >= F.col("acknowledged_range_start"))
        & (F.col("sequence") < F.col("acknowledged_range_end"))
        & ~F.col("is_duplicate")
    )
    return (
        flagged.join(F.broadcast(renamed), condition, "left")
        .withColumnRenamed("acknowledged_range_start", "range_start")
        .withColumnRenamed("acknowledged_range_end", "range_end")
        .drop(*["acknowledged_" + column for column in ("topic", "partition", "run_id", "key")])
    )


def aggregate_groups(assigned):
    """Counts per (topic, partition, run, key, acknowledged range): small, and all the report needs.

    The grouping keys extend the shuffle keys of flag_records, so Spark aggregates without a new shuffle.
    """
    from pyspark.sql import functions as F

    def count_where(condition):
        return F.sum(F.when(condition, 1).otherwise(0)).cast("long")

    identified_first_copy = F.col("sequence").isNotNull() & ~F.col("is_duplicate")
    return assigned.groupBy("topic", "partition", "run_id", "key", "range_start", "range_end").agg(
        F.count(F.lit(1)).alias("records"),
        count_where(F.col("corrupt_reason").isNotNull()).alias("corrupt"),
        count_where(F.col("is_duplicate")).alias("duplicates"),
        count_where(F.col("is_out_of_order")).alias("out_of_order"),
        count_where(identified_first_copy).alias("identified"),
        count_where(identified_first_copy & F.col("range_start").isNotNull()).alias("found"),
    )


def match_ranges(groups, ranges):
    """Per acknowledged range: how many of its sequences were found (first copies), and how many are lost."""
    from pyspark.sql import functions as F

    found = (
        groups.where(F.col("range_start").isNotNull())
        .groupBy(*RANGE_COLUMNS)
        .agg(F.sum("found").alias("found"))
    )
    return (
        ranges.select(*RANGE_COLUMNS)
        .join(found, list(RANGE_COLUMNS), "left")
        .withColumn("found", F.coalesce(F.col("found"), F.lit(0)).cast("long"))
        .withColumn("lost", F.col("range_end") - F.col("range_start") - F.col("found"))
    )


def find_lost(records, ranges):
    """Each lost sequence as a row: the acknowledged ranges expanded, minus the records present.

    Expands every range given, so callers pass only ranges known to have losses (match_ranges).
    """
    from pyspark.sql import functions as F

    expected = ranges.select(
        "topic",
        "partition",
        "run_id",
        "key",
        F.explode(F.sequence(F.col("range_start"), F.col("range_end") - 1)).alias("sequence"),
    )
    present = records.where(F.col("sequence").isNotNull()).select("topic", "partition", "run_id", "key", "sequence")
    return expected.join(present, ["topic", "partition", "run_id", "key", "sequence"], "left_anti")


def partition_offsets(records, bounds):
    """Per partition: offsets expected, records read, offsets missing (Kafka offsets are unique)."""
    from pyspark.sql import functions as F

    read = records.groupBy("topic", "partition").agg(
        F.count(F.lit(1)).alias("records"),
        F.min("offset").alias("first_offset"),
        F.max("offset").alias("last_offset"),
    )
    return (
        bounds.select(*BOUNDS_COLUMNS)
        .join(read, ["topic", "partition"], "left")
        .withColumn("records", F.coalesce(F.col("records"), F.lit(0)).cast("long"))
        .withColumn("offset_gaps", F.col("end_offset") - F.col("start_offset") - F.col("records"))
    )


def find_offset_holes(records, bounds):
    """Each run of missing offsets as (topic, partition, gap_start, gap_end), half-open."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    in_order = Window.partitionBy("topic", "partition").orderBy("offset")
    # Sentinel rows at start - 1 and end close the holes at both ends of a partition.
    sentinels = bounds.select(
        "topic", "partition", (F.col("start_offset") - 1).alias("offset")
    ).unionByName(bounds.select("topic", "partition", F.col("end_offset").alias("offset")))
    offsets = records.select("topic", "partition", "offset").unionByName(sentinels)
    return (
        offsets.withColumn("previous_offset", F.lag("offset").over(in_order))
        .where(F.col("offset") - F.col("previous_offset") > 1)
        .select(
            "topic",
            "partition",
            (F.col("previous_offset") + 1).alias("gap_start"),
            F.col("offset").alias("gap_end"),
        )
    )


def summarize_ranges(matched):
    """Per partition: expected and lost, from match_ranges."""
    from pyspark.sql import functions as F

    return matched.groupBy("topic", "partition").agg(
        F.sum(F.col("range_end") - F.col("range_start")).alias("expected"),
        F.sum("found").alias("found"),
        F.sum("lost").alias("lost"),
    )


def summarize_groups(groups):
    """Per partition: records read, corrupt, duplicates, out of order, identified first copies, found."""
    from pyspark.sql import functions as F

    counts = ("records", "corrupt", "duplicates", "out_of_order", "identified", "found")
    return groups.groupBy("topic", "partition").agg(*[F.sum(name).cast("long").alias(name) for name in counts])


# The scan: the same checks as one ordered pass over each Kafka partition, without a shuffle.
#
# Spark's Kafka source reads each topic-partition as one Spark partition, in offset order (the job
# sets neither minPartitions nor maxRecordsPerPartition, which would split one). A Python worker
# checks each partition's records batch by batch (mapInArrow) with numpy, keeping per key only the
# sequences seen so far (as ranges) and the last one; only small summaries come back: counts, the
# ranges seen per key, a few examples. Should the input not have that layout (a partition spread
# over Spark partitions, or offsets not increasing), the scan says so and verify runs it again
# over the records shuffled by partition and sorted by offset.

SCAN_SCHEMA = "topic_index int, partition int, kind string, summary string"
SCAN_COLUMNS = ("topic_index", "partition", "offset", "identity", "sequence", "reason_code")
# Records per Arrow batch handed to the scan: fewer, larger batches spend less time in Python per record.
SCAN_BATCH_RECORDS = 100000


def scan_columns(raw, topics):
    """SCAN_COLUMNS of each record, computed in the JVM: its topic as an index into topics,
    partition, offset, identity (run id|key, null when unparseable), sequence and reason code."""
    from pyspark.sql import functions as F

    from kafkaops_records import spark_parsed_columns

    columns = {
        **spark_parsed_columns(F.col("value"), F.col("key")),
        "topic_index": F.array_position(F.array(*[F.lit(topic) for topic in topics]), F.col("topic")).cast("int") - 1,
        "partition": F.col("partition").cast("int"),
        "offset": F.col("offset").cast("long"),
    }
    return raw.select(*[columns[name].alias(name) for name in SCAN_COLUMNS])


class PartitionScan:
    """The checks over the records of one Kafka partition, given in offset order, batch by batch.

    Per identity (run id and key) it keeps the sequences seen (first copies) as sorted half-open
    ranges, the highest of them and the last one by offset. A batch where every identity's
    sequences only climb past everything seen before is handled for all identities at once; an
    identity whose sequences repeat or go back is handled on its own, still with array operations.
    """

    def __init__(self, examples):
        import numpy as np

        self.examples_limit = examples
        self.records = self.corrupt = self.duplicates = self.out_of_order = self.identified = 0
        self.first_offset = self.last_offset = None
        self.ordered = True
        self.identities = {}  # "run|key" -> id
        self.names = []
        self.seen = []  # per id: [[start, end], ...], sorted, merged
        self.highest = np.empty(0, dtype=np.int64)  # per id: highest sequence seen, -1 before any
        self.last = np.empty(0, dtype=np.int64)  # per id: sequence of the last first copy, -1 before any
        self.examples = {"corrupt": [], "duplicates": [], "out_of_order": [], "offset_gaps": []}

    def _room(self, kind):
        return max(self.examples_limit - len(self.examples[kind]), 0)

    def _ids(self, names):
        import numpy as np

        ids = np.empty(len(names), dtype=np.int64)
        for position, name in enumerate(names):
            number = self.identities.get(name)
            if number is None:
                number = self.identities[name] = len(self.names)
                self.names.append(name)
                self.seen.append([])
            ids[position] = number
        grown = len(self.names) - len(self.highest)
        if grown > 0:
            self.highest = np.concatenate([self.highest, np.full(grown, -1, dtype=np.int64)])
            self.last = np.concatenate([self.last, np.full(grown, -1, dtype=np.int64)])
        return ids

    def _identity(self, number):
        run_id, key = self.names[number].split(SEPARATOR, 1)
        return run_id, key

    def add(self, offsets, codes, names, sequences, reasons):
        """One batch, in offset order: numpy arrays of offsets, identity codes into names (-1 for an
        unparseable value), sequences (anything where the code is -1) and reason codes."""
        import numpy as np

        if not self.ordered or len(offsets) == 0:
            return
        previous = self.last_offset
        steps = np.diff(offsets) if previous is None else np.diff(offsets, prepend=previous)
        if (steps <= 0).any():
            self.ordered = False
            return
        if self._room("offset_gaps"):
            # Holes between records; those before the first and after the last are the driver's.
            hole_ends = offsets[1:] if previous is None else offsets
            holes = np.flatnonzero(steps > 1)[: self._room("offset_gaps")]
            self.examples["offset_gaps"].extend(
                [int(hole_ends[hole] - steps[hole] + 1), int(hole_ends[hole])] for hole in holes
            )
        if self.first_offset is None:
            self.first_offset = int(offsets[0])
        self.last_offset = int(offsets[-1])
        self.records += len(offsets)

        ids = self._ids(names)
        corrupt = np.flatnonzero(reasons)
        self.corrupt += len(corrupt)
        for row in corrupt[: self._room("corrupt")]:
            code = codes[row]
            run_id, key = self._identity(ids[code]) if code >= 0 else (None, None)
            sequence = int(sequences[row]) if code >= 0 else None
            reason = CORRUPT_REASONS[reasons[row] - 1]
            self.examples["corrupt"].append([int(offsets[row]), run_id, key, sequence, reason])

        identified = codes >= 0
        if not identified.all():
            codes, sequences, offsets = codes[identified], sequences[identified], offsets[identified]
        if len(codes) == 0:
            return
        # Each identity's records together, still in offset order.
        order = np.argsort(codes, kind="stable")
        numbers = ids[codes[order]]
        sequences = sequences[order]
        offsets = offsets[order]
        size = len(numbers)
        starts = np.flatnonzero(np.diff(numbers, prepend=-1))
        ends = np.append(starts[1:], size)
        group_numbers = numbers[starts]
        # Before each record: the one before it in its identity, or the highest seen for the first.
        before = np.empty(size, dtype=np.int64)
        before[1:] = sequences[:-1]
        before[starts] = self.highest[group_numbers]
        climbing = np.logical_and.reduceat(sequences > before, starts)
        tangled = {"duplicates": [], "out_of_order": []}
        for group in np.flatnonzero(~climbing):
            start, end = starts[group], ends[group]
            self._add_tangled(group_numbers[group], sequences[start:end], offsets[start:end], tangled)
        # Identities were taken one at a time; the examples are the first records by offset.
        for kind, candidates in tangled.items():
            self.examples[kind].extend(sorted(candidates)[: self._room(kind)])
        if not climbing.any():
            return
        # The common case: nothing repeats or goes back, so every record is a first copy in order,
        # and the sequences only extend the ranges seen, one range per run of consecutive numbers.
        climbing_ends = ends[climbing]
        climbing_numbers = group_numbers[climbing]
        self.identified += int((climbing_ends - starts[climbing]).sum())
        self.highest[climbing_numbers] = sequences[climbing_ends - 1]
        self.last[climbing_numbers] = sequences[climbing_ends - 1]
        breaks = sequences != before + 1
        breaks[starts] = True
        run_starts = np.flatnonzero(breaks & np.repeat(climbing, ends - starts))
        # A run ends where the next one starts, or at the end of its identity's records.
        group_of_run = np.searchsorted(starts, run_starts, side="right") - 1
        run_ends = np.minimum(np.append(run_starts[1:], size), ends[group_of_run])
        for first, stop, number in zip(
            sequences[run_starts].tolist(),
            (sequences[run_ends - 1] + 1).tolist(),
            numbers[run_starts].tolist(),
            strict=True,
        ):
            seen = self.seen[number]
            if seen and seen[-1][1] == first:
                seen[-1][1] = stop
            else:
                seen.append([first, stop])

    def _add_tangled(self, number, sequences, offsets, examples):
        """One identity's records of a batch whose sequences repeat or go back (offset order);
        appends to examples {kind: [...]} its first records of each kind."""
        import numpy as np

        seen = self.seen[number]
        if seen:
            seen_starts = np.fromiter((pair[0] for pair in seen), dtype=np.int64, count=len(seen))
            seen_ends = np.fromiter((pair[1] for pair in seen), dtype=np.int64, count=len(seen))
            position = np.searchsorted(seen_starts, sequences, side="right") - 1
            repeated = (position >= 0) & (sequences < seen_ends[np.maximum(position, 0)])
        else:
            repeated = np.zeros(len(sequences), dtype=bool)
        first_rows = np.unique(sequences, return_index=True)[1]
        first_in_batch = np.zeros(len(sequences), dtype=bool)
        first_in_batch[first_rows] = True
        duplicate = repeated | ~first_in_batch
        copies = np.flatnonzero(duplicate)
        run_id, key = self._identity(number)
        self.duplicates += len(copies)
        for row in copies[: self._room("duplicates")]:
            examples["duplicates"].append([int(offsets[row]), run_id, key, int(sequences[row])])
        firsts = np.flatnonzero(~duplicate)
        if len(firsts) == 0:
            return
        first_sequences = sequences[firsts]
        previous = np.empty(len(firsts), dtype=np.int64)
        previous[0] = self.last[number]
        previous[1:] = first_sequences[:-1]
        late = np.flatnonzero(first_sequences < previous)
        self.out_of_order += len(late)
        for index in late[: self._room("out_of_order")]:
            row = firsts[index]
            examples["out_of_order"].append([int(offsets[row]), run_id, key, int(sequences[row]), int(previous[index])])
        self.identified += len(firsts)
        self.last[number] = first_sequences[-1]
        self.highest[number] = max(int(self.highest[number]), int(first_sequences.max()))
        self.seen[number] = merge_ranges(seen + sequence_runs(np.sort(first_sequences)))

    def summaries(self):
        """The partition's summary, then one per identity with the ranges seen, as (kind, dict)."""
        yield "partition", {
            "records": self.records,
            "corrupt": self.corrupt,
            "duplicates": self.duplicates,
            "out_of_order": self.out_of_order,
            "identified": self.identified,
            "first_offset": self.first_offset,
            "last_offset": self.last_offset,
            "ordered": self.ordered,
            "examples": self.examples,
        }
        for number in range(len(self.names)):
            run_id, key = self._identity(number)
            yield "identity", {"run_id": run_id, "key": key, "seen": self.seen[number]}


def sequence_runs(sorted_sequences):
    """[[start, end], ...] of the runs of consecutive numbers in a sorted array of distinct integers."""
    import numpy as np

    if len(sorted_sequences) == 0:
        return []
    cuts = np.flatnonzero(np.diff(sorted_sequences) != 1) + 1
    starts = sorted_sequences[np.concatenate([[0], cuts])]
    ends = sorted_sequences[np.concatenate([cuts - 1, [len(sorted_sequences) - 1]])] + 1
    return [[int(start), int(end)] for start, end in zip(starts, ends, strict=True)]


def scan_batches(batches, examples):
    """mapInArrow body: feeds each Kafka partition's records (SCAN_COLUMNS) to a PartitionScan, then
    yields the summaries (SCAN_SCHEMA) of every partition this Spark partition held."""
    import json

    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    scans = {}
    for batch in batches:
        if batch.num_rows == 0:
            continue
        sources = (batch.column("topic_index").to_numpy().astype(np.int64) << 32) | batch.column("partition").to_numpy()
        if (sources == sources[0]).all():
            pieces = [(int(sources[0]), batch)]
        else:
            pieces = [(int(source), batch.filter(pa.array(sources == source))) for source in np.unique(sources)]
        for source, piece in pieces:
            if source not in scans:
                scans[source] = PartitionScan(examples)
            identities = pc.dictionary_encode(piece.column("identity"))
            scans[source].add(
                piece.column("offset").to_numpy(),
                identities.indices.fill_null(-1).to_numpy(),
                identities.dictionary.to_pylist(),
                piece.column("sequence").fill_null(-1).to_numpy(),
                piece.column("reason_code").to_numpy(),
            )
    rows = [
        {"topic_index": source >> 32, "partition": source & 0xFFFFFFFF, "kind": kind, "summary": json.dumps(summary)}
        for source, scan in scans.items()
        for kind, summary in scan.summaries()
    ]
    schema = pa.schema(
        [("topic_index", pa.int32()), ("partition", pa.int32()), ("kind", pa.string()), ("summary", pa.string())]
    )
    yield pa.RecordBatch.from_pylist(rows, schema=schema)


# Building the inputs


def merge_ranges(ranges):
    merged = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def ranges_from_manifests(manifests):
    """Rows for the ranges DataFrame; overlapping ranges of one run (two manifests of it) are merged."""
    by_identity = {}
    for manifest in manifests:
        for topic, partition, run_id, key, start, end in manifest_ranges(manifest):
            if end > start:
                by_identity.setdefault((topic, int(partition), run_id, key), []).append((int(start), int(end)))
    rows = []
    for identity, ranges in sorted(by_identity.items()):
        rows.extend((*identity, start, end) for start, end in merge_ranges(ranges))
    return rows


def ranges_frame(spark, rows):
    schema = "topic string, partition int, run_id string, key string, range_start long, range_end long"
    return spark.createDataFrame(rows, schema)


def bounds_frame(spark, bounds):
    """bounds: {(topic, partition): (start, end)}."""
    schema = "topic string, partition int, start_offset long, end_offset long"
    rows = [(topic, partition, start, end) for (topic, partition), (start, end) in sorted(bounds.items())]
    return spark.createDataFrame(rows, schema)


def capture_offsets(bootstrap_servers, topics, client_options):
    """{(topic, partition): (log start offset, end offset)} now, for every partition of the topics.

    Topics that do not exist are returned apart: their acknowledged records all count as lost.
    """
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


def read_topics(spark, bootstrap_servers, bounds, kafka_options):
    """The records in [start, end) of every partition in bounds, through Spark's Kafka source."""
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


# The job


def no_records(spark):
    schema = "topic string, partition int, offset long, run_id string, key string, sequence long, corrupt_reason string"
    return spark.createDataFrame([], schema)


def rows_as_dicts(frame, limit):
    return [row.asDict() for row in frame.limit(limit).collect()]


def collect_examples(spark, read, bounds, ranges, per_partition, limit):
    """A few offending records per kind; reads again only the partitions with a violation."""
    examples = []
    if limit <= 0:
        return examples
    faulty = {
        (entry["topic"], entry["partition"]): bounds[(entry["topic"], entry["partition"])]
        for entry in per_partition
        if (entry["topic"], entry["partition"]) in bounds and any(entry[check] for check in CHECKS)
    }
    records = (parse_records(read(faulty)) if faulty else no_records(spark)).cache()
    kinds = {check: sum(entry[check] for entry in per_partition) for check in CHECKS}
    if kinds["corrupt"]:
        for row in rows_as_dicts(find_corrupt(records).orderBy("topic", "partition", "offset"), limit):
            examples.append({"kind": "corrupt", **row})
    if kinds["duplicates"] or kinds["out_of_order"]:
        flagged = flag_records(records)
        for kind, finder in (("duplicates", find_duplicates), ("out_of_order", find_out_of_order)):
            if kinds[kind]:
                rows = finder(flagged).drop("corrupt_reason", "is_duplicate", "is_out_of_order")
                if kind == "duplicates":
                    rows = rows.drop("previous_sequence")
                for row in rows_as_dicts(rows.orderBy("topic", "partition", "offset"), limit):
                    examples.append({"kind": kind, **row})
    if kinds["offset_gaps"]:
        holes = find_offset_holes(records, bounds_frame(spark, faulty))
        for row in rows_as_dicts(holes.orderBy("topic", "partition", "gap_start"), limit):
            examples.append({"kind": "offset_gaps", **row})
    if kinds["lost"]:
        # Expanding a few losing ranges is enough for examples.
        lost = find_lost(records, ranges.limit(limit)).orderBy("topic", "partition", "run_id", "key", "sequence")
        for row in rows_as_dicts(lost, limit):
            examples.append({"kind": "lost", **row})
    records.unpersist()
    return examples


def partition_entries(bounds, counts, matches):
    """The report's per_partition list: counts {(topic, partition): records, corrupt, duplicates,
    out_of_order, identified, found}, matches {(topic, partition): expected, lost}."""
    per_partition = []
    for identity in sorted(set(bounds) | set(matches)):
        flags = counts.get(identity, {})
        matched = matches.get(identity, {})
        start, end = bounds.get(identity, (None, None))
        records = flags.get("records", 0)
        per_partition.append(
            {
                "topic": identity[0],
                "partition": identity[1],
                "start_offset": start,
                "end_offset": end,
                "exists": identity in bounds,
                "records": records,
                "expected": matched.get("expected") or 0,
                "lost": matched.get("lost") or 0,
                "duplicates": flags.get("duplicates", 0),
                "out_of_order": flags.get("out_of_order", 0),
                "corrupt": flags.get("corrupt", 0),
                "offset_gaps": (end - start - records) if identity in bounds else 0,
                # Present records that no manifest acknowledged: other runs, or sends whose
                # acknowledgement never arrived. Not a violation.
                "unacknowledged": flags.get("identified", 0) - flags.get("found", 0),
            }
        )
    return per_partition


def report_of(per_partition, examples):
    totals = {check: sum(entry[check] for entry in per_partition) for check in CHECKS}
    return {
        "ok": not any(totals.values()),
        "records": sum(entry["records"] for entry in per_partition),
        **totals,
        "expected": sum(entry["expected"] for entry in per_partition),
        "unacknowledged": sum(entry["unacknowledged"] for entry in per_partition),
        "per_partition": per_partition,
        "examples": examples,
    }


def verify(spark, read, bounds, range_rows, examples_per_kind=5, engine="scan"):
    """Runs every check; read(bounds) returns the raw DataFrame of those partitions. Returns the report.

    engine "scan" (scan_records) reads once and shuffles nothing; "sql" runs the checks as Spark SQL
    (windows over a shuffle by partition and key), for executors without pyarrow and numpy.
    """
    if engine == "sql":
        return verify_with_sql(spark, read, bounds, range_rows, examples_per_kind)
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


def count_within(seen, start, end):
    """How many sequences of [start, end) the sorted, merged ranges seen hold."""
    total = 0
    for first, stop in seen[max(bisect.bisect_right(seen, [start, float("inf")]) - 1, 0) :]:
        if first >= end:
            break
        total += max(0, min(stop, end) - max(first, start))
    return total


def missing_within(seen, start, end, limit):
    """Up to limit sequences of [start, end) that the sorted, merged ranges seen do not hold, in order."""
    missing = []
    position = start
    for first, stop in seen:
        if len(missing) >= limit or position >= end:
            break
        if stop <= position:
            continue
        missing.extend(range(position, min(first, end, position + limit - len(missing))))
        position = max(position, stop)
    if position < end:
        missing.extend(range(position, min(end, position + limit - len(missing))))
    return missing[:limit]


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
    from pyspark import cloudpickle

    # Python workers may not find this file (other hosts, other folders): its functions travel with the job.
    if __name__ != "__main__":
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
    return scan_columns(raw, topics).mapInArrow(lambda batches: scan_batches(batches, examples), SCAN_SCHEMA)


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


def verify_with_sql(spark, read, bounds, range_rows, examples_per_kind=5):
    """verify with the checks as Spark SQL: window functions over the records shuffled by partition
    and key, then aggregates; examples come from a second read of the faulty partitions."""
    from pyspark.sql import functions as F

    ranges = ranges_frame(spark, range_rows)
    flagged = flag_records(parse_records(read(bounds)) if bounds else no_records(spark))
    # One pass over the records: flags, manifest matches and counts all come from the same shuffled
    # rows; only the small per-group counts are kept.
    groups = aggregate_groups(assign_ranges(flagged, ranges)).cache()
    flag_rows = {(row.topic, row.partition): row.asDict() for row in summarize_groups(groups).collect()}
    matched = match_ranges(groups, ranges).cache()
    range_rows_by_partition = {(row.topic, row.partition): row.asDict() for row in summarize_ranges(matched).collect()}
    per_partition = partition_entries(bounds, flag_rows, range_rows_by_partition)
    losing_ranges = matched.where(F.col("lost") > 0).orderBy(*RANGE_COLUMNS)
    examples = collect_examples(spark, read, bounds, losing_ranges, per_partition, examples_per_kind)
    matched.unpersist()
    groups.unpersist()
    return report_of(per_partition, examples)


def summary_lines(report):
    verdict = "OK" if report["ok"] else "FAILED"
    lines = [
        "verify: %s: %d records read in %d partitions, %d acknowledged by %d manifest(s)"
        % (verdict, report["records"], len(report["per_partition"]), report["expected"], len(report["manifests"])),
        "  " + ", ".join("%s=%d" % (check, report[check]) for check in CHECKS),
    ]
    if not report["manifests"]:
        lines.append("  no manifest given: lost records were not checked")
    for entry in report["per_partition"]:
        bad = ["%s=%d" % (check, entry[check]) for check in CHECKS if entry[check]]
        if bad or not entry["exists"]:
            where = "%s-%d" % (entry["topic"], entry["partition"])
            lines.append("  %s: %s%s" % (where, "" if entry["exists"] else "partition missing; ", ", ".join(bad)))
    for example in report["examples"]:
        lines.append("  example %s" % json.dumps(example, sort_keys=True, default=str))
    lines.append("  %.1f s" % report["elapsed_seconds"])
    return lines


# Spark's default spark.sql.sources.useV1SourceList without kafka.
V1_SOURCES_BUT_KAFKA = "avro,csv,json,orc,parquet,text"


def build_session(master, jars, shuffle_partitions, driver_memory, app_name):
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.showConsoleProgress", "true")
        .config("spark.sql.session.timeZone", "UTC")
        # Lets adaptive execution shrink the cached per-group counts to a few partitions; without it
        # every later query over them runs spark.sql.shuffle.partitions tiny tasks.
        .config("spark.sql.optimizer.canChangeCachedPlanOutputPartitioning", "true")
        # The DataSource V2 Kafka reader hands Spark its rows directly; the V1 one (Spark's default)
        # turns every record into an external Row and back.
        .config("spark.sql.sources.useV1SourceList", V1_SOURCES_BUT_KAFKA)
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", str(SCAN_BATCH_RECORDS))
        # Any other value makes Spark measure the Arrow batch after every record it adds.
        .config("spark.sql.execution.arrow.maxBytesPerBatch", str(2**31 - 1))
    )
    if jars:
        builder = builder.config("spark.jars", jars)
    if master.startswith("local"):
        # Local workers run on this host: the interpreter running the job has pyarrow and numpy,
        # whatever python3 is first on PATH. PySpark reads the workers' interpreter from the
        # environment only.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if shuffle_partitions:
        builder = builder.config("spark.sql.shuffle.partitions", str(shuffle_partitions))
    if driver_memory:
        # Only takes effect when this process starts the JVM (python verify_job.py, not spark-submit).
        builder = builder.config("spark.driver.memory", driver_memory)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark


def argument_parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--bootstrap-servers", required=True, help="host:port[,host:port...]")
    parser.add_argument(
        "--topics", default="", help="comma-separated topics to read (default: the topics of the manifests)"
    )
    parser.add_argument(
        "--manifest", action="append", default=[], help="a producer's manifest of acknowledged records; repeatable"
    )
    parser.add_argument("--report", required=True, help="where to write the JSON report")
    parser.add_argument(
        "--master", default="local[*]", help="any Spark master URL: local[N], spark://..., yarn, k8s://... (local[*])"
    )
    parser.add_argument(
        "--jars",
        default=os.environ.get("KAFKAOPS_SPARK_JARS", ""),
        help="comma-separated Kafka connector jars for spark.jars (scripts/fetch-spark-jars.sh prints them;"
        " default: $KAFKAOPS_SPARK_JARS)",
    )
    parser.add_argument("--shuffle-partitions", type=int, default=0, help="spark.sql.shuffle.partitions (Spark's)")
    parser.add_argument("--driver-memory", default="2g", help="spark.driver.memory when run with python (2g)")
    parser.add_argument("--examples", type=int, default=5, help="offending records shown per kind (5)")
    parser.add_argument(
        "--engine",
        choices=("scan", "sql"),
        default="scan",
        help="scan: one ordered pass per partition in Python workers, no shuffle (needs pyarrow, pandas and"
        " numpy where Spark runs Python); sql: Spark SQL windows over a shuffle (scan)",
    )
    parser.add_argument(
        "--kafka-option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a Java consumer property for Spark's Kafka source, e.g. security.protocol=SSL; repeatable",
    )
    parser.add_argument(
        "--client-option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a kafka-python KafkaConsumer setting for capturing offsets, e.g. security_protocol=SSL; repeatable",
    )
    return parser


def main(argv=None):
    args = argument_parser().parse_args(argv)
    started = time.monotonic()
    try:
        manifests = [read_manifest(path) for path in args.manifest]
    except (OSError, ManifestError) as error:
        print("verify: %s" % error, file=sys.stderr)
        return 2
    topics = sorted({topic for topic in args.topics.split(",") if topic} | {m["topic"] for m in manifests})
    if not topics:
        print("verify: no topic to read: give --topics or --manifest", file=sys.stderr)
        return 2

    kafka_options = parse_options(args.kafka_option, "--kafka-option")
    client_options = parse_client_options(args.client_option)
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    bounds, missing_topics = capture_offsets(args.bootstrap_servers, topics, client_options)
    spark = build_session(
        args.master, args.jars, args.shuffle_partitions, args.driver_memory, "kafkaops-verify " + ",".join(topics)
    )
    try:

        def read(partition_bounds):
            return read_topics(spark, args.bootstrap_servers, partition_bounds, kafka_options)

        report = verify(spark, read, bounds, ranges_from_manifests(manifests), args.examples, args.engine)
    except Exception as error:
        # Exit 1 means "records are wrong"; a job that could not run must not be read that way.
        print("verify: the Spark job failed: %s" % error, file=sys.stderr)
        return 2
    finally:
        spark.stop()
    report.update(
        {
            "topics": topics,
            "missing_topics": missing_topics,
            "manifests": [
                {"path": path, "run_id": m["run_id"], "topic": m["topic"], "acknowledged": m.get("acknowledged")}
                for path, m in zip(args.manifest, manifests, strict=True)
            ],
            "lost_checked": bool(manifests),
            "spark_master": args.master,
            "started_at": started_at,
            "elapsed_seconds": round(time.monotonic() - started, 1),
        }
    )
    with open(args.report, "w") as stream:
        json.dump(report, stream, indent=1, sort_keys=True, default=str)
        stream.write("\n")
    print("\n".join(summary_lines(report)))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
