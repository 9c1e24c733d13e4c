"""kafka_reassignment honours a plan's log_dirs (Kafka's JSON: one per replica, "any" or an absolute path)."""

import pytest
from kafka import errors as kafka_errors
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_reassignment

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}


@pytest.fixture
def cluster(fake_cluster, monkeypatch):
    """Four brokers with log dirs /a and /b; orders-0 on 1, 2, 3 and orders-1 on 2, 3, 1, every replica in /a.

    A replica's dir: where AlterReplicaLogDirs moved it, else the dir asked for before the broker held it (the
    broker keeps it and creates the replica there), else /a. Moves between dirs finish at once.
    """
    cluster = fake_cluster(brokers=(1, 2, 3, 4), topics={"orders": {0: [1, 2, 3], 1: [2, 3, 1]}},
                           sizes={"orders": 1000})
    cluster.log_dirs = dict((broker, {"/a": False, "/b": False}) for broker in (1, 2, 3, 4))
    cluster.placed, cluster.preferred = {}, {}

    def dir_of(key):
        return cluster.placed.get(key) or cluster.preferred.get(key) or "/a"

    def describe_log_dirs(client, topic_partitions=None, brokers=None):
        client._record("describe_log_dirs", topics=topic_partitions, brokers=brokers)
        answers = []
        for broker in brokers:
            held = dict((path, {}) for path in cluster.log_dirs[broker])
            for topic, partitions in sorted(cluster.topics.items()):
                for partition, replicas in sorted(partitions.items()):
                    if broker in replicas:
                        held[dir_of((broker, topic, partition))].setdefault(topic, []).append(dict(
                            partition_index=partition, partition_size=1000, offset_lag=0, is_future_key=False))
            answers.append(dict(broker=broker, log_dirs=[dict(
                error_code=0, log_dir=path, total_bytes=-1, usable_bytes=-1, is_cordoned=cluster.log_dirs[broker][path],
                topics=[dict(name=topic, partitions=items) for topic, items in sorted(topics.items())])
                for path, topics in sorted(held.items())]))
        return answers

    def alter_replica_log_dirs(client, replica_assignments):
        client._record("alter_replica_log_dirs", moves=dict(
            ((key.topic, key.partition, key.broker_id), path) for key, path in replica_assignments.items()))
        outcome = {}
        for key, path in replica_assignments.items():
            place = (key.broker_id, key.topic, key.partition)
            if key.broker_id in cluster.topics[key.topic][key.partition]:
                cluster.placed[place] = path
                outcome[key] = kafka_errors.NoError
            else:
                cluster.preferred[place] = path
                outcome[key] = kafka_errors.ReplicaNotAvailableError
        return outcome

    monkeypatch.setattr(cluster.client_class, "describe_log_dirs", describe_log_dirs)
    monkeypatch.setattr(cluster.client_class, "alter_replica_log_dirs", alter_replica_log_dirs, raising=False)
    cluster.dir_of = dir_of
    return cluster


def plan(*entries):
    return {"version": 1, "partitions": [dict(topic=topic, partition=partition, replicas=replicas, log_dirs=dirs)
                                         for topic, partition, replicas, dirs in entries]}


def dir_calls(cluster):
    return [arguments["moves"] for name, arguments in cluster.calls if name == "alter_replica_log_dirs"]


def test_a_new_replica_lands_in_the_dir_the_plan_names(run_module, cluster):
    args = dict(SERVERS, plan=plan(("orders", 0, [1, 2, 4], ["any", "any", "/b"])), poll_interval=0.01)
    predicted = run_module(kafka_reassignment.main, args, cluster, check_mode=True)
    assert predicted["changed"] and predicted["log_dir_moves"] == ["orders-0 on broker 4 to /b"]
    assert dir_calls(cluster) == []
    result = run_module(kafka_reassignment.main, args, cluster)
    assert not result.get("failed"), result
    assert cluster.topics["orders"][0] == [1, 2, 4] and cluster.dir_of((4, "orders", 0)) == "/b"
    # Asked before the move (broker 4 did not hold it yet), and again once it did.
    assert dir_calls(cluster) == [{("orders", 0, 4): "/b"}, {("orders", 0, 4): "/b"}]
    again = run_module(kafka_reassignment.main, args, cluster)
    assert not again["changed"] and again["log_dir_moves"] == []


def test_a_plan_that_only_changes_a_replicas_dir_moves_it_and_then_changes_nothing(run_module, cluster):
    args = dict(SERVERS, plan=plan(("orders", 0, [1, 2, 3], ["/b", "any", "any"])), poll_interval=0.01)
    result = run_module(kafka_reassignment.main, args, cluster)
    assert result["changed"] and result["partitions"] == []
    assert result["log_dir_moves"] == ["orders-0 on broker 1 to /b"]
    assert cluster.dir_of((1, "orders", 0)) == "/b"
    assert not run_module(kafka_reassignment.main, args, cluster)["changed"]


@pytest.mark.parametrize("dirs, words", [
    (["/c", "any", "any"], "broker 1 has no log dir /c; its log dirs are /a, /b"),
    (["any", "any"], "one log dir per replica (3)"),
    (["b", "any", "any"], "neither \"any\" nor an absolute path"),
    (["any", "/b", "any"], "broker 2's log dir /b is cordoned"),
], ids=["unknown-dir", "wrong-length", "relative-path", "cordoned-dir"])
def test_a_bad_log_dir_is_refused_naming_the_entry_before_any_write(run_module, cluster, dirs, words):
    cluster.log_dirs[2]["/b"] = True
    failed = run_module(kafka_reassignment.main, dict(SERVERS, plan=plan(("orders", 0, [1, 2, 3], dirs))), cluster)
    assert failed["failed"] and failed["field"] == "plan.partitions[0].log_dirs" and words in failed["msg"], failed
    assert cluster.writes() == [] and dir_calls(cluster) == []
