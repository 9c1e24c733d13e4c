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

All checks are Spark SQL expressions (window functions, joins, aggregates) evaluated in the JVM;
no Python UDF. Writes the JSON report, prints a summary and exits 1 when a check fails (2 when the
job cannot run).
"""

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from kafkaops_records import (  # noqa: E402
    ManifestError,
    manifest_ranges,
    parse_client_options,
    parse_options,
    read_manifest,
)

CHECKS = ("lost", "duplicates", "out_of_order", "corrupt", "offset_gaps")
RANGE_COLUMNS = ("topic", "partition", "run_id", "key", "range_start", "range_end")
BOUNDS_COLUMNS = ("topic", "partition", "start_offset", "end_offset")


# The checks: functions over DataFrames, so each can be tested on a few rows.
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
    for name, value in kafka_options.items():
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


def verify(spark, read, bounds, range_rows, examples_per_kind=5):
    """Runs every check; read(bounds) returns the raw DataFrame of those partitions. Returns the report."""
    from pyspark.sql import functions as F

    ranges = ranges_frame(spark, range_rows)
    flagged = flag_records(parse_records(read(bounds)) if bounds else no_records(spark))
    # One pass over the records: flags, manifest matches and counts all come from the same shuffled
    # rows; only the small per-group counts are kept.
    groups = aggregate_groups(assign_ranges(flagged, ranges)).cache()
    flag_rows = {(row.topic, row.partition): row.asDict() for row in summarize_groups(groups).collect()}
    matched = match_ranges(groups, ranges).cache()
    range_rows_by_partition = {(row.topic, row.partition): row.asDict() for row in summarize_ranges(matched).collect()}

    per_partition = []
    for identity in sorted(set(bounds) | set(range_rows_by_partition)):
        flags = flag_rows.get(identity, {})
        matches = range_rows_by_partition.get(identity, {})
        start, end = bounds.get(identity, (None, None))
        records = flags.get("records", 0)
        expected = matches.get("expected") or 0
        per_partition.append(
            {
                "topic": identity[0],
                "partition": identity[1],
                "start_offset": start,
                "end_offset": end,
                "exists": identity in bounds,
                "records": records,
                "expected": expected,
                "lost": matches.get("lost") or 0,
                "duplicates": flags.get("duplicates", 0),
                "out_of_order": flags.get("out_of_order", 0),
                "corrupt": flags.get("corrupt", 0),
                "offset_gaps": (end - start - records) if identity in bounds else 0,
                # Present records that no manifest acknowledged: other runs, or sends whose
                # acknowledgement never arrived. Not a violation.
                "unacknowledged": flags.get("identified", 0) - flags.get("found", 0),
            }
        )
    losing_ranges = matched.where(F.col("lost") > 0).orderBy(*RANGE_COLUMNS)
    examples = collect_examples(spark, read, bounds, losing_ranges, per_partition, examples_per_kind)
    matched.unpersist()
    groups.unpersist()

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
    )
    if jars:
        builder = builder.config("spark.jars", jars)
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

        report = verify(spark, read, bounds, ranges_from_manifests(manifests), args.examples)
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
