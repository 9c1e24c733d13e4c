"""Sequence sets as merged half-open ranges."""

from kafkaops_verify.ranges import SequenceRanges, count_within, missing_within


def test_sequence_ranges_merge_out_of_order_additions():
    ranges = SequenceRanges()
    for sequence in (0, 1, 2, 5, 6, 4, 9, 3, 3):
        ranges.add(sequence)
    assert ranges.ranges() == [[0, 7], [9, 10]]
    assert ranges.count() == 8


def test_counting_and_listing_sequences_against_the_ranges_seen():
    seen = [[0, 3], [5, 6], [9, 12]]
    assert count_within(seen, 2, 10) == 3
    assert count_within(seen, 12, 20) == 0
    assert missing_within(seen, 0, 15, 10) == [3, 4, 6, 7, 8, 12, 13, 14]
    assert missing_within(seen, 4, 15, 2) == [4, 6]
    assert missing_within([], 3, 6, 5) == [3, 4, 5]
