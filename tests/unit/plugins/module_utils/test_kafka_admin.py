"""The connection helpers every admin module shares: failure messages, client pools, calls side by side."""

import threading

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import (
    AdminClientPool,
    KafkaAdminError,
    advertised_api_keys,
    failure_details,
    run_side_by_side,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._topic_changes import TopicSpecError


def test_failures_name_the_field_and_describe_unexpected_errors():
    expected = {"msg": "topics[1].config: bad", "field": "topics[1].config"}
    assert failure_details(TopicSpecError("topics[1].config", "bad")) == expected
    assert failure_details(KafkaAdminError("could not connect")) == {"msg": "could not connect"}
    assert failure_details(ValueError("boom"), unexpected="planning failed") == {"msg": "planning failed: boom"}


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


class _VersionData:
    api_versions = {0: (0, 11), 55: (0, 2), 93: (0, 0)}


class _NewerBrokers:
    """A client whose api_versions() fails as kafka-python 3.0.12's does on a key it does not know."""

    _manager = type("Manager", (), {"broker_version_data": _VersionData()})()

    def api_versions(self):
        raise ValueError("93 is not a valid ApiKey")


class _KnownBrokers:
    def api_versions(self):
        return {0: (0, 11), 3: (0, 12)}


def test_advertised_api_keys_reads_keys_newer_than_the_library():
    assert advertised_api_keys(_NewerBrokers()) == {0, 55, 93}
    assert advertised_api_keys(_KnownBrokers()) == {0, 3}


class _RefusingAdmin:
    """An admin client whose login lacks Describe on the Cluster resource."""

    def __init__(self, **config):
        self.config = config

    def list_partition_reassignments(self):
        from kafka.errors import ClusterAuthorizationFailedError

        raise ClusterAuthorizationFailedError("Request ... needs DESCRIBE permission.")


@pytest.mark.parametrize("config, field, login", [
    ({"sasl_plain_username": "alice"}, "sasl_username", "the login 'alice' (User:alice)"),
    ({"ssl_certfile": "/etc/kafka/tls/alice.crt"}, "ssl_certfile", "the certificate /etc/kafka/tls/alice.crt"),
    ({}, None, "this connection's principal"),
], ids=["sasl", "certificate", "anonymous"])
def test_a_login_without_describe_on_the_cluster_is_named_with_what_to_grant(config, field, login):
    from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import read_reassignments

    with pytest.raises(KafkaAdminError) as refused:
        read_reassignments(_RefusingAdmin(**config))
    assert refused.value.field == field
    assert str(refused.value).startswith(login + " may not Describe the Cluster resource, which listing the ongoing")
    assert "resource_type=cluster, operation=describe" in str(refused.value)
