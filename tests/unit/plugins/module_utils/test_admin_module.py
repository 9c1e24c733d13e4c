"""KafkaAdminModule, the frame of every admin module: library check, input checks, errors, closing."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils import _admin_module
from ansible_collections.kafkaops.cluster.plugins.module_utils._admin_module import KafkaAdminModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import KafkaAdminError
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_cluster_info, kafka_reassignment_plan

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}


def test_without_kafka_python_the_module_says_what_to_install(run_module, monkeypatch):
    monkeypatch.setattr(_admin_module, "HAS_KAFKA", False)
    failed = run_module(kafka_cluster_info.main, SERVERS, None)
    assert failed["failed"] and "kafka-python" in failed["msg"]


def test_an_offline_plan_needs_neither_kafka_python_nor_a_cluster(run_module, monkeypatch):
    monkeypatch.setattr(_admin_module, "HAS_KAFKA", False)
    current = {"version": 1, "partitions": [{"topic": "t", "partition": 0, "replicas": [1]}]}
    result = run_module(kafka_reassignment_plan.main, dict(current_assignment=current, broker_list=[1, 2]), None)
    assert not result.get("failed"), result


@pytest.mark.parametrize("error, expected", [
    (KafkaAdminError("could not connect to any of kafka1:9092", "bootstrap_servers"),
     dict(msg="could not connect to any of kafka1:9092", field="bootstrap_servers")),
    (RuntimeError("socket closed"), dict(msg="Kafka request failed: socket closed")),
], ids=["own-error", "unexpected-error"])
def test_errors_become_a_failure_and_the_client_is_closed(run_module, fake_cluster, error, expected):
    def broken(module, client):
        raise error

    cluster = fake_cluster()

    def main():
        KafkaAdminModule({}).run(broken)

    failed = run_module(main, SERVERS, cluster)
    assert dict((key, failed[key]) for key in expected) == expected and failed["failed"]
    assert len(cluster.clients) == 1 and cluster.clients[0].closed


def test_a_failed_run_returns_what_it_reported_so_far(run_module, fake_cluster):
    def half_done(module, client):
        module.result.update(changed=True, partitions=["t-0"])
        raise KafkaAdminError("timed out")

    def main():
        KafkaAdminModule({}).run(half_done, result=dict(changed=False, partitions=[]))

    failed = run_module(main, SERVERS, fake_cluster())
    assert failed["failed"] and failed["msg"] == "timed out" and failed["changed"] and failed["partitions"] == ["t-0"]


def test_inputs_are_checked_before_connecting_and_handed_to_the_run(run_module, fake_cluster):
    order = []

    def check(module):
        order.append("check")
        return module.params["bootstrap_servers"]

    def run(module, client, inputs):
        order.append(("run", inputs, client is not None))
        module.result["changed"] = False

    cluster = fake_cluster()
    result = run_module(lambda: KafkaAdminModule({}).run(run, check_inputs=check), SERVERS, cluster)
    assert order == ["check", ("run", ["kafka1:9092"], True)] and result == dict(changed=False, warnings=[])
