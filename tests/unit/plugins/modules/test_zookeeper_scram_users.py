"""zookeeper_scram_users' main() against the scripted ZooKeeper of the client's tests (one session per server)."""

import json

import pytest
from ansible.module_utils.testing import patch_module_args
from ansible_collections.kafkaops.cluster.plugins.module_utils._scram import matches
from ansible_collections.kafkaops.cluster.plugins.modules import zookeeper_scram_users
from ansible_collections.kafkaops.cluster.tests.unit.plugins.module_utils.test_zookeeper_client import ScriptedZooKeeper

USERS = [{"name": "broker", "password": "Inter-Broker-1"}, {"name": "admin", "password": "Admin-2"}]
LOGIN = {"kafka": "zk-secret"}


def _run(capsys, server, check_mode=False, **args):
    arguments = dict(dict(servers=[server.address], chroot="/kafka", users=USERS, sasl_user="kafka",
                          sasl_password="zk-secret", _ansible_check_mode=check_mode, _ansible_diff=True), **args)
    with patch_module_args(arguments), pytest.raises(SystemExit):
        zookeeper_scram_users.main()
    return json.loads(capsys.readouterr().out)


def _config(server, name):
    return json.loads(server.znodes["/kafka/config/users/" + name][0])


def test_a_new_cluster_gets_its_users_with_the_acls_a_broker_gives_and_a_change_notice_each(capsys):
    server = ScriptedZooKeeper({}, users=LOGIN)
    result = _run(capsys, server)
    assert result["changed"] and result["created"] == ["broker", "admin"] and result["present"] == []
    assert result["diff"] == {"before": {"users": []}, "after": {"users": ["admin", "broker"]}}
    for user in USERS:
        config = _config(server, user["name"])
        assert config["version"] == 1 and list(config["config"]) == ["SCRAM-SHA-512"]
        assert matches(config["config"]["SCRAM-SHA-512"], user["password"], "SCRAM-SHA-512")
        assert config["config"]["SCRAM-SHA-512"].endswith(",iterations=8192")
        assert server.acls["/kafka/config/users/" + user["name"]] == [(31, "sasl", "kafka")]
    readable = [(31, "sasl", "kafka"), (1, "world", "anyone")]
    assert server.acls["/kafka"] == server.acls["/kafka/config"] == server.acls["/kafka/config/changes"] == readable
    assert server.acls["/kafka/config/users"] == [(31, "sasl", "kafka")]
    notices = sorted(server.znodes["/kafka/config/changes"][1])
    assert notices == ["config_change_0000000000", "config_change_0000000001"]
    assert [json.loads(server.znodes["/kafka/config/changes/" + name][0]) for name in notices] == [
        {"version": 2, "entity_path": "users/broker"}, {"version": 2, "entity_path": "users/admin"}]
    assert "Inter-Broker-1" not in json.dumps(result) and "zk-secret" not in json.dumps(result)


def test_existing_users_are_left_alone_and_other_settings_of_a_user_kept(capsys):
    server = ScriptedZooKeeper({"/kafka": (b"", ["config"]), "/kafka/config": (b"", ["users", "changes"]),
                                "/kafka/config/changes": (b"", []), "/kafka/config/users": (b"", ["broker", "admin"]),
                                "/kafka/config/users/broker": (b'{"version":1,"config":{"SCRAM-SHA-512":"salt=a,'
                                                               b'stored_key=b,server_key=c,iterations=4096"}}', []),
                                "/kafka/config/users/admin": (b'{"version":1,"config":{"producer_byte_rate":"1024",'
                                                              b'"SCRAM-SHA-256":"x"}}', [])}, users=LOGIN)
    result = _run(capsys, server)
    assert result["created"] == ["admin"] and result["present"] == ["broker"]
    admin = _config(server, "admin")["config"]
    assert admin["producer_byte_rate"] == "1024" and admin["SCRAM-SHA-256"] == "x"
    assert matches(admin["SCRAM-SHA-512"], "Admin-2", "SCRAM-SHA-512")
    assert server.znodes["/kafka/config/users/broker"][0].startswith(b'{"version":1,"config":{"SCRAM-SHA-512":"salt=a')


def test_a_second_run_changes_nothing_and_check_mode_writes_nothing(capsys):
    server = ScriptedZooKeeper({}, users=LOGIN)
    assert _run(capsys, ScriptedZooKeeper({}, users=LOGIN), check_mode=True)["created"] == ["broker", "admin"]
    _run(capsys, server)
    written = dict(server.znodes)
    again = ScriptedZooKeeper(written, users=LOGIN)
    result = _run(capsys, again)
    assert not result["changed"] and result["present"] == ["broker", "admin"]
    assert again.znodes == written


def test_without_a_login_the_znodes_are_open_as_a_broker_without_acls_makes_them(capsys):
    server = ScriptedZooKeeper({})
    result = _run(capsys, server, chroot="", sasl_user=None, sasl_password=None, mechanism="SCRAM-SHA-256")
    assert result["created"] == ["broker", "admin"]
    assert server.acls["/config/users/broker"] == server.acls["/config"] == [(31, "world", "anyone")]
    assert list(_config_root(server, "broker")) == ["SCRAM-SHA-256"]


def _config_root(server, name):
    return json.loads(server.znodes["/config/users/" + name][0])["config"]


def test_compare_passwords_renews_a_credential_made_from_another_password(capsys):
    first = ScriptedZooKeeper({}, users=LOGIN)
    _run(capsys, first)
    server = ScriptedZooKeeper(dict(first.znodes), users=LOGIN)
    changed = [{"name": "broker", "password": "Inter-Broker-1"}, {"name": "admin", "password": "New-Admin-3"}]
    result = _run(capsys, server, users=changed, compare_passwords=True)
    assert result["created"] == ["admin"] and result["present"] == ["broker"]
    assert matches(_config(server, "admin")["config"]["SCRAM-SHA-512"], "New-Admin-3", "SCRAM-SHA-512")


@pytest.mark.parametrize("args, message", [
    (dict(chroot="kafka"), "chroot: 'kafka' is not empty or an absolute path"),
    (dict(users=[{"name": "bad name", "password": "x"}]), "users[0].name: 'bad name' is not a user name"),
    (dict(users=[{"name": "a", "password": "x"}, {"name": "a", "password": "y"}]), "users[1].name: a is listed twice"),
    (dict(users=[{"name": "a", "password": ""}]), "users[0].password: empty; user a needs a password"),
    (dict(iterations=100), "iterations: expected 4096 to 16384"),
    (dict(servers=["zk1"]), "servers: 'zk1' is not host:port"),
])
def test_bad_input_is_refused_naming_the_field_before_connecting(capsys, args, message):
    server = ScriptedZooKeeper({}, users=LOGIN)
    result = _run(capsys, server, **args)
    assert result["failed"] and message in result["msg"], result
    assert server.xids == [] and server.znodes == {}


def test_a_login_zookeeper_refuses_fails_naming_the_user(capsys):
    result = _run(capsys, ScriptedZooKeeper({}, users={"kafka": "other"}))
    assert result["failed"] and "login as user 'kafka'" in result["msg"] and "zk-secret" not in result["msg"]
