"""The sql engine's checks on a few records: each catches its fault, and passes clean data."""

from kafkaops_verify.engines.sql import (
    aggregate_groups,
    assign_ranges,
    bounds_frame,
    find_corrupt,
    find_duplicates,
    find_lost,
    find_offset_holes,
    find_out_of_order,
    flag_records,
    match_ranges,
    parse_records,
    partition_offsets,
    ranges_frame,
)
from sample_records import RUN, TOPIC, clean_rows, ranges_for, raw_frame, value


def test_parse_records_reads_clean_values(spark):
    parsed = parse_records(raw_frame(spark, clean_rows())).orderBy("offset").collect()
    assert [(row.key, row.sequence, row.corrupt_reason) for row in parsed[:2]] == [("a", 0, None), ("b", 0, None)]
    assert all(row.run_id == RUN for row in parsed)


# corrupt


def test_corrupt_passes_clean_data(spark):
    assert find_corrupt(parse_records(raw_frame(spark, clean_rows()))).count() == 0


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
    corrupt = find_corrupt(parse_records(raw_frame(spark, rows))).orderBy("offset").collect()
    assert [(row.offset, row.corrupt_reason) for row in corrupt] == [
        (0, "crc mismatch"),
        (1, "unparseable"),
        (2, "unparseable"),
        (3, "key mismatch"),
    ]


# duplicates and out of order


def flagged_frame(spark, rows):
    return flag_records(parse_records(raw_frame(spark, rows)))


def test_duplicates_and_order_pass_clean_data(spark):
    flagged = flagged_frame(spark, clean_rows())
    assert find_duplicates(flagged).count() == 0
    assert find_out_of_order(flagged).count() == 0


def test_duplicates_counts_each_extra_copy(spark):
    rows = clean_rows(keys=("a",), per_key=3)
    # The whole run sent again (a producer retry from the start), and sequence 1 a third time.
    rows += [(TOPIC, 0, 3 + index, b"a", value("a", sequence)) for index, sequence in enumerate((0, 1, 2, 1))]
    duplicates = find_duplicates(flagged_frame(spark, rows)).orderBy("offset").collect()
    assert [(row.offset, row.sequence) for row in duplicates] == [(3, 0), (4, 1), (5, 2), (6, 1)]
    # Copies are duplicates, not reorderings.
    assert find_out_of_order(flagged_frame(spark, rows)).count() == 0


def test_duplicates_are_per_partition_and_run(spark):
    rows = clean_rows(partition=0, keys=("a",)) + clean_rows(partition=1, keys=("a",))
    rows.append((TOPIC, 0, 3, b"a", value("a", 0, run_id="run-2")))
    assert find_duplicates(flagged_frame(spark, rows)).count() == 0


def test_out_of_order_catches_a_sequence_going_backwards(spark):
    sequences = (0, 1, 3, 2, 4)
    rows = [(TOPIC, 0, offset, b"a", value("a", sequence)) for offset, sequence in enumerate(sequences)]
    rows += [(TOPIC, 0, 5 + offset, b"b", value("b", sequence)) for offset, sequence in enumerate((0, 1, 2))]
    late = find_out_of_order(flagged_frame(spark, rows)).collect()
    assert [(row.key, row.offset, row.sequence, row.previous_sequence) for row in late] == [("a", 3, 2, 3)]
    assert find_duplicates(flagged_frame(spark, rows)).count() == 0


def test_out_of_order_ignores_gaps_in_sequences(spark):
    rows = [(TOPIC, 0, offset, b"a", value("a", sequence)) for offset, sequence in enumerate((0, 2, 5, 9))]
    assert find_out_of_order(flagged_frame(spark, rows)).count() == 0


# lost


def matched_frame(spark, rows, range_rows):
    ranges = ranges_frame(spark, range_rows)
    flagged = flagged_frame(spark, rows)
    groups = aggregate_groups(assign_ranges(flagged, ranges))
    return match_ranges(groups, ranges)


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
    ranges = ranges_frame(spark, range_rows)
    lost = find_lost(parse_records(raw_frame(spark, rows)), ranges).collect()
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


# offset gaps


def test_offset_gaps_pass_contiguous_offsets(spark):
    rows = clean_rows(first_offset=10)
    bounds = bounds_frame(spark, {(TOPIC, 0): (10, 16)})
    records = parse_records(raw_frame(spark, rows))
    assert find_offset_holes(records, bounds).count() == 0
    assert [row.offset_gaps for row in partition_offsets(records, bounds).collect()] == [0]


def test_offset_gaps_catch_holes_in_the_middle_and_at_both_ends(spark):
    rows = [row for row in clean_rows(per_key=5) if row[2] not in (0, 4, 5, 9)]
    bounds = bounds_frame(spark, {(TOPIC, 0): (0, 10), (TOPIC, 1): (0, 2)})
    records = parse_records(raw_frame(spark, rows))
    holes = find_offset_holes(records, bounds).orderBy("partition", "gap_start").collect()
    assert [(row.partition, row.gap_start, row.gap_end) for row in holes] == [
        (0, 0, 1),
        (0, 4, 6),
        (0, 9, 10),
        (1, 0, 2),
    ]
    gaps = {row.partition: row.offset_gaps for row in partition_offsets(records, bounds).collect()}
    assert gaps == {0: 4, 1: 2}
