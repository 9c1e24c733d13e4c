import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.filter import kafka_broker
from ansible_collections.kafkaops.cluster.plugins.filter.kafka_broker import (
    kafka_broker_instances,
    kafka_broker_restart_order,
)

HOST = {"broker_id": 7, "port": 9092, "internal_port": "", "jmx_port": "", "rack": "r1",
        "data_dir": "/var/lib/kafka"}


def test_no_instances_means_one_from_the_host_settings():
    assert kafka_broker_instances([], HOST) == [{
        "broker_id": 7, "port": 9092, "internal_port": 19092, "jmx_port": 29092, "prometheus_port": 0, "rack": "r1",
        "log_dirs": ["/var/lib/kafka/broker-7"], "meta_file": "/var/lib/kafka/broker-7/meta.properties",
        "properties": {},
        "unit": "kafka-broker-7", "unit_file": "/etc/systemd/system/kafka-broker-7.service",
        "folder": "/etc/kafka/broker-7", "config_file": "/etc/kafka/broker-7/server.properties",
        "restart_view": "/etc/kafka/broker-7/.server.properties.restart-view",
        "restart_marker": "/etc/kafka/broker-7/.restart-pending",
        "log_folder": "/var/log/kafka/broker-7", "log_file": "/var/log/kafka/broker-7/server.log"}]


def test_each_instance_carries_its_unit_and_files_under_the_host_folders():
    host = dict(HOST, config_dir="/opt/kafka/etc/", log_dir="/srv/logs")
    first, second = kafka_broker_instances([{"broker_id": 11, "port": 9093}, {"broker_id": 12, "port": 9094}], host)
    assert (first["unit"], second["unit"]) == ("kafka-broker-11", "kafka-broker-12")
    assert second["unit_file"] == "/etc/systemd/system/kafka-broker-12.service"
    assert second["config_file"] == "/opt/kafka/etc/broker-12/server.properties"
    assert second["restart_marker"] == "/opt/kafka/etc/broker-12/.restart-pending"
    assert second["restart_view"] == "/opt/kafka/etc/broker-12/.server.properties.restart-view"
    assert second["log_file"] == "/srv/logs/broker-12/server.log"


def test_three_brokers_on_one_host_get_their_own_ports_and_dirs():
    result = kafka_broker_instances(
        [{"broker_id": 1, "port": 9093}, {"broker_id": 2, "port": 9094}, {"broker_id": 3, "port": 9095}], HOST)
    assert [item["internal_port"] for item in result] == [19093, 19094, 19095]
    assert [item["jmx_port"] for item in result] == [29093, 29094, 29095]
    assert [item["log_dirs"] for item in result] == [["/var/lib/kafka/broker-%d" % n] for n in (1, 2, 3)]


def test_host_level_ports_apply_to_a_single_instance_only():
    host = dict(HOST, internal_port=9191, jmx_port=0)
    assert kafka_broker_instances([], host)[0]["internal_port"] == 9191
    assert kafka_broker_instances([], host)[0]["jmx_port"] == 0
    several = kafka_broker_instances([{"broker_id": 1, "port": 9093}, {"broker_id": 2, "port": 9094}], host)
    assert [item["internal_port"] for item in several] == [19093, 19094]


PROMETHEUS_HOST = dict(HOST, prometheus_enabled=True, prometheus_port="")


def test_prometheus_port_is_zero_while_the_exporter_is_off():
    several = kafka_broker_instances([{"broker_id": 1, "port": 9093, "prometheus_port": 8000},
                                      {"broker_id": 2, "port": 9094}], dict(HOST, prometheus_enabled=False))
    assert [item["prometheus_port"] for item in several] == [0, 0]


def test_prometheus_port_is_derived_per_instance_below_the_client_port():
    assert kafka_broker_instances([], PROMETHEUS_HOST)[0]["prometheus_port"] == 7092
    several = kafka_broker_instances(
        [{"broker_id": 1, "port": 9093}, {"broker_id": 2, "port": 9094},
         {"broker_id": 3, "port": 9095, "prometheus_port": 8095}],
        dict(PROMETHEUS_HOST, prometheus_port=7000))
    # The host-level port serves a single broker only; with several, each gets its own.
    assert [item["prometheus_port"] for item in several] == [7093, 7094, 8095]


@pytest.mark.parametrize("enabled", [True, "true", "yes", "True"])
def test_host_level_prometheus_port_applies_to_a_single_instance(enabled):
    host = dict(PROMETHEUS_HOST, prometheus_enabled=enabled, prometheus_port="9404")
    assert kafka_broker_instances([], host)[0]["prometheus_port"] == 9404


@pytest.mark.parametrize("instances, host, message", [
    ([{"broker_id": 1, "port": 9093}, {"broker_id": 2, "port": 9094, "prometheus_port": 19093}], PROMETHEUS_HOST,
     "kafka_broker_instances[1].prometheus_port: port 19093 clashes with kafka_broker_instances[0].internal_port"),
    ([{"broker_id": 1, "port": 9093, "prometheus_port": 9094}, {"broker_id": 2, "port": 9094}], PROMETHEUS_HOST,
     "kafka_broker_instances[1].port: port 9094 clashes with kafka_broker_instances[0].prometheus_port"),
    ([{"broker_id": 1, "port": 1500}], PROMETHEUS_HOST,
     "kafka_broker_instances[0].prometheus_port: the default, port 1500 - 2000, is below 1: give prometheus_port"),
    ([{"broker_id": 1, "port": 9093, "prometheus_port": 0}], PROMETHEUS_HOST,
     "kafka_broker_instances[0].prometheus_port: must be within 1-65535, got 0"),
    ([], dict(PROMETHEUS_HOST, prometheus_enabled="maybe"),
     "kafka_broker_prometheus_enabled: expected a boolean, got 'maybe'"),
])
def test_bad_prometheus_ports_are_refused_naming_the_field(instances, host, message):
    with pytest.raises(AnsibleFilterError) as error:
        kafka_broker_instances(instances, host)
    assert message in str(error.value)


def test_log_dirs_given_as_a_comma_separated_string():
    result = kafka_broker_instances([{"log_dirs": "/d1, /d2"}], HOST)
    assert result[0]["log_dirs"] == ["/d1", "/d2"]


@pytest.mark.parametrize("instances, message", [
    ([{"broker_id": 1, "port": 9093}, {"broker_id": 1, "port": 9094}],
     "kafka_broker_instances[1].broker_id: 1 is already used by kafka_broker_instances[0]"),
    ([{"broker_id": 1, "port": 9093}, {"broker_id": 2, "port": 9093}],
     "kafka_broker_instances[1].port: port 9093 clashes with kafka_broker_instances[0].port"),
    ([{"broker_id": 1, "port": 9093}, {"broker_id": 2, "port": 19093}],
     "kafka_broker_instances[1].port: port 19093 clashes with kafka_broker_instances[0].internal_port"),
    ([{"broker_id": 1, "port": 9093}, {"port": 9094}],
     "kafka_broker_instances[1].broker_id: required when a host runs several brokers"),
    ([{"broker_id": 1, "port": 70000}], "kafka_broker_instances[0].port: must be within 1-65535, got 70000"),
    ([{"broker_id": "one"}], "kafka_broker_instances[0].broker_id: expected an integer, got 'one'"),
    ([{"broker_id": 1, "portt": 9093}], "kafka_broker_instances[0]: unknown keys ['portt']"),
    ([{"broker_id": 1, "port": 9093, "log_dirs": ["/d"]}, {"broker_id": 2, "port": 9094, "log_dirs": ["/d"]}],
     "kafka_broker_instances[1].log_dirs: /d is already used by kafka_broker_instances[0]"),
    ("not a list", "kafka_broker_instances: expected a list of dicts"),
])
def test_bad_instances_are_refused_naming_the_field(instances, message):
    with pytest.raises(AnsibleFilterError) as error:
        kafka_broker_instances(instances, HOST)
    assert message in str(error.value)


def _marker(broker_id, exists):
    return {"instance": {"broker_id": broker_id}, "stat": {"exists": exists}}


def test_restart_order_takes_only_marked_brokers_and_the_controller_last():
    markers = {"b": [_marker(2, True), _marker(5, False)], "a": [_marker(3, True)], "c": [_marker(1, True)]}
    order = kafka_broker_restart_order(markers, controller_id=2)
    assert [item["instance"]["broker_id"] for item in order] == [1, 3, 2]
    assert [item["host"] for item in order] == ["c", "a", "b"]


def test_restart_order_is_empty_when_nothing_is_marked():
    assert kafka_broker_restart_order({"a": [_marker(1, False)], "b": None}, controller_id=1) == []


def test_rolling_restart_takes_every_instance_the_controller_last():
    instances = {"b": [{"broker_id": 2}, {"broker_id": 5}], "a": [{"broker_id": 3}], "c": None}
    order = kafka_broker_restart_order(instances, controller_id=3, restart_all=True)
    assert [item["instance"]["broker_id"] for item in order] == [2, 5, 3]
    assert [item["host"] for item in order] == ["b", "b", "a"]


@pytest.mark.parametrize("variables, expected", [
    ({}, "zk-1"),
    ({"ansible_host": "192.0.2.11"}, "192.0.2.11"),
    ({"ansible_host": "192.0.2.11", "zookeeper_peer_address": "zk-1.internal"}, "zk-1.internal"),
])
def test_zookeeper_peer_address_prefers_the_setting_then_ansible_host(variables, expected):
    assert kafka_broker.zookeeper_peer_address((variables, "zk-1")) == expected
    with_port = dict(variables, zookeeper_client_port=2182)
    assert kafka_broker.zookeeper_client_address((with_port, "zk-1")) == expected + ":2182"


def test_unresolved_addresses_names_node_name_and_variable():
    found = kafka_broker.unresolved_addresses(
        {"kafka-b": {"kafka-a": [], "192.0.2.12": ["192.0.2.12"]}, "kafka-a": {"kafka-a": ["127.0.1.1"]}},
        {"kafka-a": "zookeeper_peer_address of kafka-a"})
    assert found == ["kafka-b cannot resolve 'kafka-a' (zookeeper_peer_address of kafka-a)"]
    assert kafka_broker.unresolved_addresses({"kafka-a": {"x": ["10.0.0.1"]}}, {}) == []


@pytest.mark.parametrize("instance_properties, host_properties, expected", [
    ({}, {}, ""),
    ({}, {"reserved.broker.max.id": 5000}, ""),
    ({"reserved.broker.max.id": "1000"}, {"reserved.broker.max.id": 5000},
     "broker 1001: reserved.broker.max.id is 1000"),
    ({}, {"reserved.broker.max.id": "lots"}, "broker 1001: reserved.broker.max.id 'lots' is not a number"),
])
def test_kafka_broker_id_limit_flags_a_limit_below_the_id(instance_properties, host_properties, expected):
    instance = {"broker_id": 1001, "properties": instance_properties}
    assert kafka_broker.kafka_broker_id_limit(instance, host_properties) == expected


def test_missing_files_names_unset_variables_first_then_absent_files(tmp_path):
    present = tmp_path / "ca.crt"
    present.write_text("x")
    paths = {"tls_ca_file": str(present), "tls_cert_file": str(tmp_path / "gone.crt"), "tls_key_file": "",
             "tls_other_file": None}
    assert kafka_broker.missing_files(paths) == [
        "tls_key_file: not set", "tls_other_file: not set", "tls_cert_file: no such file on the controller"]
    assert kafka_broker.missing_files({"tls_ca_file": str(present)}) == []
    assert kafka_broker.missing_files({"tls_ca_file": str(tmp_path)}) == ["tls_ca_file: no such file on the controller"]
    with pytest.raises(AnsibleFilterError, match="missing_files: expected a mapping"):
        kafka_broker.missing_files(["a"])
