"""kafka_topic's run against a fake cluster, and the batched requests it sends."""

import threading

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import AdminClientPool, KafkaAdminError
from ansible_collections.kafkaops.cluster.plugins.module_utils._topic_changes import (
    TopicSpecError,
    normalize_topics,
    plan_topic_changes,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._topics import (
    apply_changes,
    create_batches,
    validate_on_cluster,
)
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_topic
from hypothesis import given
from hypothesis import strategies as st

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}
RESULT_KEYS = ("changed", "topics", "created", "deleted", "partitions_added", "configs_altered")


@pytest.fixture
def cluster(fake_cluster):
    """orders: 3 partitions on 3 brokers with a retention override; audit: 1 partition."""
    return fake_cluster(topics={"orders": {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}, "audit": {0: [1, 2, 3]}},
                        overrides={"orders": {"retention.ms": "86400000"}})


# ---- the module's run ---------------------------------------------------------------------------


def test_a_declaration_the_cluster_matches_changes_nothing(run_module, cluster):
    result = run_module(kafka_topic.main, dict(SERVERS, name="orders", partitions=3, replication_factor=3,
                                               config={"retention.ms": 86400000}), cluster)
    assert not result.get("failed") and not result["changed"]
    assert dict((key, result[key]) for key in RESULT_KEYS[1:]) == dict(
        topics=[], created=[], deleted=[], partitions_added={}, configs_altered={})
    assert cluster.writes() == [] and not cluster.requests("create_topics")
    assert all(client.closed for client in cluster.clients)


@pytest.mark.parametrize("args, expected, after", [
    (dict(name="new", partitions=2, replication_factor=3, config={"cleanup.policy": "compact"}),
     dict(topics=["new"], created=["new"]),
     lambda cluster: len(cluster.topics["new"]) == 2 and cluster.overrides["new"] == {"cleanup.policy": "compact"}),
    (dict(name="orders", partitions=5), dict(topics=["orders"], partitions_added={"orders": 5}),
     lambda cluster: len(cluster.topics["orders"]) == 5),
    (dict(name="orders", config={"retention.ms": 1000, "min.insync.replicas": 2}),
     dict(topics=["orders"], configs_altered={"orders": {"retention.ms": "1000", "min.insync.replicas": "2"}}),
     lambda cluster: cluster.overrides["orders"] == {"retention.ms": "1000", "min.insync.replicas": "2"}),
    (dict(name="orders", config={}, config_mode="replace"),
     dict(topics=["orders"], configs_altered={"orders": {"retention.ms": None}}),
     lambda cluster: cluster.overrides["orders"] == {}),
    (dict(topics=[{"name": "audit", "state": "absent"}, {"name": "gone", "state": "absent"}]),
     dict(topics=["audit"], deleted=["audit"]),
     lambda cluster: "audit" not in cluster.topics),
], ids=["create", "grow", "reconfigure", "replace-configs", "delete"])
def test_check_mode_predicts_the_change_and_a_second_run_changes_nothing(run_module, cluster, args, expected, after):
    args = dict(SERVERS, **args)
    predicted = run_module(kafka_topic.main, args, cluster, check_mode=True)
    assert not predicted.get("failed"), predicted
    assert cluster.writes() == []
    applied = run_module(kafka_topic.main, args, cluster)
    wanted = dict(dict(changed=True, topics=[], created=[], deleted=[], partitions_added={}, configs_altered={}),
                  **expected)
    assert dict((key, predicted[key]) for key in RESULT_KEYS) == wanted
    assert dict((key, applied[key]) for key in RESULT_KEYS) == wanted
    assert cluster.writes() and after(cluster)
    # Every write was first sent with validate_only, and the checks came before the first write.
    validated = [name for name, arguments in cluster.calls if arguments.get("validate_only")]
    first_write = cluster.calls.index(cluster.writes()[0])
    assert set(validated) == set(name for name, unused in cluster.writes()) - {"delete_topics"}
    assert all(cluster.calls.index(call) < first_write for call in cluster.calls if call[1].get("validate_only"))
    writes = len(cluster.writes())
    again = run_module(kafka_topic.main, args, cluster)
    assert not again["changed"] and len(cluster.writes()) == writes
    assert all(client.closed for client in cluster.clients)


def test_a_topic_declared_with_unclean_leader_election_is_warned_of(run_module, cluster):
    unclean = "unclean.leader.election.enable"
    args = dict(SERVERS, topics=[{"name": "orders", "config": {unclean: True}},
                                 {"name": "audit", "config": {unclean: False}},
                                 {"name": "gone", "state": "absent", "config": {unclean: True}}])
    for _run in range(2):
        result = run_module(kafka_topic.main, args, cluster)
        assert not result.get("failed"), result.get("msg")
        assert result["warnings"] == [
            "topic(s) orders: unclean.leader.election.enable=true lets a replica that is out of sync become leader "
            "when no in-sync one is left, and the records only the in-sync replicas held, acknowledged ones included, "
            "are then gone for good"]
    assert cluster.overrides["orders"]["unclean.leader.election.enable"] == "true"


def test_diff_mode_shows_each_changed_topic_before_and_after(run_module, cluster):
    args = dict(SERVERS, topics=[{"name": "orders", "partitions": 4}, {"name": "audit"}, {"name": "new"}],
                replication_factor=3)
    predicted = run_module(kafka_topic.main, args, cluster, check_mode=True, diff=True)
    assert predicted["diff"] == dict(
        before={"orders": dict(partitions=3, replication_factor=3, config={"retention.ms": "86400000"}),
                "new": None},
        after={"orders": dict(partitions=4, replication_factor=3, config={"retention.ms": "86400000"}),
               "new": dict(partitions=None, replication_factor=3, config={})})
    # The configs shown were read for the diff although the declaration sets none.
    assert cluster.requests("describe_configs")
    assert run_module(kafka_topic.main, args, cluster, diff=True)["diff"] == predicted["diff"]
    assert "diff" not in run_module(kafka_topic.main, args, cluster, check_mode=True)


@pytest.mark.parametrize("args, field, words", [
    # Refused before connecting: the declaration itself is wrong.
    (dict(partitions=0, name="orders"), "partitions", "at least 1"),
    (dict(topics=[{"name": "ok"}, {"name": "bad name"}]), "topics[1].name", "not a legal topic name"),
    (dict(topics=[{"name": "ok"}, {"name": "t", "partitions": 0}]), "topics[1].partitions", "at least 1"),
    (dict(name="orders", request_timeout=0), "request_timeout", "at least 1"),
    # Refused after reading the cluster, before any write.
    (dict(name="orders", partitions=2), "partitions", "cannot reduce"),
    (dict(name="orders", replication_factor=2), "replication_factor", "prepare_reassignment"),
    (dict(name="new", replication_factor=4), "replication_factor", "more than the 3 live broker(s)"),
    # Refused by the brokers' own checks (validate_only), before any write.
    (dict(topics=[{"name": "audit", "partitions": 2}, {"name": "new", "config": {"no.such.key": 1}}]),
     "topics[1].config", "Unknown topic config name: no.such.key"),
], ids=["zero-partitions", "bad-name", "zero-partitions-in-list", "zero-timeout", "fewer-partitions",
        "replication-factor-change", "more-replicas-than-brokers", "unknown-config"])
def test_bad_input_fails_naming_the_field_before_any_write(run_module, cluster, args, field, words):
    failed = run_module(kafka_topic.main, dict(SERVERS, **args), cluster)
    assert failed["failed"] and failed["field"] == field and words in failed["msg"], failed
    assert failed["msg"].startswith(field + ":")
    assert not failed["changed"] and failed["topics"] == [] and failed["created"] == []
    assert cluster.writes() == []
    assert all(client.closed for client in cluster.clients)


def test_declaration_errors_are_found_without_connecting(run_module):
    failed = run_module(kafka_topic.main, dict(SERVERS, topics=[{"name": "a"}, {"name": "a"}]), None)
    assert failed["failed"] and failed["field"] == "topics[1].name"


def test_many_topics_are_created_over_several_clients_all_closed(run_module, fake_cluster):
    cluster = fake_cluster()
    result = run_module(kafka_topic.main, dict(SERVERS, topics=[{"name": "t%03d" % index} for index in range(120)],
                                               partitions=1, replication_factor=1), cluster)
    assert result["changed"] and len(result["created"]) == 120 and len(cluster.topics) == 120
    assert len(cluster.clients) == 4 and all(client.closed for client in cluster.clients)


# ---- sending the topics to create in batches ----------------------------------------------------


@pytest.mark.parametrize("count, sizes", [
    (0, []), (1, [1]), (49, [49]), (50, [25, 25]), (99, [33, 33, 33]), (100, [25, 25, 25, 25]),
    (1000, [250, 250, 250, 250]), (1003, [251, 251, 251, 250]),
])
def test_topics_to_create_are_split_into_a_few_even_batches(count, sizes):
    batches = create_batches(list(range(count)), most=4, fewest=25)
    assert [len(batch) for batch in batches] == sizes
    assert [item for batch in batches for item in batch] == list(range(count))


@given(st.integers(min_value=0, max_value=3000), st.integers(min_value=1, max_value=16),
       st.integers(min_value=1, max_value=100))
def test_batches_keep_every_item_once_in_order_within_the_limits(count, most, fewest):
    items = list(range(count))
    batches = create_batches(items, most=most, fewest=fewest)
    assert [item for batch in batches for item in batch] == items
    assert len(batches) <= most
    if len(batches) > 1:
        assert min(len(batch) for batch in batches) >= fewest
        assert max(len(batch) for batch in batches) - min(len(batch) for batch in batches) <= 1


class _FakeAdmin:
    """Answers CreateTopics like a broker: refuses the topics named in `refuse` with the given message."""

    def __init__(self, refuse=None):
        self.refuse = refuse or {}
        self.requests = []
        self.threads = set()

    def create_topics(self, topics, timeout_ms=None, validate_only=False, raise_errors=True):
        self.requests.append((sorted(topics), validate_only))
        self.threads.add(threading.current_thread().name)
        return {"topics": [dict(name=name, error_code=40 if name in self.refuse else 0,
                                error_message=self.refuse.get(name)) for name in topics]}

    def close(self):
        pass


def _create_changes(count, **declared):
    items = [dict({"name": "topic-%03d" % index, "partitions": 3, "replication_factor": 3}, **declared)
             for index in range(count)]
    desired = normalize_topics(items)
    return desired, plan_topic_changes(desired, {}, 3)


def test_many_topics_are_created_in_batches_over_a_client_each_validated_first():
    desired, changes = _create_changes(120)
    first, more = _FakeAdmin(), [_FakeAdmin() for unused in range(3)]
    pool = AdminClientPool(first, lambda: more.pop(0))
    validate_on_cluster(pool, changes, desired, 1000)
    apply_changes(pool, changes, desired, 1000, wait=False)
    clients = pool.at_most(4)
    assert len(clients) == 4 and clients[0] is first
    sent = [request for client in clients for request in client.requests]
    assert sorted(name for names, validate_only in sent if validate_only for name in names) == \
        [topic["name"] for topic in desired]
    assert sorted(name for names, validate_only in sent if not validate_only for name in names) == \
        [topic["name"] for topic in desired]
    assert all([validate_only for unused, validate_only in client.requests] == [True, False] for client in clients)


def test_a_refused_topic_in_any_batch_names_its_field_and_nothing_is_created():
    desired, changes = _create_changes(100)
    refuse = {"topic-080": "Unknown topic config name: no.such.key"}
    first = _FakeAdmin(refuse)
    pool = AdminClientPool(first, lambda: _FakeAdmin(refuse))
    with pytest.raises(TopicSpecError) as raised:
        validate_on_cluster(pool, changes, desired, 1000)
    # topic-080 is in the last of 4 batches, which went over another client than the first.
    assert "topic-080" not in first.requests[0][0]
    assert raised.value.field == "topics[80].config"
    assert "topic 'topic-080': Unknown topic config name: no.such.key" in str(raised.value)


def test_failed_creations_are_reported_per_topic():
    desired, changes = _create_changes(60)
    first = _FakeAdmin(refuse={"topic-001": "Topic 'topic-001' already exists."})
    with pytest.raises(KafkaAdminError, match="topics\\[1\\].name: topic 'topic-001': Topic 'topic-001' already"):
        apply_changes(AdminClientPool(first, _FakeAdmin), changes, desired, 1000, wait=False)


def test_clients_that_cannot_connect_mean_fewer_batches_not_fewer_topics():
    def refuse():
        raise KafkaAdminError("could not connect")

    desired, changes = _create_changes(200)
    first = _FakeAdmin()
    apply_changes(AdminClientPool(first, refuse), changes, desired, 1000, wait=False)
    assert len(first.requests) == 1 and len(first.requests[0][0]) == 200


def test_a_few_topics_go_in_one_request_without_more_connections():
    desired, changes = _create_changes(10)

    def no_more():
        raise AssertionError("no further connection is needed for 10 topics")

    first = _FakeAdmin()
    pool = AdminClientPool(first, no_more)
    validate_on_cluster(pool, changes, desired, 1000)
    apply_changes(pool, changes, desired, 1000, wait=False)
    assert [len(names) for names, unused in first.requests] == [10, 10]
