"""The kafka_controller role's filters: what they read of hostvars and the checks of their arguments (the model's
rules are tested in tests/unit/plugins/plugin_utils/test_controller_host_model.py)."""

import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.filter.kafka_controller import (
    FilterModule,
    kafka_controller_defaults,
    kafka_controller_files,
    kafka_controller_host_model,
    kafka_controller_installed,
    kafka_controller_migration_failure,
    kafka_controller_restart_order,
    kafka_installed_markers,
)
from ansible_collections.kafkaops.cluster.tests.unit.plugins.plugin_utils.test_controller_host_model import (
    INPUTS,
    SETTINGS,
    TEMPLATES,
)

HOSTVARS = {
    "c1": {"kafka_controller_node_id": 9001, "kafka_controller_host": "ctl-1", "unrelated": "x"},
    "c2": {"kafka_controller_node_id": 9002, "ansible_host": "10.0.0.2", "kafka_controller_log_dir": "/srv/logs",
           "__kafka_controller_quorum": {"leader_id": 9002}, "__kafka_controller_restart_pending": True},
    "c3": {"kafka_controller_node_id": 9003, "__kafka_controller_quorum": {"leader_id": 9002},
           "__kafka_controller_restart_pending": True},
    "b1": {"kafka_broker_authorizer_enabled": True, "kafka_broker_super_users": ["User:ops"],
           "kafka_broker_migration_peer": {"internal_protocol": "SASL_SSL", "inter_broker_password": "p"}},
    "z1": {"ansible_host": "192.0.2.1"},
    "z2": {"zookeeper_peer_address": "zk-2", "zookeeper_client_port": 2182},
}
CLUSTER = {"host": "c1", "play_hosts": ["c1", "c2", "c3"], "groups": {}}


def _model():
    return kafka_controller_host_model(INPUTS, SETTINGS, CLUSTER, HOSTVARS)


def test_the_model_reads_each_controllers_own_variables_from_hostvars():
    model = _model()
    assert model["quorum_servers"] == ["ctl-1:9093", "10.0.0.2:9093", "c3:9093"]
    assert [item["log_file"] for item in model["controllers"]] == [
        "/var/log/kafka/controller/server.log", "/srv/logs/controller/server.log",
        "/var/log/kafka/controller/server.log"]
    # A controller the inventory does not know is named by the role's rules alone.
    lost = kafka_controller_host_model(dict(INPUTS, kafka_controller_hosts=["c1", "gone"]), SETTINGS, CLUSTER, HOSTVARS)
    assert lost["quorum_servers"] == ["ctl-1:9093", "gone:9093"]


@pytest.mark.parametrize("argument", ["inputs", "settings", "cluster"])
def test_the_model_wants_mappings(argument):
    arguments = {"inputs": INPUTS, "settings": SETTINGS, "cluster": CLUSTER}
    arguments[argument] = ["not", "a", "mapping"]
    with pytest.raises(AnsibleFilterError, match="kafka_controller_host_model: %s must be a mapping" % argument):
        kafka_controller_host_model(arguments["inputs"], arguments["settings"], arguments["cluster"], HOSTVARS)


def test_defaults_from_the_first_broker_and_the_zookeeper_group():
    defaults = kafka_controller_defaults({"kafka_broker": ["b1", "c1"], "zookeeper": ["z1", "z2"]}, HOSTVARS)
    assert defaults["kafka_controller_authorizer_enabled"] is True
    assert defaults["kafka_controller_super_users"] == ["User:ANONYMOUS", "User:broker", "User:admin", "User:ops"]
    assert defaults["kafka_controller_zookeeper_connect"] == "192.0.2.1:2181,zk-2:2182"
    assert defaults["kafka_controller_migration_broker_protocol"] == "SASL_SSL"
    assert defaults["kafka_controller_migration_sasl_password"] == "p"
    alone = kafka_controller_defaults({"kafka_controller": ["c1"]}, HOSTVARS)
    assert alone["kafka_controller_super_users"] == ["User:ANONYMOUS"]
    assert alone["kafka_controller_zookeeper_connect"] == ""


@pytest.mark.parametrize("version, log4j2, release", [("4.4.0", True, "4.4"), ("4.0", True, "4.0"),
                                                      ("3.9.2", False, "3.9"), ("10.1.0", True, "10.1")])
def test_installed_kafka_by_its_version(version, log4j2, release):
    found = kafka_controller_installed(_model(), version, "/opt/kafka/libs/*")
    assert (found["log4j2"], found["release_version"]) == (log4j2, release)


def test_installed_wants_a_version():
    with pytest.raises(AnsibleFilterError, match="expected the installed Kafka's version"):
        kafka_controller_installed(_model(), "", "/opt/kafka/libs/*")


@pytest.mark.parametrize("log4j2, name", [(True, "log4j2.properties"), ("yes", "log4j2.properties"),
                                          ("false", "log4j.properties")])
def test_files_take_log4j2_as_a_boolean(log4j2, name):
    assert kafka_controller_files(_model(), TEMPLATES, log4j2)["files"][1]["dest"].endswith(name)


def test_files_refuse_another_log4j2():
    with pytest.raises(AnsibleFilterError, match="kafka_controller_files: log4j2: expected a boolean, got 'maybe'"):
        kafka_controller_files(_model(), TEMPLATES, "maybe")


def test_restart_order_reads_the_leader_and_the_pending_restarts_from_hostvars():
    model = _model()
    play = ["c1", "c2", "c3"]
    assert [item["host"] for item in kafka_controller_restart_order(model, HOSTVARS, play)] == ["c3", "c2"]
    assert [item["host"] for item in kafka_controller_restart_order(model, HOSTVARS, play, True)] == ["c1", "c3", "c2"]


def test_migration_failure_from_registered_results():
    results = [{"item": {"host": "c1", "log_file": "/l"}, "stdout": "fault\ncause"}, {"item": "c2", "stdout": "x"},
               {"item": "c3", "stdout": ""}, {"item": "c4"}]
    message = kafka_controller_migration_failure(results, "Step", "failure", inventory_sources=["hosts"])
    assert "The controllers logged: c1: fault | cause; c2: x\n" in message
    assert "phase (unknown)" in message and "-e phase=brokers_kraft." in message
    assert "ansible-playbook -i hosts " in message
    with pytest.raises(AnsibleFilterError, match="expected the registered results"):
        kafka_controller_migration_failure({"results": []}, "Step", "failure")


def test_installed_markers_of_the_units_read():
    read = {"files": {"/u/a.service": {"content": "ExecStart=java -cp /opt/kafka-4.4.0/libs/* kafka.Kafka x"},
                      "/u/b.service": {"content": "ExecStart=java -cp /opt/confluent-7/share/java/kafka/* kafka.Kafka"},
                      "/u/c.service": {"content": "ExecStart=java -cp /opt/kafka-4.4.0/libs/* kafka.Kafka y"},
                      "/u/gone.service": {"exists": False, "content": None}}}
    assert kafka_installed_markers(read, ["/u/a.service", "/u/b.service", "/u/c.service", "/u/gone.service"]) == [
        "/opt/kafka-4.4.0/.kafkaops-installed", "/opt/confluent-7/.kafkaops-installed"]
    with pytest.raises(AnsibleFilterError, match="expected a list of unit files"):
        kafka_installed_markers(read, "/u/a.service")


def test_every_filter_is_registered():
    assert sorted(FilterModule().filters()) == [
        "kafka_controller_defaults", "kafka_controller_files", "kafka_controller_host_model",
        "kafka_controller_host_state", "kafka_controller_installed", "kafka_controller_migration_failure",
        "kafka_controller_node_state", "kafka_controller_restart_order", "kafka_installed_markers"]
