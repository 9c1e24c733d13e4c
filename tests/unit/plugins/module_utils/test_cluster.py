"""kafka_cluster_info's run against a fake cluster: it reads in a few requests and never writes; the
selection of topics and partitions on plain data."""

import datetime
from types import SimpleNamespace

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils import _certificates, _cluster
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_cluster_info
from ansible_collections.kafkaops.cluster.tests.unit.plugins.certificate_samples import issue, name, real_now

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
    assert result["mode"] == "zookeeper" and result["quorum"] is None and result["fenced_brokers"] == []
    assert cluster.requests("describe_metadata_quorum") == []
    assert cluster.writes() == [] and all(client.closed for client in cluster.clients)


def test_a_fenced_broker_is_listed_apart_from_the_live_ones(run_module, cluster):
    # KRaft keeps a stopped broker registered, fenced: it serves nothing.
    cluster.fenced.add(2)
    result = run_module(kafka_cluster_info.main, SERVERS, cluster)
    assert result["brokers"] == [dict(id=1, host="kafka1", port=9092, rack="rack-a")]
    assert result["fenced_brokers"] == [2]


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


def test_a_cluster_part_way_through_the_migration_is_read_as_mixed(run_module, cluster, monkeypatch):
    """A KRaft broker advertised DescribeQuorum, the request reached a ZooKeeper-mode one: the rest is still read."""
    from kafka.errors import IncompatibleBrokerVersion

    def refuse(client):
        raise IncompatibleBrokerVersion("Kafka broker does not support the 'DescribeQuorumRequest' Kafka protocol.")

    cluster.quorum = dict(topics=[], nodes=[])
    monkeypatch.setattr(cluster.client_class, "describe_metadata_quorum", refuse)
    result = run_module(kafka_cluster_info.main, SERVERS, cluster)
    assert not result.get("failed"), result
    assert (result["mode"], result["quorum"]) == ("mixed", None)
    assert [broker["id"] for broker in result["brokers"]] == sorted(cluster.brokers)


def test_configs_and_sizes_are_read_when_asked(run_module, cluster):
    result = run_module(kafka_cluster_info.main, dict(SERVERS, topics=["orders"], include_configs=True,
                                                      include_sizes=True), cluster)
    orders = result["topics"]["orders"]
    assert list(result["topics"]) == ["orders"] and result["reassignments"] == []
    assert orders["config"] == {"retention.ms": "1000"}
    assert orders["partitions"][0]["sizes"] == {1: 100, 2: 100} and orders["size_bytes"] == 400
    # From the same DescribeLogDirs answer: each log dir with what it holds of the topics read; this cluster
    # runs a Kafka before 3.3, whose brokers do not tell their volumes' size.
    assert result["log_dirs"] == [
        dict(broker=broker, log_dir="/var/lib/kafka/data", bytes=200, total_bytes=None, usable_bytes=None,
             error_code=0) for broker in (1, 2)]
    assert len(cluster.requests("describe_log_dirs")) == 1
    assert "log_dirs" not in run_module(kafka_cluster_info.main, dict(SERVERS, topics=["orders"]), cluster)


def test_each_log_dir_tells_its_volume_where_the_broker_reports_it(run_module, fake_cluster):
    cluster = fake_cluster(brokers=(1, 2), topics={"orders": {0: [1, 2], 1: [2, 1]}}, sizes={"orders": 100},
                           disks={1: (1000, 600), 2: (2000, 1900)})
    result = run_module(kafka_cluster_info.main, dict(SERVERS, include_sizes=True), cluster)
    assert [(entry["broker"], entry["bytes"], entry["total_bytes"], entry["usable_bytes"])
            for entry in result["log_dirs"]] == [(1, 200, 1000, 600), (2, 200, 2000, 1900)]


def test_log_dirs_are_read_per_dir_leaving_out_replicas_still_being_copied_between_dirs():
    responses = [dict(broker=2, log_dirs=[
        dict(error_code=0, log_dir="/data/b", total_bytes=5000, usable_bytes=1000, topics=[
            dict(name="orders", partitions=[dict(partition_index=0, partition_size=300, is_future_key=False),
                                            dict(partition_index=1, partition_size=50, is_future_key=True)])]),
        dict(error_code=56, log_dir="/data/a", total_bytes=-1, usable_bytes=-1, topics=[])]),
        dict(broker=1, log_dirs=[])]
    assert _cluster._log_dir_figures(responses) == [
        dict(broker=2, log_dir="/data/a", bytes=0, total_bytes=None, usable_bytes=None, error_code=56),
        dict(broker=2, log_dir="/data/b", bytes=300, total_bytes=5000, usable_bytes=1000, error_code=0)]


@pytest.mark.parametrize("args, field, words", [
    (dict(topics=["orders", "nope"]), "topics", "do not exist: nope"),
    (dict(request_timeout=0), "request_timeout", "at least 1"),
], ids=["unknown-topic", "zero-timeout"])
def test_bad_input_fails_naming_the_field(run_module, cluster, args, field, words):
    failed = run_module(kafka_cluster_info.main, dict(SERVERS, **args), cluster)
    assert failed["failed"] and failed["field"] == field and words in failed["msg"], failed
    assert "changed" not in failed and cluster.writes() == []


# ---- asking for less: which topics, which partitions ---------------------------------------------


@pytest.mark.parametrize("items, names, patterns", [
    ([], [], []),
    (["orders", "audit"], ["orders", "audit"], []),
    (["orders-*", "audit", "log-?", "x[12]", "orders-*", "audit"], ["audit"], ["orders-*", "log-?", "x[12]"]),
], ids=["nothing", "names", "names-and-patterns-without-repeats"])
def test_topic_items_are_split_into_names_and_patterns(items, names, patterns):
    assert _cluster.split_topic_selection(items) == (names, patterns)


@pytest.mark.parametrize("items, field", [([""], "topics[0]"), (["orders", "  "], "topics[1]")])
def test_an_empty_topic_item_is_refused_naming_it(items, field):
    with pytest.raises(_cluster.TopicSelectionError) as raised:
        _cluster.split_topic_selection(items)
    assert raised.value.field == field and "empty" in str(raised.value)


@pytest.mark.parametrize("name, internal, names, patterns, include_internal, selected", [
    ("orders", False, [], [], False, True),
    ("__consumer_offsets", True, [], [], False, False),
    ("__consumer_offsets", True, [], [], True, True),
    ("__consumer_offsets", True, ["__consumer_offsets"], [], False, True),
    ("orders", False, ["audit"], [], False, False),
    ("orders-eu", False, ["audit"], ["orders-*"], False, True),
    ("Orders-eu", False, [], ["orders-*"], False, False),
    ("__consumer_offsets", True, [], ["__*"], False, False),
    ("__consumer_offsets", True, [], ["__*"], True, True),
    ("log-7", False, [], ["log-[0-5]"], False, False),
], ids=["all", "internal-left-out", "internal-asked", "internal-named", "not-named", "pattern",
        "pattern-is-case-sensitive", "pattern-skips-internal", "pattern-with-internal", "character-class"])
def test_which_topics_are_selected(name, internal, names, patterns, include_internal, selected):
    assert _cluster.topic_selected(name, internal, names, patterns, include_internal) is selected


def _partition(number, leader, replicas, isr):
    return dict(partition=number, leader=leader, replicas=replicas, isr=isr, offline_replicas=[])


@pytest.mark.parametrize("partition, reassigning, problems", [
    (_partition(0, 1, [1, 2, 3], [1, 2, 3]), False, []),
    (_partition(0, -1, [1, 2, 3], [1]), False, ["offline", "under_replicated"]),
    (_partition(0, -1, [1], [1]), False, ["offline"]),
    (_partition(0, 1, [1, 2, 3], [1, 3]), False, ["under_replicated"]),
    (_partition(0, 2, [1, 2, 3], [1, 2, 3]), False, ["leader_not_preferred"]),
    (_partition(0, 2, [1, 2, 3, 4], [1, 2, 3]), True, ["under_replicated", "reassigning", "leader_not_preferred"]),
    (_partition(0, 1, [], []), False, []),
], ids=["healthy", "offline-and-under-replicated", "offline-in-sync", "under-replicated",
        "leader-not-preferred", "reassigning", "no-replicas"])
def test_the_problems_of_a_partition(partition, reassigning, problems):
    assert _cluster.partition_problems(partition, reassigning) == problems


SICK = {
    "orders": [_partition(0, 1, [1, 2], [1, 2]), _partition(1, -1, [2, 1], [2]), _partition(2, 1, [2, 1], [1, 2])],
    "audit": [_partition(0, 2, [2, 3], [2]), _partition(1, 3, [3, 1], [3, 1])],
    "empty": [],
}


def test_the_summary_counts_every_partition_and_each_kind_of_problem():
    summary, labels, problems = _cluster.summarize_partitions(SICK, [("audit", 1)])
    assert summary == dict(topics=3, partitions=5, replicas=10, problem_partitions=4, offline=1, under_replicated=2,
                           reassigning=1, leader_not_preferred=1)
    assert labels == dict(offline=["orders-1"], under_replicated=["audit-0", "orders-1"],
                          leader_not_preferred=["orders-2"])
    assert problems == {("orders", 1): ["offline", "under_replicated"], ("orders", 2): ["leader_not_preferred"],
                        ("audit", 0): ["under_replicated"], ("audit", 1): ["reassigning"]}


@pytest.mark.parametrize("view, listed", [
    ("all", {"orders": [0, 1, 2], "audit": [0, 1], "empty": []}),
    ("problems", {"orders": [1, 2], "audit": [0, 1]}),
    ("none", {"orders": None, "audit": None, "empty": None}),
])
def test_topic_entries_list_the_partitions_the_view_asks_for(view, listed):
    problems = _cluster.summarize_partitions(SICK, [("audit", 1)])[2]
    topics = _cluster.topic_entries(SICK, view, problems)
    assert dict((name, [item["partition"] for item in topic["partitions"]] if "partitions" in topic else None)
                for name, topic in topics.items()) == listed
    assert topics["orders"]["partition_count"] == 3 and topics["audit"]["replication_factor"] == 2
    if view == "problems":
        assert [item["problems"] for item in topics["orders"]["partitions"]] == [
            ["offline", "under_replicated"], ["leader_not_preferred"]]
        assert "problems" not in SICK["orders"][1]


def test_a_topic_size_counts_all_its_partitions_even_when_only_some_are_listed():
    problems = _cluster.summarize_partitions(SICK)[2]
    topics = _cluster.topic_entries(SICK, "problems", problems)
    _cluster.add_sizes(topics, SICK, {"orders": {0: {1: 10, 2: 10}, 1: {2: 5}, 2: {1: 1, 2: 1}}})
    assert [item["sizes"] for item in topics["orders"]["partitions"]] == [{2: 5}, {1: 1, 2: 1}]
    assert topics["orders"]["size_bytes"] == 27 and topics["audit"]["size_bytes"] == 0


@pytest.fixture
def many(fake_cluster):
    """orders-eu, orders-us, audit and the internal __consumer_offsets; orders-us-1 under-replicated,
    audit-0 led by its second replica."""
    sick = fake_cluster(brokers=(1, 2, 3), topics={
        "orders-eu": {0: [1, 2], 1: [2, 3]}, "orders-us": {0: [3, 1], 1: [1, 2]}, "audit": {0: [2, 3]},
        "__consumer_offsets": {0: [1, 2, 3]}}, sizes={"orders-eu": 10, "orders-us": 20, "audit": 30})
    sick.isr[("orders-us", 1)] = [1]
    sick.isr[("audit", 0)] = [3, 2]
    return sick


def test_names_alone_describe_only_those_topics(run_module, many):
    result = run_module(kafka_cluster_info.main, dict(SERVERS, topics=["audit"]), many)
    assert list(result["topics"]) == ["audit"] and result["summary"]["partitions"] == 1
    assert result["leader_not_preferred_partitions"] == ["audit-0"]
    assert many.requests("describe_topics") == [dict(topics=["audit"])]


def test_a_pattern_reads_every_topic_and_keeps_the_matching_ones(run_module, many):
    result = run_module(kafka_cluster_info.main, dict(SERVERS, topics=["orders-*", "audit"]), many)
    assert sorted(result["topics"]) == ["audit", "orders-eu", "orders-us"]
    assert many.requests("describe_topics") == [dict(topics=None)]
    assert (result["summary"]["topics"], result["summary"]["partitions"]) == (3, 5)
    assert result["under_replicated_partitions"] == ["orders-us-1"]


def test_problems_lists_only_the_sick_partitions_and_the_summary_still_counts_all(run_module, many):
    result = run_module(kafka_cluster_info.main, dict(SERVERS, partitions="problems", include_sizes=True,
                                                      include_configs=True), many)
    assert not result.get("failed"), result
    assert sorted(result["topics"]) == ["audit", "orders-us"]
    assert [(item["partition"], item["problems"]) for item in result["topics"]["orders-us"]["partitions"]] == [
        (1, ["under_replicated"])]
    assert result["topics"]["orders-us"]["partition_count"] == 2
    assert result["topics"]["orders-us"]["size_bytes"] == 20 * 4
    assert result["summary"] == dict(topics=3, partitions=5, replicas=10, problem_partitions=2, offline=0,
                                     under_replicated=1, reassigning=0, leader_not_preferred=1)
    # Configs and sizes only of the topics returned, sizes of all their partitions.
    assert many.requests("describe_configs") == [dict(resources=[(2, "audit"), (2, "orders-us")])]
    assert many.requests("describe_log_dirs") == [dict(topics={"audit": [0], "orders-us": [0, 1]})]


def test_none_lists_no_partitions_and_a_healthy_selection_sends_no_size_request(run_module, many):
    result = run_module(kafka_cluster_info.main, dict(SERVERS, topics=["orders-eu"], partitions="problems",
                                                      include_sizes=True), many)
    assert result["topics"] == {} and result["summary"]["partitions"] == 2
    assert many.requests("describe_log_dirs") == [] and result["log_dirs"] == []
    result = run_module(kafka_cluster_info.main, dict(SERVERS, partitions="none", include_internal=True), many)
    assert sorted(result["topics"]) == ["__consumer_offsets", "audit", "orders-eu", "orders-us"]
    assert all("partitions" not in topic for topic in result["topics"].values())
    assert result["summary"]["replicas"] == 13


def test_a_pattern_matching_nothing_returns_nothing(run_module, many):
    result = run_module(kafka_cluster_info.main, dict(SERVERS, topics=["payments-*"]), many)
    assert not result.get("failed") and result["topics"] == {} and result["summary"]["topics"] == 0
    assert result["reassignments"] == [] and many.requests("list_partition_reassignments") == []


@pytest.mark.parametrize("args, field, words", [
    (dict(topics=["orders-eu", ""]), "topics[1]", "empty"),
    (dict(partitions="sick"), None, "partitions"),
    (dict(topics=["orders-*", "nope"]), "topics", "do not exist: nope"),
], ids=["empty-item", "unknown-view", "named-missing-beside-a-pattern"])
def test_bad_selections_fail_naming_the_field(run_module, many, args, field, words):
    failed = run_module(kafka_cluster_info.main, dict(SERVERS, **args), many)
    assert failed["failed"] and words in failed["msg"], failed
    assert failed.get("field") == field
    if field == "topics[1]":
        assert many.clients == []


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


def _log_dir(path, total, usable):
    return dict(log_dir=path, error_code=0, topics=[], total_bytes=total, usable_bytes=usable)


def test_log_dirs_of_one_broker_on_one_filesystem_count_once():
    gib = 1 << 30
    responses = [
        # Broker 1: two dirs on one disk (usable read a moment apart), and a second disk.
        dict(broker=1, log_dirs=[_log_dir("/data/a", 100 * gib, 40 * gib),
                                 _log_dir("/data/b", 100 * gib, 40 * gib - 4096),
                                 _log_dir("/disk2/c", 50 * gib, 50 * gib)]),
        dict(broker=2, log_dirs=[_log_dir("/data/a", 100 * gib, 40 * gib)]),
    ]
    expected = {1: {"total_bytes": 150 * gib, "used_bytes": 60 * gib},
                2: {"total_bytes": 100 * gib, "used_bytes": 60 * gib}}
    assert _cluster._disks(responses) == expected
    # A broker that lists no log dir refused the request: its sizes are missing, and it is named.
    assert _cluster.brokers_without_log_dirs(responses + [dict(broker=3, log_dirs=[])]) == [3]


# ---- certificates the brokers serve -------------------------------------------------------------


@pytest.fixture
def handshakes(monkeypatch):
    """{host: (DER, verified, reason) or an exception}: what a handshake with each broker gives, with the
    calls recorded in handshakes.calls."""
    answers = {}
    calls = []

    def handshake(host, port, params, timeout):
        calls.append((host, port, params.get("ssl_cafile"), timeout))
        answer = answers[host]
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(_certificates, "served_certificate", handshake)
    return SimpleNamespace(answers=answers, calls=calls)


def _served(days_left, common_name):
    return issue(name(common_name), not_after=real_now() + datetime.timedelta(days=days_left, hours=1))


TLS = dict(SERVERS, security_protocol="SSL", ssl_cafile=__file__, include_certificates=True)


def test_each_broker_serves_its_certificate_and_those_expiring_soon_are_warned_of(run_module, cluster, handshakes):
    fine, soon = _served(400, "kafka1"), _served(12, "kafka2")
    handshakes.answers.update(kafka1=(fine.der, True, None), kafka2=(soon.der, False, "certificate has expired"))
    result = run_module(kafka_cluster_info.main, TLS, cluster)
    assert not result.get("failed"), result
    assert sorted(handshakes.calls) == [("kafka1", 9092, __file__, 30), ("kafka2", 9092, __file__, 30)]
    first, second = result["certificates"]
    assert first["broker"] == 1 and first["address"] == "kafka1:9092" and first["subject"] == "CN=kafka1"
    assert first["days_left"] == 400 and not first["expiring"] and first["verified"] and first["verify_error"] is None
    assert int(first["serial"], 16) == fine.certificate.serial_number
    assert second["days_left"] == 12 and second["expiring"] and not second["verified"]
    assert second["verify_error"] == "certificate has expired"
    assert result["certificates_expiring"] == [second]
    expiry = soon.certificate.not_valid_after_utc.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert result["warnings"] == [
        "broker 2 at kafka2:9092 serves a certificate within certificate_warn_days (30): its certificate (CN=kafka2) "
        "expires on %s, in 12 days" % expiry]


def test_a_wide_window_lists_every_certificate_and_an_unreadable_one_is_warned_of(run_module, cluster, handshakes):
    handshakes.answers.update(kafka1=(_served(400, "kafka1").der, True, None),
                              kafka2=ConnectionRefusedError(111, "Connection refused"))
    result = run_module(kafka_cluster_info.main, dict(TLS, certificate_warn_days=100000), cluster)
    assert [entry["broker"] for entry in result["certificates_expiring"]] == [1]
    assert result["certificates"][1] == dict(broker=2, address="kafka2:9092", error="[Errno 111] Connection refused")
    assert result["warnings"][0].startswith("broker 1 at kafka1:9092 serves a certificate within "
                                            "certificate_warn_days (100000): its certificate (CN=kafka1) expires on ")
    assert result["warnings"][1] == ("broker 2 at kafka2:9092: its certificate could not be read: "
                                     "[Errno 111] Connection refused")


@pytest.mark.parametrize("args", [dict(SERVERS, include_certificates=True),
                                  dict(SERVERS, security_protocol="SASL_PLAINTEXT", sasl_username="u",
                                       sasl_password="p", include_certificates=True)],
                         ids=["plaintext", "sasl-plaintext"])
def test_a_listener_without_tls_serves_no_certificate_and_none_is_asked_for(run_module, cluster, handshakes, args):
    result = run_module(kafka_cluster_info.main, args, cluster)
    assert result["certificates"] == [] and result["certificates_expiring"] == [] and handshakes.calls == []


def test_certificates_are_read_only_when_asked(run_module, cluster, handshakes):
    result = run_module(kafka_cluster_info.main, dict(TLS, include_certificates=False), cluster)
    assert "certificates" not in result and handshakes.calls == []


def test_a_negative_window_is_refused_naming_it(run_module, handshakes):
    failed = run_module(kafka_cluster_info.main, dict(TLS, certificate_warn_days=-1), None)
    assert failed["failed"] and failed["field"] == "certificate_warn_days" and "at least 0" in failed["msg"]


def test_delete_delays_are_read_per_broker_and_one_that_does_not_answer_is_named(fake_cluster):
    cluster = fake_cluster(brokers=(1, 2, 3, 4))
    cluster.broker_configs[4] = {"log.segment.delete.delay.ms": "0"}
    client = cluster.connect()
    assert _cluster.read_delete_delays(client, [4, 1]) == ({1: 60000, 4: 0}, {})
    assert cluster.requests("describe_configs") == [dict(resources=[(4, "1"), (4, "4")])]
    # The round fails for one broker: each is asked alone, and only that one is left unread.
    cluster.configs_refused.add(3)
    refused = {3: "KafkaConnectionError: broker 3 did not answer"}
    assert _cluster.read_delete_delays(client, [1, 3]) == ({1: 60000}, refused)
    assert _cluster.read_delete_delays(client, []) == ({}, {})
