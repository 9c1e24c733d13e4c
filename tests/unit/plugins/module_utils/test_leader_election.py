"""kafka_leader_election: which partitions need an election (pure), and the module against a fake cluster."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._leader_election import (
    ElectionInputError,
    choose_elections,
)
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_leader_election

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}


def partition(number, leader, replicas, isr, offline=()):
    return dict(partition=number, leader=leader, replicas=replicas, isr=isr, offline_replicas=list(offline))


TOPICS = {
    "orders": [partition(0, 1, [1, 2, 3], [1, 2, 3]),        # its preferred leader leads
               partition(1, 3, [2, 3, 1], [3, 1, 2]),        # 2 is in sync and does not lead
               partition(2, 3, [1, 3, 2], [3, 2]),           # 1 is not in sync
               partition(3, -1, [2, 1, 3], [], offline=[2])],  # no leader; 1 and 3 alive
    "audit": [partition(0, -1, [1, 2], [], offline=[1, 2])],   # no leader, no replica alive
}


def test_preferred_elects_where_the_first_replica_is_in_sync_and_names_the_rest():
    elections, not_eligible = choose_elections(TOPICS, "preferred")
    assert [(item["partition"], item["leader"], item["new_leader"]) for item in elections] == [("orders-1", 3, 2)]
    assert not_eligible == [
        dict(partition="audit-0", reason="its preferred replica, broker 1, is not in sync"),
        dict(partition="orders-2", reason="its preferred replica, broker 1, is not in sync"),
        dict(partition="orders-3", reason="its preferred replica, broker 2, is not in sync")]


def test_unclean_touches_only_partitions_without_a_leader_and_needs_a_live_replica():
    elections, not_eligible = choose_elections(TOPICS, "unclean")
    assert [item["partition"] for item in elections] == ["orders-3"] and elections[0]["new_leader"] is None
    assert not_eligible == [dict(partition="audit-0", reason="none of its replicas (brokers 1, 2) is alive")]


def test_scope_by_partition_and_topic():
    assert choose_elections(TOPICS, "preferred", asked=[("orders", 0)]) == ([], [])
    elections, not_eligible = choose_elections(TOPICS, "preferred", asked=[("orders", 1), ("orders", 1)],
                                               topics=["audit"])
    assert [item["partition"] for item in elections] == ["orders-1"]
    assert [item["partition"] for item in not_eligible] == ["audit-0"]


@pytest.mark.parametrize("asked, field, words", [
    ([("payments", 0)], "partitions[0].topic", "topic 'payments' does not exist"),
    ([("orders", 0), ("orders", 9)], "partitions[1].partition", "orders has partitions 0-3, not 9"),
])
def test_partitions_that_do_not_exist_are_named(asked, field, words):
    with pytest.raises(ElectionInputError) as refused:
        choose_elections(TOPICS, "preferred", asked=asked)
    assert refused.value.field == field and words in str(refused.value)


@pytest.fixture
def cluster(fake_cluster):
    """orders-1's preferred replica 2 is in sync behind leader 3; orders-2 has no in-sync replica."""
    built = fake_cluster(brokers=(1, 2, 3), topics={"orders": {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}})
    built.isr[("orders", 1)] = [3, 2, 1]
    built.isr[("orders", 2)] = []
    return built


def test_check_mode_predicts_then_the_election_runs_then_nothing_is_left(run_module, cluster):
    predicted = run_module(kafka_leader_election.main, dict(SERVERS), cluster, check_mode=True, diff=True)
    assert predicted["changed"] and predicted["elected"] == ["orders-1"] and cluster.writes() == []
    assert predicted["diff"] == dict(before={"orders-1": 3}, after={"orders-1": 2})
    reason = "its preferred replica, broker 3, is not in sync"
    assert predicted["not_eligible"] == [dict(partition="orders-2", reason=reason)]
    elected = run_module(kafka_leader_election.main, dict(SERVERS), cluster)
    assert elected["changed"] and elected["elected"] == ["orders-1"]
    assert cluster.writes() == [("elect_leaders", dict(partitions={"orders": [1]}))]
    assert cluster.isr[("orders", 1)][0] == 2
    for check_mode in (True, False):
        again = run_module(kafka_leader_election.main, dict(SERVERS), cluster, check_mode=check_mode)
        assert not again["changed"] and again["elected"] == []
    assert len(cluster.writes()) == 1


def test_unclean_is_asked_by_name_and_warns(run_module, cluster):
    result = run_module(kafka_leader_election.main, dict(SERVERS, topics=["orders"], election_type="unclean"),
                        cluster)
    assert result["changed"] and result["elected"] == ["orders-2"]
    assert any("unclean leader election for orders-2" in warning for warning in result["warnings"]), result
    assert cluster.isr[("orders", 2)] == [3]


@pytest.mark.parametrize("arguments, field", [
    (dict(partitions=[{"topic": "orders", "partition": -1}]), "partitions[0].partition"),
    (dict(partitions=[{"partition": 0}]), "partitions[0].topic"),
    (dict(topics=["orders", "missing"]), "topics[1]"),
    (dict(partitions=[{"topic": "orders", "partition": 7}]), "partitions[0].partition"),
])
def test_bad_input_is_refused_naming_the_field_before_any_election(run_module, cluster, arguments, field):
    result = run_module(kafka_leader_election.main, dict(SERVERS, **arguments), cluster)
    assert result["failed"] and result["field"] == field and result["msg"].startswith(field + ": "), result
    assert cluster.writes() == []
