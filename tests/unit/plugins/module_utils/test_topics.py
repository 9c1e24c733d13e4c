"""kafka_topic's requests: the topics to create sent in batches over several clients, validated first."""

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
from hypothesis import given
from hypothesis import strategies as st

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
