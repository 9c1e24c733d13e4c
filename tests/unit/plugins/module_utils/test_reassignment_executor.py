"""kafka_reassignment's run against a fake cluster: check, move with a throttle, clean up, cancel."""

import json
from types import SimpleNamespace

import pytest
from kafka.admin import ConfigResourceType
from kafka.errors import UnknownBrokerIdError
from ansible_collections.kafkaops.cluster.plugins.module_utils import _reassignment_executor as executor
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_reassignment

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}
THROTTLE_KEYS = ("leader.replication.throttled.rate", "follower.replication.throttled.rate")


@pytest.fixture
def cluster(fake_cluster):
    """Four brokers; orders has 2 partitions on brokers 1-3, 1 MB per replica."""
    return fake_cluster(brokers=(1, 2, 3, 4), topics={"orders": {0: [1, 2, 3], 1: [2, 3, 1]}},
                        sizes={"orders": 1000000})


def plan(*entries):
    return {"version": 1, "partitions": [dict(topic=topic, partition=partition, replicas=replicas)
                                         for topic, partition, replicas in entries]}


# orders-0 moves from broker 3 to 4; orders-1 stays where it is.
MOVE = plan(("orders", 0, [1, 2, 4]), ("orders", 1, [2, 3, 1]))


def test_a_plan_already_in_place_changes_nothing(run_module, cluster):
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=plan(("orders", 0, [1, 2, 3]))), cluster)
    assert not result["changed"] and result["already_in_place"] == 1 and result["partitions"] == []
    assert cluster.writes() == [] and all(client.closed for client in cluster.clients)


def test_check_mode_predicts_the_moves_and_moves_nothing(run_module, cluster):
    predicted = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, throttle=5000000), cluster,
                           check_mode=True)
    assert predicted["changed"] and predicted["partitions"] == ["orders-0"] and predicted["already_in_place"] == 1
    assert cluster.writes() == [] and cluster.topics["orders"][0] == [1, 2, 3]
    assert "moved" not in predicted


def test_moves_run_throttled_and_leave_no_throttle_behind(run_module, cluster):
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, throttle=5000000, poll_interval=0.01),
                        cluster)
    assert not result.get("failed"), result
    assert result["changed"] and result["moved"] == 1 and result["partitions"] == ["orders-0"]
    assert result["throttled"] == dict(brokers=[1, 2, 3, 4], topics=["orders"])
    assert result["bytes_to_move"] == 1000000 and result["expected_seconds"] == 0.2
    assert result["election_failed"] == [] and result["warnings"] == []
    assert cluster.topics["orders"] == {0: [1, 2, 4], 1: [2, 3, 1]}
    written = [name for name, unused in cluster.writes()]
    # Throttle lists and rates, then the move, then the throttle removed (topics, then each broker), then the
    # leader election.
    assert written == ["alter_configs", "alter_configs", "alter_partition_reassignments"] + \
        ["alter_configs"] * 5 + ["elect_leaders"]
    assert all(not any(key in configs for key in THROTTLE_KEYS) for configs in cluster.broker_configs.values())
    assert cluster.overrides.get("orders", {}) == {}
    again = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, throttle=5000000), cluster)
    assert not again["changed"] and again["already_in_place"] == 2


def test_without_wait_the_moves_are_only_submitted(run_module, cluster):
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, wait=False), cluster)
    assert result["changed"] and "moved" not in result
    assert [name for name, unused in cluster.writes()] == ["alter_partition_reassignments"]


def test_diff_mode_shows_the_replicas_before_and_after(run_module, cluster):
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE), cluster, check_mode=True, diff=True)
    assert result["diff"] == dict(before={"orders-0": [1, 2, 3]}, after={"orders-0": [1, 2, 4]})


def test_a_plan_file_is_read(run_module, cluster, tmp_path):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(MOVE))
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan_file=str(path)), cluster, check_mode=True)
    assert result["partitions"] == ["orders-0"]


@pytest.mark.parametrize("args, field, words", [
    # Refused before connecting.
    (dict(plan=MOVE, throttle=1000, wait=False), "throttle", "needs wait: true"),
    (dict(plan=MOVE, timeout=0), "timeout", "at least 1"),
    (dict(plan_file="/nonexistent/plan.json"), "plan_file", "cannot read"),
    (dict(plan=plan(("orders", 0, [1, 1, 2]))), "plan.partitions[0].replicas", "listed twice"),
    # Refused against the cluster's state, before any write.
    (dict(plan=plan(("orders", 0, [1, 2, 4]), ("nope", 0, [1]))), "plan.partitions[1].topic", "does not exist"),
    (dict(plan=plan(("orders", 5, [1, 2, 3]))), "plan.partitions[0].partition", "has partitions 0-1"),
    (dict(plan=plan(("orders", 0, [1, 2, 9]))), "plan.partitions[0].replicas", "not a live broker"),
    (dict(plan=plan(("orders", 0, [1, 2]))), "plan.partitions[0].replicas", "must list all its 2 partitions"),
], ids=["throttle-without-wait", "zero-timeout", "unreadable-file", "broker-twice", "unknown-topic",
        "unknown-partition", "dead-broker", "partial-factor-change"])
def test_bad_input_fails_naming_the_field_before_any_write(run_module, cluster, args, field, words):
    failed = run_module(kafka_reassignment.main, dict(SERVERS, **args), cluster)
    assert failed["failed"] and failed["field"] == field and words in failed["msg"], failed
    assert not failed["changed"] and failed["partitions"] == []
    assert cluster.writes() == [] and all(client.closed for client in cluster.clients)


def test_a_move_in_progress_is_cancelled_with_state_absent(run_module, cluster):
    cluster.moving[("orders", 0)] = [1, 2, 4]
    args = dict(SERVERS, plan=MOVE, state="absent")
    predicted = run_module(kafka_reassignment.main, args, cluster, check_mode=True)
    assert predicted["changed"] and predicted["cancelled"] == ["orders-0"] and cluster.writes() == []
    cancelled = run_module(kafka_reassignment.main, args, cluster)
    assert cancelled["changed"] and cancelled["cancelled"] == ["orders-0"] and cluster.moving == {}
    assert cluster.topics["orders"][0] == [1, 2, 3]
    assert not run_module(kafka_reassignment.main, args, cluster)["changed"]


LEADER_LIST, FOLLOWER_LIST = "leader.replication.throttled.replicas", "follower.replication.throttled.replicas"


@pytest.fixture
def slow_cluster(fake_cluster, monkeypatch):
    """Five brokers; orders-0 (to broker 4) stays in flight once submitted, orders-1 (to broker 5) completes."""
    cluster = fake_cluster(brokers=(1, 2, 3, 4, 5), topics={"orders": {0: [1, 2, 3], 1: [2, 3, 1]}})
    client_class = cluster.client_class
    moves_at_once = client_class.alter_partition_reassignments

    def alter(client, request, timeout_ms=None):
        held = dict((tp, replicas) for tp, replicas in request.items()
                    if replicas is not None and (tp.topic, tp.partition) == ("orders", 0))
        for tp, replicas in held.items():
            client.cluster.moving[(tp.topic, tp.partition)] = list(replicas)
        rest = dict((tp, replicas) for tp, replicas in request.items() if tp not in held)
        outcome = moves_at_once(client, rest, timeout_ms) if rest else {}
        outcome.update((tp, None) for tp in held)
        return outcome

    monkeypatch.setattr(client_class, "alter_partition_reassignments", alter)
    return cluster


SLOW_MOVE = plan(("orders", 0, [1, 2, 4]), ("orders", 1, [2, 3, 5]))


def _rates(cluster):
    return dict((broker, sorted(key for key in configs if key in THROTTLE_KEYS))
                for broker, configs in cluster.broker_configs.items() if any(key in THROTTLE_KEYS for key in configs))


def test_a_timeout_keeps_the_throttle_only_on_the_moves_in_flight(run_module, slow_cluster):
    cluster = slow_cluster
    # The operator's own: a standing rate on broker 5 and a throttled replica of a partition not in the plan.
    cluster.broker_configs[5] = {THROTTLE_KEYS[0]: "777"}
    cluster.overrides["orders"] = {LEADER_LIST: "7:3"}
    args = dict(SERVERS, plan=SLOW_MOVE, throttle=5000000, timeout=1, poll_interval=0.2)
    timed_out = run_module(kafka_reassignment.main, args, cluster)
    assert timed_out["failed"] and "timed out after 1 s with 1 of 2" in timed_out["msg"], timed_out
    assert "stays on broker(s) 1, 2, 3, 4" in timed_out["msg"] and "state: absent" in timed_out["msg"]
    # Brokers 1-4 serve or receive the move in flight; broker 5's move is done, so its own rate is back.
    assert _rates(cluster) == dict((broker, sorted(THROTTLE_KEYS)) for broker in (1, 2, 3, 4)) | {5: [THROTTLE_KEYS[0]]}
    assert cluster.broker_configs[5] == {THROTTLE_KEYS[0]: "777"}
    assert cluster.overrides["orders"] == {LEADER_LIST: "7:3,0:1,0:2,0:3", FOLLOWER_LIST: "0:4"}

    # The move ends on its own; a re-run of the plan finds it in place and removes the throttle it left.
    cluster.topics["orders"][0] = cluster.moving.pop(("orders", 0))
    cluster.calls.clear()
    predicted = run_module(kafka_reassignment.main, args, cluster, check_mode=True)
    assert predicted["changed"] and predicted["partitions"] == [] and cluster.writes() == []
    assert predicted["throttle_removed"] == dict(brokers=[1, 2, 3, 4], topics=["orders"])
    finished = run_module(kafka_reassignment.main, args, cluster)
    assert finished["changed"] and finished["throttle_removed"] == predicted["throttle_removed"], finished
    assert _rates(cluster) == {5: [THROTTLE_KEYS[0]]} and cluster.overrides["orders"] == {LEADER_LIST: "7:3"}
    for check_mode in (True, False):
        again = run_module(kafka_reassignment.main, args, cluster, check_mode=check_mode)
        assert not again["changed"] and again["throttle_removed"] == dict(brokers=[], topics=[])


def test_a_rerun_waits_for_the_move_in_flight_and_removes_the_throttle_when_it_ends(run_module, slow_cluster,
                                                                                    monkeypatch):
    cluster = slow_cluster
    args = dict(SERVERS, plan=SLOW_MOVE, throttle=5000000, timeout=1, poll_interval=0.2)
    assert run_module(kafka_reassignment.main, args, cluster)["failed"]
    assert sorted(cluster.broker_configs) == [1, 2, 3, 4, 5] and _rates(cluster).keys() == {1, 2, 3, 4}
    # The re-run finds orders-0 still moving to its target: it waits for it (the move ends at the first
    # poll here) and then removes the throttle, the first run's included.
    original = executor.finished

    def the_move_ends(client, batch):
        cluster.topics["orders"][0] = cluster.moving.pop(("orders", 0), cluster.topics["orders"][0])
        return original(client, batch)

    monkeypatch.setattr(executor, "finished", the_move_ends)
    rerun = run_module(kafka_reassignment.main, dict(args, timeout=30), cluster)
    assert not rerun.get("failed") and rerun["changed"] and rerun["moved"] == 1, rerun
    assert rerun["partitions"] == ["orders-0"] and rerun["already_in_place"] == 1
    assert _rates(cluster) == {} and cluster.overrides.get("orders", {}) == {}


# The throttle a timed-out run left is known by the plan's throttled replicas, whatever rate the cancel names.
@pytest.mark.parametrize("cancel_throttle", [5000000, 0], ids=["same-throttle", "no-throttle"])
def test_a_cancel_removes_the_throttle_a_timed_out_run_left(run_module, slow_cluster, cancel_throttle):
    cluster = slow_cluster
    args = dict(SERVERS, plan=SLOW_MOVE, throttle=5000000, timeout=1, poll_interval=0.2)
    assert run_module(kafka_reassignment.main, args, cluster)["failed"]
    cancel_args = dict(SERVERS, plan=SLOW_MOVE, throttle=cancel_throttle, state="absent")
    predicted = run_module(kafka_reassignment.main, cancel_args, cluster, check_mode=True)
    assert predicted["changed"] and predicted["cancelled"] == ["orders-0"]
    assert predicted["throttle_removed"] == dict(brokers=[1, 2, 3, 4], topics=["orders"])
    assert ("orders", 0) in cluster.moving and _rates(cluster).keys() == {1, 2, 3, 4}
    cancelled = run_module(kafka_reassignment.main, cancel_args, cluster)
    assert cancelled["cancelled"] == ["orders-0"] and cluster.moving == {}
    assert _rates(cluster) == {} and cluster.overrides.get("orders", {}) == {}
    again = run_module(kafka_reassignment.main, cancel_args, cluster)
    assert not again["changed"] and again["cancelled"] == []


def test_a_rerun_asked_to_move_unthrottled_first_removes_the_throttle_left(run_module, slow_cluster, monkeypatch):
    cluster = slow_cluster
    assert run_module(kafka_reassignment.main, dict(SERVERS, plan=SLOW_MOVE, throttle=5000000, timeout=1,
                                                    poll_interval=0.2), cluster)["failed"]
    seen = []
    original = executor.finished

    def the_move_ends(client, batch):
        seen.append(_rates(cluster))
        cluster.topics["orders"][0] = cluster.moving.pop(("orders", 0), cluster.topics["orders"][0])
        return original(client, batch)

    monkeypatch.setattr(executor, "finished", the_move_ends)
    rerun = run_module(kafka_reassignment.main, dict(SERVERS, plan=SLOW_MOVE, poll_interval=0.2), cluster)
    assert not rerun.get("failed") and rerun["moved"] == 1, rerun
    assert rerun["throttle_removed"] == dict(brokers=[1, 2, 3, 4], topics=["orders"])
    # Unthrottled while it waited, as asked.
    assert seen and seen[0] == {} and _rates(cluster) == {} and cluster.overrides.get("orders", {}) == {}


def test_progress_is_written_as_json_lines_while_it_runs(run_module, cluster, tmp_path):
    progress_file = tmp_path / "progress.jsonl"
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, throttle=5000000, poll_interval=0.01,
                                                      progress_interval=0.01, progress_file=str(progress_file)),
                        cluster)
    assert not result.get("failed"), result
    lines = [json.loads(line) for line in progress_file.read_text().splitlines()]
    assert lines and lines == result["progress"]
    last = lines[-1]
    assert (last["done"], last["total"], last["bytes_total"]) == (1, 1, 1000000)
    # Done: broker 4's new copy holds the whole partition.
    assert last["bytes_copied"] == 1000000 and last["seconds_left"] == 0.0


@pytest.mark.parametrize("args, field", [
    (dict(progress_interval=0), "progress_interval"),
])
def test_a_progress_interval_out_of_range_is_refused(run_module, cluster, args, field):
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, **args), cluster)
    assert result["failed"] and field in result["msg"] and cluster.writes() == []


def test_a_broker_the_client_forgot_while_it_was_down_gets_its_throttle_removed(run_module, cluster, monkeypatch):
    # The client read the brokers while broker 4 was down (killed, restarting) and no longer knows it: its
    # throttle can be removed only after the client reads the brokers again.
    client_class = cluster.client_class
    alter_at_once = client_class.alter_configs
    refreshes = []

    class Manager:
        def __init__(self, client):
            self.cluster = SimpleNamespace(refresh_metadata=lambda: refreshes.append(client))

        def run(self, coroutine, *args):
            return coroutine(*args)

    def alter(client, resources, **options):
        forgotten = not refreshes and any(resource.resource_type == ConfigResourceType.BROKER and resource.name == "4"
                                          for resource in resources)
        if forgotten and cluster.moving == {} and cluster.topics["orders"][0] == [1, 2, 4]:
            raise UnknownBrokerIdError(4)
        return alter_at_once(client, resources, **options)

    monkeypatch.setattr(client_class, "alter_configs", alter)
    monkeypatch.setattr(client_class, "_manager", property(Manager), raising=False)
    monkeypatch.setattr(executor.time, "sleep", lambda seconds: None)
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, throttle=5000000, poll_interval=0.01),
                        cluster)
    assert not result.get("failed"), result
    assert len(refreshes) == 1 and result["moved"] == 1
    assert all(not any(key in configs for key in THROTTLE_KEYS) for configs in cluster.broker_configs.values())


def test_a_plan_onto_a_fenced_broker_is_refused_before_anything_moves(run_module, cluster):
    # KRaft: broker 4 is registered but stopped (fenced); the move onto it could never finish.
    cluster.fenced.add(4)
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, throttle=5000000), cluster)
    assert result["failed"] and result["msg"].startswith("plan.partitions[0].replicas: broker 4 is not a live broker")
    assert cluster.writes() == []


# ---- max_disk_fill: no broker's disks past the fill while the moves copy ----------------------------------------


def _disks(cluster, usable_on_4):
    """Every broker's disks 10 MB; broker 4 has usable_on_4 bytes left."""
    cluster.disks = dict((broker, (10000000, usable_on_4 if broker == 4 else 8000000)) for broker in (1, 2, 3, 4))
    return cluster


def test_max_disk_fill_orders_within_the_room_and_reports_each_brokers_peak(run_module, cluster):
    _disks(cluster, 8000000)
    arguments = dict(SERVERS, plan=MOVE, max_disk_fill=0.9, poll_interval=0.01)
    predicted = run_module(kafka_reassignment.main, arguments, cluster, check_mode=True)
    assert predicted["changed"] and cluster.writes() == []
    # Broker 4 holds 2 MB and gains orders-0's 1 MB copy; broker 3 keeps its 2 MB until the move completes.
    assert predicted["disk_peak_bytes"] == {1: 2000000, 2: 2000000, 3: 2000000, 4: 3000000}
    # Broker 3 gives a replica up: how long it keeps it before deleting it, Kafka's default here.
    assert predicted["delete_delay_ms"] == {3: 60000} and predicted["delete_delay_unread"] == {}
    result = run_module(kafka_reassignment.main, arguments, cluster)
    assert not result.get("failed"), result
    assert result["moved"] == 1 and result["disk_peak_bytes"] == predicted["disk_peak_bytes"]
    assert result["deletion_waits"] == [] and result["deletion_wait_seconds"] == 0
    assert cluster.topics["orders"][0] == [1, 2, 4]


def test_a_delete_delay_that_cannot_be_read_counts_kafkas_default_and_says_so(run_module, cluster):
    # kafka-python gives a resource whose DescribeConfigs result carries an error no entries: no value to read.
    _disks(cluster, 8000000)
    cluster.broker_defaults = {}
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, max_disk_fill=0.9, poll_interval=0.01),
                        cluster)
    assert not result.get("failed") and result["moved"] == 1, result.get("msg")
    assert result["delete_delay_ms"] == {3: 60000}
    assert result["delete_delay_unread"] == {3: "its answer holds no log.segment.delete.delay.ms"}
    assert result["warnings"] == [
        "log.segment.delete.delay.ms could not be read from broker(s) 3 (its answer holds no "
        "log.segment.delete.delay.ms), so Kafka's default (60000 ms) is counted for how long they keep a replica "
        "moved off them: where it is set higher, a copy that needs that room may land before the replica is deleted"]


@pytest.mark.parametrize("check_mode", [True, False], ids=["check-mode", "real"])
def test_a_copy_that_would_pass_max_disk_fill_is_refused_before_any_change(run_module, cluster, check_mode):
    # Broker 4 holds 8.5 MB of 10: at 0.9 it has 0.5 MB of room, and orders-0's copy is 1 MB.
    _disks(cluster, 1500000)
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, max_disk_fill=0.9, throttle=5000000),
                        cluster, check_mode=check_mode)
    assert result["failed"]
    assert result["msg"].startswith("max_disk_fill: no broker's disks may pass 0.9 of their size"), result["msg"]
    assert "orders-0 needs 976.6 KiB on broker 4, which has 488.3 KiB" in result["msg"], result["msg"]
    assert cluster.writes() == [] and cluster.topics["orders"][0] == [1, 2, 3]


def test_max_disk_fill_needs_brokers_that_report_their_disks(run_module, cluster):
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, max_disk_fill=0.9), cluster)
    assert result["failed"] and "max_disk_fill: the brokers do not report the size of their log dirs" in result["msg"]
    assert cluster.writes() == []


def test_max_disk_fill_needs_wait(run_module, cluster):
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=MOVE, max_disk_fill=0.9, wait=False), cluster)
    assert result["failed"] and result["msg"].startswith("max_disk_fill: needs wait: true"), result["msg"]
    assert cluster.writes() == []


class _ElectingClient:
    """Answers ElectLeaders: partition 1 is refused (PREFERRED_LEADER_NOT_AVAILABLE) for its first refusals asks."""

    def __init__(self, refusals):
        self.refusals, self.asked = refusals, []

    def elect_leaders(self, election_type, by_topic, timeout_ms=None, raise_errors=True):
        self.asked.append(sorted((topic, number) for topic, numbers in by_topic.items() for number in numbers))
        answers = []
        for numbers in by_topic.values():
            for number in numbers:
                refused = number == 1 and len(self.asked) <= self.refusals
                answers.append(SimpleNamespace(partition_id=number, error_code=80 if refused else 0))
        return SimpleNamespace(error_code=0, replica_election_results=[
            SimpleNamespace(topic=topic, partition_result=answers) for topic in by_topic])


def _clock():
    now = [0.0]
    return now, (lambda: now[0]), (lambda seconds: now.__setitem__(0, now[0] + seconds))


def test_an_election_refused_while_the_preferred_replica_catches_up_is_asked_again_for_that_partition_only():
    client = _ElectingClient(refusals=3)
    unused, clock, sleep = _clock()
    failed = executor.elect_preferred_leaders(client, [("orders", 0), ("orders", 1)], 1000, wait=120,
                                              poll_interval=2, sleep=sleep, clock=clock)
    assert failed == []
    assert client.asked == [[("orders", 0), ("orders", 1)]] + [[("orders", 1)]] * 3


def test_an_election_still_refused_after_the_wait_names_the_partition_and_kafkas_error():
    client = _ElectingClient(refusals=1000)
    now, clock, sleep = _clock()
    failed = executor.elect_preferred_leaders(client, [("orders", 0), ("orders", 1)], 1000, wait=10,
                                              poll_interval=2, sleep=sleep, clock=clock)
    assert failed == [dict(partition="orders-1", error="PreferredLeaderNotAvailableError")]
    assert now[0] == 10 and len(client.asked) == 6


def test_a_replica_moved_off_a_broker_that_is_down_throttles_only_live_brokers(run_module, fake_cluster):
    # Mode fix_offline's plans: broker 3 is down for good; its configs could only be changed through itself.
    cluster = fake_cluster(brokers=(1, 2, 4), topics={"orders": {0: [1, 2, 3]}}, sizes={"orders": 1000000})
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=plan(("orders", 0, [1, 2, 4])), throttle=5000000,
                                                      poll_interval=0.01), cluster)
    assert not result.get("failed"), result
    assert result["moved"] == 1 and result["throttled"] == dict(brokers=[1, 2, 4], topics=["orders"])
    touched = set(resource_name for name, details in cluster.writes() if name == "alter_configs"
                  for kind, resource_name, unused in details["changes"] if kind == ConfigResourceType.BROKER)
    assert touched == {"1", "2", "4"}
