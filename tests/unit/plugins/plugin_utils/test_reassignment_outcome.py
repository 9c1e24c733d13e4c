"""What execute_reassignment.yml shows of a kafka_reassignment result (plugin_utils/_reassignment_outcome.py)."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._reassignment_outcome import outcome_lines

MOVED = {"changed": True, "partitions": ["o-0", "o-1"], "already_in_place": 1, "moved": 2, "elapsed": 3.25,
         "throttled": {"brokers": [1, 2], "topics": ["o"]}, "bytes_to_move": 6144, "rate": 1003.5,
         "expected_seconds": 6.1, "election_failed": ["o-1"], "throttle_removed": {"brokers": [4], "topics": ["o"]}}


@pytest.mark.parametrize("result, expected", [
    (MOVED, ["partitions changed: 2, already in place: 1", "seconds: 3.25, throttled brokers: [1, 2]",
             "bytes copied: 6144, at 1003.5 bytes/s (at the throttle it takes at least 6.1 s)",
             "leader elections that failed: ['o-1']", "throttle a timed-out run left, removed from brokers: [4]"]),
    # Check mode, or nothing to move: the figures of a move are not there.
    ({"partitions": [], "already_in_place": 3},
     ["partitions changed: 0, already in place: 3", "seconds: 0, throttled brokers: []",
      "bytes copied: , at  bytes/s (at the throttle it takes at least  s)", "leader elections that failed: []",
      "throttle a timed-out run left, removed from brokers: []"]),
    # Sizes that could not be read are null, and show as nothing; a throttle figure without brokers as none.
    (dict(MOVED, bytes_to_move=None, rate=None, expected_seconds=None, throttled=None, throttle_removed={"topics": []}),
     ["partitions changed: 2, already in place: 1", "seconds: 3.25, throttled brokers: []",
      "bytes copied: , at  bytes/s (at the throttle it takes at least  s)", "leader elections that failed: ['o-1']",
      "throttle a timed-out run left, removed from brokers: []"]),
])
def test_the_outcome_lines(result, expected):
    assert outcome_lines(result) == expected


def test_a_result_without_its_partitions_is_no_reassignment_result():
    with pytest.raises(KeyError):
        outcome_lines({"already_in_place": 0})
