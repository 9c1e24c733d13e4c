import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.filter import kafka_broker
from ansible_collections.kafkaops.cluster.plugins.filter.kafka_broker import (
    kafka_broker_instances,
    kafka_broker_restart_order,
)
from ansible_collections.kafkaops.cluster.tests.unit.plugins.plugin_utils.test_broker_host_model import (
    INPUTS,
    SETTINGS,
    _instance,
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


# The role's filters over its host model: what they read of hostvars and the checks of their arguments (the model's
# rules are tested in tests/unit/plugins/plugin_utils/test_broker_host_model.py).

MODEL_HOSTVARS = {
    "b1": {"__kafka_broker_internal_address": "10.0.0.1", "__kafka_broker_instances": [_instance(1)]},
    "b2": {"__kafka_broker_internal_address": "10.0.0.2", "__kafka_broker_instances": [_instance(2)], "other": 1},
    # b3 noted nothing yet (an entry point run without the checks).
    "b3": {"ansible_host": "192.0.2.3"},
    "c1": {"kafka_controller_host": "ctl-1", "kafka_controller_cluster_id": "AAAAAAAAAAAAAAAAAAAABw"},
    "c2": {"ansible_host": "192.0.2.22", "kafka_controller_port": 19093},
    "z1": {"ansible_host": "192.0.2.31"},
    "z2": {"zookeeper_peer_address": "zk-2", "zookeeper_client_port": 2182},
}


def test_defaults_take_the_controllers_and_zookeeper_from_the_inventory():
    groups = {"kafka_controller": ["c1", "c2"], "zookeeper": ["z1", "z2"]}
    assert kafka_broker.kafka_broker_defaults(groups, MODEL_HOSTVARS) == {
        "kafka_broker_controller_quorum_servers": ["ctl-1:9093", "192.0.2.22:19093"],
        "kafka_broker_zookeeper_connect": "192.0.2.31:2181,zk-2:2182"}
    assert kafka_broker.kafka_broker_defaults({}, MODEL_HOSTVARS) == {
        "kafka_broker_controller_quorum_servers": [], "kafka_broker_zookeeper_connect": ""}


def test_the_model_reads_what_each_broker_host_noted_from_hostvars():
    cluster = {"host": "b2", "play_hosts": ["b1", "b2", "b3"], "groups": {"kafka_controller": ["c1"]}}
    model = kafka_broker.kafka_broker_host_model(dict(INPUTS, kafka_broker_combined=True),
                                                 dict(SETTINGS, kafka_broker_metadata_mode="kraft"),
                                                 cluster, MODEL_HOSTVARS)
    assert [instance["broker_id"] for instance in model["instances"]] == [2]
    assert model["controller_hosts"] == ["c1"]
    assert model["quorum_servers"] == ["10.0.0.1:9093", "10.0.0.2:9093"]
    assert model["broker_ids"] == [1, 2]
    assert "kafka_broker_internal_host of b3: not known to this play" in model["problems"][0]


def test_the_model_takes_the_cluster_as_given_without_hostvars():
    cluster = {"host": "b1", "instances": [_instance(1)], "play_hosts": ["b1"], "controller_hosts": [],
               "host_addresses": {"b1": "10.0.0.1"}, "host_instances": {"b1": [_instance(1)]}}
    model = kafka_broker.kafka_broker_host_model(dict(INPUTS, kafka_broker_hosts=["b1"]), SETTINGS, cluster)
    assert model["broker_ids"] == [1] and model["problems"] == []


def _found(*nodes):
    return {"mode_change": "", "storage_nodes": list(nodes)}


def _node(host, node_id, meta="", address=""):
    return {"host": host, "node_id": node_id, "meta": meta, "active": False, "controller_address": address}


def _plan_model(combined=False, cluster_id=""):
    return {"hosts": ["b1", "b2", "b3"], "controller_hosts": [] if combined else ["c1", "c2"], "combined": combined,
            "cluster_id": cluster_id}


def test_the_storage_plan_reads_the_play_brokers_storage_and_the_controllers_id():
    hostvars = dict(MODEL_HOSTVARS, b1={"__kafka_broker_found": _found(_node("b1", 1))},
                    b2={"__kafka_broker_found": _found(_node("b2", 2), _node("b2", 5))}, b3={})
    plan = kafka_broker.kafka_broker_storage_plan(_plan_model(), hostvars, ["b2", "b1", "z1"], "seed")
    assert plan["cluster_id"] == "AAAAAAAAAAAAAAAAAAAABw"
    assert plan["format"] == {"b1": [1], "b2": [2, 5]}
    assert (plan["initial_controllers"], plan["problems"]) == ("", [])


@pytest.mark.parametrize("combined, made", [(True, True), (False, False)])
def test_only_a_combined_cluster_makes_its_own_id(combined, made):
    hostvars = {"b1": {"__kafka_broker_found": _found(_node("b1", 1, address="10.0.0.1:9093" if combined else ""))}}
    model = dict(_plan_model(combined), controller_hosts=[])
    plan = kafka_broker.kafka_broker_storage_plan(model, hostvars, ["b1"], "seed")
    assert bool(plan["cluster_id"]) is made
    assert (plan["problems"] == []) is made


def test_the_storage_plan_refuses_a_broker_that_did_not_read_its_storage():
    with pytest.raises(AnsibleFilterError, match="b2 has not read its brokers' storage"):
        kafka_broker.kafka_broker_storage_plan(_plan_model(), {"b1": {"__kafka_broker_found": _found()}, "b2": {}},
                                               ["b1", "b2"], "")


def _decision(broker_id, port, exists):
    return {"instance": {"broker_id": broker_id, "port": port}, "stat": {"exists": exists}}


RESTART_HOSTVARS = {
    "b1": {"__kafka_broker_restarts": {"decisions": [_decision(1, 9092, True)]},
           "__kafka_broker_instances": [{"broker_id": 1, "port": 9092}],
           "kafka_broker_client_addresses": ["b1.example:9092"], "kafka_broker_restart_wait_timeout": 900},
    "b2": {"__kafka_broker_restarts": {"decisions": [_decision(2, 9092, True), _decision(3, 9093, False)]},
           "__kafka_broker_instances": [{"broker_id": 2, "port": 9092}, {"broker_id": 3, "port": 9093}],
           "kafka_broker_client_addresses": ["b2.example:9092", "b2.example:9093"]},
}


@pytest.mark.parametrize("restart_all, expected", [
    (False, [("b2", 2, ["b2.example:9092"], 600), ("b1", 1, ["b1.example:9092"], 900)]),
    (True, [("b2", 2, ["b2.example:9092"], 600), ("b2", 3, ["b2.example:9093"], 600),
            ("b1", 1, ["b1.example:9092"], 900)]),
])
def test_the_restart_plan_reads_each_hosts_brokers_addresses_and_timeout(restart_all, expected):
    model = {"hosts": ["b1", "b2", "b9"]}
    plan = kafka_broker.kafka_broker_restart_plan(model, RESTART_HOSTVARS, ["b1", "b2"], 1, 600,
                                                  restart_all=restart_all)
    assert [(item["host"], item["instance"]["broker_id"], item["bootstrap_servers"], item["timeout"])
            for item in plan] == expected


def test_the_restart_plan_refuses_a_host_that_noted_nothing():
    with pytest.raises(AnsibleFilterError, match="b2 has not noted its brokers"):
        kafka_broker.kafka_broker_restart_plan({"hosts": ["b1", "b2"]}, dict(RESTART_HOSTVARS, b2={}), ["b1", "b2"],
                                               1, 600)


@pytest.mark.parametrize("copy, exists", [(None, False), ({"changed": False, "skipped": True}, False),
                                          ({"changed": True}, True)])
def test_a_new_jmx_key_store_restarts_a_broker_set_up_before(copy, exists):
    model = {"instances": [{"broker_id": 1, "unit": "u1", "unit_file": "/u1", "restart_marker": "/m1",
                            "config_file": "/c1"}], "metadata_mode": "zookeeper"}
    state = {"files": {"/u1": {"exists": True}, "/m1": {"exists": False}}, "settings": {}}
    found = kafka_broker.kafka_broker_restarts(model, state, {"restart_paths": {"u1": ["/c1"]}},
                                               {"changed_paths": []}, copy)
    assert found["decisions"][0]["stat"]["exists"] is exists


def test_the_storage_format_wants_a_known_version():
    with pytest.raises(AnsibleFilterError, match="the installed Kafka's version is not known"):
        kafka_broker.kafka_broker_storage_format({}, {"version_problem": ""}, {})


@pytest.mark.parametrize("name, arguments", [
    ("kafka_broker_host_state", ({}, [])),
    ("kafka_broker_node_state", ({}, {}, None)),
    ("kafka_broker_unregister_commands", ({}, "read")),
    ("kafka_broker_installed", ([], "4.4.0", "")),
    ("kafka_broker_defaults", ([], {})),
])
def test_the_filters_want_mappings(name, arguments):
    with pytest.raises(AnsibleFilterError, match="%s: .* must be a mapping" % name):
        getattr(kafka_broker, name)(*arguments)


def test_every_filter_is_registered():
    registered = kafka_broker.FilterModule().filters()
    for name in ("kafka_broker_defaults", "kafka_client_defaults", "kafka_broker_host_model", "kafka_broker_host_state",
                 "kafka_broker_files",
                 "kafka_broker_restarts", "kafka_broker_restart_plan", "kafka_broker_installed",
                 "kafka_broker_storage_plan", "kafka_broker_storage_format", "kafka_broker_node_state",
                 "kafka_broker_unregister_commands"):
        assert registered[name] is getattr(kafka_broker, name)


CLIENT_HOSTVARS = {
    "b1": {"kafka_broker_client_addresses": ["b1:9092"]},
    "b2": {"kafka_broker_client_addresses": [["b2:9092"], None, "b2:9093"],
           "kafka_broker_admin_connection": {"security_protocol": "SASL_SSL"}},
    "b3": {"kafka_broker_admin_connection": {"security_protocol": "SSL"}},
    "b4": {"kafka_broker_client_addresses": ["b4:9092"], "kafka_broker_admin_connection": None},
}


@pytest.mark.parametrize("group, bootstrap, connection", [
    (["b1", "b2", "b3"], ["b1:9092", "b2:9092", "b2:9093"], {"security_protocol": "SASL_SSL"}),
    (["b3", "b2"], ["b2:9092", "b2:9093"], {"security_protocol": "SSL"}),
    (["b1"], ["b1:9092"], {}),
    # The first connection noted is empty: none, as an empty mapping, not the next one.
    (["b4", "b2"], ["b4:9092", "b2:9092", "b2:9093"], {}),
    ([], [], {}),
])
def test_client_defaults_take_every_brokers_addresses_and_the_first_connection(group, bootstrap, connection):
    found = kafka_broker.kafka_client_defaults({"kafka_broker": group}, CLIENT_HOSTVARS)
    assert found == {"bootstrap_servers": bootstrap, "admin_connection": connection}
