"""The scan engine (verify's default): one ordered pass per partition, against a record-by-record
model of the same rules and against the sql engine."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafkaops_verify.engines.partition_scan import PartitionScan
from kafkaops_verify.ranges import merge_ranges
from kafkaops_verify.records import CORRUPT_REASONS
from kafkaops_verify.verify import verify
from sample_records import RUN, TOPIC, bounds_for, clean_rows, ranges_for, raw_frame, report_for, value


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
            reason_name = CORRUPT_REASONS[reason - 1]
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
        ranges[identity] = merge_ranges([[number, number + 1] for number in sequences])
    return counts, {kind: rows[:limit] for kind, rows in examples.items()}, ranges


def run_scan(records, cuts, limit):
    """Feeds records to a PartitionScan in batches cut at the given positions."""
    import numpy as np

    scan = PartitionScan(limit)
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

    scan = verify(spark, read, bounds, range_rows, 4)
    sql = verify(spark, read, bounds, range_rows, 4, engine="sql")
    assert not scan["ok"] and scan["duplicates"] and scan["corrupt"] and scan["lost"]
    assert scan == sql


def test_scan_reorders_records_that_do_not_arrive_one_partition_in_offset_order(spark):
    rows = clean_rows(partition=0) + clean_rows(partition=1, keys=("c",))
    range_rows = ranges_for() + ranges_for(keys=("c",), partition=1)
    ordered = report_for(spark, rows, range_rows)
    shuffled = raw_frame(spark, list(reversed(rows))).repartition(3)
    report = verify(spark, lambda partition_bounds: shuffled, bounds_for(rows), range_rows, 3)
    assert report == ordered and report["ok"]
