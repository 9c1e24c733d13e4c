"""The verifier's checks on a few records in a local SparkSession: each catches its fault, and
passes clean data."""

import os
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

JOBS = os.path.join(os.path.dirname(__file__), "..", "..", "roles", "kafka_verify", "files")
sys.path.insert(0, os.path.abspath(JOBS))

import kafkaops_records as records_format  # noqa: E402
import verify_job  # noqa: E402

TOPIC = "orders"
RUN = "run-1"
RAW_SCHEMA = "topic string, partition int, offset long, key binary, value binary"


@pytest.fixture(scope="module")
def spark():
    # The scan engine's Python workers need this interpreter's pyarrow and numpy; PySpark reads
    # the worker's interpreter from the environment only.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[1]")
        .appName("test_verify_checks")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        # Compiling generated code costs more than it saves on a few rows.
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.driver.memory", "512m")
        # A short-lived JVM: the quick JIT tier and a simple collector spend less CPU than they save.
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def value(key, sequence, run_id=RUN, size=16):
    payload = records_format.make_payload(run_id, key, sequence, size)
    return records_format.encode_value(run_id, key, sequence, payload)


def clean_rows(partition=0, keys=("a", "b"), per_key=3, first_offset=0):
    """Rows of one partition: the keys interleaved, sequences 0..per_key-1, offsets contiguous."""
    rows = []
    offset = first_offset
    for sequence in range(per_key):
        for key in keys:
            rows.append((TOPIC, partition, offset, key.encode(), value(key, sequence)))
            offset += 1
    return rows


def raw_frame(spark, rows):
    return spark.createDataFrame(rows, RAW_SCHEMA)


def ranges_for(keys=("a", "b"), per_key=3, partition=0):
    return [(TOPIC, partition, RUN, key, 0, per_key) for key in keys]


def bounds_for(rows):
    offsets = {}
    for topic, partition, offset, _key, _value in rows:
        start, end = offsets.get((topic, partition), (offset, offset + 1))
        offsets[(topic, partition)] = (min(start, offset), max(end, offset + 1))
    return offsets


def report_for(spark, rows, range_rows, bounds=None):
    frame = raw_frame(spark, rows)

    def read(partition_bounds):
        wanted = {f"{topic}:{partition}" for topic, partition in partition_bounds}
        return frame.where(F.concat_ws(":", "topic", "partition").isin(*wanted))

    return verify_job.verify(spark, read, bounds if bounds is not None else bounds_for(rows), range_rows, 3)


# The record format, in Python and in Spark


def test_encode_decode_round_trip():
    payload = records_format.make_payload(RUN, "k", 7, 100)
    assert len(payload) == 100
    record = records_format.decode_value(records_format.encode_value(RUN, "k", 7, payload))
    assert (record.run_id, record.key, record.sequence, record.payload) == (RUN, "k", 7, payload)
    assert record.crc_ok()


def test_payload_may_hold_the_separator():
    record = records_format.decode_value(records_format.encode_value(RUN, "k", 0, b"a|b|c"))
    assert record.payload == b"a|b|c" and record.crc_ok()


@pytest.mark.parametrize("bad", [None, b"", b"garbage", b"v2|r|k|0|0|x", b"v1|r|k|x|0|p", b"v1|r|k|0|99999999999|p"])
def test_decode_rejects_malformed_values(bad):
    with pytest.raises(records_format.RecordFormatError):
        records_format.decode_value(bad)


def test_encode_rejects_separator_in_key():
    with pytest.raises(records_format.RecordFormatError):
        records_format.encode_value(RUN, "a|b", 0, b"x")


def test_sequence_ranges_merge_out_of_order_additions():
    ranges = records_format.SequenceRanges()
    for sequence in (0, 1, 2, 5, 6, 4, 9, 3, 3):
        ranges.add(sequence)
    assert ranges.ranges() == [[0, 7], [9, 10]]
    assert ranges.count() == 8


def test_spark_payload_and_value_match_python(spark):
    frame = spark.createDataFrame([(RUN, "k", 3)], "run_id string, key string, sequence long")
    payload = records_format.spark_payload_column(F.col("run_id"), F.col("key"), F.col("sequence"), 100)
    row = frame.select(
        records_format.spark_value_column(F.col("run_id"), F.col("key"), F.col("sequence"), payload).alias("value")
    ).first()
    assert row.value.encode() == value("k", 3, size=100)


def test_parse_records_reads_clean_values(spark):
    parsed = verify_job.parse_records(raw_frame(spark, clean_rows())).orderBy("offset").collect()
    assert [(row.key, row.sequence, row.corrupt_reason) for row in parsed[:2]] == [("a", 0, None), ("b", 0, None)]
    assert all(row.run_id == RUN for row in parsed)


# corrupt


def test_corrupt_passes_clean_data(spark):
    assert verify_job.find_corrupt(verify_job.parse_records(raw_frame(spark, clean_rows()))).count() == 0


def test_corrupt_catches_each_kind_of_damage(spark):
    good = value("a", 0)
    flipped = good[:-1] + bytes([good[-1] ^ 1])
    rows = [
        (TOPIC, 0, 0, b"a", flipped),
        (TOPIC, 0, 1, b"a", b"not a record"),
        (TOPIC, 0, 2, b"a", None),
        (TOPIC, 0, 3, b"b", value("a", 1)),
        (TOPIC, 0, 4, b"a", value("a", 2)),
    ]
    corrupt = verify_job.find_corrupt(verify_job.parse_records(raw_frame(spark, rows))).orderBy("offset").collect()
    assert [(row.offset, row.corrupt_reason) for row in corrupt] == [
        (0, "crc mismatch"),
        (1, "unparseable"),
        (2, "unparseable"),
        (3, "key mismatch"),
    ]


# duplicates and out of order


def flagged_frame(spark, rows):
    return verify_job.flag_records(verify_job.parse_records(raw_frame(spark, rows)))


def test_duplicates_and_order_pass_clean_data(spark):
    flagged = flagged_frame(spark, clean_rows())
    assert verify_job.find_duplicates(flagged).count() == 0
    assert verify_job.find_out_of_order(flagged).count() == 0


def test_duplicates_counts_each_extra_copy(spark):
    rows = clean_rows(keys=("a",), per_key=3)
    # The whole run sent again (a producer retry from the start), and sequence 1 a third time.
    rows += [(TOPIC, 0, 3 + index, b"a", value("a", sequence)) for index, sequence in enumerate((0, 1, 2, 1))]
    duplicates = verify_job.find_duplicates(flagged_frame(spark, rows)).orderBy("offset").collect()
    assert [(row.offset, row.sequence) for row in duplicates] == [(3, 0), (4, 1), (5, 2), (6, 1)]
    # Copies are duplicates, not reorderings.
    assert verify_job.find_out_of_order(flagged_frame(spark, rows)).count() == 0


def test_duplicates_are_per_partition_and_run(spark):
    rows = clean_rows(partition=0, keys=("a",)) + clean_rows(partition=1, keys=("a",))
    rows.append((TOPIC, 0, 3, b"a", value("a", 0, run_id="run-2")))
    assert verify_job.find_duplicates(flagged_frame(spark, rows)).count() == 0


def test_out_of_order_catches_a_sequence_going_backwards(spark):
    sequences = (0, 1, 3, 2, 4)
    rows = [(TOPIC, 0, offset, b"a", value("a", sequence)) for offset, sequence in enumerate(sequences)]
    rows += [(TOPIC, 0, 5 + offset, b"b", value("b", sequence)) for offset, sequence in enumerate((0, 1, 2))]
    late = verify_job.find_out_of_order(flagged_frame(spark, rows)).collect()
    assert [(row.key, row.offset, row.sequence, row.previous_sequence) for row in late] == [("a", 3, 2, 3)]
    assert verify_job.find_duplicates(flagged_frame(spark, rows)).count() == 0


def test_out_of_order_ignores_gaps_in_sequences(spark):
    rows = [(TOPIC, 0, offset, b"a", value("a", sequence)) for offset, sequence in enumerate((0, 2, 5, 9))]
    assert verify_job.find_out_of_order(flagged_frame(spark, rows)).count() == 0


# lost


def matched_frame(spark, rows, range_rows):
    ranges = verify_job.ranges_frame(spark, range_rows)
    flagged = flagged_frame(spark, rows)
    groups = verify_job.aggregate_groups(verify_job.assign_ranges(flagged, ranges))
    return verify_job.match_ranges(groups, ranges)


def test_lost_passes_when_every_acknowledged_record_is_there(spark):
    matched = matched_frame(spark, clean_rows(), ranges_for()).collect()
    assert {(row.key, row.found, row.lost) for row in matched} == {("a", 3, 0), ("b", 3, 0)}


def test_lost_counts_missing_sequences_and_ignores_unacknowledged_ones(spark):
    rows = [row for row in clean_rows(per_key=4) if not (row[3] == b"a" and row[2] in (0, 4))]
    # Sequence 3 of b was sent but never acknowledged: present, not expected, not lost.
    range_rows = [(TOPIC, 0, RUN, "a", 0, 4), (TOPIC, 0, RUN, "b", 0, 3), (TOPIC, 1, RUN, "c", 0, 2)]
    matched = matched_frame(spark, rows, range_rows).collect()
    assert {(row.partition, row.key, row.found, row.lost) for row in matched} == {
        (0, "a", 2, 2),
        (0, "b", 3, 0),
        (1, "c", 0, 2),
    }
    ranges = verify_job.ranges_frame(spark, range_rows)
    lost = verify_job.find_lost(verify_job.parse_records(raw_frame(spark, rows)), ranges).collect()
    assert sorted((row.partition, row.key, row.sequence) for row in lost) == [
        (0, "a", 0),
        (0, "a", 2),
        (1, "c", 0),
        (1, "c", 1),
    ]


def test_lost_does_not_count_a_duplicate_as_found_twice(spark):
    rows = [(TOPIC, 0, offset, b"a", value("a", sequence)) for offset, sequence in enumerate((0, 0, 2))]
    matched = matched_frame(spark, rows, [(TOPIC, 0, RUN, "a", 0, 3)]).collect()
    assert [(row.found, row.lost) for row in matched] == [(2, 1)]


def test_manifest_ranges_of_one_run_are_merged():
    manifests = [
        {"topic": TOPIC, "run_id": RUN, "partitions": [{"partition": 0, "keys": {"a": [[0, 5]]}}]},
        {"topic": TOPIC, "run_id": RUN, "partitions": [{"partition": 0, "keys": {"a": [[3, 8], [10, 12]]}}]},
    ]
    assert verify_job.ranges_from_manifests(manifests) == [(TOPIC, 0, RUN, "a", 0, 8), (TOPIC, 0, RUN, "a", 10, 12)]


# offset gaps


def test_offset_gaps_pass_contiguous_offsets(spark):
    rows = clean_rows(first_offset=10)
    bounds = verify_job.bounds_frame(spark, {(TOPIC, 0): (10, 16)})
    records = verify_job.parse_records(raw_frame(spark, rows))
    assert verify_job.find_offset_holes(records, bounds).count() == 0
    assert [row.offset_gaps for row in verify_job.partition_offsets(records, bounds).collect()] == [0]


def test_offset_gaps_catch_holes_in_the_middle_and_at_both_ends(spark):
    rows = [row for row in clean_rows(per_key=5) if row[2] not in (0, 4, 5, 9)]
    bounds = verify_job.bounds_frame(spark, {(TOPIC, 0): (0, 10), (TOPIC, 1): (0, 2)})
    records = verify_job.parse_records(raw_frame(spark, rows))
    holes = verify_job.find_offset_holes(records, bounds).orderBy("partition", "gap_start").collect()
    assert [(row.partition, row.gap_start, row.gap_end) for row in holes] == [
        (0, 0, 1),
        (0, 4, 6),
        (0, 9, 10),
        (1, 0, 2),
    ]
    gaps = {row.partition: row.offset_gaps for row in verify_job.partition_offsets(records, bounds).collect()}
    assert gaps == {0: 4, 1: 2}


# the whole report


def test_report_is_ok_on_clean_data(spark):
    rows = clean_rows(partition=0) + clean_rows(partition=1, keys=("c",))
    range_rows = ranges_for() + ranges_for(keys=("c",), partition=1)
    report = report_for(spark, rows, range_rows)
    assert report["ok"] is True
    assert {check: report[check] for check in verify_job.CHECKS} == dict.fromkeys(verify_job.CHECKS, 0)
    assert (report["records"], report["expected"], report["unacknowledged"]) == (9, 9, 0)
    assert [entry["records"] for entry in report["per_partition"]] == [6, 3]
    assert report["examples"] == []


def test_report_counts_every_kind_and_shows_examples(spark):
    rows = clean_rows(per_key=4)  # offsets 0..7; a and b, sequences 0..3
    rows = [row for row in rows if row[2] != 0]  # a/0 gone: lost, and a hole at offset 0
    rows.append((TOPIC, 0, 8, b"b", value("b", 1)))  # a duplicate
    rows.append((TOPIC, 0, 9, b"b", b"v1|run-1|b|4|0|payload"))  # corrupt (crc mismatch)
    rows.append((TOPIC, 0, 11, b"a", value("a", 5)))  # offset 10 missing
    rows.append((TOPIC, 0, 12, b"a", value("a", 4)))  # out of order
    report = report_for(spark, rows, ranges_for(per_key=4), bounds={(TOPIC, 0): (0, 13)})
    assert report["ok"] is False
    assert {check: report[check] for check in verify_job.CHECKS} == {
        "lost": 1,
        "duplicates": 1,
        "out_of_order": 1,
        "corrupt": 1,
        "offset_gaps": 2,
    }
    kinds = {example["kind"] for example in report["examples"]}
    assert kinds == set(verify_job.CHECKS)
    lost = [example for example in report["examples"] if example["kind"] == "lost"]
    assert [(example["key"], example["sequence"]) for example in lost] == [("a", 0)]


def test_report_counts_a_missing_partition_as_lost(spark):
    report = report_for(spark, clean_rows(), ranges_for() + ranges_for(keys=("z",), partition=3))
    assert (report["ok"], report["lost"]) == (False, 3)
    missing = [entry for entry in report["per_partition"] if not entry["exists"]]
    assert [(entry["partition"], entry["lost"]) for entry in missing] == [(3, 3)]


def test_summary_names_each_violation(spark):
    rows = [row for row in clean_rows() if row[2] != 2]
    report = report_for(spark, rows, ranges_for(), bounds={(TOPIC, 0): (0, 6)})
    report.update({"manifests": [{}], "elapsed_seconds": 1.0})
    text = "\n".join(verify_job.summary_lines(report))
    assert "FAILED" in text and "lost=1" in text and "offset_gaps=1" in text


def test_command_line_options_are_name_value_pairs_and_client_numbers_are_typed():
    assert records_format.parse_options(["a.b=1", "c=x=y"], "--kafka-option") == {"a.b": "1", "c": "x=y"}
    assert records_format.parse_client_options(["retries=5", "security_protocol=SSL"]) == {
        "retries": 5, "security_protocol": "SSL"}
    with pytest.raises(SystemExit, match="--kafka-option must be NAME=VALUE"):
        records_format.parse_options(["novalue"], "--kafka-option")


# The scan engine: one ordered pass per partition (verify's default), against the SQL engine and a
# record-by-record model of the same rules.


def model_scan(records, limit):
    """The checks record by record, as the SQL windows define them: records are (offset, identity,
    sequence, reason code) in offset order, identity "run|key" or None when unparseable."""
    seen, last = {}, {}
    counts = dict.fromkeys(("records", "corrupt", "duplicates", "out_of_order", "identified"), 0)
    examples = {"corrupt": [], "duplicates": [], "out_of_order": [], "offset_gaps": []}
    previous_offset = None
    for offset, identity, sequence, reason in records:
        counts["records"] += 1
        if previous_offset is not None and offset > previous_offset + 1:
            examples["offset_gaps"].append([previous_offset + 1, offset])
        previous_offset = offset
        run_id, key = identity.split("|") if identity else (None, None)
        if reason:
            counts["corrupt"] += 1
            reason_name = records_format.CORRUPT_REASONS[reason - 1]
            examples["corrupt"].append([offset, run_id, key, sequence if identity else None, reason_name])
        if identity is None:
            continue
        if sequence in seen.setdefault(identity, set()):
            counts["duplicates"] += 1
            examples["duplicates"].append([offset, run_id, key, sequence])
            continue
        if identity in last and sequence < last[identity]:
            counts["out_of_order"] += 1
            examples["out_of_order"].append([offset, run_id, key, sequence, last[identity]])
        last[identity] = sequence
        seen[identity].add(sequence)
        counts["identified"] += 1
    ranges = {}
    for identity, sequences in seen.items():
        ranges[identity] = verify_job.merge_ranges([[number, number + 1] for number in sequences])
    return counts, {kind: rows[:limit] for kind, rows in examples.items()}, ranges


def run_scan(records, cuts, limit):
    """Feeds records to a PartitionScan in batches cut at the given positions."""
    import numpy as np

    scan = verify_job.PartitionScan(limit)
    bounds = [0, *sorted(set(cuts)), len(records)]
    for start, end in zip(bounds, bounds[1:], strict=False):
        batch = records[start:end]
        if not batch:
            continue
        names = sorted({record[1] for record in batch if record[1]})
        scan.add(
            np.array([record[0] for record in batch], dtype=np.int64),
            np.array([names.index(record[1]) if record[1] else -1 for record in batch], dtype=np.int32),
            names,
            np.array([record[2] if record[1] else -1 for record in batch], dtype=np.int64),
            np.array([record[3] for record in batch], dtype=np.int8),
        )
    summaries = list(scan.summaries())
    return summaries[0][1], {"%s|%s" % (entry["run_id"], entry["key"]): entry["seen"] for kind, entry in summaries[1:]}


record_lists = st.lists(
    st.tuples(
        st.integers(1, 3),  # offset step: 1, or a hole
        st.sampled_from(["r|a", "r|b", "s|a", None]),
        st.integers(0, 12),
        st.sampled_from([0, 0, 0, 2, 3]),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(record_lists, st.lists(st.integers(0, 60), max_size=6), st.integers(0, 4))
def test_partition_scan_follows_the_record_by_record_rules_in_any_batches(steps, cuts, limit):
    records, offset = [], 10
    for step, identity, sequence, reason in steps:
        offset += step
        records.append((offset, identity, sequence, 1 if identity is None else reason))
    counts, examples, ranges = model_scan(records, limit)
    summary, seen = run_scan(records, cuts, limit)
    assert {name: summary[name] for name in counts} == counts
    assert summary["examples"] == examples
    assert seen == ranges
    assert (summary["first_offset"], summary["last_offset"]) == (
        (records[0][0], records[-1][0]) if records else (None, None))


def test_partition_scan_notices_offsets_that_do_not_climb():
    summary = run_scan([(5, "r|a", 0, 0), (4, "r|a", 1, 0)], [1], 3)[0]
    assert summary["ordered"] is False


def test_counting_and_listing_sequences_against_the_ranges_seen():
    seen = [[0, 3], [5, 6], [9, 12]]
    assert verify_job.count_within(seen, 2, 10) == 3
    assert verify_job.count_within(seen, 12, 20) == 0
    assert verify_job.missing_within(seen, 0, 15, 10) == [3, 4, 6, 7, 8, 12, 13, 14]
    assert verify_job.missing_within(seen, 4, 15, 2) == [4, 6]
    assert verify_job.missing_within([], 3, 6, 5) == [3, 4, 5]


def faulty_rows(seed):
    """Two partitions of two runs with every kind of fault, from a seed."""
    import random

    chance = random.Random(seed)
    rows = []
    for partition in (0, 1):
        offset = chance.randrange(0, 20)
        for run_id in (RUN, "run-2"):
            for key in ("a", "b", "c"):
                sequences = list(range(chance.randrange(3, 9)))
                for _copy in range(chance.randrange(0, 3)):
                    sequences.insert(chance.randrange(len(sequences) + 1), chance.choice(sequences))
                if chance.random() < 0.5:
                    position = chance.randrange(len(sequences) - 1)
                    sequences[position], sequences[position + 1] = sequences[position + 1], sequences[position]
                for sequence in sequences:
                    offset += 1 + (chance.random() < 0.1)
                    payload = value(key, sequence, run_id=run_id)
                    roll = chance.random()
                    if roll < 0.05:
                        payload = payload[:-1] + bytes([payload[-1] ^ 1])
                    elif roll < 0.08:
                        payload = b"v1|" + payload
                    record_key = b"z" if chance.random() < 0.03 else key.encode()
                    rows.append((TOPIC, partition, offset, record_key, payload))
    return rows


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_scan_and_sql_engines_write_the_same_report(spark, seed):
    rows = faulty_rows(seed)
    range_rows = [(TOPIC, partition, RUN, key, 0, 7) for partition in (0, 1) for key in ("a", "b", "d")]
    bounds = {(TOPIC, partition): (0, max(row[2] for row in rows) + 2) for partition in (0, 1)}
    frame = raw_frame(spark, rows)

    def read(partition_bounds):
        return frame

    scan = verify_job.verify(spark, read, bounds, range_rows, 4)
    sql = verify_job.verify(spark, read, bounds, range_rows, 4, engine="sql")
    assert not scan["ok"] and scan["duplicates"] and scan["corrupt"] and scan["lost"]
    assert scan == sql


def test_scan_reorders_records_that_do_not_arrive_one_partition_in_offset_order(spark):
    rows = clean_rows(partition=0) + clean_rows(partition=1, keys=("c",))
    range_rows = ranges_for() + ranges_for(keys=("c",), partition=1)
    ordered = report_for(spark, rows, range_rows)
    shuffled = raw_frame(spark, list(reversed(rows))).repartition(3)
    report = verify_job.verify(spark, lambda partition_bounds: shuffled, bounds_for(rows), range_rows, 3)
    assert report == ordered and report["ok"]
