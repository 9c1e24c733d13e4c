"""The causes of a failed task, for the message that stops a rolling restart."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.filter.failed_task_causes import failed_task_causes

LOOP = {"failed": True, "msg": "One or more items failed", "results": [
    {"failed": False, "msg": "node zk-a serves clients"},
    {"failed": True, "msg": "node zk-b is not serving clients: the unit failed"},
    {"changed": False, "skipped": True},
    {"failed": True},
]}


def test_a_loop_gives_the_messages_of_its_failed_items():
    assert failed_task_causes(LOOP) == ["node zk-b is not serving clients: the unit failed", "failed"]


@pytest.mark.parametrize("result, expected", [
    ({"failed": True, "msg": "broker 4 is not coming up"}, ["broker 4 is not coming up"]),
    ({"failed": True, "msg": "One or more items failed", "results": [{"failed": False}]}, ["One or more items failed"]),
    ({"failed": True, "msg": "timed out", "results": "not a list"}, ["timed out"]),
    ({"failed": True, "rc": 1}, ["{'failed': True, 'rc': 1}"]),
    ("unreachable", ["unreachable"]),
], ids=["own-message", "loop-without-failed-items", "results-not-a-list", "no-message", "not-a-dict"])
def test_other_results_give_their_own_message_or_themselves(result, expected):
    assert failed_task_causes(result) == expected
