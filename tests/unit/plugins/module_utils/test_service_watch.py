"""A wait's service watch: the unit read on every poll, the cause from the log file or the journal, the ending."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._service_diagnosis import JOURNAL, cause_lines
from ansible_collections.kafkaops.cluster.plugins.module_utils._service_watch import (
    ReportedUnitReader,
    ServiceWatch,
    read_tail,
    service_watch_argument_spec,
)
from ansible_collections.kafkaops.cluster.tests.unit.plugins.service_samples import (
    AUTO_RESTART,
    BAD_HEAP_JOURNAL,
    BROKER_CRASH_LOOP,
    RUNNING,
    STALE_REGISTRATION,
    FakeModule,
    ModuleFailed,
    show,
)

CRASHED = show("activating", "auto-restart", restarts=1, code=1, status=1, pid=0)


def test_a_watch_stops_on_a_restart_and_reads_the_log_file(tmp_path):
    log = tmp_path / "server.log"
    log.write_text(BROKER_CRASH_LOOP)
    module = FakeModule({"systemctl": [(0, RUNNING, ""), (0, AUTO_RESTART, ""), (0, show(restarts=1), ""),
                                       (0, show(restarts=2), "")],
                         "journalctl": (0, BAD_HEAP_JOURNAL, "")})
    watch = ServiceWatch(module, "broker 1001", "kafka-broker-1001", str(log))
    assert [watch.hopeless() for unused in range(4)] == [False, False, False, True]
    assert module.commands[0][1:] == ["show", "--property=LoadState,ActiveState,SubState,Result,NRestarts,"
                                      "ExecMainCode,ExecMainStatus,ExecMainPID,MainPID", "--", "kafka-broker-1001"]
    report, details = watch.diagnosis()
    # The exit seen while systemd waited to restart it is kept: the restarted process has none yet.
    assert report.startswith("the unit is active (running) and restarted 2 times during the wait, last exit status 1. "
                             "From %s: " % log)
    assert details["log_source"] == str(log) and details["log_excerpt"] == cause_lines(BROKER_CRASH_LOOP)
    assert details["unit_state"]["restarts_during_wait"] == 2
    assert not any(command[0].endswith("journalctl") for command in module.commands)


@pytest.mark.parametrize("log_text", [None, "[2025-01-07 10:00:00,100] INFO starting (kafka.Kafka$)\n"],
                         ids=["missing-log", "log-without-cause"])
def test_a_watch_falls_back_to_the_journal(tmp_path, log_text):
    log = tmp_path / "server.log"
    if log_text is not None:
        log.write_text(log_text)
    module = FakeModule({"systemctl": (0, AUTO_RESTART, ""), "journalctl": (0, BAD_HEAP_JOURNAL, "")})
    watch = ServiceWatch(module, "broker 1", "kafka-broker-1", str(log))
    watch.hopeless()
    report, details = watch.diagnosis()
    assert details["log_source"] == JOURNAL and details["log_excerpt"][0] == "Invalid maximum heap size: -Xmx5x"
    assert module.commands[-1][1:] == ["-u", "kafka-broker-1", "-n", "30", "--no-pager", "-o", "cat"]


def test_a_watch_without_systemctl_keeps_waiting_and_says_so():
    module = FakeModule({"journalctl": (1, "", "no journal")}, missing=("systemctl",))
    watch = ServiceWatch(module, "ZooKeeper", "zookeeper")
    assert not watch.hopeless()
    report, details = watch.diagnosis()
    assert report == ("the state of unit zookeeper could not be read (systemctl not found). "
                      "Nothing in the journal of zookeeper names a cause.")
    assert details == dict(unit_state=None, log_source=None, log_excerpt=[])


def test_only_the_tail_of_a_log_is_read_from_its_first_whole_line(tmp_path):
    log = tmp_path / "zookeeper.log"
    log.write_text("old line one\nold line two\nnew line\n")
    assert read_tail(str(log), 15) == "new line\n"
    assert read_tail(str(log), 1000) == "old line one\nold line two\nnew line\n"
    assert read_tail(str(tmp_path / "missing.log"), 1000) is None


@pytest.mark.parametrize("timed_out", [False, True], ids=["in-time", "timed-out"])
def test_without_a_unit_only_the_timeout_ends_the_wait(timed_out):
    module = FakeModule({})
    watch = ServiceWatch(module, "ZooKeeper at 127.0.0.1:2181")
    failure = watch.failure(timed_out, "ZooKeeper at 127.0.0.1:2181 did not serve clients within 3 s", {"elapsed": 3})
    expected = dict(msg="ZooKeeper at 127.0.0.1:2181 did not serve clients within 3 s", elapsed=3)
    assert failure == (expected if timed_out else None)
    assert watch.subject == "ZooKeeper at 127.0.0.1:2181" and module.commands == []


def test_a_hopeless_unit_ends_the_wait_before_its_timeout_with_the_cause(tmp_path):
    log = tmp_path / "server.log"
    log.write_text(BROKER_CRASH_LOOP)
    module = FakeModule({"systemctl": [(0, RUNNING, ""), (0, CRASHED, "")], "journalctl": (0, "", "")})
    watch = ServiceWatch(module, "broker 1 at 127.0.0.1:9092", "kafka-broker-1", str(log))
    result = {"broker_ids": [2, 3], "elapsed": 1.0}
    assert watch.failure(False, "not used", result) is None
    failure = watch.failure(False, "not used", result)
    assert failure["msg"] == (
        "broker 1 at 127.0.0.1:9092 (unit kafka-broker-1) is not coming up: the unit is activating (auto-restart) "
        "and restarted once during the wait, last exit status 1. From %s: %s"
        % (log, " | ".join(cause_lines(BROKER_CRASH_LOOP))))
    assert failure["broker_ids"] == [2, 3] and failure["elapsed"] == 1.0
    assert failure["log_source"] == str(log) and failure["unit_state"]["restarts_during_wait"] == 1
    assert result == {"broker_ids": [2, 3], "elapsed": 1.0}


def test_a_timed_out_wait_on_a_running_unit_says_what_was_missing_and_how_the_unit_is():
    module = FakeModule({"systemctl": (0, RUNNING, ""), "journalctl": (0, "", "")})
    watch = ServiceWatch(module, "ZooKeeper at 127.0.0.1:2181", "zookeeper")
    assert watch.failure(False, "not used") is None
    failure = watch.failure(True, "%s did not serve clients within 10 s (last: ruok=True, mode=None)" % watch.subject)
    assert failure == dict(
        msg="ZooKeeper at 127.0.0.1:2181 (unit zookeeper) did not serve clients within 10 s (last: ruok=True, "
            "mode=None); the unit is active (running) and not restarted during the wait. "
            "Nothing in the journal of zookeeper names a cause.",
        unit_state=dict(load_state="loaded", active_state="active", sub_state="running", result="success", restarts=0,
                        restarts_during_wait=0, exit_kind=None, exit_status=0, exec_pid=None, main_pid=4242),
        log_source=None, log_excerpt=[])


def test_the_module_fails_only_when_the_wait_is_over():
    module = FakeModule({"systemctl": (0, RUNNING, ""), "journalctl": (0, "", "")})
    watch = ServiceWatch(module, "ZooKeeper at 127.0.0.1:2181", "zookeeper")
    watch.stop_if_hopeless_or_late(False, "not used")
    with pytest.raises(ModuleFailed) as failed:
        watch.stop_if_hopeless_or_late(True, "time is up", {"elapsed": 60.0})
    assert failed.value.args[0]["msg"].startswith("time is up; the unit is active (running)")
    assert failed.value.args[0]["elapsed"] == 60.0


def test_the_options_come_fresh_for_every_module():
    first, second = service_watch_argument_spec(), service_watch_argument_spec()
    assert first == dict(service=dict(type="str"), log_file=dict(type="path"))
    first["service"]["required"] = True
    assert "required" not in second["service"]


def test_a_reported_reader_reads_through_service_info_and_keeps_the_cause_it_brought_along():
    asked = []
    answers = [dict(changed=False, unit_state=None, read_error="systemctl not found", log_source=JOURNAL,
                    log_excerpt=["Invalid maximum heap size: -Xmx5x"], log_searched=[JOURNAL])]

    def service_info(arguments):
        asked.append(arguments)
        return answers[0]

    reader = ReportedUnitReader(service_info, "kafka-broker-1", "/var/log/kafka/server.log")
    assert reader.state(cause_wanted=True) == (None, "systemctl not found")
    assert reader.cause() == (JOURNAL, ["Invalid maximum heap size: -Xmx5x"], [JOURNAL])
    assert asked == [dict(service="kafka-broker-1", log_file="/var/log/kafka/server.log", causes=True)]
    # Once used, the cause is read again when asked for.
    reader.cause()
    assert len(asked) == 2


def test_a_reported_reader_turns_a_failed_module_run_into_a_read_error():
    reader = ReportedUnitReader(lambda arguments: dict(failed=True, msg="host unreachable"), "zookeeper")
    assert reader.state() == (None, "service_info failed: host unreachable")
    assert reader.cause() == (None, [], [])


def _restarted(restarts):
    return (0, show(restarts=restarts), "")


def _down_again(restarts):
    return (0, show("activating", "auto-restart", restarts=restarts, code=1, status=1, pid=0), "")


def test_a_broker_killed_moments_ago_is_waited_for_until_its_old_registration_expires(tmp_path):
    log = tmp_path / "server.log"
    log.write_text(STALE_REGISTRATION.format(time="2025-01-07 10:00:10,512"))
    # Killed (systemd restarts it), refused by ZooKeeper once, started again and up.
    module = FakeModule({"systemctl": [(0, RUNNING, ""), _down_again(1), _restarted(2), _restarted(2)],
                         "journalctl": (0, "", "")})
    watch = ServiceWatch(module, "broker 3 at 127.0.0.1:9092", "kafka-broker-3", str(log))
    assert [watch.failure(False, "not used") for unused in range(4)] == [None] * 4


def test_a_registration_that_never_passes_ends_the_wait_after_a_few_restarts(tmp_path):
    log = tmp_path / "server.log"
    log.write_text(STALE_REGISTRATION.format(time="2025-01-07 10:00:10,512"))
    polls = [(0, RUNNING, "")] + [_down_again(restarts) for restarts in range(1, 6)]
    module = FakeModule({"systemctl": list(polls), "journalctl": (0, "", "")})
    watch = ServiceWatch(module, "broker 3 at 127.0.0.1:9092", "kafka-broker-3", str(log))
    failures = [watch.failure(False, "not used") for unused in polls]
    assert failures[:4] == [None] * 4
    assert failures[4]["msg"].startswith(
        "broker 3 at 127.0.0.1:9092 (unit kafka-broker-3) is not coming up: the unit is activating (auto-restart) "
        "and restarted 4 times during the wait, last exit status 1. From %s: " % log)
    assert "node already exists and owner" in failures[4]["msg"]
