"""What the tests of the wait modules and their service watch feed them: logs, journals, systemctl
answers, and fakes of the module, its commands and its clock."""

import json

import pytest
from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.testing import patch_module_args
from ansible_collections.kafkaops.cluster.plugins.module_utils._service_watch import HostUnitReader, unit_report

FATAL_BROKER_ID = (
    "[2025-01-07 10:00:00,101] INFO Registered kafka:type=kafka.Log4jController MBean "
    "(kafka.utils.Log4jControllerRegistration$)\n"
    "[{time}] ERROR Exiting Kafka due to fatal exception (kafka.Kafka$)\n"
    "java.lang.IllegalArgumentException: requirement failed: broker.id must be greater than or equal to -1 and not "
    "greater than reserved.broker.max.id\n"
    "\tat scala.Predef$.require(Predef.scala:337)\n"
    "\tat kafka.server.KafkaConfig.validateValues(KafkaConfig.scala:1040)\n"
    "\tat kafka.Kafka$.main(Kafka.scala:87)\n"
    "\tat kafka.Kafka.main(Kafka.scala)\n"
)
BROKER_CRASH_LOOP = "".join(FATAL_BROKER_ID.format(time=time) for time in (
    "2025-01-07 10:00:00,512", "2025-01-07 10:00:11,020", "2025-01-07 10:00:21,733"))

# A ZooKeeper-mode broker started again moments after it was killed: the dead process's session still
# owns its registration (as Kafka 3.9 logs it).
STALE_REGISTRATION = (
    "[{time}] ERROR Error while creating ephemeral at /brokers/ids/3, node already exists and owner "
    "'0x1000005c5340001' does not match current session '0x1000005c5340006' (kafka.zk.KafkaZkClient$CheckedEphemeral)\n"
    "[{time}] ERROR [KafkaServer id=3] Fatal error during KafkaServer startup. Prepare to shutdown "
    "(kafka.server.KafkaServer)\n"
    "org.apache.zookeeper.KeeperException$NodeExistsException: KeeperErrorCode = NodeExists\n"
    "\tat org.apache.zookeeper.KeeperException.create(KeeperException.java:126)\n"
    "[{time}] ERROR Exiting Kafka due to fatal exception during startup. (kafka.Kafka$)\n"
    "org.apache.zookeeper.KeeperException$NodeExistsException: KeeperErrorCode = NodeExists\n"
)

UNRESOLVED_PEER = (
    "[2025-01-07 10:0%(minute)d:01,412] WARN Cannot open channel to %(peer)d at election address zk%(peer)d:3888 "
    "(org.apache.zookeeper.server.quorum.QuorumCnxManager)\n"
    "java.net.UnknownHostException: zk%(peer)d\n"
    "\tat java.base/java.net.InetAddress$CachedAddresses.get(InetAddress.java:801)\n"
    "\tat org.apache.zookeeper.server.quorum.QuorumCnxManager.connectOne(QuorumCnxManager.java:727)\n"
    "[2025-01-07 10:0%(minute)d:01,500] INFO Notification time out: 800 "
    "(org.apache.zookeeper.server.quorum.FastLeaderElection)\n"
)
ZOOKEEPER_UNRESOLVED_PEERS = "".join(UNRESOLVED_PEER % dict(minute=minute, peer=peer)
                                     for minute in range(3) for peer in (2, 3))

NESTED_CAUSES = (
    "[2025-01-07 10:00:00,512] ERROR [KafkaServer id=1] Fatal error during KafkaServer startup. Prepare to "
    "shutdown (kafka.server.KafkaServer)\n"
    "org.apache.kafka.common.KafkaException: Failed to create new KafkaAdminClient\n"
    "\tat org.apache.kafka.clients.admin.KafkaAdminClient.createInternal(KafkaAdminClient.java:551)\n"
    "Caused by: org.apache.kafka.common.config.ConfigException: Invalid url in bootstrap.servers: x\n"
    "\tat org.apache.kafka.clients.ClientUtils.parseAndValidateAddresses(ClientUtils.java:59)\n"
    "\t... 12 more\n"
    "[2025-01-07 10:00:00,600] INFO [KafkaServer id=1] shut down completed (kafka.server.KafkaServer)\n"
)

BAD_HEAP_JOURNAL = (
    "Started kafka-broker-1.service - Kafka broker 1 (kafkaops.cluster).\n"
    "Invalid maximum heap size: -Xmx5x\n"
    "Error: Could not create the Java Virtual Machine.\n"
    "Error: A fatal exception has occurred. Program will exit.\n"
    "kafka-broker-1.service: Main process exited, code=exited, status=1/FAILURE\n"
    "kafka-broker-1.service: Failed with result 'exit-code'.\n"
    "kafka-broker-1.service: Scheduled restart job, restart counter is at 1.\n"
    "Stopped kafka-broker-1.service - Kafka broker 1 (kafkaops.cluster).\n"
    "Started kafka-broker-1.service - Kafka broker 1 (kafkaops.cluster).\n"
    "Invalid maximum heap size: -Xmx5x\n"
    "Error: Could not create the Java Virtual Machine.\n"
    "Error: A fatal exception has occurred. Program will exit.\n"
)


def show(active="active", sub="running", restarts=0, code=0, status=0, result="success", load="loaded", pid=4242,
         exec_pid=None):
    """systemctl show output; restarts None leaves NRestarts out, as systemd before 235 does; exec_pid
    (ExecMainPID) is left out unless given."""
    lines = ["LoadState=%s" % load, "ActiveState=%s" % active, "SubState=%s" % sub, "Result=%s" % result,
             "ExecMainCode=%d" % code, "ExecMainStatus=%d" % status, "MainPID=%d" % pid]
    if exec_pid is not None:
        lines.append("ExecMainPID=%d" % exec_pid)
    if restarts is not None:
        lines.append("NRestarts=%d" % restarts)
    return "\n".join(lines) + "\n"


RUNNING = show()
AUTO_RESTART = show("activating", "auto-restart", code=1, status=1, result="exit-code", pid=0)


class ModuleFailed(Exception):
    """What FakeModule.fail_json raises, carrying its keyword arguments."""


class FakeModule:
    """Answers systemctl and journalctl as given; records the commands run; fail_json raises ModuleFailed."""

    def __init__(self, answers, missing=()):
        self.answers = answers
        self.missing = missing
        self.commands = []

    def get_bin_path(self, name):
        return None if name in self.missing else "/usr/bin/" + name

    def run_command(self, command):
        self.commands.append(command)
        answer = self.answers[command[0].rsplit("/", 1)[-1]]
        return answer.pop(0) if isinstance(answer, list) else answer

    def fail_json(self, **result):
        raise ModuleFailed(result)


class FakeClock:
    """time for the wait modules and the reassignment executor: every sleep moves the clock on at once."""

    def __init__(self):
        self.now = 1000.0

    def monotonic(self):
        return self.now

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def run_wait(monkeypatch, capsys, module, args, systemctl_answers, journal=(0, "", "")):
    """Run a wait module's main() against a clock that never waits; systemctl gives its answers in turn, the last
    one again and again."""
    systemctl = list(systemctl_answers)
    commands = []

    def run_command(self, command, **unused):
        commands.append(command)
        if command[0].endswith("journalctl"):
            return journal
        return systemctl.pop(0) if len(systemctl) > 1 else systemctl[0]

    monkeypatch.setattr(AnsibleModule, "run_command", run_command)
    monkeypatch.setattr(AnsibleModule, "get_bin_path", lambda self, name, *unused, **more: "/usr/bin/" + name)
    monkeypatch.setattr(module, "time", FakeClock())
    with patch_module_args(args), pytest.raises(SystemExit):
        module.main()
    return json.loads(capsys.readouterr().out), commands


class FakeNode:
    """A broker's host as the action kafka_broker_wait asks it: what service_info would answer.

    From systemctl show outputs given in turn (the last one again and again) and a journal (code,
    output, error). Each run records its arguments and the time, and moves the clock on by
    run_seconds (a module run on a host is not free).
    """

    def __init__(self, systemctl_answers, journal=(0, "", ""), clock=None, run_seconds=1.5, missing=()):
        self.systemctl = list(systemctl_answers)
        self.journal = journal
        self.clock = clock
        self.run_seconds = run_seconds
        self.missing = missing
        self.runs = []

    def __call__(self, arguments):
        self.runs.append((self.clock.now if self.clock else None, dict(arguments)))
        answer = self.systemctl.pop(0) if len(self.systemctl) > 1 else self.systemctl[0]
        module = FakeModule({"systemctl": (0, answer, ""), "journalctl": self.journal}, self.missing)
        reader = HostUnitReader(module, arguments["service"], arguments.get("log_file"))
        report = unit_report(reader, arguments.get("causes", False))
        if self.clock is not None:
            self.clock.sleep(self.run_seconds)
        return dict(report, changed=False)
