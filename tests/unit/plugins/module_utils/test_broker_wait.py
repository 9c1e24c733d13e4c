"""The broker wait: when a broker is ready, what a ready broker costs, and how the unit's reads end a wait."""

import logging

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._broker_wait import (
    POLL_INTERVAL,
    UNIT_READ_INTERVAL,
    KafkaLogTail,
    broker_wait_argument_spec,
    connect_seconds,
    describe_wait,
    read_broker_state,
    wait_for_broker,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import KafkaAdminError
from ansible_collections.kafkaops.cluster.plugins.module_utils._service_diagnosis import cause_lines
from ansible_collections.kafkaops.cluster.plugins.module_utils._service_watch import ReportedUnitReader, UnitWatch
from ansible_collections.kafkaops.cluster.tests.unit.plugins.service_samples import (
    AUTO_RESTART,
    BROKER_CRASH_LOOP,
    RUNNING,
    FakeClock,
    FakeNode,
    show,
)

SUBJECT = "broker 1 at kafka1:9092"
CRASHED = show("activating", "auto-restart", restarts=1, code=1, status=1, pid=0)


class Broker:
    """connect() for the wait: refuses while the broker is down (its first down_for attempts, each lasting as long
    as it may), then hands out clients of the cluster."""

    def __init__(self, cluster, clock, down_for=0):
        self.cluster = cluster
        self.clock = clock
        self.down_for = down_for
        self.attempts = []

    def __call__(self, seconds):
        self.attempts.append(seconds)
        if len(self.attempts) <= self.down_for:
            self.clock.sleep(seconds)
            raise KafkaAdminError("could not connect to any of kafka1:9092 within %g s (PLAINTEXT): "
                                  "KafkaTimeoutError: Unable to bootstrap" % seconds, "bootstrap_servers")
        return self.cluster.connect()


def watch_of(node=None, log_file=None):
    if node is None:
        return UnitWatch(SUBJECT)
    return UnitWatch(SUBJECT, "kafka-broker-1", ReportedUnitReader(node, "kafka-broker-1", log_file))


def test_the_plain_read_is_one_request_and_reports_no_partitions(fake_cluster):
    cluster = fake_cluster(brokers=(3, 1, 2), topics={"orders": {0: [1, 2]}})
    cluster.isr[("orders", 0)] = [1]
    state = read_broker_state(cluster.connect(), in_sync=False)
    assert state == dict(broker_ids=[1, 2, 3], controller_id=1, under_replicated_partitions=[], offline_partitions=[])
    assert [name for name, unused in cluster.calls] == ["describe_cluster"]


def test_the_in_sync_read_adds_one_request_for_every_topic_internal_ones_too(fake_cluster):
    cluster = fake_cluster(topics={"orders": {0: [1, 2], 1: [2, 3], 10: [3, 1]}, "__consumer_offsets": {0: [1, 2]}})
    cluster.isr.update({("orders", 10): [3], ("orders", 1): [], ("__consumer_offsets", 0): [2]})
    state = read_broker_state(cluster.connect(), in_sync=True)
    assert state["under_replicated_partitions"] == ["__consumer_offsets-0", "orders-1", "orders-10"]
    assert state["offline_partitions"] == ["orders-1"]
    assert [name for name, unused in cluster.calls] == ["describe_cluster", "describe_topics"]
    assert cluster.requests("describe_topics") == [dict(topics=None)]


@pytest.mark.parametrize("state, in_sync, problem", [
    (dict(broker_ids=[2, 3], controller_id=2), False, "broker 1 is not registered (registered: [2, 3])"),
    (dict(broker_ids=[1, 2], controller_id=-1), False, "no controller is known yet"),
    (dict(broker_ids=[1], controller_id=1, under_replicated_partitions=["a-%d" % n for n in range(7)]), True,
     "7 partitions under-replicated, e.g. ['a-0', 'a-1', 'a-2', 'a-3', 'a-4']"),
    (dict(broker_ids=[1], controller_id=1, offline_partitions=["a-0"]), True, "1 partitions offline, e.g. ['a-0']"),
    (dict(broker_ids=[1], controller_id=1, under_replicated_partitions=["a-0"], offline_partitions=["a-0"]), False,
     None),
    (dict(broker_ids=[1], controller_id=1), True, None),
], ids=["not-registered", "no-controller", "under-replicated", "offline", "out-of-sync-but-not-asked", "ready"])
def test_what_a_broker_still_misses(state, in_sync, problem):
    state = dict(dict(under_replicated_partitions=[], offline_partitions=[]), **state)
    assert describe_wait(state, 1, in_sync) == problem


@pytest.mark.parametrize("in_sync, requests", [(False, ["describe_cluster"]),
                                               (True, ["describe_cluster", "describe_topics"])])
def test_a_ready_broker_costs_one_connection_its_requests_and_nothing_else(fake_cluster, in_sync, requests):
    clock = FakeClock()
    cluster = fake_cluster(topics={"orders": {0: [1, 2]}})
    broker = Broker(cluster, clock)
    node = FakeNode([RUNNING], clock=clock)
    ready, result = wait_for_broker(broker, watch_of(node), 1, in_sync, 120, clock=clock)
    assert ready and result == dict(broker_ids=[1, 2, 3], controller_id=1, under_replicated_partitions=[],
                                    offline_partitions=[], elapsed=0.0)
    assert len(broker.attempts) == 1 and [name for name, unused in cluster.calls] == requests
    assert node.runs == [] and clock.now == 1000.0
    assert [client.closed for client in cluster.clients] == [True]


def test_a_crash_looping_broker_ends_the_wait_at_once_with_its_cause(fake_cluster, tmp_path):
    log = tmp_path / "server.log"
    log.write_text(BROKER_CRASH_LOOP)
    clock = FakeClock()
    broker = Broker(fake_cluster(), clock, down_for=100)
    node = FakeNode([RUNNING, AUTO_RESTART, CRASHED], clock=clock)
    ready, result = wait_for_broker(broker, watch_of(node, str(log)), 1, False, 180, clock=clock)
    assert not ready
    assert result["msg"] == (
        "broker 1 at kafka1:9092 (unit kafka-broker-1) is not coming up: the unit is activating (auto-restart) "
        "and restarted once during the wait, last exit status 1. From %s: %s"
        % (log, " | ".join(cause_lines(BROKER_CRASH_LOOP))))
    assert result["log_excerpt"] == cause_lines(BROKER_CRASH_LOOP) and result["log_source"] == str(log)
    assert result["unit_state"]["restarts_during_wait"] == 1 and "broker_ids" not in result
    # Three reads of the state, then one for the cause; each attempt to connect lasted the first 3 s.
    assert [arguments["causes"] for unused, arguments in node.runs] == [False, False, False, True]
    assert broker.attempts == [3.0, 3.0, 3.0]
    assert result["elapsed"] == round(clock.now - 1000.0, 1) == 15.0


def test_a_broker_not_registered_in_time_is_reported_with_the_cluster_and_its_unit(fake_cluster):
    clock = FakeClock()
    cluster = fake_cluster(brokers=(2, 3))
    broker = Broker(cluster, clock)
    node = FakeNode([RUNNING], clock=clock)
    ready, result = wait_for_broker(broker, watch_of(node), 1, False, 10, clock=clock)
    assert not ready
    assert result["msg"] == (
        "broker 1 at kafka1:9092 (unit kafka-broker-1) not ready within 10 s: broker 1 is not registered "
        "(registered: [2, 3]); the unit is active (running) and not restarted during the wait. "
        "Nothing in the journal of kafka-broker-1 names a cause.")
    assert result["broker_ids"] == [2, 3] and result["controller_id"] == 2
    assert result["unit_state"]["active_state"] == "active" and result["log_excerpt"] == []
    # One client for the whole wait; the last read of the unit brings the cause along in the same run.
    assert len(broker.attempts) == 1 and [client.closed for client in cluster.clients] == [True]
    assert node.runs[-1][1]["causes"] is True
    assert sum(1 for unused, arguments in node.runs if arguments["causes"]) == 1


def test_the_unit_is_read_only_while_the_broker_is_not_ready_and_at_most_every_few_seconds(fake_cluster):
    clock = FakeClock()
    cluster = fake_cluster(brokers=(2, 3))
    polls = []

    class Registering(type(cluster.connect())):
        def describe_cluster(self):
            polls.append(clock.now)
            if len(polls) == 6:
                cluster.brokers[1] = None
            return super(Registering, self).describe_cluster()

    broker = Broker(cluster, clock, down_for=2)
    cluster.connect = lambda: Registering(cluster)
    node = FakeNode([RUNNING], clock=clock, run_seconds=0.2)
    ready, result = wait_for_broker(broker, watch_of(node), 1, False, 120, clock=clock)
    assert ready and result["broker_ids"] == [1, 2, 3] and len(polls) == 6
    reads = [time for time, unused in node.runs]
    assert reads[0] == 1003.0  # at once after the first attempt found the broker down
    assert all(later - earlier >= UNIT_READ_INTERVAL for earlier, later in zip(reads, reads[1:], strict=False))
    assert all(later - earlier >= POLL_INTERVAL for earlier, later in zip(polls, polls[1:], strict=False))
    assert reads[-1] < polls[-1]


def test_a_failed_request_drops_the_client_and_the_next_poll_connects_again(fake_cluster):
    clock = FakeClock()
    cluster = fake_cluster()
    broker = Broker(cluster, clock)
    first = cluster.connect()

    def reset():
        raise ConnectionResetError("connection reset by peer")

    first.describe_cluster = reset
    clients = iter([first, cluster.connect()])
    cluster.connect = lambda: next(clients)
    ready, unused = wait_for_broker(broker, watch_of(), 1, False, 120, clock=clock)
    assert ready and len(broker.attempts) == 2 and [client.closed for client in cluster.clients] == [True, True]


def test_without_a_service_only_the_timeout_ends_the_wait_and_names_the_last_problem(fake_cluster):
    clock = FakeClock()
    broker = Broker(fake_cluster(), clock, down_for=100)
    ready, result = wait_for_broker(broker, watch_of(), 1, True, 7, clock=clock)
    assert not ready and "unit_state" not in result
    assert result["msg"] == ("broker 1 at kafka1:9092 not ready within 7 s: could not connect to any of kafka1:9092 "
                             "within 1 s (PLAINTEXT): KafkaTimeoutError: Unable to bootstrap")
    # Attempts never outlast the wait.
    assert broker.attempts == [3.0, 3.0, 1.0] and result["elapsed"] == 7.0


@pytest.mark.parametrize("waited, time_left, seconds", [
    (0, 120, 3.0), (8, 112, 3.0), (40, 80, 10.0), (100, 5, 5.0), (119.5, 0.5, 1.0)])
def test_attempts_to_connect_grow_with_the_time_waited_but_end_with_the_wait(waited, time_left, seconds):
    assert connect_seconds(waited, time_left) == seconds


def test_the_cause_of_a_failed_connection_comes_from_kafka_pythons_log():
    clock = FakeClock()
    logger = logging.getLogger("kafka.net.manager")

    def connect(seconds):
        logger.warning("Bootstrap connection to %s failed: %s (backoff 0.12 secs)", "bootstrap-0",
                       "KafkaConnectionError: Handshake failed: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify "
                       "failed")
        logger.warning("Bootstrap bootstrap-0 not ready; waiting 0.11 secs")
        logger.error("Bootstrap failed: KafkaTimeoutError: Unable to bootstrap from ['kafka1:9092']")
        raise KafkaAdminError("could not connect to any of kafka1:9092 within 1 s (SSL): KafkaTimeoutError")

    with KafkaLogTail() as log_tail:
        ready, result = wait_for_broker(connect, watch_of(), 1, False, 1, clock=clock, log_tail=log_tail)
    assert result["msg"].endswith(
        "(SSL): KafkaTimeoutError (kafka-python: Bootstrap connection to bootstrap-0 failed: KafkaConnectionError: "
        "Handshake failed: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed)")
    assert log_tail not in logging.getLogger("kafka").handlers


def test_the_options_are_the_connection_options_and_the_waits_own():
    spec = broker_wait_argument_spec()
    assert spec["bootstrap_servers"]["required"] and spec["sasl_password"]["no_log"]
    assert set(spec) >= {"broker_id", "in_sync", "timeout", "service", "log_file"} and "port" not in spec
    spec["broker_id"]["required"] = False
    assert broker_wait_argument_spec()["broker_id"]["required"]
