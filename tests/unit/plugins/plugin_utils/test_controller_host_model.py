"""The kafka_controller role's host model as plain data in, plain data out: values, files, each preflight problem,
and what the role works out from it later (the host's read, the installed Kafka, the restart order, the node state,
a failed migration step)."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._controller_host_model import (
    controller_address,
    controller_files,
    host_model,
    host_state,
    installed,
    inventory_defaults,
    migration_failure,
    node_state,
    restart_order,
)

INPUTS = {
    "kafka_controller_hosts": ["c1", "c2", "c3"], "kafka_controller_node_id": 9001, "kafka_controller_port": 9093,
    "kafka_controller_max_lag": 100, "kafka_controller_zookeeper_migration": False,
    "kafka_controller_migration_step": False, "kafka_controller_authorizer_enabled": False,
    "kafka_controller_super_users": ["User:ANONYMOUS"], "kafka_controller_prometheus_enabled": False,
}
SETTINGS = {
    "kafka_controller_host": "10.0.0.1", "kafka_controller_cluster_id": "", "kafka_controller_release_version": "",
    "kafka_controller_zookeeper_connect": "", "kafka_controller_migration_broker_protocol": "PLAINTEXT",
    "kafka_controller_migration_broker_ca_file": "", "kafka_controller_migration_sasl_user": "broker",
    "kafka_controller_migration_sasl_password": "", "kafka_controller_zookeeper_sasl_user": "",
    "kafka_controller_zookeeper_sasl_password": "", "kafka_controller_scram_users": [],
    "kafka_controller_user": "kafka", "kafka_controller_group": "kafka", "kafka_controller_config_dir": "/etc/kafka",
    "kafka_controller_data_dir": "/var/lib/kafka",
    "kafka_controller_metadata_dir": "/var/lib/kafka/controller-metadata", "kafka_controller_log_dir": "/var/log/kafka",
    "kafka_controller_java_executable": "/usr/bin/java",
}
MEMBERS = {"c1": {"kafka_controller_host": "10.0.0.1", "kafka_controller_port": 9093, "kafka_controller_node_id": 9001},
           "c2": {"ansible_host": "10.0.0.2", "kafka_controller_node_id": 9002},
           "c3": {"kafka_controller_node_id": 9003, "kafka_controller_log_dir": "/srv/logs",
                  "kafka_controller_java_executable": "/opt/java/bin/java"}}
TEMPLATES = {"kafka_log4j": "/T/log4j.j2", "kafka_log4j2": "/T/log4j2.j2", "kafka_prometheus": "/T/prometheus.j2",
             "zookeeper_client_jaas": "/T/jaas.j2"}
# In migration mode, on brokers whose INTERNAL listener is SASL_SSL and which log in to ZooKeeper.
MIGRATION = ({"kafka_controller_zookeeper_migration": True},
             {"kafka_controller_migration_broker_protocol": "SASL_SSL",
              "kafka_controller_migration_sasl_password": "pw",
              "kafka_controller_migration_broker_ca_file": "/ctl/ca.crt",
              "kafka_controller_zookeeper_sasl_user": "kafka", "kafka_controller_zookeeper_sasl_password": "zk",
              "kafka_controller_zookeeper_connect": " z1:2181/kafka "})


def _model(inputs=None, settings=None, members=None, play_hosts=("c1", "c2", "c3"), groups=None, host="c1"):
    return host_model(dict(INPUTS, **(inputs or {})), dict(SETTINGS, **(settings or {})),
                      {"host": host, "play_hosts": list(play_hosts), "groups": groups or {},
                       "members": MEMBERS if members is None else members})


def test_a_plain_controller():
    model = _model()
    assert model["problems"] == []
    assert model["quorum_servers"] == ["10.0.0.1:9093", "10.0.0.2:9093", "c3:9093"]
    assert model["quorum_bootstrap"] == "10.0.0.1:9093,10.0.0.2:9093,c3:9093"
    assert (model["node_id"], model["address"], model["members"]) == (9001, "10.0.0.1:9093", ["c1", "c2", "c3"])
    assert model["protocol_map"] == "CONTROLLER:PLAINTEXT"
    assert (model["migration"], model["migration_tls"], model["migration_sasl"], model["zookeeper_sasl"]) == (
        False, False, False, False)
    paths = model["paths"]
    assert (paths["unit"], paths["unit_file"]) == ("kafka-controller", "/etc/systemd/system/kafka-controller.service")
    assert paths["config_file"] == "/etc/kafka/controller/server.properties"
    assert paths["restart_view"] == "/etc/kafka/controller/.server.properties.restart-view"
    assert paths["restart_marker"] == "/etc/kafka/controller/.restart-pending"
    assert paths["log_folder"] == "/var/log/kafka/controller"
    assert paths["log_file"] == "/var/log/kafka/controller/server.log"
    assert paths["meta_file"] == "/var/lib/kafka/controller-metadata/meta.properties"
    assert paths["soak_marker"] == "/etc/kafka/controller/.migration-brokers-kraft-since"
    assert (paths["zookeeper_jaas"], paths["truststore"], paths["tls_dir"]) == (
        "/etc/kafka/controller/zookeeper-client.jaas", "/etc/kafka/controller/tls/ca.crt", "/etc/kafka/controller/tls")
    assert model["host_state"] == {
        "files": ["/etc/kafka/controller/.restart-pending", "/etc/systemd/system/kafka-controller.service",
                  "/var/lib/kafka/controller-metadata/meta.properties"],
        "settings": {"/etc/kafka/controller/server.properties": ["zookeeper.metadata.migration.enable"],
                     "/etc/kafka/controller/zookeeper-client.jaas": [], "/etc/kafka/controller/tls/ca.crt": []},
        "units": ["kafka-controller"]}
    assert model["node_state"]["settings"] == {
        "/etc/kafka/controller/server.properties": ["zookeeper.metadata.migration.enable", "zookeeper.connect"]}
    assert model["migration_logins"] == [
        {"found": "/etc/kafka/controller/zookeeper-client.jaas",
         "removed": "/etc/kafka/controller/zookeeper-client.jaas"},
        {"found": "/etc/kafka/controller/tls/ca.crt", "removed": "/etc/kafka/controller/tls"}]


def test_each_controller_is_named_by_its_own_variables_else_this_hosts():
    first, unused, third = _model()["controllers"]
    assert first == {"host": "c1", "node_id": 9001, "unit": "kafka-controller",
                     "restart_marker": "/etc/kafka/controller/.restart-pending",
                     "log_file": "/var/log/kafka/controller/server.log", "java": "/usr/bin/java"}
    assert (third["log_file"], third["java"]) == ("/srv/logs/controller/server.log", "/opt/java/bin/java")
    # A controller without variables of its own in hostvars: this host's settings and no node id yet.
    assert _model(members={})["controllers"][1] == dict(first, host="c2", node_id=None)


def test_only_the_plays_controllers_are_members():
    assert _model(play_hosts=["c3", "c1"])["members"] == ["c1", "c3"]


def test_migration_mode_with_tls_sasl_and_a_zookeeper_login():
    model = _model(*MIGRATION)
    assert model["problems"] == []
    assert (model["migration_tls"], model["migration_sasl"], model["zookeeper_sasl"]) == (True, True, True)
    assert model["protocol_map"] == "CONTROLLER:PLAINTEXT,INTERNAL:SASL_SSL"
    assert model["zookeeper_connect"] == "z1:2181/kafka"
    assert model["migration_ca_file"] == "/ctl/ca.crt"


@pytest.mark.parametrize("inputs, settings, problem", [
    ({"kafka_controller_node_id": -1}, {}, "kafka_controller_node_id: expected a whole number of 0 or more, got -1"),
    ({"kafka_controller_port": 0}, {}, "kafka_controller_port: expected a port from 1 to 65535, got 0"),
    ({"kafka_controller_port": 65536}, {}, "kafka_controller_port: expected a port from 1 to 65535, got 65536"),
    ({}, {"kafka_controller_cluster_id": "short"},
     "kafka_controller_cluster_id: expected 22 characters of URL-safe base64 (as kafka-storage random-uuid prints), "
     "got short"),
    ({}, {"kafka_controller_release_version": "4"},
     "kafka_controller_release_version: expected a Kafka release such as 4.3 or 3.9-IV0, got 4"),
    ({"kafka_controller_max_lag": -5}, {}, "kafka_controller_max_lag: expected a whole number of 0 or more, got -5"),
    ({"kafka_controller_zookeeper_migration": True},
     {"kafka_controller_migration_broker_protocol": "SASL_PLAINTEXT", "kafka_controller_migration_sasl_user": "inter"},
     "kafka_controller_migration_sasl_password: empty, while the brokers' INTERNAL listener is SASL_PLAINTEXT and "
     "the controllers log in to it as inter"),
    ({"kafka_controller_zookeeper_migration": True}, {"kafka_controller_migration_broker_protocol": "SSL"},
     "kafka_controller_migration_broker_ca_file: empty, while the brokers' INTERNAL listener is SSL: the controllers "
     "need the CA of the brokers' certificates"),
    ({"kafka_controller_zookeeper_migration": True}, {"kafka_controller_zookeeper_sasl_user": "kafka"},
     "kafka_controller_zookeeper_sasl_password: empty, while the controllers log in to ZooKeeper as kafka"),
    ({}, {"kafka_controller_scram_users": [{"name": "admin", "password": "two,parts"}]},
     "kafka_controller_scram_users: the name or password of admin is empty or holds a space or one of \" , = [ ] \\ "
     "(the storage tool reads them from a [key=value,...] list)"),
])
def test_each_refusal_in_the_words_of_the_checks(inputs, settings, problem):
    assert _model(inputs, settings)["problems"] == [problem]


def test_good_release_versions_and_cluster_ids_pass():
    for release in ("4.3", "3.9-IV0", "10.12"):
        assert _model(settings={"kafka_controller_release_version": release})["problems"] == []
    assert _model(settings={"kafka_controller_cluster_id": "AAAAAAAAAAAAAAAAAAAAAg"})["problems"] == []


def test_logins_are_not_asked_for_outside_migration_mode():
    assert _model(settings={"kafka_controller_migration_broker_protocol": "SASL_SSL",
                            "kafka_controller_zookeeper_sasl_user": "kafka"})["problems"] == []


def test_every_problem_at_once_in_the_order_of_the_checks():
    problems = _model({"kafka_controller_node_id": -1, "kafka_controller_port": 0},
                      {"kafka_controller_scram_users": [{"name": "a b", "password": "x"}]})["problems"]
    assert [problem.split(":")[0] for problem in problems] == [
        "kafka_controller_node_id", "kafka_controller_port", "kafka_controller_scram_users"]


def test_node_ids_used_twice_among_the_plays_controllers():
    members = dict(MEMBERS, c3=dict(MEMBERS["c3"], kafka_controller_node_id="9001"))
    assert _model(members=members)["problems"] == [
        "kafka_controller_node_id: node ids must be unique across the controllers, these are used more than once: "
        "[9001]"]
    # A controller outside the play does not count.
    assert _model(members=members, play_hosts=["c1", "c2"])["problems"] == []


def test_scram_users_name_each_bad_user_once_and_never_a_password():
    users = [{"name": "", "password": "x"}, {"name": "ok", "password": "a b"}, {"name": "c=d", "password": ""},
             {"name": "good", "password": "Fine-1"}]
    problems = _model(settings={"kafka_controller_scram_users": users})["problems"]
    assert problems == ["kafka_controller_scram_users: the name or password of , c=d, ok is empty or holds a space or "
                        "one of \" , = [ ] \\ (the storage tool reads them from a [key=value,...] list)"]
    assert "a b" not in problems[0] and "Fine-1" not in problems[0]


def test_the_model_holds_no_secret():
    model = _model(*MIGRATION)
    text = repr(model)
    assert "'pw'" not in text and "'zk'" not in text


@pytest.mark.parametrize("variables, address", [
    ({}, "c9:9093"),
    ({"ansible_host": "192.0.2.9"}, "192.0.2.9:9093"),
    ({"ansible_host": "192.0.2.9", "kafka_controller_host": "ctl.example", "kafka_controller_port": 9193},
     "ctl.example:9193"),
])
def test_controller_address(variables, address):
    assert controller_address(variables, "c9") == address


def test_inventory_defaults_from_the_first_broker():
    broker = {"kafka_broker_authorizer_enabled": True, "kafka_broker_admin_user": "root",
              "kafka_broker_super_users": ["User:ops", "User:root"],
              "kafka_broker_metadata_scram_users": [{"name": "broker", "password": "p"}],
              "kafka_broker_migration_peer": {"internal_protocol": "SSL", "ca_file": "/ctl/ca.crt"}}
    defaults = inventory_defaults(broker, "z1:2181,z2:2181")
    assert defaults["kafka_controller_authorizer_enabled"] is True
    assert defaults["kafka_controller_super_users"] == ["User:ANONYMOUS", "User:broker", "User:root", "User:ops"]
    assert defaults["kafka_controller_scram_users"] == [{"name": "broker", "password": "p"}]
    assert defaults["kafka_controller_sasl_mechanism"] == "SCRAM-SHA-512"
    assert defaults["kafka_controller_zookeeper_connect"] == "z1:2181,z2:2181"
    assert [defaults["kafka_controller_" + name] for name in (
        "migration_broker_protocol", "migration_broker_ca_file", "migration_sasl_user", "zookeeper_sasl_user")] == [
        "SSL", "/ctl/ca.crt", "broker", ""]


def test_inventory_defaults_without_brokers():
    defaults = inventory_defaults(None, "")
    assert defaults == {
        "kafka_controller_authorizer_enabled": False, "kafka_controller_super_users": ["User:ANONYMOUS"],
        "kafka_controller_scram_users": [], "kafka_controller_sasl_mechanism": "SCRAM-SHA-512",
        "kafka_controller_zookeeper_connect": "", "kafka_controller_migration_broker_protocol": "PLAINTEXT",
        "kafka_controller_migration_broker_ca_file": "", "kafka_controller_migration_sasl_mechanism": "SCRAM-SHA-512",
        "kafka_controller_migration_sasl_user": "broker", "kafka_controller_migration_sasl_password": "",
        "kafka_controller_zookeeper_sasl_user": "", "kafka_controller_zookeeper_sasl_password": ""}


def test_files_of_a_plain_controller_on_kafka_3():
    written = controller_files(_model(), TEMPLATES, False)
    assert written["files"] == [
        {"dest": "/etc/kafka/controller/server.properties", "template": "server.properties.j2", "owner": "root",
         "group": "kafka", "mode": "0640", "sensitive": False},
        {"dest": "/etc/kafka/controller/log4j.properties", "template": "/T/log4j.j2", "owner": "root",
         "group": "kafka", "mode": "0644", "template_vars": {"log_file": "/var/log/kafka/controller/server.log"}},
        {"dest": "/etc/kafka/controller/.server.properties.restart-view", "template": "server.properties.j2",
         "owner": "root", "group": "kafka", "mode": "0640", "sensitive": False,
         "template_vars": {"restart_view": True}},
        {"dest": "/etc/systemd/system/kafka-controller.service", "template": "kafka-controller.service.j2",
         "owner": "root", "group": "root", "mode": "0644"}]
    assert [(item["path"], item["owner"], item["mode"]) for item in written["directories"]] == [
        ("/etc/kafka", "root", "0755"), ("/etc/kafka/controller", "root", "0755"),
        ("/var/lib/kafka", "kafka", "0750"), ("/var/lib/kafka/controller-metadata", "kafka", "0750"),
        ("/var/log/kafka", "kafka", "0750"), ("/var/log/kafka/controller", "kafka", "0750")]
    assert written["restart_paths"] == [
        "/etc/kafka/controller/.server.properties.restart-view", "/etc/kafka/controller/log4j.properties",
        "/etc/systemd/system/kafka-controller.service", "/etc/kafka/controller/tls/ca.crt",
        "/etc/kafka/controller/zookeeper-client.jaas"]


def test_files_in_migration_mode_with_the_exporter_on_kafka_4():
    inputs, settings = MIGRATION
    model = _model(dict(inputs, kafka_controller_prometheus_enabled=True), settings)
    written = controller_files(model, TEMPLATES, True)
    files = {item["dest"]: item for item in written["files"]}
    assert files["/etc/kafka/controller/server.properties"]["sensitive"] is True
    assert files["/etc/kafka/controller/log4j2.properties"]["template"] == "/T/log4j2.j2"
    assert files["/etc/kafka/controller/tls/ca.crt"] == {
        "dest": "/etc/kafka/controller/tls/ca.crt", "template": "ca.crt.j2", "owner": "root", "group": "kafka",
        "mode": "0644"}
    assert files["/etc/kafka/controller/zookeeper-client.jaas"] == {
        "dest": "/etc/kafka/controller/zookeeper-client.jaas", "template": "/T/jaas.j2", "owner": "root",
        "group": "kafka", "mode": "0640", "sensitive": True,
        "template_vars": {"user_variable": "kafka_controller_zookeeper_sasl_user",
                          "password_variable": "kafka_controller_zookeeper_sasl_password"}}
    assert files["/etc/kafka/controller/prometheus.yml"]["template"] == "/T/prometheus.j2"
    assert written["directories"][-1] == {"path": "/etc/kafka/controller/tls", "owner": "root", "group": "kafka",
                                          "mode": "0755"}


def test_what_the_installed_kafka_decides():
    found = installed(_model(settings={"kafka_controller_release_version": ""}), True, "4.4.0", "/opt/kafka/libs/*")
    assert found["logging"] == {"file": "/etc/kafka/controller/log4j2.properties", "template": "kafka_log4j2",
                                "option": "-Dlog4j2.configurationFile=/etc/kafka/controller/log4j2.properties"}
    assert found["tool"] == ["/usr/bin/java", "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                             "-Dlog4j2.configurationFile=/etc/kafka/controller/log4j2.properties",
                             "-Dkafka.logs.dir=/var/log/kafka/controller", "-cp", "/opt/kafka/libs/*"]
    assert found["feature_tool"][-3:] == ["org.apache.kafka.tools.FeatureCommand", "--bootstrap-controller",
                                          "10.0.0.1:9093,10.0.0.2:9093,c3:9093"]
    assert found["add_controller"][-6:] == [
        "org.apache.kafka.tools.MetadataQuorumCommand", "--bootstrap-controller", "10.0.0.1:9093,10.0.0.2:9093,c3:9093",
        "--command-config", "/etc/kafka/controller/server.properties", "add-controller"]
    assert found["release_version"] == "4.4"
    kafka_3 = installed(_model(settings={"kafka_controller_release_version": "3.9-IV0"}), False, "3.9.2", "/x/*")
    assert kafka_3["logging"]["option"] == "-Dlog4j.configuration=file:/etc/kafka/controller/log4j.properties"
    assert kafka_3["release_version"] == "3.9-IV0"


def _read(configured=True, running_migration=False, meta="", active="inactive"):
    model = _model()
    paths = model["paths"]
    return model, {
        "files": {paths["meta_file"]: {"exists": bool(meta), "content": meta or None}},
        "settings": {paths["config_file"]: {"exists": configured, "values": {
            "zookeeper.metadata.migration.enable": "true"} if running_migration else {}}},
        "units": {paths["unit"]: {"active_state": active}}}


def test_the_hosts_read_gives_the_storage_node():
    model, state = _read(meta="cluster.id=x\n", active="active")
    assert host_state(model, state) == {"mode_change": "", "storage_node": {
        "host": "c1", "node_id": 9001, "meta": "cluster.id=x\n", "active": True, "controller_address": "10.0.0.1:9093"}}


@pytest.mark.parametrize("configured, running_migration, migration, zookeeper_group, step, refused", [
    (True, False, False, False, False, ""),
    (True, True, True, True, False, ""),
    (False, False, False, False, False, ""),
    (True, True, False, True, True, ""),
    (True, True, False, False, False,
     "kafka_controller_zookeeper_migration: c1 runs in ZooKeeper migration mode; taking it out of that mode is a step "
     "of the migration: run playbooks/migrate_to_kraft.yml (it says which phase the cluster is in)"),
    (True, False, True, False, False,
     "kafka_controller_zookeeper_migration: c1 runs out of ZooKeeper migration mode; taking it into that mode is a "
     "step of the migration: run playbooks/migrate_to_kraft.yml (it says which phase the cluster is in)"),
    (False, False, False, True, False,
     "kafka_controller: the inventory has a zookeeper group, so these controllers would join a ZooKeeper-mode "
     "cluster: that is the migration to KRaft, run playbooks/migrate_to_kraft.yml; once it is finalized and "
     "ZooKeeper decommissioned, take the zookeeper group out of the inventory"),
])
def test_a_change_of_migration_mode_only_through_the_migration(
        configured, running_migration, migration, zookeeper_group, step, refused):
    model = _model({"kafka_controller_zookeeper_migration": migration, "kafka_controller_migration_step": step},
                   groups={"zookeeper": ["z1"]} if zookeeper_group else {})
    unused, state = _read(configured, running_migration)
    assert host_state(model, state)["mode_change"] == refused


CONTROLLERS = _model()["controllers"]


@pytest.mark.parametrize("leader_ids, pending, restart_all, order", [
    ([None, 9002, 9002], {"c1": True, "c2": True, "c3": True}, False, ["c1", "c3", "c2"]),
    ([9001, 9001, 9001], {"c2": True}, False, ["c2"]),
    ([None, None, None], {"c3": True, "c1": True}, False, ["c1", "c3"]),
    ([9003, 9003, 9003], {}, True, ["c1", "c2", "c3"]),
    ([True, 9002, 9002], {}, True, ["c1", "c3", "c2"]),
])
def test_restart_order_followers_before_the_leader(leader_ids, pending, restart_all, order):
    chosen = restart_order(CONTROLLERS, ["c1", "c2", "c3"], leader_ids, pending, restart_all=restart_all)
    assert [item["host"] for item in chosen] == order


def test_restart_order_only_of_the_plays_controllers():
    assert [item["host"] for item in restart_order(CONTROLLERS, ["c2"], [9002], {}, restart_all=True)] == ["c2"]


UNIT = "ExecStart=/usr/bin/java -cp /opt/kafka-4.4.0/libs/* kafka.Kafka"


def test_node_state_from_the_reads():
    model = _model()
    paths = model["paths"]
    read = {"files": {paths["meta_file"]: {"exists": True, "content": "version=1\ncluster.id=AAAAAAAAAAAAAAAAAAAABw\n"},
                      paths["soak_marker"]: {"exists": True, "content": " 1764400000\n"},
                      paths["unit_file"]: {"exists": True, "content": UNIT},
                      paths["restart_marker"]: {"exists": False, "content": None}},
            "settings": {paths["config_file"]: {"exists": True, "values": {
                "zookeeper.metadata.migration.enable": "true", "zookeeper.connect": "z1:2181/kafka"}}},
            "units": {"kafka-controller": {"active_state": "active"}}}
    found = node_state(model, read, {"files": {"/opt/kafka-4.4.0/.kafkaops-installed": {
        "exists": True, "content": '{"version": "4.4.0"}'}}})
    assert found == {"host": "c1", "node_id": 9001, "configured": True, "migration": True,
                     "zookeeper_connect": "z1:2181/kafka", "active": True, "restart_pending": False,
                     "cluster_id": "AAAAAAAAAAAAAAAAAAAABw", "brokers_kraft_since": "1764400000", "version": "4.4.0"}


def test_node_state_of_a_host_without_the_controller():
    model = _model()
    paths = model["paths"]
    read = {"files": {path: {"exists": False, "content": None} for path in model["node_state"]["files"]},
            "settings": {paths["config_file"]: {"exists": False, "values": {}}},
            "units": {"kafka-controller": {"active_state": "inactive"}}}
    found = node_state(model, read, {"files": {}})
    assert (found["configured"], found["migration"], found["active"], found["cluster_id"], found["version"],
            found["brokers_kraft_since"]) == (False, False, False, "", "", "")


def test_migration_failure_names_the_step_each_fault_and_the_commands():
    message = migration_failure([("c1", "ERROR zk migration fault: x\nCaused by: y"), ("c2", "")],
                                "The roll into KRaft mode", "broker 2 did not come back", "brokers_kraft", None,
                                ["inv/hosts.yml", "inv/extra.ini"])
    assert message == (
        "The roll into KRaft mode failed: broker 2 did not come back. The controllers logged: c1: ERROR zk migration "
        "fault: x | Caused by: y\nThe migration stopped in its phase brokers_kraft; the phases before it are done. To "
        "go on once the cause is mended, run the same command again, which resumes there: ansible-playbook "
        "-i inv/hosts.yml -i inv/extra.ini kafkaops.cluster.migrate_to_kraft -e phase=brokers_kraft. To go back to "
        "ZooKeeper mode instead: ansible-playbook -i inv/hosts.yml -i inv/extra.ini kafkaops.cluster.migrate_to_kraft "
        "-e phase=rollback.")
    quiet = migration_failure([("c1", "")], "A step", "it failed", None, "finalize", [])
    assert "it failed. No controller logged a migration fault.\nThe migration stopped in its phase (unknown);" in quiet
    assert "-e phase=finalize." in quiet


def test_the_model_carries_the_typed_inputs_but_not_the_scram_users_passwords():
    model = _model(inputs={"kafka_controller_scram_users": [{"name": "admin", "password": "Admin-Secret"}]})
    assert model["inputs"]["kafka_controller_node_id"] == 9001
    assert model["inputs"]["kafka_controller_super_users"] == ["User:ANONYMOUS"]
    assert "kafka_controller_scram_users" not in model["inputs"]
    assert "Admin-Secret" not in repr(model)
