"""kafka_quorum_info's main(): Kafka's quorum tool answered by a fake, the wait on a clock that never waits."""

import json

import pytest
from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.testing import patch_module_args
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_quorum_info
from ansible_collections.kafkaops.cluster.tests.unit.plugins.module_utils.test_quorum import REPLICATION
from ansible_collections.kafkaops.cluster.tests.unit.plugins.service_samples import RUNNING, FakeClock, show

TIMEOUT = (1, "", "Exception in thread main\nCaused by: org.apache.kafka.common.errors.TimeoutException: "
           "Timed out waiting for a node assignment. Call: describeMetadataQuorum\n")
ARGS = dict(bootstrap_controllers=["ctl-a:9093", " "], classpath="/opt/kafka/libs/*")


def _run(monkeypatch, capsys, args, tool_answers, systemctl_answers=(RUNNING,)):
    """main() with the tool's answers in turn (the last one again and again); returns (result, tool commands)."""
    tool, systemctl, commands = list(tool_answers), list(systemctl_answers), []

    def run_command(self, command, **unused):
        if command[0].endswith("java"):
            commands.append(command)
            return tool.pop(0) if len(tool) > 1 else tool[0]
        if command[0].endswith("journalctl"):
            return 0, "", ""
        return 0, (systemctl.pop(0) if len(systemctl) > 1 else systemctl[0]), ""

    monkeypatch.setattr(AnsibleModule, "run_command", run_command)
    monkeypatch.setattr(AnsibleModule, "get_bin_path", lambda self, name, *unused, **more: "/usr/bin/" + name)
    monkeypatch.setattr(kafka_quorum_info, "time", FakeClock())
    with patch_module_args(dict(ARGS, **args)), pytest.raises(SystemExit):
        kafka_quorum_info.main()
    return json.loads(capsys.readouterr().out), commands


def test_one_ask_returns_the_quorum_and_the_tool_gets_timeouts_of_its_own(monkeypatch, capsys):
    result, commands = _run(monkeypatch, capsys, dict(node_id=4), [(0, REPLICATION, "")])
    assert result["leader_id"] == 1 and result["node_role"] == "observer" and not result["changed"]
    assert [row["node_id"] for row in result["voters"]] == [1, 2, 3]
    assert len(commands) == 1
    command = commands[0]
    assert command[command.index("--bootstrap-controller") + 1] == "ctl-a:9093"
    with open(command[command.index("--command-config") + 1]) as handle:
        assert handle.read() == "request.timeout.ms=15000\ndefault.api.timeout.ms=15000\n"


def test_a_wait_asks_until_the_node_is_a_voter(monkeypatch, capsys):
    # Node 4 is an observer in REPLICATION, then a follower (added as a voter).
    joined = REPLICATION.replace("Observer", "Follower")
    result, commands = _run(monkeypatch, capsys, dict(node_id=4, wait=True, timeout=60),
                            [(0, REPLICATION, ""), (0, REPLICATION, ""), (0, joined, "")])
    assert result["node_role"] == "voter" and len(commands) == 3


def test_a_controller_that_crashes_ends_the_wait_early_with_its_unit_and_the_tool_s_cause(monkeypatch, capsys):
    crashing = [show("activating", "auto-restart", restarts=count, code=1, status=1, result="exit-code", pid=0)
                for count in (1, 2, 3)]
    result, commands = _run(monkeypatch, capsys, dict(node_id=4, wait=True, timeout=600, service="kafka-controller"),
                            [TIMEOUT], crashing)
    assert result["failed"]
    assert result["msg"].startswith("node 4 (unit kafka-controller) is not coming up: "), result["msg"]
    assert result["unit_state"]["active_state"] == "activating"
    assert result["unit_state"]["restarts_during_wait"] >= 1
    # Stopped at the crash, long before the 600 s timeout.
    assert len(commands) < 10


def test_without_a_wait_a_failed_ask_fails_at_once_with_the_root_cause(monkeypatch, capsys):
    result, commands = _run(monkeypatch, capsys, {}, [TIMEOUT])
    assert result["msg"] == ("the quorum at ctl-a:9093: the quorum tool failed (rc 1): org.apache.kafka.common.errors."
                             "TimeoutException: Timed out waiting for a node assignment. Call: describeMetadataQuorum")
    assert len(commands) == 1


def test_no_controller_address_is_refused_naming_the_option(monkeypatch, capsys):
    result, commands = _run(monkeypatch, capsys, dict(bootstrap_controllers=[""]), [(0, REPLICATION, "")])
    assert result["msg"] == "bootstrap_controllers: give at least one controller address (host:port)"
    assert commands == []
