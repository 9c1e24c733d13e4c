"""What execute_reassignment.yml shows of the move it carried out (filter plugins/filter/reassignment.py)."""

import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.filter.reassignment import kafka_reassignment_outcome


def test_a_cancel_shows_what_it_removed():
    lines = kafka_reassignment_outcome({"changed": True, "partitions": ["o-0"], "already_in_place": 0,
                                        "cancelled": ["o-0"], "throttle_removed": {"brokers": [1, 3], "topics": ["o"]}})
    assert lines[0] == "partitions changed: 1, already in place: 0"
    assert lines[-1] == "throttle a timed-out run left, removed from brokers: [1, 3]"


@pytest.mark.parametrize("result", [None, "done", {"partitions": []}, {"already_in_place": 0}])
def test_what_is_no_reassignment_result_is_refused(result):
    with pytest.raises(AnsibleFilterError, match="kafka_reassignment_outcome: expected the result of "
                                                 "kafkaops.cluster.kafka_reassignment"):
        kafka_reassignment_outcome(result)
