"""Where a ZooKeeper-to-KRaft migration stands and what a run does next (filter plugins/filter/migration.py)."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.cluster.plugins.filter.kafka_broker import kafka_broker_instances
from ansible_collections.kafkaops.cluster.plugins.filter.migration import (
    kafka_broker_mode_change,
    kafka_metadata_mode,
    kafka_migration_plan,
    kafka_migration_precheck,
    kafka_migration_state,
    kafka_nodes_behind,
    kafka_upgrade_check,
)

ZK_ID = "q1Sh-9_ISia_zwGINzRvyQ"


def brokers(*modes):
    return [{"host": "b%d" % n, "broker_id": n, "mode": mode, "active": True} for n, mode in enumerate(modes, 1)]


def controllers(count=3, configured=True, migration=True, active=True, cluster_id=ZK_ID, finalized=0):
    return [{"host": "c%d" % n, "node_id": 9000 + n, "configured": configured,
             "migration": migration and n > finalized, "active": active, "cluster_id": cluster_id}
            for n in range(1, count + 1)]


MIGRATED = {"exists": True, "value": {"kraft_metadata_offset": 120, "kraft_controller_id": 9001}}
NOT_YET = {"exists": True, "value": {"kraft_metadata_offset": -1}}


@pytest.mark.parametrize("text, mode", [
    ("", ""),
    (None, ""),
    ("broker.id=1\nzookeeper.connect=z:2181\n", "zookeeper"),
    ("broker.id=1\nzookeeper.metadata.migration.enable=true\nzookeeper.connect=z:2181\n", "migration"),
    ("process.roles=broker\nnode.id=1\n", "kraft"),
    ({"exists": False, "values": {}}, ""),
    ({"exists": True, "values": {}}, "zookeeper"),
    ({"exists": True, "values": {"zookeeper.metadata.migration.enable": "true"}}, "migration"),
    ({"exists": True, "values": {"process.roles": "broker"}}, "kraft"),
])
def test_metadata_mode_of_a_server_properties(text, mode):
    assert kafka_metadata_mode(text) == mode


def test_a_mode_change_is_named_and_a_new_broker_is_none():
    settings = {"/etc/kafka/broker-1/server.properties": {"exists": True, "values": {}},
                "/etc/kafka/broker-2/server.properties": {"exists": False, "values": {}}}
    first, second = kafka_broker_instances([{"broker_id": 1, "port": 9092}, {"broker_id": 2, "port": 9093}], {})
    assert kafka_broker_mode_change(first, settings, "kraft") == \
        "broker 1 runs in zookeeper mode, the run asks for kraft"
    assert kafka_broker_mode_change(first, settings, "zookeeper") == ""
    assert kafka_broker_mode_change(second, settings, "kraft") == ""


@pytest.mark.parametrize("broker_modes, controller_kwargs, znode, running, completed, in_progress", [
    (("zookeeper",) * 3, dict(configured=False, active=False), None, True, None, None),
    (("zookeeper",) * 3, dict(active=False), None, True, None, "controllers"),
    (("zookeeper",) * 3, {}, NOT_YET, True, "controllers", None),
    (("migration", "zookeeper", "zookeeper"), {}, NOT_YET, True, "controllers", "brokers_migration"),
    (("migration",) * 3, {}, NOT_YET, True, "brokers_migration", None),
    (("migration",) * 3, {}, MIGRATED, True, "metadata_migrated", None),
    (("kraft", "migration", "migration"), {}, MIGRATED, True, "metadata_migrated", "brokers_kraft"),
    (("kraft",) * 3, {}, MIGRATED, True, "brokers_kraft", None),
    (("kraft",) * 3, dict(finalized=1), MIGRATED, True, "brokers_kraft", "finalize"),
    (("kraft",) * 3, dict(migration=False), MIGRATED, True, "finalize", None),
    (("kraft",) * 3, dict(migration=False), None, False, "zookeeper_decommission", None),
])
def test_the_phase_is_read_from_the_cluster(broker_modes, controller_kwargs, znode, running, completed, in_progress):
    state = kafka_migration_state(brokers(*broker_modes), controllers(**controller_kwargs), znode, ZK_ID, running)
    assert (state["completed"], state["in_progress"], state["problems"]) == (completed, in_progress, [])


def test_controllers_of_another_cluster_and_brokers_without_controllers_are_problems():
    state = kafka_migration_state(brokers("zookeeper"), controllers(cluster_id="A" * 22), None, ZK_ID)
    assert "c1: the controller's storage is formatted for cluster AAAA" in state["problems"][0]
    state = kafka_migration_state(brokers("kraft"), [], MIGRATED, ZK_ID)
    assert "no controller of the kafka_controller group is set up" in state["problems"][0]
    with pytest.raises(AnsibleFilterError, match="broker 1 has mode 'ZK'"):
        kafka_migration_state(brokers("ZK"), [], None, ZK_ID)


@pytest.mark.parametrize("completed, in_progress, phase, steps", [
    (None, None, "brokers_kraft", ["controllers", "brokers_migration", "metadata_migrated", "brokers_kraft"]),
    (None, None, "controllers", ["controllers"]),
    ("controllers", None, "controllers", []),
    ("controllers", "brokers_migration", "brokers_migration", ["brokers_migration"]),
    ("controllers", "brokers_migration", "brokers_kraft", ["brokers_migration", "metadata_migrated", "brokers_kraft"]),
    ("metadata_migrated", "brokers_kraft", "finalize", ["brokers_kraft", "finalize"]),
    ("brokers_kraft", None, "brokers_kraft", []),
    ("brokers_kraft", "finalize", "finalize", ["finalize"]),
    ("finalize", None, "zookeeper_decommission", ["zookeeper_decommission"]),
    ("zookeeper_decommission", None, "finalize", []),
])
def test_a_run_takes_only_the_steps_not_done(completed, in_progress, phase, steps):
    state = {"completed": completed, "in_progress": in_progress, "problems": []}
    assert kafka_migration_plan(state, phase) == {"steps": steps, "refusal": ""}


def test_problems_and_unknown_phases_refuse_before_any_step():
    plan = kafka_migration_plan({"completed": None, "in_progress": None, "problems": ["c1: bad"]}, "controllers")
    assert plan == {"steps": [], "refusal": "c1: bad"}
    with pytest.raises(AnsibleFilterError, match="phase: 'finalise' is not a phase"):
        kafka_migration_plan({"completed": None, "in_progress": None, "problems": []}, "finalise")


@pytest.mark.parametrize("completed, in_progress, steps", [
    (None, None, []),
    (None, "controllers", ["rollback_controllers"]),
    ("controllers", None, ["rollback_controllers"]),
    ("controllers", "brokers_migration", ["rollback_controllers", "rollback_brokers_to_zookeeper"]),
    ("brokers_migration", None, ["rollback_controllers", "rollback_brokers_to_zookeeper"]),
    ("metadata_migrated", None, ["rollback_controllers", "rollback_brokers_to_zookeeper"]),
    ("metadata_migrated", "brokers_kraft",
     ["rollback_brokers_to_migration", "rollback_controllers", "rollback_brokers_to_zookeeper"]),
    ("brokers_kraft", None, ["rollback_brokers_to_migration", "rollback_controllers", "rollback_brokers_to_zookeeper"]),
])
def test_rollback_undoes_what_was_done_in_reverse(completed, in_progress, steps):
    state = {"completed": completed, "in_progress": in_progress, "problems": ["ignored for a rollback"]}
    assert kafka_migration_plan(state, "brokers_kraft", rollback=True) == {"steps": steps, "refusal": ""}


@pytest.mark.parametrize("completed, in_progress", [("brokers_kraft", "finalize"), ("finalize", None)])
def test_no_rollback_once_finalizing_began(completed, in_progress):
    plan = kafka_migration_plan({"completed": completed, "in_progress": in_progress, "problems": []}, "", rollback=True)
    assert plan["steps"] == [] and "no way back to ZooKeeper" in plan["refusal"]


def precheck_brokers(**changes):
    broker = {"host": "b1", "broker_id": 1, "mode": "zookeeper", "active": True, "version": "3.9.2",
              "properties": {"broker.id": "1", "zookeeper.connect": "z:2181"}, "log_dirs": ["/var/lib/kafka/broker-1"]}
    broker.update(changes)
    return [broker]


FORWARD = ["controllers", "brokers_migration"]


def test_a_healthy_cluster_passes_the_precheck():
    assert kafka_migration_precheck(precheck_brokers(), controllers(), [({}, "b1")], [({}, "c1")], ZK_ID, FORWARD) == []


@pytest.mark.parametrize("brokers_changes, broker_vars, controller_vars, expected", [
    (dict(version="3.8.1"), {}, {}, "b1 (broker 1): runs Kafka 3.8.1; the migration runs on Kafka 3.9"),
    (dict(version=""), {}, {}, "runs Kafka of unknown version"),
    (dict(properties={"inter.broker.protocol.version": "3.8"}), {}, {}, "inter.broker.protocol.version is 3.8"),
    (dict(active=False), {}, {}, "b1 (broker 1): its unit does not run; every broker must run"),
    (dict(active=False, unit_state="failed"), {}, {}, "b1 (broker 1): its unit does not run (systemd: failed)"),
    (dict(log_dirs=["/d1", "/d2"]), {}, {}, "several log directories (JBOD: /d1, /d2)"),
    (dict(broker_id=9001), {}, {}, "node ids 9001 are broker ids too"),
    ({}, {"kafka_broker_properties": {"authorizer.class.name": "x"}}, {},
     "b1: kafka_broker_properties sets authorizer"),
    ({}, {"kafka_broker_instances": [{"properties": {"zookeeper.ssl.client.enable": True}}]}, {},
     "sets zookeeper.ssl.client.enable"),
    ({}, {"kafka_broker_migration_peer": {"internal_protocol": "SSL", "internal_client_auth": "required"}}, {},
     "b1: kafka_broker_internal_ssl_client_auth is required; the controllers reach the migrating brokers on INTERNAL "
     "without a certificate"),
    ({}, {"kafka_broker_migration_peer": {"internal_protocol": "SASL_SSL", "internal_client_auth": "requested"}}, {},
     "b1: kafka_broker_internal_ssl_client_auth is requested"),
    ({}, {"kafka_broker_combined": True}, {}, "kafka_broker_combined"),
    ({}, {"kafka_broker_authorizer_enabled": True}, {"kafka_controller_authorizer_enabled": False},
     "c1: kafka_controller_authorizer_enabled is false"),
    ({}, {}, {"kafka_controller_properties": {"zookeeper.connect": "x"}},
     "c1: kafka_controller_properties sets zookeeper"),
])
def test_the_precheck_names_host_and_setting(brokers_changes, broker_vars, controller_vars, expected):
    problems = kafka_migration_precheck(precheck_brokers(**brokers_changes), controllers(), [(broker_vars, "b1")],
                                        [(controller_vars, "c1")], ZK_ID, FORWARD)
    assert len(problems) == 1 and expected in problems[0], problems


# What node_state.yml notes for brokers with SASL on both listeners, TLS without client certificates and a
# ZooKeeper login.
SECURED_PEER = {"internal_protocol": "SASL_SSL", "internal_client_auth": "none", "sasl_mechanism": "SCRAM-SHA-512",
                "inter_broker_user": "broker", "zookeeper_sasl_user": "kafka"}
SECURED = {"kafka_broker_migration_peer": SECURED_PEER, "kafka_broker_authorizer_enabled": True}


def test_a_secured_cluster_passes_the_precheck():
    # The controllers take the brokers' logins.
    two = precheck_brokers() + precheck_brokers(host="b2", broker_id=2)
    assert kafka_migration_precheck(two, controllers(), [(SECURED, "b1"), (SECURED, "b2")], [({}, "c1")], ZK_ID,
                                    FORWARD) == []


@pytest.mark.parametrize("other, variable", [
    ({"internal_protocol": "SSL"}, "kafka_broker_internal_security_protocol"),
    ({"sasl_mechanism": "SCRAM-SHA-256"}, "kafka_broker_sasl_mechanism"),
    ({"inter_broker_user": "kafka-broker"}, "kafka_broker_inter_broker_user"),
    ({"zookeeper_sasl_user": ""}, "kafka_broker_zookeeper_sasl_user"),
])
def test_the_precheck_refuses_brokers_the_controllers_would_log_in_to_differently(other, variable):
    two = precheck_brokers() + precheck_brokers(host="b2", broker_id=2)
    other_broker = dict(SECURED, kafka_broker_migration_peer=dict(SECURED_PEER, **other))
    problems = kafka_migration_precheck(two, controllers(), [(SECURED, "b1"), (other_broker, "b2")],
                                        [({}, "c1")], ZK_ID, FORWARD)
    assert len(problems) == 1 and problems[0].startswith(variable + ": differs between the brokers (b1: "), problems


def test_the_precheck_needs_controllers_and_a_cluster_id_but_not_for_a_rollback():
    problems = kafka_migration_precheck(precheck_brokers(), [], [({}, "b1")], [], "", FORWARD)
    assert "no kafka_controller group" in problems[0] and "no cluster id" in problems[1]
    assert kafka_migration_precheck(precheck_brokers(version="3.8.0"), [], [({}, "b1")], [], "",
                                    ["rollback_controllers"]) == []


def upgrade_nodes(broker_version="4.3.1", mode="kraft", controller_version="4.3.1", migration=False):
    brokers = [{"host": "b1", "broker_id": 1, "mode": mode, "version": broker_version}]
    controllers_ = [{"host": "c1", "node_id": 9001, "migration": migration, "version": controller_version}]
    return brokers, controllers_


def test_an_upgrade_to_a_newer_4x_passes():
    brokers, controllers_ = upgrade_nodes()
    assert kafka_upgrade_check(brokers, controllers_, {"b1": "4.4.0", "c1": "4.4.0"}) == []
    # A re-run once every node runs it is no downgrade either.
    done = upgrade_nodes("4.4.0", controller_version="4.4.0")
    assert kafka_upgrade_check(*done, {"b1": "4.4.0", "c1": "4.4.0"}) == []


@pytest.mark.parametrize("nodes, targets, pinned, expected", [
    (upgrade_nodes("4.4.0"), {"b1": "4.3.1", "c1": "4.3.1"}, "",
     "b1 (broker 1): runs Kafka 4.4.0; 4.3.1 would be a downgrade"),
    (upgrade_nodes(), {"b1": "4.4.0", "c1": "4.3.1"}, "", "different or unknown Kafka versions (b1: 4.4.0, c1: 4.3.1)"),
    (upgrade_nodes(mode="migration"), {"b1": "4.4.0", "c1": "4.4.0"}, "",
     "a ZooKeeper-to-KRaft migration is under way"),
    (upgrade_nodes(migration=True), {"b1": "4.4.0", "c1": "4.4.0"}, "", "migration is under way"),
    (upgrade_nodes("3.9.2", "zookeeper", ""), {"b1": "4.4.0"}, "3.9", "Kafka 4.4.0 has no ZooKeeper mode"),
    (upgrade_nodes("3.8.1", "zookeeper", ""), {"b1": "3.9.2"}, "", "set inter.broker.protocol.version to 3.8"),
    (upgrade_nodes("3.8.1", "zookeeper", ""), {"b1": "3.9.2"}, "3.9", "inter.broker.protocol.version 3.9 is newer"),
    (upgrade_nodes("3.2.0", controller_version="3.2.0"), {"b1": "4.4.0", "c1": "4.4.0"}, "",
     "only from Kafka 3.3"),
    (upgrade_nodes(""), {"b1": "4.4.0", "c1": "4.4.0"}, "", "b1 (broker 1): cannot tell which Kafka it runs"),
])
def test_an_upgrade_is_refused_naming_the_cause(nodes, targets, pinned, expected):
    brokers, controllers_ = nodes
    if not controllers_[0]["version"]:
        controllers_ = []
    problems = kafka_upgrade_check(brokers, controllers_, targets, pinned)
    assert len(problems) == 1 and expected in problems[0], problems


def test_a_zookeeper_mode_minor_upgrade_with_the_protocol_pinned_passes():
    brokers = upgrade_nodes("3.8.1", "zookeeper")[0]
    assert kafka_upgrade_check(brokers, [], {"b1": "3.9.2"}, "3.8") == []


@pytest.mark.parametrize("broker_modes, pending, controller_kwargs, pending_controller, completed, in_progress", [
    (("kraft",) * 3, 3, {}, False, "metadata_migrated", "brokers_kraft"),
    (("migration",) * 3, 1, {}, False, "controllers", "brokers_migration"),
    (("kraft",) * 3, 0, dict(migration=False), True, "brokers_kraft", "finalize"),
    (("zookeeper",) * 3, 0, {}, True, None, "controllers"),
    (("kraft",) * 3, 0, {}, False, "brokers_kraft", None),
])
def test_a_node_still_to_restart_is_not_done(broker_modes, pending, controller_kwargs, pending_controller,
                                             completed, in_progress):
    nodes = brokers(*broker_modes)
    for broker in nodes[pending - 1:pending] if pending else []:
        broker["restart_pending"] = True
    quorum = controllers(**controller_kwargs)
    quorum[0]["restart_pending"] = pending_controller
    state = kafka_migration_state(nodes, quorum, MIGRATED, ZK_ID)
    assert (state["completed"], state["in_progress"]) == (completed, in_progress)


def test_a_metadata_wait_that_never_ends_names_the_brokers_the_controllers_wait_for():
    from ansible_collections.kafkaops.cluster.plugins.filter.migration import kafka_migration_wait_failure

    # As after the demo: broker 4 registered in ZooKeeper, the inventory's kafka_broker group without it.
    seen = {"/kafka/migration": {"exists": True, "value": {"kraft_metadata_offset": -1}},
            "/kafka/brokers/ids": {"exists": True, "children": ["4", "1", "3", "2"]}}
    sentence = kafka_migration_wait_failure({"failed": True, "attempts": 121, "znodes": seen}, "/kafka/migration",
                                            "/kafka/brokers/ids", [3, 1, 2], 600)
    assert sentence.startswith("after 600 s, /kafka/migration still held kraft_metadata_offset -1 (the controllers")
    assert "Registered in ZooKeeper: brokers 1, 2, 3, 4; rolled into migration mode by this run: 1, 2, 3" in sentence
    assert sentence.endswith("The controllers are waiting for broker(s) 4, which the inventory lacks: add their hosts "
                             "to kafka_broker and run this phase again, or stop them and let their registration expire")


def test_a_metadata_wait_without_a_missing_broker_says_what_it_saw_and_no_more():
    from ansible_collections.kafkaops.cluster.plugins.filter.migration import kafka_migration_wait_failure

    sentence = kafka_migration_wait_failure(
        {"failed": True, "znodes": {"/migration": {"exists": False}, "/brokers/ids": {"children": ["1"]}}},
        "/migration", "/brokers/ids", [1], 30)
    assert sentence == ("after 30 s, /migration still held kraft_metadata_offset (no znode) (the controllers write the "
                        "offset they copied up to once every broker registered in ZooKeeper runs in migration mode). "
                        "Registered in ZooKeeper: brokers 1; rolled into migration mode by this run: 1")


@pytest.mark.parametrize("result, sentence", [
    # The read itself failed (ZooKeeper unreachable, a refused login): its own message.
    ({"failed": True, "msg": "no ZooKeeper server of z1:2181 answered"}, "no ZooKeeper server of z1:2181 answered"),
    ({"failed": True, "msg": ""}, ""),
    ({"failed": True}, "failed"),
])
def test_a_metadata_wait_whose_read_failed_gives_the_reads_message(result, sentence):
    from ansible_collections.kafkaops.cluster.plugins.filter.migration import kafka_migration_wait_failure

    assert kafka_migration_wait_failure(result, "/migration", "/brokers/ids", [1], 30) == sentence


def test_the_nodes_behind_are_named_once_each_and_nodes_not_read_are_not_counted():
    hostvars = {
        "b1": {"kafka_broker_node_state": [{"host": "b1", "broker_id": 1, "version": "4.4.0"},
                                           {"host": "b1", "broker_id": 11, "version": "4.3.1"},
                                           {"host": "b1", "broker_id": 12, "version": "4.3.1"}]},
        "b2": {"kafka_broker_node_state": [{"host": "b2", "broker_id": 2, "version": "4.4.0"}]},
        "c1": {"kafka_controller_node_state": {"host": "c1", "node_id": 9001, "version": ""}},
        "c2": {"kafka_controller_node_state": {"host": "c2", "node_id": 9002, "version": "4.4.0"}},
        # Combined mode: a host with both.
        "x1": {"kafka_broker_node_state": [{"host": "x1", "broker_id": 3, "version": "4.4.0"}],
               "kafka_controller_node_state": {"host": "x1", "node_id": 3, "version": "4.3.1"}},
        "unread": {},
    }
    assert kafka_nodes_behind(["b1", "b2", "c1", "c2", "x1", "unread"], hostvars, "4.4.0") == ["b1", "c1", "x1"]
    assert kafka_nodes_behind(["b2", "c2"], hostvars, "4.4.0") == []
    assert kafka_nodes_behind([], hostvars, "4.4.0") == []


def _nodes_hostvars(broker_modes, controller_kwargs=None, peer=None):
    """hostvars of brokers b1.. and controllers c1..c3 as node_state.yml leaves them, and the zookeeper group z1."""
    hostvars = {"z1": {"ansible_host": "10.0.0.9"}}
    for state in brokers(*broker_modes):
        hostvars[state["host"]] = {"kafka_broker_node_state": [dict(state, version="3.9.1", properties={},
                                                                    log_dirs=["/data"])],
                                   "kafka_broker_zookeeper_chroot": "/kafka",
                                   "kafka_broker_migration_peer": peer or {}}
    for state in controllers(**(controller_kwargs or {})):
        hostvars[state["host"]] = {"kafka_controller_node_state": dict(state, zookeeper_connect="")}
    groups = {"kafka_broker": ["b%d" % n for n in range(1, len(broker_modes) + 1)],
              "kafka_controller": ["c1", "c2", "c3"], "zookeeper": ["z1"]}
    return groups, hostvars


def _read(offset=None, failed=False):
    if failed:
        return {"failed": False, "msg": "no ZooKeeper server answered"} if failed == "finalized" else {"failed": True}
    found = {"/kafka/cluster/id": {"exists": True, "value": {"version": "1", "id": ZK_ID}}}
    if offset is not None:
        found["/kafka/migration"] = {"exists": True, "value": {"kraft_metadata_offset": offset}}
    return {"failed": False, "znodes": found}


@pytest.mark.parametrize("broker_modes, controller_kwargs, read, phase, steps, shown", [
    # A ZooKeeper-mode cluster, controllers not set up: the default run goes up to the soak.
    (("zookeeper",) * 3, dict(configured=False, active=False), _read(), "brokers_kraft",
     ["controllers", "brokers_migration", "metadata_migrated", "brokers_kraft"],
     "Last phase done: none, the cluster runs on ZooKeeper"),
    # Controllers up, brokers rolled, metadata copied: one phase at a time.
    (("migration",) * 3, {}, _read(120), "brokers_kraft", ["brokers_kraft"], "Last phase done: metadata_migrated"),
    (("migration",) * 3, {}, _read(-1), "controllers", [], "Last phase done: brokers_migration"),
    (("kraft",) * 3, {}, _read(120), "rollback",
     ["rollback_brokers_to_migration", "rollback_controllers", "rollback_brokers_to_zookeeper"],
     "Last phase done: brokers_kraft"),
])
def test_a_run_works_out_the_state_the_plan_and_what_it_shows(broker_modes, controller_kwargs, read, phase, steps,
                                                              shown):
    from ansible_collections.kafkaops.cluster.plugins.filter.migration import kafka_migration_nodes, kafka_migration_run

    groups, hostvars = _nodes_hostvars(broker_modes, controller_kwargs)
    nodes = kafka_migration_nodes(groups, hostvars, sorted(hostvars))
    run = kafka_migration_run(read, nodes, hostvars, phase=phase, wait_timeout="30", soak_minutes=60)
    assert run["steps"] == steps and run["refusal"] == ""
    assert run["cluster_id"] == ZK_ID and run["summary"][0] == shown
    assert run["summary"][-1] == "This run: %s" % (", ".join(steps) or "nothing to do")
    assert (run["wait_timeout"], run["wait_retries"], run["soak_minutes"]) == (30, 6, 60)
    assert run["rollback"] is (phase == "rollback")


def test_a_run_holds_the_precheck_of_its_steps():
    from ansible_collections.kafkaops.cluster.plugins.filter.migration import kafka_migration_nodes, kafka_migration_run

    groups, hostvars = _nodes_hostvars(("zookeeper",) * 3, dict(configured=False, active=False))
    hostvars["b2"]["kafka_broker_node_state"][0]["version"] = "3.8.1"
    nodes = kafka_migration_nodes(groups, hostvars, sorted(hostvars))
    run = kafka_migration_run(_read(), nodes, hostvars, phase="controllers", wait_timeout=600, soak_minutes=60)
    assert run["precheck"] == ["b2 (broker 2): runs Kafka 3.8.1; the migration runs on Kafka 3.9 (upgrade the cluster "
                               "to 3.9 first)"]
    # Nothing to do: nothing to check.
    groups, hostvars = _nodes_hostvars(("migration",) * 3)
    nodes = kafka_migration_nodes(groups, hostvars, sorted(hostvars))
    assert kafka_migration_run(_read(-1), nodes, hostvars, "controllers", 600, 60)["precheck"] == []


@pytest.mark.parametrize("read, completed", [
    # Finalized and ZooKeeper's read failed: the playbook's failed_when let the run go on, and Ansible registers
    # failed as that condition's value (false), so the state counts ZooKeeper as running.
    (_read(failed="finalized"), "finalize"),
    # A read marked failed: ZooKeeper no longer runs.
    ({"failed": True}, "zookeeper_decommission"),
])
def test_a_finalized_cluster_reads_no_znodes(read, completed):
    from ansible_collections.kafkaops.cluster.plugins.filter.migration import kafka_migration_nodes, kafka_migration_run

    groups, hostvars = _nodes_hostvars(("kraft",) * 3, dict(migration=False))
    nodes = kafka_migration_nodes(groups, hostvars, sorted(hostvars))
    assert nodes["finalized"] is True
    run = kafka_migration_run(read, nodes, hostvars, "zookeeper_decommission", 600, 60)
    assert (run["state"]["completed"], run["cluster_id"]) == (completed, "")


@pytest.mark.parametrize("phase, timeout, minutes, message", [
    ("finalise", 600, 60, "phase: 'finalise' is not a phase of the migration"),
    ("finalize", "ten", 60, "migration_wait_timeout: 'ten' is not an int"),
    ("finalize", 600, "an hour", "migration_soak_minutes: 'an hour' is not an int"),
])
def test_a_runs_bad_inputs_are_refused_by_name(phase, timeout, minutes, message):
    from ansible_collections.kafkaops.cluster.plugins.filter.migration import kafka_migration_nodes, kafka_migration_run

    groups, hostvars = _nodes_hostvars(("zookeeper",) * 3)
    nodes = kafka_migration_nodes(groups, hostvars, sorted(hostvars))
    with pytest.raises(AnsibleFilterError, match=message):
        kafka_migration_run(_read(), nodes, hostvars, phase, timeout, minutes)


def test_a_play_host_without_its_node_state_is_named():
    from ansible_collections.kafkaops.cluster.plugins.filter.migration import kafka_migration_nodes

    groups, hostvars = _nodes_hostvars(("zookeeper",) * 2)
    del hostvars["b2"]["kafka_broker_node_state"]
    with pytest.raises(AnsibleFilterError, match="kafka_migration_nodes: b2: kafka_broker_node_state is not set"):
        kafka_migration_nodes(groups, hostvars, ["b1", "b2"])


@pytest.mark.parametrize("first_broker, expected", [
    ({"kafka_broker_migration_peer": {"zookeeper_sasl_user": "kafka", "zookeeper_sasl_password": "pw"}},
     {"servers": ["z:2181"], "sasl_user": "kafka", "sasl_password": "pw"}),
    # The first broker not read in this play (--limit): no login.
    ({}, {"servers": ["z:2181"]}),
])
def test_the_zookeeper_session_takes_the_first_brokers_login(first_broker, expected):
    from ansible_collections.kafkaops.cluster.plugins.filter.migration import kafka_migration_zookeeper_session

    assert kafka_migration_zookeeper_session(["z:2181"], first_broker) == expected


@pytest.mark.parametrize("minutes", ["60", True, 1.5])
def test_the_soak_takes_the_minutes_the_run_typed(minutes):
    from ansible_collections.kafkaops.cluster.plugins.filter.migration import kafka_migration_soak

    with pytest.raises(AnsibleFilterError, match="kafka_migration_soak: soak_minutes: expected an int"):
        kafka_migration_soak([], minutes, 1764400000)


def test_the_upgrade_check_reads_the_plays_states_archives_and_pin():
    from ansible_collections.kafkaops.cluster.plugins.filter.migration import kafka_upgrade_cluster

    groups = {"kafka_broker": ["b1", "b2"], "kafka_controller": []}
    hostvars = {}
    for number, host in ((1, "b1"), (2, "b2")):
        state = {"host": host, "broker_id": number, "mode": "zookeeper", "version": "3.8.1"}
        hostvars[host] = {"kafka_broker_node_state": [state], "kafka_distribution_version": "3.9.2"}
    found = kafka_upgrade_cluster(groups, hostvars, ["b1", "b2"])
    assert found["zookeeper_mode"] is True
    assert [problem.split(":")[0] for problem in found["problems"]] == ["kafka_broker_properties"]
    hostvars["b1"]["kafka_broker_properties"] = {"inter.broker.protocol.version": "3.8"}
    assert kafka_upgrade_cluster(groups, hostvars, ["b1", "b2"]) == {"problems": [], "zookeeper_mode": True}
    # Another archive on one host.
    hostvars["b2"]["kafka_distribution_version"] = "4.4.0"
    assert "one archive for the whole cluster" in kafka_upgrade_cluster(groups, hostvars, ["b1", "b2"])["problems"][0]
