"""Why a waited-for service does not come up: the unit's state, when to stop waiting, the log lines that say why."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._service_diagnosis import (
    JOURNAL,
    UnitProgress,
    cause_lines,
    describe_unit,
    journal_cause_lines,
    mask_secrets,
    parse_unit_state,
    passing_cause,
    service_report,
)
from ansible_collections.kafkaops.cluster.tests.unit.plugins.service_samples import (
    AUTO_RESTART,
    BAD_HEAP_JOURNAL,
    BROKER_CRASH_LOOP,
    NESTED_CAUSES,
    RUNNING,
    STALE_REGISTRATION,
    ZOOKEEPER_UNRESOLVED_PEERS,
    show,
)


@pytest.mark.parametrize("text, expected", [
    (show(), dict(load_state="loaded", active_state="active", sub_state="running", result="success", restarts=0,
                  exit_kind=None, exit_status=0, exec_pid=None, main_pid=4242)),
    (show("activating", "auto-restart", restarts=3, code=1, status=1, result="exit-code", pid=0),
     dict(load_state="loaded", active_state="activating", sub_state="auto-restart", result="exit-code", restarts=3,
          exit_kind="exited", exit_status=1, exec_pid=None, main_pid=0)),
    (show("failed", "failed", restarts=5, code=2, status=9, result="signal", pid=0),
     dict(load_state="loaded", active_state="failed", sub_state="failed", result="signal", restarts=5,
          exit_kind="killed", exit_status=9, exec_pid=None, main_pid=0)),
    (show("inactive", "dead", restarts=None, load="not-found", pid=0),
     dict(load_state="not-found", active_state="inactive", sub_state="dead", result="success", restarts=None,
          exit_kind=None, exit_status=0, exec_pid=None, main_pid=0)),
    ("", dict(load_state="", active_state="", sub_state="", result="", restarts=None, exit_kind=None,
              exit_status=None, exec_pid=None, main_pid=None)),
], ids=["running", "auto-restart", "killed-and-failed", "unknown-unit-old-systemd", "nothing"])
def test_unit_state_is_parsed(text, expected):
    assert parse_unit_state(text) == expected


@pytest.mark.parametrize("polls, hopeless_at", [
    ([RUNNING] * 5, None),
    # A restart during the wait, then down again: a crash loop.
    ([RUNNING, AUTO_RESTART, show(restarts=1), show("activating", "auto-restart", restarts=1, pid=0)], 4),
    ([show(restarts=4), show("activating", "auto-restart", restarts=4, code=1, status=1), show(restarts=5),
      show("activating", "auto-restart", restarts=5, code=1, status=1, pid=0)], 4),
    # The restart picked up a mended configuration: the service runs on, the wait goes on.
    ([AUTO_RESTART, show(restarts=1), show(restarts=1), show(restarts=1)], None),
    # Two restarts during the wait, even if the poll missed the down time between them.
    ([RUNNING, show(restarts=1), show(restarts=2)], 3),
    ([show("failed", "failed", restarts=0, result="start-limit-hit", pid=0)], 1),
    # One inactive poll may fall between the stop and the start of a restart; two in a row do not.
    ([show("inactive", "dead", pid=0), RUNNING, show("inactive", "dead", pid=0), RUNNING], None),
    ([RUNNING, show("inactive", "dead", pid=0), show("inactive", "dead", pid=0)], 3),
    ([show("deactivating", "stop-sigterm")] * 3, None),
    ([show(load="not-found", active="inactive", sub="dead", pid=0)], 1),
    # A start by hand sets NRestarts back to 0; restarts counted from there.
    ([show(restarts=3), show(restarts=0), show(restarts=0), show(restarts=1),
      show("activating", "auto-restart", restarts=1, pid=0)], 5),
    # Killed during the wait: systemd counts the restart as it queues the start, and a poll can land before
    # the start runs (count up, still auto-restart, the old exit and the old process). Not down again.
    ([show(exec_pid=700), show("activating", "auto-restart", code=2, status=9, pid=0, exec_pid=700),
      show("activating", "auto-restart", restarts=1, code=2, status=9, pid=0, exec_pid=700),
      show(restarts=1, exec_pid=701)], None),
    # The restarted process (701) exits in its turn: down again.
    ([show(exec_pid=700), show("activating", "auto-restart", code=2, status=9, pid=0, exec_pid=700),
      show(restarts=1, exec_pid=701),
      show("activating", "auto-restart", restarts=1, code=1, status=1, pid=0, exec_pid=701)], 4),
    # Without NRestarts (systemd before 235) a crash loop shows only as failed in the end.
    ([show(restarts=None), show("activating", "auto-restart", restarts=None, pid=0), show(restarts=None)], None),
], ids=["steady", "restarted-and-down-again", "restarted-again-and-down", "mended-by-the-restart",
        "restarted-twice", "failed", "inactive-once", "inactive-twice", "stopping",
        "unknown-unit", "counter-reset-by-hand", "restart-queued-not-started", "restarted-process-exits",
        "no-restart-counter"])
def test_waiting_stops_when_the_unit_is_hopeless(polls, hopeless_at):
    progress = UnitProgress()
    verdicts = [progress.observe(parse_unit_state(text)) for text in polls]
    assert (verdicts.index(True) + 1 if True in verdicts else None) == hopeless_at


def _down(restarts):
    return parse_unit_state(show("activating", "auto-restart", restarts=restarts, code=1, status=1, pid=0))


def test_a_forgiven_restart_no_longer_counts_and_the_next_start_is_watched_afresh():
    progress = UnitProgress()
    assert progress.observe(parse_unit_state(RUNNING)) is False
    assert progress.observe(_down(1)) is True
    assert progress.forgive() is True
    assert progress.observe(_down(1)) is False
    # Started again and up: one restart counted since the forgiven one, not two.
    assert progress.observe(parse_unit_state(show(restarts=2))) is False
    assert progress.observe(parse_unit_state(show(restarts=2))) is False
    # Down again after that start: hopeless again, until forgiven again.
    assert progress.observe(_down(2)) is True
    assert progress.report()["restarts_during_wait"] == 2


def test_forgiveness_ends_after_a_few_restarts():
    progress = UnitProgress()
    progress.observe(parse_unit_state(RUNNING))
    verdicts = []
    for restarts in range(1, 6):
        hopeless = progress.observe(_down(restarts))
        verdicts.append((hopeless, progress.forgive() if hopeless else None))
    assert verdicts == [(True, True), (True, True), (True, True), (True, False), (True, False)]


@pytest.mark.parametrize("state", [
    show("failed", "failed", restarts=1, result="start-limit-hit", pid=0),
    show(load="not-found", active="inactive", sub="dead", pid=0),
], ids=["failed", "unknown-unit"])
def test_no_forgiveness_when_no_restart_is_coming(state):
    progress = UnitProgress()
    progress.observe(parse_unit_state(RUNNING))
    assert progress.observe(parse_unit_state(state)) is True
    assert progress.forgive() is False


def test_a_stale_registration_passes_and_other_causes_do_not():
    assert passing_cause(cause_lines(STALE_REGISTRATION.format(time="2025-01-07 10:00:00,512")))
    assert not passing_cause(cause_lines(BROKER_CRASH_LOOP))
    assert not passing_cause([])


@pytest.mark.parametrize("polls, expected", [
    ([RUNNING, AUTO_RESTART, show(restarts=2, code=1, status=1)],
     "the unit is active (running) and restarted 2 times during the wait, last exit status 1"),
    ([RUNNING, show("activating", "auto-restart", restarts=1, code=1, status=1, pid=0)],
     "the unit is activating (auto-restart) and restarted once during the wait, last exit status 1"),
    ([show("failed", "failed", restarts=0, code=2, status=9, result="signal", pid=0)],
     "the unit is failed (result signal) and not restarted during the wait, last killed by SIGKILL"),
    ([show("failed", "failed", restarts=None, code=3, status=6, result="core-dump", pid=0)],
     "the unit is failed (result core-dump), last dumped core on SIGABRT"),
    ([show("inactive", "dead", restarts=0, code=1, status=143, pid=0)],
     "the unit is inactive (dead) and not restarted during the wait, last exit status 143"),
    ([show(load="not-found", active="inactive", sub="dead", pid=0)],
     "systemd knows no unit kafka-broker-1 (see the option service)"),
], ids=["restarted-twice", "restarted-once", "killed", "core-dump-old-systemd", "stopped", "unknown-unit"])
def test_the_unit_is_described(polls, expected):
    progress = UnitProgress()
    for text in polls:
        progress.observe(parse_unit_state(text))
    assert describe_unit("kafka-broker-1", progress.report()) == expected


def test_an_unread_unit_says_why():
    assert describe_unit("zookeeper", None, "systemctl not found") == \
        "the state of unit zookeeper could not be read (systemctl not found)"


@pytest.mark.parametrize("text, expected", [
    # A crash loop writes the same record on every start: kept once, the last time it appeared.
    (BROKER_CRASH_LOOP,
     ["[2025-01-07 10:00:21,733] ERROR Exiting Kafka due to fatal exception (kafka.Kafka$)",
      "java.lang.IllegalArgumentException: requirement failed: broker.id must be greater than or equal to -1 and "
      "not greater than reserved.broker.max.id"]),
    # WARN records count when they carry an exception.
    (ZOOKEEPER_UNRESOLVED_PEERS,
     ["[2025-01-07 10:02:01,412] WARN Cannot open channel to 2 at election address zk2:3888 "
      "(org.apache.zookeeper.server.quorum.QuorumCnxManager)",
      "java.net.UnknownHostException: zk2",
      "[2025-01-07 10:02:01,412] WARN Cannot open channel to 3 at election address zk3:3888 "
      "(org.apache.zookeeper.server.quorum.QuorumCnxManager)",
      "java.net.UnknownHostException: zk3"]),
    (NESTED_CAUSES,
     ["[2025-01-07 10:00:00,512] ERROR [KafkaServer id=1] Fatal error during KafkaServer startup. Prepare to "
      "shutdown (kafka.server.KafkaServer)",
      "org.apache.kafka.common.KafkaException: Failed to create new KafkaAdminClient",
      "Caused by: org.apache.kafka.common.config.ConfigException: Invalid url in bootstrap.servers: x"]),
    # The tail may begin inside a record; its exception still counts.
    ("\tat kafka.Kafka.main(Kafka.scala)\nCaused by: java.io.IOException: No space left on device\n\tat x.y(Z.java:1)\n"
     "[2025-01-07 10:00:00,600] INFO shut down completed (kafka.server.KafkaServer)\n",
     ["Caused by: java.io.IOException: No space left on device"]),
    ('Exception in thread "main" java.lang.OutOfMemoryError: Java heap space\n\tat a.b(C.java:1)\n',
     ['Exception in thread "main" java.lang.OutOfMemoryError: Java heap space']),
    ("[2025-01-07 10:00:00,100] INFO KafkaConfig values:\n\tbroker.id = 1\n"
     "[2025-01-07 10:00:01,100] WARN No meta.properties file under dir /var/lib/kafka (kafka.server.BrokerMetadata)\n",
     []),
    ("", []),
    # Seen on a restarted broker: its controlled shutdown logged exceptions at INFO, then the new start
    # failed. Only the fatal record is the cause.
    ("[2026-11-23 17:20:55,774] INFO [ReplicaFetcher replicaId=1002, leaderId=1003, fetcherId=0] Error sending fetch "
     "request (sessionId=674808893, epoch=129) to node 1003: (org.apache.kafka.clients.FetchSessionHandler)\n"
     "java.io.IOException: Client was shutdown before response was read\n\tat a.b(C.java:1)\n"
     "[2026-11-23 17:20:57,866] ERROR Exiting Kafka due to fatal exception (kafka.Kafka$)\n"
     "org.apache.kafka.common.config.ConfigException: Invalid value not-a-number for configuration "
     "num.network.threads: Not a number of type INT\n\tat d.e(F.java:2)\n",
     ["[2026-11-23 17:20:57,866] ERROR Exiting Kafka due to fatal exception (kafka.Kafka$)",
      "org.apache.kafka.common.config.ConfigException: Invalid value not-a-number for configuration "
      "num.network.threads: Not a number of type INT"]),
], ids=["kafka-crash-loop", "zookeeper-unresolved-peers", "caused-by-chain", "tail-starts-inside-a-record",
        "exception-in-thread", "nothing-wrong", "empty", "shutdown-noise-then-fatal"])
def test_cause_lines_are_picked_from_a_log(text, expected):
    assert cause_lines(text) == expected


def test_the_newest_causes_win_and_long_lines_are_cut():
    records = "".join("[2025-01-07 10:00:%02d,000] ERROR failure number %d %s (x.Y)\n" % (second, second, "z" * 300)
                      for second in range(20))
    lines = cause_lines(records, limit=10, width=60)
    assert len(lines) == 10 and all(len(line) == 60 and line.endswith("...") for line in lines)
    assert lines[0].startswith("[2025-01-07 10:00:10,000] ERROR failure number 10 ")


def test_of_one_record_too_long_its_first_line_and_last_causes_are_kept():
    causes = "".join("Caused by: java.lang.RuntimeException: layer %d\n\tat a.b(C.java:1)\n" % layer
                     for layer in range(8))
    text = "[2025-01-07 10:00:00,000] ERROR startup failed (x.Y)\njava.lang.RuntimeException: top\n" + causes
    assert cause_lines(text, limit=4) == ["[2025-01-07 10:00:00,000] ERROR startup failed (x.Y)",
                                          "Caused by: java.lang.RuntimeException: layer 5",
                                          "Caused by: java.lang.RuntimeException: layer 6",
                                          "Caused by: java.lang.RuntimeException: layer 7"]


@pytest.mark.parametrize("text, expected", [
    # A JVM that does not start prints plain lines; systemd's own lines about the unit are left out.
    (BAD_HEAP_JOURNAL, ["Invalid maximum heap size: -Xmx5x",
                        "Error: Could not create the Java Virtual Machine.",
                        "Error: A fatal exception has occurred. Program will exit."]),
    ("Started zookeeper.service - ZooKeeper.\n" + NESTED_CAUSES, cause_lines(NESTED_CAUSES)),
    ("kafka-broker-1.service: Main process exited, code=exited, status=1/FAILURE\n"
     "kafka-broker-1.service: Failed with result 'exit-code'.\n", []),
], ids=["bad-heap-size", "exceptions-on-stdout", "only-systemd"])
def test_cause_lines_are_picked_from_the_journal(text, expected):
    assert journal_cause_lines(text) == expected


def test_the_report_reads_like_a_sentence():
    progress = UnitProgress()
    for text in (RUNNING, show("activating", "auto-restart", restarts=2, code=1, status=1, pid=0)):
        progress.observe(parse_unit_state(text))
    lines = cause_lines(BROKER_CRASH_LOOP)
    report = service_report("kafka-broker-1001", progress.report(), None,
                            "/var/log/kafka/broker-1001/server.log", lines, ["/var/log/kafka/broker-1001/server.log"])
    assert report == (
        "the unit is activating (auto-restart) and restarted 2 times during the wait, last exit status 1. "
        "From /var/log/kafka/broker-1001/server.log: " + " | ".join(lines))
    journal = service_report("kafka-broker-1", progress.report(), None, JOURNAL, ["Invalid maximum heap size: -Xmx5x"],
                             ["/var/log/kafka/broker-1/server.log", JOURNAL])
    assert journal.endswith(". From the journal of kafka-broker-1: Invalid maximum heap size: -Xmx5x")
    nothing = service_report("zookeeper", None, "systemctl not found", None, [],
                             ["/var/log/zookeeper/zookeeper.log", JOURNAL])
    assert nothing == ("the state of unit zookeeper could not be read (systemctl not found). Nothing in "
                       "/var/log/zookeeper/zookeeper.log or the journal of zookeeper names a cause.")


@pytest.mark.parametrize("line, expected", [
    ("javax.net.ssl.keyStorePassword=Jmx-Keystore-Secret-6cV3",
     "javax.net.ssl.keyStorePassword=********"),
    ('org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="Admin-9kW2";',
     'org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="********";'),
    ("ssl.key.password: hunter2, next=1", "ssl.key.password: ********, next=1"),
    ("java.io.FileNotFoundException: /etc/kafka/tls/jmx.p12", "java.io.FileNotFoundException: /etc/kafka/tls/jmx.p12"),
])
def test_secrets_in_a_log_line_are_masked(line, expected):
    assert mask_secrets(line) == expected


def test_an_excerpt_never_carries_a_password():
    log = ("[2026-11-24 02:33:10,000] ERROR Startup failed (kafka.Kafka)\n"
           "jdk.internal.agent.AgentConfigurationError: java.io.FileNotFoundException: /x.p12\n"
           "javax.net.ssl.keyStorePassword=Top-Secret-1\n")
    assert not any("Top-Secret-1" in line for line in cause_lines(log))
