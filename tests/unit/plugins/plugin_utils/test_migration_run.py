"""What a run of migrate_to_kraft.yml works out around the state and the plan (plugin_utils/_migration_run.py)."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._migration_run import (
    cluster_id,
    connect_parts,
    finalized,
    migration_nodes,
    run_inputs,
    soak,
    standing_lines,
    zookeeper_connect,
    zookeeper_session,
)
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._role_inputs import InputTypeError

ZOOKEEPER = {"z1": {"ansible_host": "10.0.0.1"},
             "z2": {"zookeeper_peer_address": "zk2.example", "zookeeper_client_port": 2182}, "z3": {}}


@pytest.mark.parametrize("controllers, chroot, expected", [
    # A controller in migration mode names the ensemble the cluster uses.
    ([{"zookeeper_connect": ""}, {"zookeeper_connect": "zk:2181/kafka"}], "/other", "zk:2181/kafka"),
    # Else the inventory's, as the kafka_broker role builds it.
    ([{"zookeeper_connect": ""}], "/kafka", "10.0.0.1:2181,zk2.example:2182,z3:2181/kafka"),
    ([], "", "10.0.0.1:2181,zk2.example:2182,z3:2181"),
])
def test_the_ensemble_is_a_controllers_else_the_inventorys(controllers, chroot, expected):
    assert zookeeper_connect(controllers, ["z1", "z2", "z3"], ZOOKEEPER, chroot) == expected


@pytest.mark.parametrize("connect, ensemble, servers, chroot", [
    ("z1:2181,z2:2181/kafka", "z1:2181,z2:2181", ["z1:2181", "z2:2181"], "/kafka"),
    ("z1:2181/a/b", "z1:2181", ["z1:2181"], "/a/b"),
    ("z1:2181", "z1:2181", ["z1:2181"], ""),
    ("", "", [""], ""),
])
def test_the_connect_string_splits_into_servers_and_chroot(connect, ensemble, servers, chroot):
    assert connect_parts(connect) == {"connect": connect, "ensemble": ensemble, "servers": servers, "chroot": chroot}


@pytest.mark.parametrize("modes, controllers, expected", [
    (["kraft", "kraft"], [{"configured": True, "migration": False}], True),
    (["kraft", "migration"], [{"configured": True, "migration": False}], False),
    (["kraft"], [{"configured": True, "migration": True}], False),
    # A controller not set up (no configuration) does not hold the migration open.
    (["kraft"], [{"configured": False, "migration": True}], True),
    ([], [], True),
])
def test_finalized_means_every_broker_in_kraft_and_no_controller_migrating(modes, controllers, expected):
    assert finalized([{"mode": mode} for mode in modes], controllers) is expected


def test_the_nodes_of_the_play_with_the_ensemble_they_use():
    groups = {"kafka_broker": ["b1", "b2"], "kafka_controller": ["c1"], "zookeeper": ["z1"]}
    hosts = dict(ZOOKEEPER, b1={"kafka_broker_node_state": [{"broker_id": 1, "mode": "kraft"}],
                                "kafka_broker_zookeeper_chroot": "/kafka"},
                 b2={"kafka_broker_node_state": [{"broker_id": 2, "mode": "kraft"}]},
                 c1={"kafka_controller_node_state": {"node_id": 9001, "configured": True, "migration": False,
                                                     "zookeeper_connect": ""}})
    nodes = migration_nodes(groups, ["c1", "b2", "b1"], hosts)
    assert [broker["broker_id"] for broker in nodes["brokers"]] == [1, 2]
    assert (nodes["broker_hosts"], nodes["controller_hosts"]) == (["b1", "b2"], ["c1"])
    assert nodes["zookeeper"] == {"connect": "10.0.0.1:2181/kafka", "ensemble": "10.0.0.1:2181",
                                  "servers": ["10.0.0.1:2181"], "chroot": "/kafka"}
    assert nodes["finalized"] is True


@pytest.mark.parametrize("peer, expected", [
    ({"zookeeper_sasl_user": "kafka", "zookeeper_sasl_password": "secret"},
     {"servers": ["z:2181"], "sasl_user": "kafka", "sasl_password": "secret"}),
    # No login: the options are left out, so that the session is anonymous.
    ({"zookeeper_sasl_user": "", "zookeeper_sasl_password": ""}, {"servers": ["z:2181"]}),
    ({"zookeeper_sasl_user": None}, {"servers": ["z:2181"]}),
    (None, {"servers": ["z:2181"]}),
])
def test_the_session_logs_in_only_with_a_login(peer, expected):
    assert zookeeper_session(["z:2181"], peer) == expected


@pytest.mark.parametrize("phase, timeout, minutes, expected", [
    ("brokers_kraft", 600, 60, {"rollback": False, "wait_timeout": 600, "wait_retries": 120, "soak_minutes": 60}),
    # As -e gives them: text.
    ("finalize", "601", "0", {"rollback": False, "wait_timeout": 601, "wait_retries": 121, "soak_minutes": 0}),
    ("rollback", "7", 5, {"rollback": True, "wait_timeout": 7, "wait_retries": 2, "soak_minutes": 5}),
    ("controllers", 0, 60, {"rollback": False, "wait_timeout": 0, "wait_retries": 0, "soak_minutes": 60}),
])
def test_the_runs_inputs_are_typed_once(phase, timeout, minutes, expected):
    inputs = run_inputs(phase, timeout, minutes)
    assert inputs == dict(expected, phase=phase, wait_delay=5)


@pytest.mark.parametrize("timeout, minutes, message", [
    ("abc", 60, "migration_wait_timeout: 'abc' is not an int"),
    (600, "soon", "migration_soak_minutes: 'soon' is not an int"),
    (600, "1.5", "migration_soak_minutes: '1.5' is not an int"),
])
def test_inputs_that_are_no_number_are_refused_by_name(timeout, minutes, message):
    with pytest.raises(InputTypeError, match=message):
        run_inputs("finalize", timeout, minutes)


@pytest.mark.parametrize("znodes, expected", [
    ({"/kafka/cluster/id": {"exists": True, "value": {"version": "1", "id": "q1Sh"}}}, "q1Sh"),
    ({"/kafka/cluster/id": {"exists": False, "value": None}}, ""),
    ({"/kafka/cluster/id": {"exists": True, "value": "not json"}}, ""),
    ({"/cluster/id": {"exists": True, "value": {"id": "elsewhere"}}}, ""),
    ({}, ""),
])
def test_the_cluster_id_is_read_under_the_chroot(znodes, expected):
    assert cluster_id(znodes, "/kafka") == expected


@pytest.mark.parametrize("state, steps, expected", [
    ({"completed": None, "in_progress": None, "brokers_by_mode": {"zookeeper": [1, 2], "migration": [], "kraft": []}},
     ["controllers", "brokers_migration"],
     ["Last phase done: none, the cluster runs on ZooKeeper", "Found half done: nothing",
      "Brokers by mode: {'zookeeper': [1, 2], 'migration': [], 'kraft': []}",
      "This run: controllers, brokers_migration"]),
    ({"completed": "controllers", "in_progress": "brokers_migration", "brokers_by_mode": {}}, [],
     ["Last phase done: controllers", "Found half done: brokers_migration", "Brokers by mode: {}",
      "This run: nothing to do"]),
])
def test_what_the_run_shows(state, steps, expected):
    assert standing_lines(state, steps) == expected


SINCE = 1764400000  # 2025-11-29 07:06:40 UTC


@pytest.mark.parametrize("noted, minutes, now, over, ago", [
    (["", str(SINCE), str(SINCE + 100)], 60, SINCE + 3600.7, True, "60.0"),
    ([str(SINCE)], 60, SINCE + 3599, False, "60.0"),
    # Counted from the first controller that noted it, in the controllers' order.
    ([" %d " % (SINCE + 100), str(SINCE)], 60, SINCE + 3600, False, "58.3"),
    # Not noted yet: the soak starts now, so only 0 minutes finalize at once.
    (["", ""], 0, SINCE, True, "0.0"),
    ([], 1, SINCE, False, "0.0"),
])
def test_the_soak_counts_from_the_first_note(noted, minutes, now, over, ago):
    result = soak([{"brokers_kraft_since": value} for value in noted], minutes, now)
    assert result["over"] is over
    assert (", %s minutes ago; " % ago) in result["message"]


def test_the_soak_refusal_says_since_when_and_how_to_go_on():
    message = soak([{"brokers_kraft_since": str(SINCE)}], 60, SINCE + 600)["message"]
    assert message == (
        "migration_soak_minutes: the brokers run in KRaft mode since 2025-11-29 07:06:40 UTC, 10.0 minutes ago; "
        "finalizing (no way back to ZooKeeper afterwards) waits 60 minutes of soak. Check the cluster, then run "
        "-e phase=finalize again, or -e phase=rollback to go back to ZooKeeper; -e migration_soak_minutes=0 finalizes "
        "now.")
