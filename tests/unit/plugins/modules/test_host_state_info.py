"""The readers of host_state_info: files on a temporary folder, accounts, units and names of this host."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.modules import host_state_info


def test_read_path_reports_missing_files_folders_and_content(tmp_path):
    (tmp_path / "myid").write_text("2\n")
    assert host_state_info.read_path(str(tmp_path / "myid"), 100) == {
        "exists": True, "type": "file", "size": 2, "content": "2\n"}
    assert host_state_info.read_path(str(tmp_path / "myid"), 1)["content"] is None
    assert host_state_info.read_path(str(tmp_path), 100)["type"] == "directory"
    assert host_state_info.read_path(str(tmp_path / "gone"), 100) == {
        "exists": False, "type": None, "size": None, "content": None}


@pytest.mark.parametrize("output, expected", [
    ("LoadState=loaded\nActiveState=active\nUnitFileState=enabled\n", (True, True, True)),
    ("LoadState=loaded\nActiveState=activating\nUnitFileState=enabled\n", (True, False, True)),
    ("LoadState=not-found\nActiveState=inactive\nUnitFileState=\n", (False, False, False)),
])
def test_parse_unit(output, expected):
    state = host_state_info.parse_unit(output)
    assert (state["loaded"], state["active"], state["enabled"]) == expected


def test_read_user_of_root():
    user = host_state_info.read_user("root")
    assert user["exists"] and user["uid"] == 0 and user["group"] == "root"
    assert host_state_info.read_user("no-such-user-kafkaops")["exists"] is False


def test_resolve_gives_addresses_or_nothing():
    assert host_state_info.resolve("127.0.0.1") == ["127.0.0.1"]
    assert "127.0.0.1" in host_state_info.resolve("localhost") or "::1" in host_state_info.resolve("localhost")
    # .invalid never resolves (RFC 2606); the resolver answers without a network for it.
    assert host_state_info.resolve("kafka-a.invalid") == []


def test_read_settings_returns_only_the_wanted_settings(tmp_path):
    properties = tmp_path / "server.properties"
    properties.write_text("# managed\nprocess.roles=broker\n"
                          "listener.name.internal.plain.sasl.jaas.config=... password=\"s3cret\";\n"
                          "zookeeper.connect = zk-a:2181\n")
    wanted = ["process.roles", "zookeeper.connect", "metadata.log.dir"]
    found = host_state_info.read_settings(str(properties), wanted, 1000)
    assert found == {"exists": True, "values": {"process.roles": "broker", "zookeeper.connect": "zk-a:2181"}}
    assert "s3cret" not in repr(found)
    missing = host_state_info.read_settings(str(tmp_path / "gone"), ["process.roles"], 1000)
    assert missing == {"exists": False, "values": {}}
    with pytest.raises(ValueError, match="max_size"):
        host_state_info.read_settings(str(properties), ["process.roles"], 10)
