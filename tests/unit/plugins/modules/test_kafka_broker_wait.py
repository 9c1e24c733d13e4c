"""kafka_broker_wait's main(), its wait run against a clock that never waits."""

from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_wire import KafkaWireError
from ansible_collections.kafkaops.cluster.plugins.module_utils._service_diagnosis import cause_lines
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_broker_wait
from ansible_collections.kafkaops.cluster.tests.unit.plugins.service_samples import (
    AUTO_RESTART,
    BROKER_CRASH_LOOP,
    RUNNING,
    run_wait,
    show,
)


def test_a_crash_looping_broker_fails_the_wait_at_once_with_its_cause(monkeypatch, capsys, tmp_path):
    log = tmp_path / "server.log"
    log.write_text(BROKER_CRASH_LOOP)

    def refused(*unused, **more):
        raise KafkaWireError("127.0.0.1:9092: Connection refused")

    monkeypatch.setattr(kafka_broker_wait, "fetch_metadata", refused)
    result, commands = run_wait(
        monkeypatch, capsys, kafka_broker_wait,
        dict(port=9092, broker_id=1001, timeout=180, service="kafka-broker-1001", log_file=str(log)),
        [(0, RUNNING, ""), (0, AUTO_RESTART, ""), (0, AUTO_RESTART, ""),
         (0, show("activating", "auto-restart", restarts=1, code=1, status=1, pid=0), "")])
    assert result["failed"] and result["elapsed"] == 3.0, result
    assert result["msg"] == (
        "broker 1001 at 127.0.0.1:9092 (unit kafka-broker-1001) is not coming up: the unit is activating "
        "(auto-restart) and restarted once during the wait, last exit status 1. From %s: %s"
        % (log, " | ".join(cause_lines(BROKER_CRASH_LOOP))))
    assert "reserved.broker.max.id" in result["log_excerpt"][-1]
    assert result["unit_state"]["restarts_during_wait"] == 1 and len(commands) == 4


def test_a_broker_not_registered_in_time_is_reported_with_the_cluster_and_its_unit(monkeypatch, capsys):
    metadata = {"brokers": [{"id": 2}, {"id": 3}], "controller_id": 2, "topics": []}
    monkeypatch.setattr(kafka_broker_wait, "fetch_metadata", lambda *unused, **more: metadata)
    result, commands = run_wait(
        monkeypatch, capsys, kafka_broker_wait, dict(port=9092, broker_id=1, timeout=5, service="kafka-broker-1"),
        [(0, RUNNING, "")])
    assert result["msg"] == (
        "broker 1 at 127.0.0.1:9092 (unit kafka-broker-1) not ready within 5 s: broker 1 is not registered "
        "(registered: [2, 3]); the unit is active (running) and not restarted during the wait. "
        "Nothing in the journal of kafka-broker-1 names a cause.")
    assert result["broker_ids"] == [2, 3] and result["controller_id"] == 2 and result["elapsed"] == 5.0
    assert result["unit_state"]["active_state"] == "active" and result["log_excerpt"] == []


def test_without_a_service_a_late_broker_is_reported_as_before(monkeypatch, capsys):
    def refused(*unused, **more):
        raise KafkaWireError("127.0.0.1:9092: Connection refused")

    monkeypatch.setattr(kafka_broker_wait, "fetch_metadata", refused)
    result, commands = run_wait(monkeypatch, capsys, kafka_broker_wait, dict(port=9092, broker_id=1, timeout=2), [])
    assert result["msg"] == "broker 1 at 127.0.0.1:9092 not ready within 2 s: 127.0.0.1:9092: Connection refused"
    assert result["elapsed"] == 2.0 and "unit_state" not in result and commands == []
