"""kafka_reassignment's run against a fake cluster: check, move with a throttle, clean up, cancel."""

import json

import pytest
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_reassignment

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}
THROTTLE_KEYS = ("leader.replication.throttled.rate", "follower.replication.throttled.rate")


@pytest.fixture
def cluster(fake_cluster):
    """Four brokers; orders has 2 partitions on brokers 1-3, 1 MB per replica."""
    return fake_cluster(brokers=(1, 2, 3, 4), topics={"orders": {0: [1, 2, 3], 1: [2, 3, 1]}},
                        sizes={"orders": 1000000})


def plan(*entries):
    return {"version": 1, "partitions": [dict(topic=topic, partition=partition, replicas=replicas)
                                         for topic, partition, replicas in entries]}


# orders-0 moves from broker 3 to 4; orders-1 stays where it is.
MOVE = plan(("orders", 0, [1, 2, 4]), ("orders", 1, [2, 3, 1]))


def test_a_plan_already_in_place_changes_nothing(run_module, cluster):
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=plan(("orders", 0, [1, 2, 3]))), cluster)
    assert not result["changed"] and result["already_in_place"] == 1 and result["partitions"] == []
    assert cluster.writes() == [] and all(client.closed for client in cluster.clients)


def test_check_mode_predicts_the_moves_and_moves_nothing(run_module, cluster):
    predicted = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, throttle=5000000), cluster,
                           check_mode=True)
    assert predicted["changed"] and predicted["partitions"] == ["orders-0"] and predicted["already_in_place"] == 1
    assert cluster.writes() == [] and cluster.topics["orders"][0] == [1, 2, 3]
    assert "moved" not in predicted


def test_moves_run_throttled_and_leave_no_throttle_behind(run_module, cluster):
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, throttle=5000000, poll_interval=0.01),
                        cluster)
    assert not result.get("failed"), result
    assert result["changed"] and result["moved"] == 1 and result["partitions"] == ["orders-0"]
    assert result["throttled"] == dict(brokers=[1, 2, 3, 4], topics=["orders"])
    assert result["bytes_to_move"] == 1000000 and result["expected_seconds"] == 0.2
    assert result["election_failed"] == [] and result["warnings"] == []
    assert cluster.topics["orders"] == {0: [1, 2, 4], 1: [2, 3, 1]}
    written = [name for name, unused in cluster.writes()]
    # Throttle lists and rates, then the move, then the throttle removed (topics, then each broker), then the
    # leader election.
    assert written == ["alter_configs", "alter_configs", "alter_partition_reassignments"] + \
        ["alter_configs"] * 5 + ["elect_leaders"]
    assert all(not any(key in configs for key in THROTTLE_KEYS) for configs in cluster.broker_configs.values())
    assert cluster.overrides.get("orders", {}) == {}
    again = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, throttle=5000000), cluster)
    assert not again["changed"] and again["already_in_place"] == 2


def test_without_wait_the_moves_are_only_submitted(run_module, cluster):
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, wait=False), cluster)
    assert result["changed"] and "moved" not in result
    assert [name for name, unused in cluster.writes()] == ["alter_partition_reassignments"]


def test_diff_mode_shows_the_replicas_before_and_after(run_module, cluster):
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE), cluster, check_mode=True, diff=True)
    assert result["diff"] == dict(before={"orders-0": [1, 2, 3]}, after={"orders-0": [1, 2, 4]})


def test_a_plan_file_is_read(run_module, cluster, tmp_path):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(MOVE))
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan_file=str(path)), cluster, check_mode=True)
    assert result["partitions"] == ["orders-0"]


@pytest.mark.parametrize("args, field, words", [
    # Refused before connecting.
    (dict(plan=MOVE, throttle=1000, wait=False), "throttle", "needs wait: true"),
    (dict(plan=MOVE, timeout=0), "timeout", "at least 1"),
    (dict(plan_file="/nonexistent/plan.json"), "plan_file", "cannot read"),
    (dict(plan=plan(("orders", 0, [1, 1, 2]))), "plan.partitions[0].replicas", "listed twice"),
    # Refused against the cluster's state, before any write.
    (dict(plan=plan(("orders", 0, [1, 2, 4]), ("nope", 0, [1]))), "plan.partitions[1].topic", "does not exist"),
    (dict(plan=plan(("orders", 5, [1, 2, 3]))), "plan.partitions[0].partition", "has partitions 0-1"),
    (dict(plan=plan(("orders", 0, [1, 2, 9]))), "plan.partitions[0].replicas", "not a live broker"),
    (dict(plan=plan(("orders", 0, [1, 2]))), "plan.partitions[0].replicas", "must list all its 2 partitions"),
], ids=["throttle-without-wait", "zero-timeout", "unreadable-file", "broker-twice", "unknown-topic",
        "unknown-partition", "dead-broker", "partial-factor-change"])
def test_bad_input_fails_naming_the_field_before_any_write(run_module, cluster, args, field, words):
    failed = run_module(kafka_reassignment.main, dict(SERVERS, **args), cluster)
    assert failed["failed"] and failed["field"] == field and words in failed["msg"], failed
    assert not failed["changed"] and failed["partitions"] == []
    assert cluster.writes() == [] and all(client.closed for client in cluster.clients)


def test_a_move_in_progress_is_cancelled_with_state_absent(run_module, cluster):
    cluster.moving[("orders", 0)] = [1, 2, 4]
    args = dict(SERVERS, plan=MOVE, state="absent")
    predicted = run_module(kafka_reassignment.main, args, cluster, check_mode=True)
    assert predicted["changed"] and predicted["cancelled"] == ["orders-0"] and cluster.writes() == []
    cancelled = run_module(kafka_reassignment.main, args, cluster)
    assert cancelled["changed"] and cancelled["cancelled"] == ["orders-0"] and cluster.moving == {}
    assert cluster.topics["orders"][0] == [1, 2, 3]
    assert not run_module(kafka_reassignment.main, args, cluster)["changed"]
