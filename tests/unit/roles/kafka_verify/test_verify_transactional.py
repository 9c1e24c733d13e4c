"""The transactional check on a few records: topics read with read_committed, where an aborted record must not
be visible, every committed one must be there, and offsets left by markers and aborted records are not holes."""

import pytest

from kafkaops_verify.manifests import aborted_from_manifests, build_manifest
from kafkaops_verify.ranges import merge_ranges, present_within
from kafkaops_verify.report import CHECKS, summary_lines
from kafkaops_verify.verify import transactional_figures, verify
from sample_records import RUN, TOPIC, raw_frame, value


def committed_read(transactions):
    """What a read_committed reader gets of one partition written in transactions, with the offsets the broker
    gave: transactions is [(committed, [(key, sequence), ...])]; each record takes an offset, and each
    transaction's marker one more; the reader gets the committed records only.

    Returns (rows read, offsets end, committed ranges, aborted rows)."""
    rows, committed, aborted, offset = [], {}, [], 0
    for is_committed, records in transactions:
        for key, sequence in records:
            if is_committed:
                rows.append((TOPIC, 0, offset, key.encode(), value(key, sequence)))
                committed.setdefault(key, []).append(sequence)
            else:
                aborted.append((TOPIC, RUN, key, sequence, sequence + 1))
            offset += 1
        offset += 1  # the commit or abort marker
    ranges = [(TOPIC, 0, RUN, key, start, end) for key, numbers in sorted(committed.items())
              for start, end in merge_ranges([[number, number + 1] for number in numbers])]
    return rows, offset, ranges, aborted


# Three transactions of two keys, the second aborted: offsets 0-3 and 10-13 readable, 4 and 9 and 14 markers.
TRANSACTIONS = [
    (True, [("a", 0), ("b", 0), ("a", 1), ("b", 1)]),
    (False, [("a", 2), ("b", 2), ("a", 3), ("b", 3)]),
    (True, [("a", 4), ("b", 4), ("a", 5), ("b", 5)]),
]


def run(spark, rows, end, range_rows, aborted_rows, engine="scan", committed_topics=(TOPIC,)):
    frame = raw_frame(spark, rows)
    return verify(spark, lambda _bounds: frame, {(TOPIC, 0): (0, end)}, range_rows, 3, engine,
                  aborted_rows, committed_topics)


def test_the_aborted_ranges_are_merged_per_run_and_key():
    manifest = build_manifest("transactional", RUN, TOPIC, {}, transactional=True,
                              aborted_keys={"a": [[2, 4], [8, 10]], "b": [[2, 4]]})
    again = dict(manifest, aborted_keys={"a": [[4, 6]]})
    assert aborted_from_manifests([manifest, again]) == [
        (TOPIC, RUN, "a", 2, 6), (TOPIC, RUN, "a", 8, 10), (TOPIC, RUN, "b", 2, 4)]


@pytest.mark.parametrize("engine", ["scan", "sql"])
def test_gaps_of_markers_and_aborted_records_are_not_holes(spark, engine):
    rows, end, range_rows, aborted_rows = committed_read(TRANSACTIONS)
    report = run(spark, rows, end, range_rows, aborted_rows, engine)
    assert report["ok"], report
    assert {check: report[check] for check in CHECKS} == dict.fromkeys(CHECKS, 0)
    entry = report["per_partition"][0]
    # 15 offsets, 8 records read: 4 aborted records and 3 markers.
    assert (entry["records"], entry["expected"], entry["committed_read_gaps"]) == (8, 8, 7)
    assert report["examples"] == []


@pytest.mark.parametrize("engine", ["scan", "sql"])
def test_the_same_gaps_in_a_plain_topic_are_holes(spark, engine):
    rows, end, range_rows, _aborted = committed_read(TRANSACTIONS)
    report = run(spark, rows, end, range_rows, [], engine, committed_topics=())
    assert (report["ok"], report["offset_gaps"]) == (False, 7)
    assert report["per_partition"][0]["committed_read_gaps"] == 0


@pytest.mark.parametrize("engine", ["scan", "sql"])
def test_a_visible_aborted_record_fails_the_check_and_is_named(spark, engine):
    rows, end, range_rows, aborted_rows = committed_read(TRANSACTIONS)
    # The abort did not hold for b/2 and b/3 (offsets 6 and 8): the reader was given them.
    rows += [(TOPIC, 0, 6, b"b", value("b", 2)), (TOPIC, 0, 8, b"b", value("b", 3))]
    report = run(spark, rows, end, range_rows, aborted_rows, engine)
    assert (report["ok"], report["aborted_visible"], report["per_partition"][0]["aborted_visible"]) == (False, 2, 2)
    assert {check for check in CHECKS if report[check]} == {"aborted_visible"}
    visible = [example for example in report["examples"] if example["kind"] == "aborted_visible"]
    assert [(example["key"], example["sequence"]) for example in visible] == [("b", 2), ("b", 3)]


@pytest.mark.parametrize("engine", ["scan", "sql"])
def test_an_aborted_record_is_caught_in_any_partition_of_its_topic(spark, engine):
    rows, end, range_rows, aborted_rows = committed_read(TRANSACTIONS)
    frame = raw_frame(spark, rows + [(TOPIC, 1, 0, b"a", value("a", 3))])
    bounds = {(TOPIC, 0): (0, end), (TOPIC, 1): (0, 1)}
    report = verify(spark, lambda _bounds: frame, bounds, range_rows, 3, engine, aborted_rows, (TOPIC,))
    assert [(entry["partition"], entry["aborted_visible"]) for entry in report["per_partition"]] == [(0, 0), (1, 1)]


@pytest.mark.parametrize("engine", ["scan", "sql"])
def test_a_missing_committed_record_is_lost(spark, engine):
    rows, end, range_rows, aborted_rows = committed_read(TRANSACTIONS)
    rows = [row for row in rows if row[2] != 11]  # b/4, committed in the third transaction
    report = run(spark, rows, end, range_rows, aborted_rows, engine)
    assert (report["ok"], report["lost"], report["offset_gaps"]) == (False, 1, 0)
    lost = [example for example in report["examples"] if example["kind"] == "lost"]
    assert [(example["key"], example["sequence"]) for example in lost] == [("b", 4)]


def test_both_engines_write_the_same_transactional_report(spark):
    rows, end, range_rows, aborted_rows = committed_read(TRANSACTIONS)
    rows = [row for row in rows if row[2] != 1] + [(TOPIC, 0, 5, b"a", value("a", 2))]
    scan, sql = (run(spark, rows, end, range_rows, aborted_rows, engine) for engine in ("scan", "sql"))
    assert (scan["lost"], scan["aborted_visible"]) == (1, 1)
    assert scan == sql


def test_the_summary_shows_the_transactional_figures(spark):
    rows, end, range_rows, aborted_rows = committed_read(TRANSACTIONS)
    report = run(spark, rows + [(TOPIC, 0, 5, b"a", value("a", 2))], end, range_rows, aborted_rows)
    manifest = build_manifest("transactional", RUN, TOPIC, {0: {"a": [[0, 2], [4, 6]]}}, transactional=True,
                              aborted=4, aborted_keys={"a": [[2, 4]], "b": [[2, 4]]}, uncertain=3)
    report.update({"manifests": [{}], "elapsed_seconds": 1.0, "transactional": transactional_figures([manifest])})
    text = "\n".join(summary_lines(report))
    assert "FAILED" in text and "aborted_visible=1" in text
    assert ("transactional topics (read_committed): orders; committed=4, aborted=4, aborted_visible=1,"
            " uncertain=3") in text
    assert transactional_figures([build_manifest("steady", RUN, TOPIC, {})]) is None


def test_present_within_lists_the_sequences_held():
    seen = [[0, 3], [5, 9]]
    assert present_within(seen, 2, 7, 10) == [2, 5, 6]
    assert present_within(seen, 2, 7, 2) == [2, 5]
    assert present_within(seen, 3, 5, 10) == []
