"""kafka_cluster_info's run against a fake cluster: it reads in a few requests and never writes."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_cluster_info

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}


@pytest.fixture
def cluster(fake_cluster):
    return fake_cluster(brokers={1: "rack-a", 2: "rack-b"},
                        topics={"orders": {0: [1, 2], 1: [2, 1]}, "audit": {0: [2]}},
                        overrides={"orders": {"retention.ms": "1000"}}, moving={("audit", 0): [1]},
                        sizes={"orders": 100, "audit": 7})


@pytest.mark.parametrize("check_mode", [False, True], ids=["run", "check-mode"])
def test_the_cluster_is_read_alike_in_check_mode_and_never_changed(run_module, cluster, check_mode):
    result = run_module(kafka_cluster_info.main, SERVERS, cluster, check_mode=check_mode)
    assert not result.get("failed") and result["changed"] is False
    assert result["cluster_id"] == "fake-cluster" and result["controller_id"] == 1
    assert result["brokers"] == [dict(id=1, host="kafka1", port=9092, rack="rack-a"),
                                 dict(id=2, host="kafka2", port=9092, rack="rack-b")]
    assert sorted(result["topics"]) == ["audit", "orders"]
    assert result["topics"]["orders"]["partition_count"] == 2 and result["topics"]["orders"]["replication_factor"] == 2
    assert "config" not in result["topics"]["orders"] and "size_bytes" not in result["topics"]["orders"]
    assert result["reassignments"] == [dict(topic="audit", partition=0, replicas=[1, 2], adding_replicas=[1],
                                            removing_replicas=[2])]
    assert result["under_replicated_partitions"] == [] and result["offline_partitions"] == []
    assert result["mode"] == "zookeeper" and result["quorum"] is None
    assert cluster.requests("describe_metadata_quorum") == []
    assert cluster.writes() == [] and all(client.closed for client in cluster.clients)


def _replica(replica_id, log_end_offset, caught_up=1795488553590):
    return dict(replica_id=replica_id, replica_directory_id="AAAAAAAAAAAAAAAAAAAAAA", log_end_offset=log_end_offset,
                last_fetch_timestamp=caught_up, last_caught_up_timestamp=caught_up)


def test_a_kraft_cluster_reports_its_quorum_with_each_replicas_lag(run_module, cluster):
    cluster.quorum = dict(topics=[dict(topic_name="__cluster_metadata", partitions=[dict(
        partition_index=0, leader_id=3002, leader_epoch=7, high_watermark=812, error=None,
        current_voters=[_replica(3002, 812), _replica(3001, 800), _replica(3003, -1, -1)],
        observers=[_replica(2, 812), _replica(1, 790)])])], nodes=[])
    result = run_module(kafka_cluster_info.main, SERVERS, cluster)
    assert result["mode"] == "kraft"
    quorum = result["quorum"]
    assert (quorum["leader_id"], quorum["leader_epoch"], quorum["high_watermark"]) == (3002, 7, 812)
    assert [(voter["id"], voter["lag"]) for voter in quorum["voters"]] == [(3001, 12), (3002, 0), (3003, None)]
    assert [(observer["id"], observer["lag"]) for observer in quorum["observers"]] == [(1, 22), (2, 0)]
    assert cluster.writes() == []


def test_a_quorum_that_cannot_be_described_fails_with_the_reason(run_module, cluster):
    cluster.quorum = dict(topics=[dict(topic_name="__cluster_metadata", partitions=[dict(
        partition_index=0, leader_id=-1, leader_epoch=0, high_watermark=0, current_voters=[], observers=[],
        error="NotLeaderOrFollowerError: ")])], nodes=[])
    result = run_module(kafka_cluster_info.main, SERVERS, cluster)
    assert result["failed"] and "describing the metadata quorum failed: NotLeaderOrFollowerError" in result["msg"]


def test_configs_and_sizes_are_read_when_asked(run_module, cluster):
    result = run_module(kafka_cluster_info.main, dict(SERVERS, topics=["orders"], include_configs=True,
                                                      include_sizes=True), cluster)
    orders = result["topics"]["orders"]
    assert list(result["topics"]) == ["orders"] and result["reassignments"] == []
    assert orders["config"] == {"retention.ms": "1000"}
    assert orders["partitions"][0]["sizes"] == {1: 100, 2: 100} and orders["size_bytes"] == 400


@pytest.mark.parametrize("args, field, words", [
    (dict(topics=["orders", "nope"]), "topics", "do not exist: nope"),
    (dict(request_timeout=0), "request_timeout", "at least 1"),
], ids=["unknown-topic", "zero-timeout"])
def test_bad_input_fails_naming_the_field(run_module, cluster, args, field, words):
    failed = run_module(kafka_cluster_info.main, dict(SERVERS, **args), cluster)
    assert failed["failed"] and failed["field"] == field and words in failed["msg"], failed
    assert "changed" not in failed and cluster.writes() == []


def test_throttles_left_set_are_listed_and_nothing_else(run_module, cluster):
    cluster.broker_configs = {1: {"leader.replication.throttled.rate": "1048576",
                                  "follower.replication.throttled.rate": "1048576", "log.cleaner.threads": "2"},
                              2: {}}
    cluster.overrides["audit"] = {"follower.replication.throttled.replicas": "0:1", "retention.ms": "5"}
    result = run_module(kafka_cluster_info.main, dict(SERVERS, include_throttles=True), cluster)
    assert result["throttles"] == dict(
        brokers=[dict(id=1, configs={"leader.replication.throttled.rate": "1048576",
                                     "follower.replication.throttled.rate": "1048576"})],
        topics=[dict(topic="audit", configs={"follower.replication.throttled.replicas": "0:1"})])
    assert "consumer_groups" not in result and cluster.writes() == []


def test_no_throttle_set_reads_as_empty_lists(run_module, cluster):
    result = run_module(kafka_cluster_info.main, dict(SERVERS, include_throttles=True), cluster)
    assert result["throttles"] == dict(brokers=[], topics=[])


def test_consumer_groups_are_listed_by_name_with_their_state(run_module, fake_group_cluster):
    cluster = fake_group_cluster(brokers={1: None}, topics={"orders": {0: [1]}}, groups={
        "billing": {"members": [("member-1", "client-1", "/10.0.0.9", [("orders", 0)])]},
        "audit": {"offsets": {("orders", 0): 3}}})
    result = run_module(kafka_cluster_info.main, dict(SERVERS, include_consumer_groups=True), cluster)
    assert result["consumer_groups"] == [dict(group="audit", state="Empty", protocol_type="consumer"),
                                         dict(group="billing", state="Stable", protocol_type="consumer")]
    assert "throttles" not in result and cluster.writes() == []
