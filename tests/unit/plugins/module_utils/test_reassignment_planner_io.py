"""kafka_reassignment_plan's run: the planner's inputs from a fake cluster or offline, and the plan files."""

import json

import pytest
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_reassignment_plan

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}
CURRENT = {"version": 1, "partitions": [{"topic": "orders", "partition": partition, "replicas": [1, 2]}
                                        for partition in range(4)]}


@pytest.fixture
def cluster(fake_cluster):
    """Three brokers; orders has 4 partitions, all on brokers 1 and 2."""
    return fake_cluster(brokers=(1, 2, 3), topics={"orders": dict((partition, [1, 2]) for partition in range(4))})


def test_a_plan_is_made_from_the_cluster_without_writing_to_it(run_module, cluster):
    result = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list=[1, 2, 3]), cluster)
    assert not result.get("failed"), result
    assert not result["changed"] and result["plan"]["partitions"]
    assert set(entry["topic"] for entry in result["plan"]["partitions"]) == {"orders"}
    assert cluster.writes() == [] and all(client.closed for client in cluster.clients)


def test_the_same_plan_offline_from_the_current_assignment(run_module, cluster):
    online = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3"), cluster)
    offline = run_module(kafka_reassignment_plan.main, dict(current_assignment=json.dumps(CURRENT),
                                                            broker_list="1,2,3"), None)
    assert offline["plan"] == online["plan"] and offline["rollback_plan"] == online["rollback_plan"]


def test_plan_files_are_written_once_predicted_in_check_mode_and_shown_in_diff_mode(run_module, tmp_path):
    dest = tmp_path / "plan.json"
    args = dict(current_assignment=CURRENT, broker_list=[1, 2, 3], dest=str(dest))
    predicted = run_module(kafka_reassignment_plan.main, args, None, check_mode=True, diff=True)
    assert predicted["changed"] and not dest.exists()
    assert predicted["diff"]["before"] == "" and json.loads(predicted["diff"]["after"]) == predicted["plan"]
    written = run_module(kafka_reassignment_plan.main, args, None, diff=True)
    assert written["changed"] and json.loads(dest.read_text()) == written["plan"]
    assert written["rollback_dest"] == str(tmp_path / "plan.rollback.json")
    assert json.loads((tmp_path / "plan.rollback.json").read_text()) == written["rollback_plan"]
    again = run_module(kafka_reassignment_plan.main, args, None, diff=True)
    assert not again["changed"] and "diff" not in again


@pytest.mark.parametrize("args, field, words", [
    (dict(current_assignment=CURRENT, broker_list=[1, 2], broker_racks={"one": "a"}), "broker_racks",
     "keys are broker ids"),
    (dict(current_assignment=CURRENT, broker_list=[1, 2], broker_racks="rack-a"), "broker_racks", "a mapping"),
    (dict(current_assignment=CURRENT, broker_list=[1, 2], replication_factor=0), "replication_factor", "at least 1"),
    (dict(current_assignment=CURRENT, broker_list=[1, 2], dest="/nonexistent/folder/plan.json"), "dest",
     "does not exist"),
    (dict(SERVERS, broker_list=[1, 2, 3], topics=["orders"]), "topics", "being reassigned now: orders-0"),
], ids=["rack-key", "racks-shape", "zero-replication-factor", "missing-folder", "move-in-progress"])
def test_bad_input_fails_naming_the_field(run_module, cluster, args, field, words):
    cluster.moving[("orders", 0)] = [1, 3]
    failed = run_module(kafka_reassignment_plan.main, args, cluster if "bootstrap_servers" in args else None)
    assert failed["failed"] and failed["field"] == field and words in failed["msg"], failed
    assert "changed" not in failed and cluster.writes() == []
