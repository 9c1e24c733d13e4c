"""service_info's main(): the unit's state, and the cause only when asked for it."""

import json

import pytest
from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.testing import patch_module_args
from ansible_collections.kafkaops.cluster.plugins.module_utils._service_diagnosis import cause_lines
from ansible_collections.kafkaops.cluster.plugins.modules import service_info
from ansible_collections.kafkaops.cluster.tests.unit.plugins.service_samples import (
    AUTO_RESTART,
    BROKER_CRASH_LOOP,
)


def run(monkeypatch, capsys, args, systemctl=(0, AUTO_RESTART, ""), journal=(0, "", "")):
    commands = []

    def run_command(self, command, **unused):
        commands.append(command)
        return journal if command[0].endswith("journalctl") else systemctl

    monkeypatch.setattr(AnsibleModule, "run_command", run_command)
    monkeypatch.setattr(AnsibleModule, "get_bin_path", lambda self, name, *unused, **more: "/usr/bin/" + name)
    with patch_module_args(dict(args, _ansible_check_mode=True)), pytest.raises(SystemExit):
        service_info.main()
    return json.loads(capsys.readouterr().out), commands


def test_the_state_alone_is_one_systemctl_call(monkeypatch, capsys):
    result, commands = run(monkeypatch, capsys, dict(service="kafka-broker-1", log_file="/var/log/kafka/server.log"))
    assert result["changed"] is False and result["read_error"] is None
    assert result["unit_state"] == dict(load_state="loaded", active_state="activating", sub_state="auto-restart",
                                        result="exit-code", restarts=0, exit_kind="exited", exit_status=1,
                                        exec_pid=None, main_pid=0)
    assert "log_excerpt" not in result and len(commands) == 1


def test_the_cause_comes_from_the_log_file_on_request(monkeypatch, capsys, tmp_path):
    log = tmp_path / "server.log"
    log.write_text(BROKER_CRASH_LOOP)
    result, commands = run(monkeypatch, capsys, dict(service="kafka-broker-1", log_file=str(log), causes=True))
    assert result["log_source"] == str(log) and result["log_excerpt"] == cause_lines(BROKER_CRASH_LOOP)
    assert result["log_searched"] == [str(log)] and len(commands) == 1


def test_a_unit_that_cannot_be_read_is_reported_not_failed(monkeypatch, capsys):
    result, unused = run(monkeypatch, capsys, dict(service="kafka-broker-1", causes=True),
                         systemctl=(1, "", "Failed to connect to bus"))
    assert not result.get("failed") and result["unit_state"] is None
    assert result["read_error"] == "systemctl show exited with 1: Failed to connect to bus"
    assert result["log_searched"] == ["journal"] and result["log_source"] is None
