"""zookeeper_info's main() with wait=true, its wait run against a clock that never waits."""

from ansible_collections.kafkaops.cluster.plugins.modules import zookeeper_info
from ansible_collections.kafkaops.cluster.tests.unit.plugins.service_samples import (
    RUNNING,
    ZOOKEEPER_UNRESOLVED_PEERS,
    run_wait,
)

# What a node of an ensemble without quorum answers: imok, but no mode.
NOT_SERVING = {"ok": True, "mode": None, "zxid": None, "version": None}


def test_a_zookeeper_without_quorum_times_out_naming_the_unresolved_peers(monkeypatch, capsys, tmp_path):
    log = tmp_path / "zookeeper.log"
    log.write_text(ZOOKEEPER_UNRESOLVED_PEERS)
    monkeypatch.setattr(zookeeper_info, "read_node", lambda *unused: NOT_SERVING)
    result, commands = run_wait(
        monkeypatch, capsys, zookeeper_info,
        dict(wait=True, timeout=10, service="zookeeper", log_file=str(log)), [(0, RUNNING, "")])
    assert result["failed"], result
    assert result["msg"].startswith(
        "ZooKeeper at 127.0.0.1:2181 (unit zookeeper) did not serve clients within 10 s (last: ruok=True, "
        "mode=None); the unit is active (running) and not restarted during the wait. From %s: " % log)
    assert "java.net.UnknownHostException: zk3" in result["msg"] and result["log_source"] == str(log)
    assert len(commands) == 11


def test_without_a_service_the_wait_is_as_before(monkeypatch, capsys):
    monkeypatch.setattr(zookeeper_info, "read_node", lambda *unused: NOT_SERVING)
    result, commands = run_wait(monkeypatch, capsys, zookeeper_info, dict(wait=True, timeout=3), [])
    assert result["msg"] == "ZooKeeper at 127.0.0.1:2181 did not serve clients within 3 s (last: ruok=True, mode=None)"
    assert "unit_state" not in result and commands == []
