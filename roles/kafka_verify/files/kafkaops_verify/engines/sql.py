"""The checks as Spark SQL (the sql engine): window functions, joins and aggregates over the records
shuffled by partition and key. Functions over DataFrames, so each can be tested on a few rows.

raw:     topic, partition, offset, key (binary), value (binary)  as Spark's Kafka source gives them
records: topic, partition, offset, run_id, key, sequence, corrupt_reason  (parse_records)
ranges:  topic, partition, run_id, key, range_start, range_end   (acknowledged, half-open)
bounds:  topic, partition, start_offset, end_offset              (what was to be read, half-open)
aborted: topic, run_id, key, aborted_start, aborted_end          (aborted transactions' records, half-open)
"""

from kafkaops_verify.records import spark_parsed_columns
from kafkaops_verify.report import CHECKS, partition_entries, report_of

RANGE_COLUMNS = ("topic", "partition", "run_id", "key", "range_start", "range_end")
BOUNDS_COLUMNS = ("topic", "partition", "start_offset", "end_offset")
ABORTED_COLUMNS = ("topic", "run_id", "key", "aborted_start", "aborted_end")


def parse_records(raw):
    from pyspark.sql import functions as F

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


def mark_aborted(flagged, aborted):
    """Adds is_aborted: the record's sequence falls in an aborted range of its run and key, in any partition
    of its topic. Aborted ranges are merged per run and key, so a record matches one at most; they are few
    and broadcast, as the acknowledged ones are."""
    from pyspark.sql import functions as F

    renamed = aborted.select(*[F.col(column).alias("aborted_" + column) for column in ("topic", "run_id", "key")],
                             "aborted_start", "aborted_end")
    condition = (
        (F.col("topic") == F.col("aborted_topic"))
        & (F.col("run_id") == F.col("aborted_run_id"))
        & (F.col("key") == F.col("aborted_key"))
        & (F.col("sequence") >= F.col("aborted_start"))
        & (F.col("sequence") < F.col("aborted_end"))
    )
    return (
        flagged.join(F.broadcast(renamed), condition, "left")
        .withColumn("is_aborted", F.col("aborted_start").isNotNull())
        .drop("aborted_topic", "aborted_run_id", "aborted_key", "aborted_start", "aborted_end")
    )


def find_aborted_visible(marked):
    """First copies of records of aborted ranges (a duplicate of one counts as a duplicate, not again here)."""
    from pyspark.sql import functions as F

    return marked.where(F.col("is_aborted") & ~F.col("is_duplicate")).select(
        "topic", "partition", "run_id", "key", "sequence"
    )


def aggregate_groups(assigned):
    """Counts per (topic, partition, run, key, acknowledged range): small, and all the report needs.

    The grouping keys extend the shuffle keys of flag_records, so Spark aggregates without a new shuffle.
    """
    from pyspark.sql import functions as F

    def count_where(condition):
        return F.sum(F.when(condition, 1).otherwise(0)).cast("long")

    identified_first_copy = F.col("sequence").isNotNull() & ~F.col("is_duplicate")
    # Without mark_aborted before it, nothing is aborted.
    aborted = F.col("is_aborted") if "is_aborted" in assigned.columns else F.lit(False)
    return assigned.groupBy("topic", "partition", "run_id", "key", "range_start", "range_end").agg(
        F.count(F.lit(1)).alias("records"),
        count_where(F.col("corrupt_reason").isNotNull()).alias("corrupt"),
        count_where(F.col("is_duplicate")).alias("duplicates"),
        count_where(F.col("is_out_of_order")).alias("out_of_order"),
        count_where(identified_first_copy).alias("identified"),
        count_where(identified_first_copy & F.col("range_start").isNotNull()).alias("found"),
        count_where(identified_first_copy & aborted).alias("aborted_visible"),
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

    counts = ("records", "corrupt", "duplicates", "out_of_order", "identified", "found", "aborted_visible")
    return groups.groupBy("topic", "partition").agg(*[F.sum(name).cast("long").alias(name) for name in counts])


def ranges_frame(spark, rows):
    schema = "topic string, partition int, run_id string, key string, range_start long, range_end long"
    return spark.createDataFrame(rows, schema)


def aborted_frame(spark, rows):
    """rows: (topic, run_id, key, start, end), as manifests.aborted_from_manifests gives them."""
    schema = "topic string, run_id string, key string, aborted_start long, aborted_end long"
    return spark.createDataFrame(list(rows), schema)


def bounds_frame(spark, bounds):
    """bounds: {(topic, partition): (start, end)}."""
    schema = "topic string, partition int, start_offset long, end_offset long"
    rows = [(topic, partition, start, end) for (topic, partition), (start, end) in sorted(bounds.items())]
    return spark.createDataFrame(rows, schema)


def no_records(spark):
    schema = "topic string, partition int, offset long, run_id string, key string, sequence long, corrupt_reason string"
    return spark.createDataFrame([], schema)


def rows_as_dicts(frame, limit):
    return [row.asDict() for row in frame.limit(limit).collect()]


def collect_examples(spark, read, bounds, ranges, per_partition, limit, aborted=None, committed_topics=()):
    """A few offending records per kind; reads again only the partitions with a violation."""
    from pyspark.sql import functions as F

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
        # Topics read with read_committed have no offset_gaps (report.partition_entries says why).
        plain = {where: pair for where, pair in faulty.items() if where[0] not in committed_topics}
        plain_records = records.where(~F.col("topic").isin(*committed_topics)) if committed_topics else records
        holes = find_offset_holes(plain_records, bounds_frame(spark, plain))
        for row in rows_as_dicts(holes.orderBy("topic", "partition", "gap_start"), limit):
            examples.append({"kind": "offset_gaps", **row})
    if kinds["lost"]:
        # Expanding a few losing ranges is enough for examples.
        lost = find_lost(records, ranges.limit(limit)).orderBy("topic", "partition", "run_id", "key", "sequence")
        for row in rows_as_dicts(lost, limit):
            examples.append({"kind": "lost", **row})
    if kinds["aborted_visible"]:
        visible = find_aborted_visible(mark_aborted(flag_records(records), aborted))
        for row in rows_as_dicts(visible.orderBy("topic", "partition", "run_id", "key", "sequence"), limit):
            examples.append({"kind": "aborted_visible", **row})
    records.unpersist()
    return examples


def verify_with_sql(spark, read, bounds, range_rows, examples_per_kind=5, aborted_rows=(), committed_topics=()):
    """verify with the checks as Spark SQL: window functions over the records shuffled by partition
    and key, then aggregates; examples come from a second read of the faulty partitions."""
    from pyspark.sql import functions as F

    ranges = ranges_frame(spark, range_rows)
    aborted = aborted_frame(spark, aborted_rows)
    flagged = flag_records(parse_records(read(bounds)) if bounds else no_records(spark))
    # One pass over the records: flags, manifest matches and counts all come from the same shuffled
    # rows; only the small per-group counts are kept.
    groups = aggregate_groups(mark_aborted(assign_ranges(flagged, ranges), aborted)).cache()
    flag_rows = {(row.topic, row.partition): row.asDict() for row in summarize_groups(groups).collect()}
    matched = match_ranges(groups, ranges).cache()
    range_rows_by_partition = {(row.topic, row.partition): row.asDict() for row in summarize_ranges(matched).collect()}
    per_partition = partition_entries(bounds, flag_rows, range_rows_by_partition, committed_topics)
    losing_ranges = matched.where(F.col("lost") > 0).orderBy(*RANGE_COLUMNS)
    examples = collect_examples(spark, read, bounds, losing_ranges, per_partition, examples_per_kind, aborted,
                                committed_topics)
    matched.unpersist()
    groups.unpersist()
    return report_of(per_partition, examples)
