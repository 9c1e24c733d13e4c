"""kafka_topic: checking declared topics, computing the difference, and sending it in batches."""

import threading

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import (
    AdminClientPool,
    KafkaAdminError,
    run_side_by_side,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._topics import (
    TopicSpecError,
    apply_changes,
    config_value,
    create_batches,
    normalize_topics,
    plan_topic_changes,
    validate_on_cluster,
)
from hypothesis import given
from hypothesis import strategies as st


def _actual(partitions=3, replication_factor=3, overrides=None, defaults=None):
    configs = dict(defaults or {"retention.ms": "604800000", "cleanup.policy": "delete"})
    configs.update(overrides or {})
    return dict(partitions=partitions, replication_factor=replication_factor, configs=configs,
                overrides=dict(overrides or {}))


def _plan(items, actual, brokers=3, mode="merge", state="present"):
    return plan_topic_changes(normalize_topics(items, state), actual, brokers, mode)


@pytest.mark.parametrize("value, expected", [
    (True, "true"), (False, "false"), (86400000, "86400000"), ("compact", "compact"),
    (["compact", "delete"], "compact,delete"), (0.5, "0.5"),
])
def test_config_values_become_the_strings_kafka_uses(value, expected):
    assert config_value(value) == expected


@pytest.mark.parametrize("item, field, reason", [
    ({"name": ""}, "topics[0].name", "name is required"),
    ({"name": ".."}, "topics[0].name", "not a legal topic name"),
    ({"name": "a b"}, "topics[0].name", "not a legal topic name"),
    ({"name": "x" * 250}, "topics[0].name", "249"),
    ({"name": "t", "partitions": 0}, "topics[0].partitions", "at least 1"),
    ({"name": "t", "partitions": "three"}, "topics[0].partitions", "whole number"),
    ({"name": "t", "partitions": True}, "topics[0].partitions", "whole number"),
    ({"name": "t", "replication_factor": -1}, "topics[0].replication_factor", "at least 1"),
    ({"name": "t", "config": ["retention.ms"]}, "topics[0].config", "mapping"),
    ({"name": "t", "config": {"retention.ms": None}}, "topics[0].config.retention.ms", "no value"),
    ({"name": "t", "state": "gone"}, "topics[0].state", "present or absent"),
    ({"name": "t", "partition": 3}, "topics[0]", "unknown key"),
])
def test_bad_declarations_name_the_field(item, field, reason):
    with pytest.raises(TopicSpecError) as caught:
        normalize_topics([item])
    assert caught.value.field == field
    assert reason in str(caught.value)


def test_a_topic_declared_twice_is_refused():
    with pytest.raises(TopicSpecError) as caught:
        normalize_topics([{"name": "a"}, {"name": "b"}, {"name": "a"}])
    assert caught.value.field == "topics[2].name" and "topics[0]" in str(caught.value)


def test_single_topic_fields_are_the_module_options():
    with pytest.raises(TopicSpecError) as caught:
        normalize_topics([{"name": "t", "partitions": 0}], field_prefix=None)
    assert caught.value.field == "partitions"


def test_missing_topics_are_created_with_their_settings():
    changes = _plan([{"name": "new", "partitions": 6, "replication_factor": 2, "config": {"retention.ms": 1000}}], {})
    assert changes["changed"] and changes["topics"] == ["new"]
    assert changes["create"] == [{"name": "new", "partitions": 6, "replication_factor": 2,
                                  "config": {"retention.ms": "1000"}}]
    assert changes["before"] == {"new": None}
    assert changes["after"]["new"]["partitions"] == 6


def test_an_identical_declaration_changes_nothing():
    actual = {"t": _actual(overrides={"retention.ms": "1000"})}
    changes = _plan([{"name": "t", "partitions": 3, "replication_factor": 3, "config": {"retention.ms": 1000}}], actual)
    assert not changes["changed"]
    assert changes["create"] == [] and changes["add_partitions"] == {} and changes["alter_configs"] == {}
    assert changes["before"] == changes["after"] == {}


def test_a_value_equal_to_the_default_is_no_change():
    changes = _plan([{"name": "t", "config": {"cleanup.policy": "delete"}}], {"t": _actual()})
    assert not changes["changed"]


def test_partitions_are_raised_never_lowered():
    changes = _plan([{"name": "t", "partitions": 5}], {"t": _actual(partitions=3)})
    assert changes["add_partitions"] == {"t": 5}
    assert changes["before"]["t"]["partitions"] == 3 and changes["after"]["t"]["partitions"] == 5
    with pytest.raises(TopicSpecError) as caught:
        _plan([{"name": "t", "partitions": 2}], {"t": _actual(partitions=3)})
    assert caught.value.field == "topics[0].partitions" and "cannot reduce" in str(caught.value)


def test_replication_factor_above_live_brokers_is_refused():
    with pytest.raises(TopicSpecError) as caught:
        _plan([{"name": "t", "replication_factor": 4}], {}, brokers=3)
    assert caught.value.field == "topics[0].replication_factor" and "3 live broker" in str(caught.value)


def test_replication_factor_change_points_to_the_reassignment():
    with pytest.raises(TopicSpecError) as caught:
        _plan([{"name": "t", "replication_factor": 2}], {"t": _actual(replication_factor=3)})
    assert "kafkaops.cluster.prepare_reassignment" in str(caught.value)


def test_merge_sets_only_the_keys_given():
    actual = {"t": _actual(overrides={"retention.ms": "1000", "segment.ms": "5000"})}
    changes = _plan([{"name": "t", "config": {"retention.ms": 2000}}], actual)
    assert changes["alter_configs"] == {"t": {"retention.ms": ("SET", "2000")}}
    assert changes["after"]["t"]["config"] == {"retention.ms": "2000", "segment.ms": "5000"}


def test_replace_also_removes_unlisted_overrides_but_not_throttles():
    actual = {"t": _actual(overrides={"retention.ms": "1000", "segment.ms": "5000",
                                      "leader.replication.throttled.replicas": "0:1"})}
    changes = _plan([{"name": "t", "config": {"retention.ms": 1000}}], actual, mode="replace")
    assert changes["alter_configs"] == {"t": {"segment.ms": ("DELETE", None)}}
    assert changes["after"]["t"]["config"] == {"retention.ms": "1000", "leader.replication.throttled.replicas": "0:1"}


def test_absent_deletes_existing_topics_and_ignores_missing_ones():
    changes = _plan([{"name": "t"}, {"name": "gone"}], {"t": _actual()}, state="absent")
    assert changes["delete"] == ["t"] and changes["topics"] == ["t"]
    assert changes["after"] == {"t": None}
    assert not _plan([{"name": "gone"}], {}, state="absent")["changed"]


def test_a_thousand_topics_are_planned_in_one_create_list():
    items = [{"name": "topic-%04d" % index, "partitions": 3, "replication_factor": 3} for index in range(1000)]
    changes = _plan(items, {})
    assert len(changes["create"]) == 1000 and len(changes["topics"]) == 1000


@pytest.mark.parametrize("items, mode, expected", [
    ([{"name": "a"}, {"name": "b", "config": {"retention.ms": 1}}], "merge", ["b"]),
    ([{"name": "a"}, {"name": "b", "config": {"retention.ms": 1}}], "replace", ["a", "b"]),
    ([{"name": "a", "state": "absent", "config": {"retention.ms": 1}}], "replace", []),
])
def test_configs_are_read_only_where_the_difference_needs_them(items, mode, expected):
    from ansible_collections.kafkaops.cluster.plugins.module_utils._topics import topics_needing_configs

    assert topics_needing_configs(normalize_topics(items), mode) == expected


def test_failures_name_the_field_and_describe_unexpected_errors():
    from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import (
        KafkaAdminError,
        failure_details,
    )

    expected = {"msg": "topics[1].config: bad", "field": "topics[1].config"}
    assert failure_details(TopicSpecError("topics[1].config", "bad")) == expected
    assert failure_details(KafkaAdminError("could not connect")) == {"msg": "could not connect"}
    assert failure_details(ValueError("boom"), unexpected="planning failed") == {"msg": "planning failed: boom"}


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


def test_the_pool_opens_clients_once_and_closes_only_its_own():
    closed = []

    class Client:
        def close(self):
            closed.append(self)

    first, opened = Client(), []

    def connect():
        opened.append(Client())
        return opened[-1]

    pool = AdminClientPool(first, connect)
    assert pool.at_most(1) == [first] and not opened
    assert pool.at_most(3) == [first] + opened and len(opened) == 2
    assert pool.at_most(2) == [first, opened[0]] and len(opened) == 2
    pool.close()
    assert closed == opened


def test_side_by_side_calls_run_at_once_and_keep_their_order():
    barrier = threading.Barrier(3, timeout=10)

    def call(item):
        barrier.wait()  # returns only when all three calls run at the same time
        return item * 2

    assert run_side_by_side(call, [1, 2, 3]) == [2, 4, 6]


def test_side_by_side_raises_the_first_failure_after_all_finished():
    finished = []

    def call(item):
        if item == 1:
            raise ValueError("batch 1 failed")
        finished.append(item)
        return item

    with pytest.raises(ValueError, match="batch 1 failed"):
        run_side_by_side(call, [0, 1, 2])
    assert sorted(finished) == [0, 2]
