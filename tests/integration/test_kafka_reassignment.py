"""kafka_reassignment_plan and kafka_reassignment against a live cluster (at least 3 brokers).

Changes run check mode, real, check mode again, real again; refused plans must name the entry and
leave every replica where it was; throttles must be gone afterwards, also after a timeout.
"""

import json
import uuid

import pytest
from kafka import KafkaProducer
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient


@pytest.fixture(scope="module")
def admin(bootstrap_servers):
    client = KafkaAdminClient(bootstrap_servers=bootstrap_servers, request_timeout_ms=30000)
    yield client
    client.close()


@pytest.fixture(scope="module")
def topic(kafka, bootstrap_servers):
    name = "it-move-%s" % uuid.uuid4().hex[:8]
    made = kafka("kafka_topic", name=name, partitions=12, replication_factor=2)
    assert made.changed, made.output
    producer = KafkaProducer(bootstrap_servers=bootstrap_servers, acks="all", linger_ms=20)
    for index in range(6000):
        producer.send(name, key=b"%d" % index, value=b"v" * 400)
    producer.flush()
    producer.close()
    yield name
    kafka("kafka_topic", name=name, state="absent")


def _brokers(kafka):
    return [broker["id"] for broker in kafka("kafka_cluster_info")["brokers"]]


def _replicas(kafka, name):
    info = kafka("kafka_cluster_info", topics=[name])
    assert not info.failed, info.output
    return {item["partition"]: item["replicas"] for item in info["topics"][name]["partitions"]}


def _throttle_configs(admin, topics):
    """Every throttle setting left on any broker or on the given topics."""
    left = {}
    brokers = [ConfigResource(ConfigResourceType.BROKER, str(broker["broker_id"]))
               for broker in admin.describe_cluster()["brokers"]]
    topic_resources = [ConfigResource(ConfigResourceType.TOPIC, name) for name in topics]
    for kind, described in admin.describe_configs(brokers + topic_resources).items():
        for name, entries in described.items():
            for key, entry in entries.items():
                if "throttled" in key:
                    left["%s %s %s" % (kind, name, key)] = entry["value"]
    return left


def _four_passes(kafka, **args):
    predicted = kafka("kafka_reassignment", check=True, diff=True, **args)
    assert not predicted.failed and predicted.changed, predicted.output
    applied = kafka("kafka_reassignment", diff=True, **args)
    assert not applied.failed and applied.changed, applied.output
    assert predicted["partitions"] == applied["partitions"] and predicted["diff"] == applied["diff"]
    assert applied["moved"] == len(applied["partitions"])
    assert applied["progress"][-1]["done"] == applied["progress"][-1]["total"] == len(applied["partitions"])
    for check in (True, False):
        again = kafka("kafka_reassignment", check=check, **args)
        assert not again.failed and not again.changed, again.output
        assert again["partitions"] == [] and again["already_in_place"] == len(args["plan"]["partitions"])
    return applied


def test_decommission_then_spread_back_with_the_fewest_moves(kafka, admin, topic):
    brokers = _brokers(kafka)
    keep = brokers[:-1]
    for targets in (keep, brokers):
        planned = kafka("kafka_reassignment_plan", topics=[topic], broker_list=",".join(map(str, targets)))
        assert not planned.failed, planned.output
        summary = planned["summary"]
        assert summary["replica_moves"] == summary["lower_bound"]
        assert summary["replicas_even"] and summary["leaders_even"]
        if planned["plan"]["partitions"]:
            applied = _four_passes(kafka, plan=planned["plan"], throttle=50000000, poll_interval=0.5)
            assert sorted(applied["throttled"]["brokers"]) and applied["throttled"]["topics"] == [topic]
        replicas = _replicas(kafka, topic)
        counts = {broker: sum(broker in listed for listed in replicas.values()) for broker in targets}
        assert set(broker for listed in replicas.values() for broker in listed) <= set(targets)
        assert max(counts.values()) - min(counts.values()) <= 1, counts
        leaders = {broker: sum(listed[0] == broker for listed in replicas.values()) for broker in targets}
        assert max(leaders.values()) - min(leaders.values()) <= 1, leaders
        assert _throttle_configs(admin, [topic]) == {}
        info = kafka("kafka_cluster_info", topics=[topic])
        assert info["under_replicated_partitions"] == []
        assert all(item["leader"] == item["replicas"][0] for item in info["topics"][topic]["partitions"])


def _plan(entries):
    return {"version": 1, "partitions": entries}


REFUSED = [
    (lambda t, r, b: _plan([{"topic": t, "partition": 0, "replicas": [b[0], b[0]]}]),
     "plan.partitions[0].replicas", "listed twice"),
    (lambda t, r, b: _plan([{"topic": t + "-nope", "partition": 0, "replicas": b[:2]}]),
     "plan.partitions[0].topic", "does not exist"),
    (lambda t, r, b: _plan([{"topic": t, "partition": 99, "replicas": b[:2]}]),
     "plan.partitions[0].partition", "partitions 0-11"),
    (lambda t, r, b: _plan([{"topic": t, "partition": 0, "replicas": b[:2]},
                            {"topic": t, "partition": 1, "replicas": [b[0], 999]}]),
     "plan.partitions[1].replicas", "broker 999 is not a live broker"),
    (lambda t, r, b: _plan([{"topic": t, "partition": 0, "replicas": b[:2]},
                            {"topic": t, "partition": 1, "replicas": b[:3]}]),
     "plan.partitions[1].replicas", "must be the same"),
    (lambda t, r, b: _plan([{"topic": t, "partition": 0, "replicas": b[:3]}]),
     "plan.partitions[0].replicas", "must list all its 12 partitions"),
]


@pytest.mark.parametrize("build, field, words", REFUSED, ids=[
    "duplicate-replica", "unknown-topic", "unknown-partition", "dead-broker", "inconsistent-factor",
    "partial-factor-change"])
def test_refused_plans_name_the_entry_and_move_nothing(kafka, topic, build, field, words):
    before = _replicas(kafka, topic)
    plan = build(topic, before, _brokers(kafka))
    for check in (True, False):
        refused = kafka("kafka_reassignment", check=check, plan=plan, throttle=1000000)
        assert refused.failed, refused.output
        assert refused["field"] == field and words in refused["msg"], refused["msg"]
    assert _replicas(kafka, topic) == before


def test_plan_refuses_dead_brokers_and_short_lists(kafka, topic):
    brokers = _brokers(kafka)
    for broker_list, words in ((",".join(map(str, brokers + [999])), "not a live broker: 999"),
                               (str(brokers[0]), "replication factor")):
        refused = kafka("kafka_reassignment_plan", topics=[topic], broker_list=broker_list)
        assert refused.failed and refused["field"] == "broker_list" and words in refused["msg"], refused["msg"]
    missing = kafka("kafka_reassignment_plan", topics=[topic + "-nope"], broker_list=",".join(map(str, brokers)))
    assert missing.failed and topic + "-nope" in missing["msg"]


def test_timeout_removes_the_throttle_and_a_rerun_finishes(kafka, admin, topic):
    brokers = _brokers(kafka)
    planned = kafka("kafka_reassignment_plan", topics=[topic], broker_list=",".join(map(str, brokers[1:])))
    assert not planned.failed and planned["plan"]["partitions"], planned.output
    slow = kafka("kafka_reassignment", plan=planned["plan"], throttle=1024, timeout=2, poll_interval=0.5,
                 max_moves_per_broker=1)
    assert slow.failed and "timed out after 2 s" in slow["msg"] and "Run again" in slow["msg"], slow.output
    assert _throttle_configs(admin, [topic]) == {}
    finished = kafka("kafka_reassignment", plan=planned["plan"], timeout=300, poll_interval=0.5)
    assert not finished.failed and finished.changed, finished.output
    again = kafka("kafka_reassignment", plan=planned["plan"])
    assert not again.changed and not again.failed
    now = _replicas(kafka, topic)
    for item in planned["plan"]["partitions"]:
        assert now[item["partition"]] == item["replicas"]
    assert _throttle_configs(admin, [topic]) == {}


def test_plan_file_is_written_once(kafka, topic, tmp_path):
    brokers = _brokers(kafka)
    dest = tmp_path / "plan.json"
    args = dict(topics=[topic], broker_list=",".join(map(str, brokers[:-1])), dest=str(dest))
    predicted = kafka("kafka_reassignment_plan", check=True, **args)
    assert predicted.changed and not dest.exists()
    written = kafka("kafka_reassignment_plan", **args)
    assert written.changed and json.loads(dest.read_text()) == written["plan"]
    rollback = json.loads((tmp_path / "plan.rollback.json").read_text())
    assert rollback == written["rollback_plan"]
    assert not kafka("kafka_reassignment_plan", **args).changed


def test_offline_plan_needs_no_cluster(kafka):
    current = _plan([{"topic": "t", "partition": p, "replicas": [1 + p % 3, 1 + (p + 1) % 3]} for p in range(6)])
    planned = kafka("kafka_reassignment_plan", bootstrap_servers=None, current_assignment=json.dumps(current),
                    broker_racks={"1": "a", "2": "b", "3": "a", "4": "b"}, broker_list="1,2,3,4")
    assert not planned.failed, planned.output
    # Broker 4 must end with 3 of the 12 replicas, so at least 3 moves; the rack rule may not need more.
    assert planned["summary"]["replica_moves"] == planned["summary"]["lower_bound"] == 3
    for entry in planned["plan"]["partitions"]:
        racks = {"1": "a", "2": "b", "3": "a", "4": "b"}
        assert len({racks[str(broker)] for broker in entry["replicas"]}) == 2
