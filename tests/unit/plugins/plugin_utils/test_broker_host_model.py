"""The kafka_broker role's host model as plain data in, plain data out: values, files, each preflight problem, and
what the role works out from it later (the host's read, the restart decisions, the installed Kafka, the storage
format, the node state, the decommission's cluster tool, the waits around each restart)."""

import pytest
from ansible.plugins.test.core import version_compare
from ansible_collections.kafkaops.cluster.plugins.filter.certificates import tls_file_problems
from ansible_collections.kafkaops.cluster.plugins.filter.features import kafka_feature_pin_problems
from ansible_collections.kafkaops.cluster.plugins.filter.kafka_broker import kafka_broker_host_model
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._broker_host_model import (
    broker_files,
    host_model,
    host_state,
    installed,
    node_state,
    restart_decisions,
    restart_waits,
    storage_format,
    unregister_commands,
)
from ansible_collections.kafkaops.cluster.tests.unit.plugins.certificate_samples import mismatched_tls_files

INPUTS = {
    "kafka_broker_hosts": ["b1", "b2", "b3"], "kafka_broker_combined": False, "kafka_broker_controller_port": 9093,
    "kafka_broker_controller_quorum_servers": [], "kafka_broker_min_insync_replicas": 1,
    "kafka_broker_num_partitions": 3, "kafka_broker_jmx_tls": False, "kafka_broker_authorizer_enabled": False,
    "kafka_broker_super_users": [], "kafka_broker_properties": {}, "kafka_broker_features": {},
}
SETTINGS = {
    "kafka_broker_metadata_mode": "zookeeper", "kafka_broker_cluster_id": "",
    "kafka_broker_zookeeper_connect": " z1:2181,[::1]:2181 ", "kafka_broker_zookeeper_chroot": "",
    "kafka_broker_zookeeper_sasl_user": "", "kafka_broker_zookeeper_sasl_password": "",
    "kafka_broker_internal_host": "10.0.0.1", "kafka_broker_external_host": "b1.example",
    "kafka_broker_default_replication_factor": "", "kafka_broker_internal_topics_replication_factor": "",
    "kafka_broker_heap_size": "512m", "kafka_broker_config_dir": "/etc/kafka",
    "kafka_broker_internal_security_protocol": "PLAINTEXT", "kafka_broker_external_security_protocol": "PLAINTEXT",
    "kafka_broker_internal_ssl_client_auth": "none", "kafka_broker_external_ssl_client_auth": "none",
    "kafka_broker_sasl_mechanism": "SCRAM-SHA-512", "kafka_broker_inter_broker_user": "broker",
    "kafka_broker_inter_broker_password": "", "kafka_broker_admin_user": "admin", "kafka_broker_admin_password": "",
    "kafka_broker_tls_certificates": "generated", "kafka_broker_tls_dir": "/ctl/tls",
    "kafka_broker_tls_ca_file": "", "kafka_broker_tls_cert_file": "", "kafka_broker_tls_key_file": "",
    "kafka_broker_jmx_bind_address": "127.0.0.1", "kafka_broker_jmx_password": "",
    "kafka_broker_jmx_tls_keystore_password": "",
}


def _instance(broker_id, port=9092, properties=None):
    return {"broker_id": broker_id, "port": port, "properties": properties or {}, "log_dirs": ["/d/%d" % broker_id],
            "meta_file": "/d/%d/meta.properties" % broker_id, "unit": "kafka-broker-%d" % broker_id,
            "unit_file": "/u/kafka-broker-%d.service" % broker_id,
            "restart_marker": "/c/%d/.restart-pending" % broker_id,
            "config_file": "/c/%d/server.properties" % broker_id}


def _cluster(**changes):
    cluster = {"host": "b1", "instances": [_instance(1)], "play_hosts": ["b1", "b2", "b3"], "controller_hosts": [],
               "host_addresses": {"b1": "10.0.0.1", "b2": "10.0.0.2", "b3": "10.0.0.3"},
               "host_instances": {"b1": [_instance(1)], "b2": [_instance(2)], "b3": [_instance(3)]}}
    cluster.update(changes)
    return cluster


def _no_key_problem(certificate_variable, certificate_path, key_variable, key_path):
    return None


def _model(inputs=None, settings=None, cluster=None, files=(), key_problem=_no_key_problem):
    return host_model(dict(INPUTS, **(inputs or {})), dict(SETTINGS, **(settings or {})), cluster or _cluster(),
                      lambda path: path in files, key_problem)


def test_a_plain_zookeeper_broker():
    model = _model()
    assert model["problems"] == []
    assert model["peer_addresses"] == {"z1": "kafka_broker_zookeeper_connect", "::1": "kafka_broker_zookeeper_connect",
                                       "10.0.0.1": "kafka_broker_internal_host of b1",
                                       "10.0.0.2": "kafka_broker_internal_host of b2",
                                       "10.0.0.3": "kafka_broker_internal_host of b3"}
    assert model["zookeeper_connect"] == "z1:2181,[::1]:2181"
    assert model["zookeeper_servers"] == ["z1:2181", "[::1]:2181"]
    assert model["protocol_map"] == "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT"
    assert model["super_users"] == ["User:broker", "User:admin"]
    assert model["admin_connection"] == {"security_protocol": "PLAINTEXT"}
    assert model["client_addresses"] == ["b1.example:9092"]
    assert (model["default_replication_factor"], model["internal_topics_replication_factor"]) == (3, 3)
    assert model["jmx_options"] == [
        "-Dcom.sun.management.jmxremote", "-Dcom.sun.management.jmxremote.host=127.0.0.1",
        "-Djava.rmi.server.hostname=127.0.0.1", "-Dcom.sun.management.jmxremote.ssl=false",
        "-Dcom.sun.management.jmxremote.authenticate=false"]
    assert model["tls"]["source"] == {"ca": "/ctl/tls/ca.crt", "cert": "/ctl/tls/hosts/b1.crt",
                                      "key": "/ctl/tls/hosts/b1.key", "admin_cert": "/ctl/tls/clients/admin.crt",
                                      "admin_key": "/ctl/tls/clients/admin.key"}
    assert model["paths"]["zookeeper_jaas"] == "/etc/kafka/zookeeper-client.jaas"
    assert (model["uses_tls"], model["uses_sasl"], model["scram_users"]) == (False, False, [])
    # ZooKeeper mode: no storage to read, no unit state wanted.
    assert model["host_state"]["files"] == ["/u/kafka-broker-1.service", "/c/1/.restart-pending"]
    assert model["host_state"]["units"] == []


def test_secured_listeners_give_the_admin_connection_super_users_and_scram_users():
    model = _model(settings={"kafka_broker_internal_security_protocol": "SSL",
                             "kafka_broker_internal_ssl_client_auth": "required",
                             "kafka_broker_external_security_protocol": "SASL_SSL",
                             "kafka_broker_external_ssl_client_auth": "required",
                             "kafka_broker_admin_password": "Admin-1"},
                   inputs={"kafka_broker_super_users": ["User:ops", "User:admin"]})
    assert model["admin_connection"] == {
        "security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512", "sasl_username": "admin",
        "sasl_password": "Admin-1", "ssl_cafile": "/ctl/tls/ca.crt", "ssl_certfile": "/ctl/tls/clients/admin.crt",
        "ssl_keyfile": "/ctl/tls/clients/admin.key"}
    assert model["super_users"] == ["User:broker", "User:admin", "User:CN=b1", "User:CN=b2", "User:CN=b3",
                                    "User:ops"]
    assert model["scram_users"] == [{"name": "admin", "password": "Admin-1"}]
    assert (model["uses_tls"], model["uses_sasl"]) == (True, True)


def test_combined_kraft_lists_the_brokers_as_the_quorum():
    model = _model(inputs={"kafka_broker_combined": True}, settings={"kafka_broker_metadata_mode": "kraft"})
    assert model["quorum_servers"] == ["10.0.0.1:9093", "10.0.0.2:9093", "10.0.0.3:9093"]
    assert "User:ANONYMOUS" in model["super_users"]
    assert model["host_state"] == {
        "names": ["10.0.0.1", "10.0.0.2", "10.0.0.3"],
        "files": ["/u/kafka-broker-1.service", "/c/1/.restart-pending", "/d/1/meta.properties"],
        "settings": {"/c/1/server.properties": ["process.roles", "zookeeper.metadata.migration.enable"],
                     "/etc/kafka/zookeeper-client.jaas": []},
        "units": ["kafka-broker-1"]}
    assert model["protocol_map"].endswith(",CONTROLLER:PLAINTEXT")
    # The quorum is the brokers themselves: not a separate peer to resolve.
    assert set(model["peer_addresses"].values()) == {"kafka_broker_internal_host of b%d" % n for n in (1, 2, 3)}
    assert model["problems"] == []


def test_jmx_on_the_network_with_a_password_and_tls():
    model = _model(inputs={"kafka_broker_jmx_tls": True},
                   settings={"kafka_broker_jmx_bind_address": "0.0.0.0", "kafka_broker_jmx_password": "Jmx-1",
                             "kafka_broker_jmx_tls_keystore_password": "Store-1"})
    assert model["jmx_options"] == [
        "-Dcom.sun.management.jmxremote", "-Dcom.sun.management.jmxremote.host=0.0.0.0",
        "-Djava.rmi.server.hostname=b1.example", "-Dcom.sun.management.jmxremote.ssl=true",
        "-Dcom.sun.management.jmxremote.registry.ssl=true",
        "-Dcom.sun.management.jmxremote.ssl.config.file=/etc/kafka/jmx-tls.properties",
        "-Dcom.sun.management.jmxremote.authenticate=true",
        "-Dcom.sun.management.jmxremote.password.file=/etc/kafka/jmx.password",
        "-Dcom.sun.management.jmxremote.access.file=/etc/kafka/jmx.access"]
    assert model["uses_tls"] and model["problems"] == []


def test_a_host_outside_the_play_is_not_counted_nor_resolved():
    model = _model(cluster=_cluster(play_hosts=["b1", "b2"]))
    assert model["broker_count"] == 2 and "10.0.0.3" not in model["peer_addresses"]


PROBLEMS = [
    ({"cluster": _cluster(host_instances={"b1": [_instance(1)], "b2": [_instance(1)], "b3": [_instance(3)]})},
     "kafka_broker_id / kafka_broker_instances: broker ids must be unique across the cluster, these are used more"
     " than once: [1]"),
    ({"settings": {"kafka_broker_default_replication_factor": "4"}},
     "kafka_broker_default_replication_factor (4) and kafka_broker_internal_topics_replication_factor (3) must be"
     " within 1 and the number of brokers (3)"),
    ({"inputs": {"kafka_broker_min_insync_replicas": 0}}, "kafka_broker_min_insync_replicas (0) within 1"),
    ({"inputs": {"kafka_broker_features": {"metadata.version": "4.4-IV0"}}},
     "kafka_broker_features.metadata.version: must be a level number, not the release name '4.4-IV0'"),
    ({"inputs": {"kafka_broker_features": {"Group Version": 1}}},
     "kafka_broker_features.Group Version: is not a feature's name (such as transaction.version)"),
    ({"settings": {"kafka_broker_metadata_mode": "zk"}},
     "kafka_broker_metadata_mode: expected zookeeper, migration or kraft, got 'zk'"),
    ({"inputs": {"kafka_broker_combined": True}},
     "kafka_broker_combined: combined mode is a KRaft mode, but kafka_broker_metadata_mode is zookeeper"),
    ({"inputs": {"kafka_broker_combined": True}, "settings": {"kafka_broker_metadata_mode": "kraft"},
      "cluster": _cluster(controller_hosts=["c1"])},
     "kafka_broker_combined: the inventory has a kafka_controller group (dedicated controllers)"),
    ({"inputs": {"kafka_broker_combined": True}, "settings": {"kafka_broker_metadata_mode": "kraft"},
      "cluster": _cluster(instances=[_instance(1), _instance(4, 9093)])},
     "kafka_broker_combined: one broker per host in combined mode (the host is a controller too), b1 lists 2"),
    ({"inputs": {"kafka_broker_combined": True}, "settings": {"kafka_broker_metadata_mode": "kraft"},
      "cluster": _cluster(host_addresses={"b1": "10.0.0.1", "b3": "10.0.0.3"})},
     "kafka_broker_internal_host of b2: not known to this play"),
    ({"settings": {"kafka_broker_metadata_mode": "kraft"}},
     "kafka_broker_controller_quorum_servers: KRaft mode needs the controllers"),
    ({"settings": {"kafka_broker_cluster_id": "short"}},
     "kafka_broker_cluster_id: expected 22 characters of URL-safe base64"),
    ({"settings": {"kafka_broker_metadata_mode": "kraft", "kafka_broker_zookeeper_sasl_user": "kafka"},
      "inputs": {"kafka_broker_controller_quorum_servers": ["c1:9093"]}},
     "kafka_broker_zookeeper_sasl_user ('kafka'): a broker in KRaft mode has no ZooKeeper to log in to"),
    ({"settings": {"kafka_broker_zookeeper_connect": " "}},
     "kafka_broker_zookeeper_connect ('') must name at least one ZooKeeper server"),
    ({"settings": {"kafka_broker_zookeeper_chroot": "/kafka/"}},
     "kafka_broker_zookeeper_chroot ('/kafka/') must be empty or an absolute path without a trailing slash"),
    ({"cluster": _cluster(instances=[_instance(1500, properties={"reserved.broker.max.id": 1000})])},
     "reserved.broker.max.id must be at least the broker's id, or left out (the role then raises it for ids above"
     " 1000); got broker 1500: reserved.broker.max.id is 1000"),
    ({"inputs": {"kafka_broker_properties": {"unclean.leader.election.enable": True, "num.io.threads": 8}}},
     "kafka_broker_properties: unclean.leader.election.enable is set by kafka_broker_unclean_leader_election_enable;"
     " set it there instead"),
    ({"cluster": _cluster(instances=[_instance(1, properties={"min.insync.replicas": 2})])},
     "kafka_broker_instances[0].properties: min.insync.replicas is set by kafka_broker_min_insync_replicas; set it"
     " there instead"),
    ({"settings": {"kafka_broker_heap_size": "lots"}}, "kafka_broker_heap_size ('lots') must be a JVM size"),
    ({"settings": {"kafka_broker_internal_host": ""}},
     "kafka_broker_internal_host / kafka_broker_external_host must not be empty"),
    ({"inputs": {"kafka_broker_num_partitions": 0}}, "kafka_broker_num_partitions (0) must be at least 1"),
    ({"settings": {"kafka_broker_internal_security_protocol": "TLS"}},
     "kafka_broker_internal_security_protocol ('TLS') and kafka_broker_external_security_protocol ('PLAINTEXT')"
     " must each be PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"),
    ({"settings": {"kafka_broker_external_security_protocol": "SASL_SSL"}},
     "kafka_broker_admin_password: required by the SASL setting named beside it"),
    ({"settings": {"kafka_broker_internal_security_protocol": "SASL_SSL",
                   "kafka_broker_inter_broker_password": "two words"}},
     "kafka_broker_inter_broker_password: must not contain spaces"),
    ({"settings": {"kafka_broker_zookeeper_sasl_user": "kafka"}},
     "kafka_broker_zookeeper_sasl_password: required by the SASL setting named beside it"),
    ({"settings": {"kafka_broker_admin_user": "broker"}},
     "kafka_broker_inter_broker_user ('broker') and kafka_broker_admin_user ('broker') must be different names"),
    ({"settings": {"kafka_broker_jmx_bind_address": "0.0.0.0"}},
     "kafka_broker_jmx_bind_address ('0.0.0.0') other than loopback needs kafka_broker_jmx_password"),
    ({"inputs": {"kafka_broker_jmx_tls": True}, "settings": {"kafka_broker_jmx_password": "Monitor-Pass"}},
     "kafka_broker_jmx_tls (True) needs kafka_broker_jmx_password and kafka_broker_jmx_tls_keystore_password"),
    ({"settings": {"kafka_broker_internal_security_protocol": "SSL", "kafka_broker_tls_certificates": "provided",
                   "kafka_broker_tls_ca_file": "/nonexistent/ca.crt"}},
     "An SSL listener (or kafka_broker_jmx_tls) needs a CA, a certificate and a key: "
     "kafka_broker_tls_cert_file: not set; kafka_broker_tls_key_file: not set; "
     "kafka_broker_tls_ca_file: no such file on the controller"),
    ({"inputs": {"kafka_broker_authorizer_enabled": True}},
     "kafka_broker_authorizer_enabled: the INTERNAL and EXTERNAL listener(s) do not identify clients"),
]


@pytest.mark.parametrize("changes, sentence", PROBLEMS, ids=[case[1][:40] for case in PROBLEMS])
def test_each_problem_names_the_variable_and_the_reason(changes, sentence):
    problems = _model(**changes)["problems"]
    assert any(sentence in problem for problem in problems), problems


def test_provided_tls_files_that_exist_are_no_problem():
    files = {"/p/ca.crt", "/p/host.crt", "/p/host.key"}
    model = _model(settings={"kafka_broker_internal_security_protocol": "SSL",
                             "kafka_broker_tls_certificates": "provided",
                             "kafka_broker_tls_ca_file": "/p/ca.crt", "kafka_broker_tls_cert_file": "/p/host.crt",
                             "kafka_broker_tls_key_file": "/p/host.key"}, files=files)
    assert model["problems"] == []
    assert model["tls"]["source"]["cert"] == "/p/host.crt"


PROVIDED = {"kafka_broker_internal_security_protocol": "SSL", "kafka_broker_tls_certificates": "provided",
            "kafka_broker_tls_ca_file": "/p/ca.crt", "kafka_broker_tls_cert_file": "/p/host.crt",
            "kafka_broker_tls_key_file": "/p/host.key"}


def test_a_provided_certificate_of_another_key_is_a_problem_once_every_file_is_there():
    asked = []

    def mismatch(certificate_variable, certificate_path, key_variable, key_path):
        asked.append((certificate_variable, certificate_path, key_variable, key_path))
        return "%s: the certificate in %s does not match %s (%s)" % (
            certificate_variable, certificate_path, key_variable, key_path)

    files = {"/p/ca.crt", "/p/host.crt", "/p/host.key"}
    assert _model(settings=PROVIDED, files=files, key_problem=mismatch)["problems"] == [
        "An SSL listener (or kafka_broker_jmx_tls) needs a CA, a certificate and a key: kafka_broker_tls_cert_file: "
        "the certificate in /p/host.crt does not match kafka_broker_tls_key_file (/p/host.key)"]
    assert asked == [("kafka_broker_tls_cert_file", "/p/host.crt", "kafka_broker_tls_key_file", "/p/host.key")]
    # A file missing is said alone, and nothing is compared; generated certificates are not compared either.
    assert _model(settings=PROVIDED, files=files - {"/p/host.key"}, key_problem=mismatch)["problems"] == [
        "An SSL listener (or kafka_broker_jmx_tls) needs a CA, a certificate and a key: "
        "kafka_broker_tls_key_file: no such file on the controller"]
    assert _model(settings=dict(PROVIDED, kafka_broker_tls_certificates="generated"), key_problem=mismatch)[
        "problems"] == []
    assert len(asked) == 1


def test_each_bad_pin_is_its_own_problem_after_the_cluster_ones():
    problems = _model(inputs={"kafka_broker_min_insync_replicas": 0,
                              "kafka_broker_features": {"transaction.version": -2, "group.version": "x",
                                                        "share.version": 1}},
                      settings={"kafka_broker_heap_size": "lots"})["problems"]
    assert [problem.split(":")[0] for problem in problems] == [
        "kafka_broker_default_replication_factor (3) and kafka_broker_internal_topics_replication_factor (3) must be "
        "within 1 and the number of brokers (3), and kafka_broker_min_insync_replicas (0) within 1 and the default "
        "replication factor",
        "kafka_broker_features.group.version", "kafka_broker_features.transaction.version",
        "kafka_broker_heap_size ('lots') must be a JVM size such as 512m, kafka_broker_internal_host / "
        "kafka_broker_external_host must not be empty and kafka_broker_num_partitions (3) must be at least 1"]


def test_the_filter_words_provided_files_and_pins_as_their_own_filters_do(tmp_path):
    paths = mismatched_tls_files(tmp_path, "kafka1", "kafka_broker")
    pins = {"metadata.version": "4.4-IV0"}
    model = kafka_broker_host_model(dict(INPUTS, kafka_broker_features=pins), dict(SETTINGS, **dict(PROVIDED, **paths)),
                                    _cluster())
    mismatch = tls_file_problems(paths, certificate="kafka_broker_tls_cert_file", key="kafka_broker_tls_key_file")
    assert len(mismatch) == 1 and "does not match kafka_broker_tls_key_file" in mismatch[0]
    assert model["problems"] == [kafka_feature_pin_problems(pins),
                                 "An SSL listener (or kafka_broker_jmx_tls) needs a CA, a certificate and a key: "
                                 + mismatch[0]]


def test_the_expiry_warning_reads_the_certificates_the_role_deploys_by_what_they_are():
    assert _model()["tls"]["expiry_files"] == {"CA certificate": "/ctl/tls/ca.crt",
                                               "host certificate": "/ctl/tls/hosts/b1.crt",
                                               "admin client certificate": "/ctl/tls/clients/admin.crt"}
    provided = _model(settings=PROVIDED, files={"/p/ca.crt", "/p/host.crt", "/p/host.key"})
    assert list(provided["tls"]["expiry_files"].values()) == ["/p/ca.crt", "/p/host.crt", "/ctl/tls/clients/admin.crt"]


def test_the_authorizer_passes_when_anonymous_is_a_super_user_knowingly():
    model = _model(inputs={"kafka_broker_authorizer_enabled": True, "kafka_broker_super_users": ["User:ANONYMOUS"]})
    assert model["problems"] == []


TEMPLATES = {"kafka_log4j": "/t/log4j.j2", "kafka_log4j2": "/t/log4j2.j2", "kafka_prometheus": "/t/prometheus.j2",
             "zookeeper_client_jaas": "/t/jaas.j2"}


def _instance_with_folders(broker_id):
    return dict(_instance(broker_id), folder="/c/%d" % broker_id, restart_view="/c/%d/.view" % broker_id,
                log_folder="/l/%d" % broker_id, log_file="/l/%d/server.log" % broker_id)


def test_the_files_of_a_plain_broker_and_its_restart_paths():
    model = _model(settings={"kafka_broker_data_dir": "/d", "kafka_broker_log_dir": "/l"},
                   cluster=_cluster(instances=[_instance_with_folders(1)]))
    written = broker_files(model, TEMPLATES, log4j2=False)
    assert [(entry["dest"], entry["template"], entry["owner"], entry["group"], entry["mode"])
            for entry in written["files"]] == [
        ("/c/1/server.properties", "server.properties.j2", "root", "kafka", "0640"),
        ("/c/1/log4j.properties", "/t/log4j.j2", "root", "kafka", "0644"),
        ("/u/kafka-broker-1.service", "kafka-broker.service.j2", "root", "root", "0644")]
    assert written["files"][0]["sensitive"] is False
    assert [(folder["path"], folder["owner"], folder["mode"]) for folder in written["directories"]] == [
        ("/etc/kafka", "root", "0755"), ("/c/1", "root", "0755"), ("/d", "kafka", "0750"), ("/l", "kafka", "0750"),
        ("/d/1", "kafka", "0750"), ("/l/1", "kafka", "0750")]
    assert written["restart_paths"] == {"kafka-broker-1": [
        "/c/1/server.properties", "/c/1/log4j.properties", "/u/kafka-broker-1.service", "/etc/kafka/tls/ca.crt",
        "/etc/kafka/tls/broker.pem", "/etc/kafka/zookeeper-client.jaas", "/etc/kafka/jmx.password",
        "/etc/kafka/jmx-tls.properties"]}


def test_a_secured_kraft_broker_writes_its_restart_view_and_host_files():
    model = _model(inputs={"kafka_broker_jmx_tls": True, "kafka_broker_prometheus_enabled": True,
                           "kafka_broker_controller_quorum_servers": ["c1:9093"]},
                   settings={"kafka_broker_metadata_mode": "kraft",
                             "kafka_broker_internal_security_protocol": "SASL_SSL",
                             "kafka_broker_inter_broker_password": "Inter-1", "kafka_broker_jmx_password": "Jmx-1",
                             "kafka_broker_jmx_tls_keystore_password": "Store-1"},
                   cluster=_cluster(instances=[_instance_with_folders(1)]))
    assert model["problems"] == []
    written = broker_files(model, TEMPLATES, log4j2=True)
    assert [entry["dest"] for entry in written["files"]] == [
        "/c/1/server.properties", "/c/1/log4j2.properties", "/u/kafka-broker-1.service", "/c/1/.view",
        "/etc/kafka/tls/ca.crt", "/etc/kafka/tls/broker.pem", "/etc/kafka/jmx.password", "/etc/kafka/jmx.access",
        "/etc/kafka/jmx-tls.properties", "/etc/kafka/prometheus.yml"]
    assert written["files"][3]["template_vars"]["restart_view"] is True
    assert all(entry.get("sensitive") for entry in written["files"] if entry["dest"].endswith(("pem", "password")))
    assert written["restart_paths"]["kafka-broker-1"][0] == "/c/1/.view"
    assert written["directories"][-1] == {"path": "/etc/kafka/tls", "owner": "root", "group": "kafka", "mode": "0750"}


# What the role works out from the model later: the host's read, the restart decisions, the installed Kafka, the
# storage format, the node state, the decommission's cluster tool and the waits around each restart.

def _full_instance(broker_id, port=9092):
    return dict(_instance_with_folders(broker_id), port=port, log_dirs=["/d/%d" % broker_id, "/e/%d" % broker_id])


KRAFT = {"settings": {"kafka_broker_metadata_mode": "kraft", "kafka_broker_java_executable": "/usr/bin/java"},
         "inputs": {"kafka_broker_controller_quorum_servers": ["c1:9093", "c2:9093"]}}


def _kraft_model(combined=False, instances=None, **settings):
    inputs = dict(KRAFT["inputs"])
    if combined:
        inputs = {"kafka_broker_combined": True}
    return _model(inputs=inputs, settings=dict(KRAFT["settings"], **settings),
                  cluster=_cluster(instances=instances or [_full_instance(1)]))


@pytest.mark.parametrize("protocol, ca_file", [
    ("PLAINTEXT", ""), ("SASL_PLAINTEXT", ""), ("SSL", "/ctl/tls/ca.crt"), ("SASL_SSL", "/ctl/tls/ca.crt")])
def test_the_migration_peer_is_the_brokers_internal_login_and_their_ca_with_tls(protocol, ca_file):
    model = _model(settings={"kafka_broker_internal_security_protocol": protocol, "kafka_broker_zookeeper_sasl_user":
                             "kafka", "kafka_broker_zookeeper_sasl_password": "Zk-1",
                             "kafka_broker_inter_broker_password": "Inter-1"})
    assert model["migration_peer"] == {
        "internal_protocol": protocol, "internal_client_auth": "none", "sasl_mechanism": "SCRAM-SHA-512",
        "inter_broker_user": "broker", "inter_broker_password": "Inter-1", "ca_file": ca_file,
        "zookeeper_sasl_user": "kafka", "zookeeper_sasl_password": "Zk-1"}


def test_node_state_reads_each_brokers_unit_marker_and_mode_settings():
    model = _model(cluster=_cluster(instances=[_instance(1), _instance(2, 9093)]))
    settings = ["process.roles", "zookeeper.metadata.migration.enable", "zookeeper.connect",
                "inter.broker.protocol.version", "metadata.log.dir"]
    assert model["node_state"] == {
        "files": ["/u/kafka-broker-1.service", "/u/kafka-broker-2.service", "/c/1/.restart-pending",
                  "/c/2/.restart-pending"],
        "settings": {"/c/1/server.properties": settings, "/c/2/server.properties": settings},
        "units": ["kafka-broker-1", "kafka-broker-2"],
        "unit_files": ["/u/kafka-broker-1.service", "/u/kafka-broker-2.service"]}


@pytest.mark.parametrize("named, registered, leaving, unregistered", [
    (None, None, [], []),
    ([2], None, [2], []),
    ([1, 2, 7], [2], [1, 2], [2]),
    ([7], [7], [], []),
])
def test_decommission_takes_the_named_brokers_of_this_host(named, registered, leaving, unregistered):
    inputs = {}
    if named is not None:
        inputs["kafka_broker_decommission_ids"] = named
    if registered is not None:
        inputs["kafka_broker_decommission_registered"] = registered
    model = _model(inputs=inputs, cluster=_cluster(instances=[_full_instance(1), _full_instance(2, 9093)]))
    found = model["decommission"]
    assert [item["broker_id"] for item in found["brokers"]] == leaving
    assert found["unit_files"] == ["/u/kafka-broker-%d.service" % broker for broker in leaving]
    assert found["log_dirs"] == [path for broker in leaving for path in ("/d/%d" % broker, "/e/%d" % broker)]
    assert [item["broker_id"] for item in found["registered"]] == unregistered


def _read_settings(**modes):
    """host_state_info's settings result: broker id -> None (no file) or its settings."""
    return {"/c/%s/server.properties" % broker: {"exists": found is not None, "values": found or {}}
            for broker, found in modes.items()}


@pytest.mark.parametrize("found, wanted, change", [
    ({"1": None}, "zookeeper", ""),
    ({"1": {}}, "zookeeper", ""),
    ({"1": {"process.roles": "broker"}}, "kraft", ""),
    ({"1": {"zookeeper.metadata.migration.enable": " TRUE "}}, "migration", ""),
    ({"1": {"zookeeper.metadata.migration.enable": "true"}}, "zookeeper",
     "broker 1 runs in migration mode, the run asks for zookeeper"),
    ({"1": {"process.roles": "broker"}, "2": {}}, "migration",
     "broker 1 runs in kraft mode, the run asks for migration; broker 2 runs in zookeeper mode, the run asks for "
     "migration"),
])
def test_the_read_names_each_broker_in_another_metadata_mode(found, wanted, change):
    instances = [_instance(int(broker), 9090 + int(broker)) for broker in found]
    settings = {"kafka_broker_metadata_mode": wanted}
    inputs = {"kafka_broker_controller_quorum_servers": ["c1:9093"]}
    model = _model(inputs=inputs, settings=settings, cluster=_cluster(instances=instances))
    read = {"files": {}, "settings": _read_settings(**found), "units": {}}
    assert host_state(model, read)["mode_change"] == change


@pytest.mark.parametrize("combined, meta, active, node", [
    (False, None, "inactive", {"meta": "", "active": False, "controller_address": ""}),
    (False, "cluster.id=X\n", "active", {"meta": "cluster.id=X\n", "active": True, "controller_address": ""}),
    (True, "", "activating", {"meta": "", "active": False, "controller_address": "10.0.0.1:9093"}),
])
def test_the_read_gives_kraft_brokers_storage_to_the_plan(combined, meta, active, node):
    model = _kraft_model(combined=combined)
    read = {"files": {"/d/1/meta.properties": {"exists": meta is not None, "content": meta}},
            "settings": {}, "units": {"kafka-broker-1": {"active_state": active}}}
    assert host_state(model, read)["storage_nodes"] == [dict(node, host="b1", node_id=1)]


def test_a_zookeeper_mode_read_has_no_storage_for_the_plan():
    assert host_state(_model(), {"files": {}, "settings": {}, "units": {}})["storage_nodes"] == []


@pytest.mark.parametrize("marker, unit, changed, keystore, before, exists, new_marker", [
    (False, False, ["/c/1/server.properties"], False, "", False, False),  # a new broker: just started
    (False, True, [], False, "zookeeper", False, False),  # nothing changed
    (False, True, ["/c/1/server.properties"], False, "zookeeper", True, True),
    (False, True, ["/c/2/server.properties"], False, "zookeeper", False, False),  # another broker's file
    (False, True, ["/etc/kafka/tls/broker.pem"], False, "zookeeper", True, True),  # a host file of its restart paths
    (False, True, [], True, "zookeeper", True, True),  # a new JMX key store
    (False, True, [], False, "migration", True, True),  # a migration's step
    (True, False, [], False, "", True, False),  # an earlier run's marker: restarted, no new marker
    (True, True, ["/c/1/server.properties"], False, "zookeeper", True, False),
])
def test_restart_decisions(marker, unit, changed, keystore, before, exists, new_marker):
    model = _model(cluster=_cluster(instances=[_instance_with_folders(1)]))
    write = broker_files(model, TEMPLATES, log4j2=False)
    read = {"files": {"/c/1/.restart-pending": {"exists": marker}, "/u/kafka-broker-1.service": {"exists": unit}},
            "settings": _read_settings(**{"1": None if not before else (
                {"zookeeper.metadata.migration.enable": "true"} if before == "migration" else {})})}
    found = restart_decisions(model, read, write["restart_paths"], changed, keystore)
    assert found["decisions"] == [{"instance": model["instances"][0], "marker": "/c/1/.restart-pending",
                                   "marker_found": marker, "stat": {"exists": exists}}]
    assert found["new_markers"] == (["/c/1/.restart-pending"] if new_marker else [])


MIGRATION_VERSION = ("kafka_distribution_archive_src / kafka_distribution_archive_url: the migration to KRaft runs on"
                     " Kafka 3.9 (the last release with ZooKeeper mode and the migration), this archive holds Kafka ")
KRAFT_VERSION = ("kafka_distribution_archive_src / kafka_distribution_archive_url: Kafka %s cannot run KRaft mode as"
                 " kafka_broker sets it up (a dynamic quorum): use Kafka 3.9 or later")
ZOOKEEPER_VERSION = ("kafka_distribution_archive_src / kafka_distribution_archive_url: Kafka %s has no ZooKeeper mode"
                     " (removed in 4.0), and kafka_broker_metadata_mode is zookeeper: use a 3.9.x archive, or KRaft"
                     " mode (a kafka_controller group, or kafka_broker_combined)")


@pytest.mark.parametrize("mode, version, problem", [
    ("zookeeper", "3.9.1", ""), ("zookeeper", "3.6.0", ""), ("zookeeper", "", ""),
    ("zookeeper", "4.0.0", ZOOKEEPER_VERSION % "4.0.0"), ("zookeeper", "4.4.0", ZOOKEEPER_VERSION % "4.4.0"),
    ("migration", "3.9.2", ""), ("migration", "3.8.1", MIGRATION_VERSION + "3.8.1"),
    ("migration", "4.1.0", MIGRATION_VERSION + "4.1.0"), ("migration", "", MIGRATION_VERSION + "of unknown version"),
    ("kraft", "3.9.0", ""), ("kraft", "4.4.0", ""), ("kraft", "3.8.1", KRAFT_VERSION % "3.8.1"),
    ("kraft", "", KRAFT_VERSION % "of unknown version"),
])
def test_the_installed_kafka_runs_the_mode_asked_for(mode, version, problem):
    model = _model(inputs={"kafka_broker_controller_quorum_servers": ["c1:9093"]},
                   settings={"kafka_broker_metadata_mode": mode}, cluster=_cluster(instances=[_full_instance(1)]))
    assert installed(model, version, "/opt/kafka/libs/*", version_compare)["version_problem"] == problem


@pytest.mark.parametrize("version, release_set, log4j2, release", [
    ("3.9.1", "", False, "3.9"), ("4.4.0", "", True, "4.4"), ("4.1.1", "3.9-IV0", True, "3.9-IV0"),
])
def test_the_installed_kafka_gives_logging_release_and_the_feature_tool(version, release_set, log4j2, release):
    model = _kraft_model(combined=True, instances=[_full_instance(1)], kafka_broker_release_version=release_set)
    found = installed(model, version, "/opt/k/libs/*", version_compare)
    assert (found["log4j2"], found["release_version"]) == (log4j2, release)
    option = ("-Dlog4j2.configurationFile=/c/1/log4j2.properties" if log4j2
              else "-Dlog4j.configuration=file:/c/1/log4j.properties")
    assert found["feature_tool"] == [
        "/usr/bin/java", "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", option, "-Dkafka.logs.dir=/l/1",
        "-cp", "/opt/k/libs/*", "org.apache.kafka.tools.FeatureCommand", "--bootstrap-controller",
        "10.0.0.1:9093,10.0.0.2:9093,10.0.0.3:9093"]


def test_an_unknown_version_gives_no_logging_nor_tool():
    found = installed(_model(), "", "", version_compare)
    assert "log4j2" not in found and "feature_tool" not in found and found["version_problem"] == ""


def _scram_arguments(users, mechanism, iterations):
    return ["--add-scram", "%s:%s:%d" % (",".join(user["name"] for user in users), mechanism, iterations)]


@pytest.mark.parametrize("combined, new_quorum, voters", [
    (True, True, ["--initial-controllers", "1@10.0.0.1:9093:D", "--add-scram", "broker,admin:SCRAM-SHA-256:8192"]),
    (True, False, ["--no-initial-controllers"]),
    (False, True, ["--no-initial-controllers"]),
])
def test_the_storage_format_of_the_brokers_the_plan_formats(combined, new_quorum, voters):
    secured = {"kafka_broker_internal_security_protocol": "SASL_PLAINTEXT", "kafka_broker_inter_broker_password": "I-1",
               "kafka_broker_external_security_protocol": "SASL_SSL", "kafka_broker_admin_password": "A-1",
               "kafka_broker_sasl_mechanism": "SCRAM-SHA-256"}
    model = _kraft_model(combined=combined, instances=[_full_instance(1), _full_instance(2, 9093)], **secured)
    storage = {"cluster_id": "-startsWithADash012345", "new_quorum": new_quorum,
               "initial_controllers": "1@10.0.0.1:9093:D", "format": {"b1": [2], "b2": [1]}}
    found = storage_format(model, {"log4j2": True, "classpath": "/k/libs/*", "release_version": "4.4"}, storage,
                           _scram_arguments)
    assert found["brokers"] == [{"broker_id": 2, "argv": [
        "/usr/bin/java", "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-Dlog4j2.configurationFile=/c/2/log4j2.properties", "-Dkafka.logs.dir=/l/2", "-cp", "/k/libs/*",
        "kafka.tools.StorageTool", "format", "--config", "/c/2/server.properties",
        "--cluster-id=-startsWithADash012345", "--release-version", "4.4"] + voters}]
    assert found["folders"] == ["/d/2", "/e/2", "/l/2"]
    assert found["secret"] is combined


def test_nothing_to_format_on_a_host_the_plan_leaves_alone():
    found = storage_format(_kraft_model(), {"log4j2": True, "classpath": "", "release_version": "4.4"},
                           {"format": {"b2": [2]}, "new_quorum": True}, _scram_arguments)
    assert (found["brokers"], found["folders"]) == ([], [])


UNIT_3_9 = "ExecStart=/usr/bin/java -Xmx1g -cp /opt/kafka_2.13-3.9.1/libs/* kafka.Kafka /c/1/server.properties\n"


def test_node_state_of_each_broker():
    model = _model(cluster=_cluster(instances=[_full_instance(1), _full_instance(2, 9093)]))
    read = {"files": {"/u/kafka-broker-1.service": {"exists": True, "content": UNIT_3_9},
                      "/u/kafka-broker-2.service": {"exists": False, "content": None},
                      "/c/1/.restart-pending": {"exists": True}, "/c/2/.restart-pending": {"exists": False}},
            "settings": _read_settings(**{"1": {"zookeeper.metadata.migration.enable": "true",
                                                "zookeeper.connect": "z1:2181"}, "2": None}),
            "units": {"kafka-broker-1": {"active_state": "active"}, "kafka-broker-2": {"active_state": "inactive"}}}
    markers = {"files": {"/opt/kafka_2.13-3.9.1/.kafkaops-installed": {"content": '{"version": "3.9.1"}\n'}}}
    assert node_state(model, read, markers) == [
        {"host": "b1", "broker_id": 1, "mode": "migration",
         "properties": {"zookeeper.metadata.migration.enable": "true", "zookeeper.connect": "z1:2181"},
         "active": True, "unit_state": "active", "restart_pending": True, "version": "3.9.1",
         "log_dirs": ["/d/1", "/e/1"]},
        {"host": "b1", "broker_id": 2, "mode": "", "properties": {}, "active": False, "unit_state": "inactive",
         "restart_pending": False, "version": "", "log_dirs": ["/d/2", "/e/2"]}]


@pytest.mark.parametrize("units, classpath", [
    ({"/u/1": {"content": None}, "/u/2": {"content": UNIT_3_9}}, "/opt/kafka_2.13-3.9.1/libs/*"),
    ({"/u/1": {"content": "no classpath here"}, "/u/2": {"content": UNIT_3_9}}, ""),
    ({}, ""),
])
def test_unregister_commands_run_the_kafka_the_units_ran(units, classpath):
    model = _kraft_model(instances=[_full_instance(1), _full_instance(2, 9093)])
    model["decommission"]["registered"] = model["instances"]
    assert unregister_commands(model, {"files": units}) == [
        {"broker_id": broker, "argv": [
            "/usr/bin/java", "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classpath,
            "org.apache.kafka.tools.ClusterTool", "unregister", "--bootstrap-controller", "c1:9093,c2:9093",
            "--id", str(broker)]}
        for broker in (1, 2)]


def test_each_restart_waits_on_its_brokers_address_and_its_hosts_timeout():
    order = [{"host": "b1", "instance": {"broker_id": 1, "port": 9092}},
             {"host": "b2", "instance": {"broker_id": 3, "port": 9092}},
             {"host": "b2", "instance": {"broker_id": 2, "port": 19092}}]
    addresses = {"b1": ["b1.example:9092"], "b2": ["b2.example:19092", "b2.example:9092"]}
    found = restart_waits(order, addresses, {"b1": 600, "b2": "900"})
    assert [(item["bootstrap_servers"], item["timeout"]) for item in found] == [
        (["b1.example:9092"], 600), (["b2.example:9092"], "900"), (["b2.example:19092"], "900")]
    assert found[0]["instance"] == order[0]["instance"]


def test_the_model_carries_the_typed_inputs_the_tasks_and_templates_read_after_preflight():
    model = _model(inputs={"kafka_broker_min_insync_replicas": 2, "kafka_broker_properties": {"num.io.threads": "2"}})
    assert model["inputs"] == dict(INPUTS, kafka_broker_min_insync_replicas=2,
                                   kafka_broker_properties={"num.io.threads": "2"})
