"""The zookeeper role's host model as plain data in, plain data out: values, each preflight problem in the words of
the asserts it replaced, the ensemble's ids, the files to write and the order of restarts."""

import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.filter.certificates import tls_file_problems
from ansible_collections.kafkaops.cluster.plugins.filter.kafka_broker import (
    unresolved_addresses,
    zookeeper_client_address,
)
from ansible_collections.kafkaops.cluster.plugins.filter.zookeeper import (
    zookeeper_ensemble_problems,
    zookeeper_files,
    zookeeper_host_model,
    zookeeper_restart_order,
)
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._zookeeper_host_model import (
    ensemble_ids,
    ensemble_problems,
    host_model,
    node_id,
    restart_order,
)
from ansible_collections.kafkaops.cluster.tests.unit.plugins.certificate_samples import mismatched_tls_files

HOSTS = ["z1", "z2", "z3"]
INPUTS = {
    "zookeeper_hosts": HOSTS, "zookeeper_client_port": 2181, "zookeeper_peer_port": 2888,
    "zookeeper_election_port": 3888, "zookeeper_four_letter_words": ["ruok", "srvr", "mntr"],
    "zookeeper_sasl_required": False, "zookeeper_quorum_tls": False, "zookeeper_quorum_tls_port_unification": False,
    "zookeeper_prometheus_enabled": False, "zookeeper_jvm_options": ["-XX:+UseG1GC", "-Xss1m"],
    "zookeeper_wait_timeout": 120,
}
SETTINGS = {
    "zookeeper_config_dir": "/etc/zookeeper", "zookeeper_data_dir": "/var/lib/zookeeper",
    "zookeeper_log_dir": "/var/log/zookeeper", "zookeeper_service_name": "zookeeper", "zookeeper_user": "zookeeper",
    "zookeeper_group": "zookeeper", "zookeeper_heap_size": "256m", "zookeeper_peer_address": "10.0.0.1",
    "zookeeper_sasl_users": {}, "zookeeper_tls_certificates": "generated", "zookeeper_tls_dir": "/ctl/tls",
    "zookeeper_tls_ca_file": "", "zookeeper_tls_cert_file": "", "zookeeper_tls_key_file": "",
}
HOST_VARIABLES = {"z1": {"ansible_host": "10.0.0.1"}, "z2": {"ansible_host": "10.0.0.2", "zookeeper_peer_port": 2889},
                  "z3": {"zookeeper_peer_address": "zk-3.example", "ansible_host": "10.0.0.3"}}
PROVIDED = {"zookeeper_tls_certificates": "provided", "zookeeper_tls_ca_file": "/p/ca.crt",
            "zookeeper_tls_cert_file": "/p/node.crt", "zookeeper_tls_key_file": "/p/node.key"}


def _no_key_problem(certificate_variable, certificate_path, key_variable, key_path):
    return None


def _model(inputs=None, settings=None, host="z1", host_variables=None, facts=None, files=(),
           key_problem=_no_key_problem):
    cluster = {"host": host, "host_variables": HOST_VARIABLES if host_variables is None else host_variables,
               "facts": {"default_ipv4": {"address": "192.0.2.7"}} if facts is None else facts}
    return host_model(dict(INPUTS, **(inputs or {})), dict(SETTINGS, **(settings or {})), cluster,
                      lambda path: path in files, key_problem)


def _state(myid=None, names=None):
    """What host_state_info reads on a node: its myid (None: no file) and the names it resolves."""
    return {"files": {"/var/lib/zookeeper/myid": {"exists": myid is not None, "content": myid}},
            "names": names if names is not None else {"10.0.0.1": ["10.0.0.1"]}}


def _nodes(myids=None, names=None, **models):
    """hostvars as the ensemble's checks read them: each node's published model and state."""
    myids = myids or {}
    names = names or {}
    return {host: {"__zookeeper_model": models.get(host) or _model(host=host),
                   "__zookeeper_state": _state(myids.get(host), names.get(host))} for host in HOSTS}


def test_a_node_of_three():
    model = _model()
    assert model["problems"] == []
    assert model["servers"] == [
        {"host": "z1", "address": "10.0.0.1", "peer_port": 2888, "election_port": 3888},
        {"host": "z2", "address": "10.0.0.2", "peer_port": 2889, "election_port": 3888},
        {"host": "z3", "address": "zk-3.example", "peer_port": 2888, "election_port": 3888}]
    assert model["peer_addresses"] == {"10.0.0.1": "zookeeper_peer_address of z1",
                                       "10.0.0.2": "zookeeper_peer_address of z2",
                                       "zk-3.example": "zookeeper_peer_address of z3"}
    assert (model["position"], model["pinned_id"], model["unit"]) == (1, None, "zookeeper")
    assert model["paths"] == {
        "config_file": "/etc/zookeeper/zoo.cfg", "logging": "/etc/zookeeper/log4j.properties",
        "myid": "/var/lib/zookeeper/myid", "unit_file": "/etc/systemd/system/zookeeper.service",
        "restart_marker": "/etc/zookeeper/.restart-pending", "server_jaas": "/etc/zookeeper/zookeeper-server.jaas",
        "prometheus_rules": "/etc/zookeeper/prometheus.yml", "log_file": "/var/log/zookeeper/zookeeper.log"}
    assert model["java_options"] == ("-Xms256m -Xmx256m -XX:+UseG1GC -Xss1m -Dzookeeper.log.dir=/var/log/zookeeper "
                                     "-Dlog4j.configuration=file:/etc/zookeeper/log4j.properties")
    assert model["wait"] == {"port": 2181, "timeout": 120, "service": "zookeeper",
                             "log_file": "/var/log/zookeeper/zookeeper.log"}
    assert model["host_state"] == {"names": ["10.0.0.1", "10.0.0.2", "zk-3.example"],
                                   "files": ["/var/lib/zookeeper/myid", "/etc/systemd/system/zookeeper.service",
                                             "/etc/zookeeper/.restart-pending"]}
    assert (model["sasl"], model["tls"]["stores"], model["tls"]["issue"]) == (False, False, False)


def test_the_quorum_tls_files_and_the_certificate_names():
    model = _model(inputs={"zookeeper_quorum_tls_port_unification": True})
    tls = model["tls"]
    assert (tls["stores"], tls["quorum"], tls["port_unification"], tls["issue"]) == (True, False, True, True)
    assert tls["source"] == {"ca": "/ctl/tls/ca.crt", "cert": "/ctl/tls/zookeeper/z1.crt",
                             "key": "/ctl/tls/zookeeper/z1.key"}
    assert (tls["host_dir"], tls["truststore"], tls["keystore"]) == (
        "/etc/zookeeper/tls", "/etc/zookeeper/tls/ca.crt", "/etc/zookeeper/tls/zookeeper.pem")
    assert tls["expiry_files"] == {"CA certificate": "/ctl/tls/ca.crt", "node certificate": "/ctl/tls/zookeeper/z1.crt"}
    # The inventory name, the peer address and the default IPv4 address, each once; no address without the facts.
    assert tls["subject_names"] == ["z1", "10.0.0.1", "192.0.2.7"]
    assert _model(settings={"zookeeper_peer_address": "z1"}, facts={})["tls"]["subject_names"] == ["z1"]
    provided = _model(inputs={"zookeeper_quorum_tls": True}, settings=PROVIDED,
                      files={"/p/ca.crt", "/p/node.crt", "/p/node.key"})
    assert provided["problems"] == [] and not provided["tls"]["issue"]
    assert provided["tls"]["source"] == {"ca": "/p/ca.crt", "cert": "/p/node.crt", "key": "/p/node.key"}


def test_a_single_node_names_no_peers_and_paths_keep_the_folders_as_given():
    model = _model(inputs={"zookeeper_hosts": ["z1"], "zookeeper_jvm_options": []},
                   settings={"zookeeper_config_dir": "/srv/zk/", "zookeeper_service_name": "zk"})
    assert (model["servers"], model["peer_addresses"], model["problems"]) == ([], {}, [])
    assert model["host_state"]["names"] == []
    assert model["paths"]["config_file"] == "/srv/zk//zoo.cfg"
    assert model["paths"]["unit_file"] == "/etc/systemd/system/zk.service"
    # Without options, the unit's command line keeps the two spaces it always had.
    assert model["java_options"].startswith("-Xms256m -Xmx256m  -Dzookeeper.log.dir=")


def test_a_member_the_inventory_lacks_is_reached_by_its_name():
    model = _model(host_variables={"z1": {}, "z2": {}})
    assert [server["address"] for server in model["servers"]] == ["z1", "z2", "z3"]


SASL = ("zookeeper_sasl_users: each user name must be letters, digits, '.', '_' or '-' and each password non-empty "
        "without spaces, quotes or backslashes; not so for %s; zookeeper_sasl_required needs at least one user")
PORTS = ("zookeeper_client_port / zookeeper_peer_port / zookeeper_election_port: must be three different ports in "
         "1-65535, got %s")
QUORUM_TLS = ("zookeeper_quorum_tls (or zookeeper_quorum_tls_port_unification) needs a CA, a certificate and a key for "
              "every node: %s")
# Each refusal word for word as the role's asserts had it (molecule/shared/tests/test_bad_input.py matches them).
PROBLEMS = [
    ({"inputs": {"zookeeper_hosts": ["z2", "z3", "z4"]}},
     "zookeeper_hosts: z1 runs the zookeeper role but is not listed in ['z2', 'z3', 'z4']"),
    ({"inputs": {"zookeeper_hosts": ["z1", "another-node"]}},
     "zookeeper_hosts: an ensemble needs an odd number of nodes (1, 3 or 5) to keep a majority, got 2: "
     "['z1', 'another-node']"),
    ({"inputs": {"zookeeper_client_port": 2888}}, PORTS % "2888 / 2888 / 3888"),
    ({"inputs": {"zookeeper_election_port": 70000}}, PORTS % "2181 / 2888 / 70000"),
    ({"inputs": {"zookeeper_client_port": 0}}, PORTS % "0 / 2888 / 3888"),
    ({"settings": {"zookeeper_heap_size": "lots"}},
     "zookeeper_heap_size: expected a JVM size such as 256m or 1g, got 'lots'"),
    ({"inputs": {"zookeeper_four_letter_words": ["ruok", "mntr"]}},
     "zookeeper_four_letter_words: must include ruok and srvr (the role waits on them), got ['ruok', 'mntr']"),
    ({"settings": {"zookeeper_sasl_users": {"kafka": ""}}}, SASL % "kafka"),
    ({"settings": {"zookeeper_sasl_users": {"two words": "ok", "kafka": 'say "hi"', "app": "back\\slash",
                                            "tab": "a\tb"}}}, SASL % "two words, kafka, app, tab"),
    ({"inputs": {"zookeeper_sasl_required": True}}, SASL % "(none)"),
    ({"inputs": {"zookeeper_quorum_tls": True},
      "settings": {"zookeeper_tls_certificates": "provided", "zookeeper_tls_key_file": "/nonexistent"}},
     QUORUM_TLS % "zookeeper_tls_ca_file: not set; zookeeper_tls_cert_file: not set; zookeeper_tls_key_file: no such "
     "file on the controller"),
    ({"inputs": {"zookeeper_quorum_tls_port_unification": True}, "settings": dict(PROVIDED, zookeeper_tls_ca_file="")},
     QUORUM_TLS % "zookeeper_tls_ca_file: not set; zookeeper_tls_cert_file: no such file on the controller; "
     "zookeeper_tls_key_file: no such file on the controller"),
]


@pytest.mark.parametrize("changes, sentence", PROBLEMS, ids=[case[1][:40] for case in PROBLEMS])
def test_each_problem_is_the_sentence_its_assert_said(changes, sentence):
    assert _model(**changes)["problems"] == [sentence]


def test_sasl_users_that_fit_and_files_only_checked_when_provided_for_tls():
    assert _model(settings={"zookeeper_sasl_users": {"kafka": "Secret-1", "app.user_2": "x-y"}},
                  inputs={"zookeeper_sasl_required": True})["problems"] == []
    # Provided files without quorum TLS are not looked at.
    assert _model(settings=dict(PROVIDED, zookeeper_tls_ca_file=""))["problems"] == []


def test_problems_come_in_the_order_the_asserts_ran():
    problems = _model(inputs={"zookeeper_hosts": ["z2", "z3"], "zookeeper_peer_port": 2181},
                      settings={"zookeeper_heap_size": "1 g"})["problems"]
    assert [problem.split(":")[0] for problem in problems] == [
        "zookeeper_hosts", "zookeeper_hosts", "zookeeper_client_port / zookeeper_peer_port / zookeeper_election_port",
        "zookeeper_heap_size"]


def test_a_provided_certificate_of_another_key_is_refused_as_tls_file_problems_words_it(tmp_path):
    paths = mismatched_tls_files(tmp_path, "z1", "zookeeper")
    model = zookeeper_host_model(dict(INPUTS, zookeeper_quorum_tls=True),
                                 dict(SETTINGS, zookeeper_tls_certificates="provided", **paths),
                                 {"host": "z1", "hostvars": HOST_VARIABLES, "facts": {}})
    mismatch = tls_file_problems(paths, certificate="zookeeper_tls_cert_file", key="zookeeper_tls_key_file")
    assert len(mismatch) == 1 and "does not match zookeeper_tls_key_file" in mismatch[0]
    assert model["problems"] == ["zookeeper_quorum_tls (or zookeeper_quorum_tls_port_unification) needs a CA, a "
                                 "certificate and a key for every node: " + mismatch[0]]


@pytest.mark.parametrize("pinned, myid, expected", [
    (7, "3\n", 7), (None, "3\n", 3), (None, " 12 \n", 12), (None, None, 2), (None, "", 0), (None, "x", 0),
    ("9", None, 9),
])
def test_a_node_id_is_the_pinned_one_else_the_one_on_the_node_else_its_place(pinned, myid, expected):
    model = _model(host="z2", inputs={"zookeeper_id": pinned} if pinned is not None else {})
    state = {"files": {"/var/lib/zookeeper/myid": {"exists": myid is not None, "content": myid}}}
    assert node_id(model, state) == expected


def test_the_ensemble_ids_of_nodes_outside_the_play_are_their_places():
    nodes = _nodes(myids={"z1": "5\n"})
    del nodes["z3"]
    assert ensemble_ids(HOSTS, nodes) == {"z1": 5, "z2": 2, "z3": 3}


def test_the_ensemble_refuses_repeated_ids_and_unresolved_peers():
    model = _model()
    assert ensemble_problems(model, HOSTS, _nodes()) == []
    repeated = _nodes(myids={"z1": "2"})
    assert ensemble_problems(model, ["z1", "z2"], repeated) == [
        "zookeeper_id: every node needs its own id in 1-255; the ensemble would get {'z1': 2, 'z2': 2}"]
    assert ensemble_problems(model, ["z2", "z3"], _nodes(myids={"z3": "256"})) == [
        "zookeeper_id: every node needs its own id in 1-255; the ensemble would get {'z2': 2, 'z3': 256}"]
    unresolved = _nodes(names={"z2": {"10.0.0.1": [], "zk-3.example": ["10.0.0.3"]}})
    assert ensemble_problems(model, HOSTS, unresolved) == [
        "zookeeper_peer_address: z2 cannot resolve '10.0.0.1' (zookeeper_peer_address of z1). ZooKeeper nodes reach "
        "each other (and brokers reach them) by these addresses: set zookeeper_peer_address of those nodes to an "
        "address every node resolves (an IP address, or a name in DNS or /etc/hosts), or make the names resolvable."]
    assert unresolved_addresses({"z2": {"10.0.0.1": []}}, model["peer_addresses"]) == [
        "z2 cannot resolve '10.0.0.1' (zookeeper_peer_address of z1)"]


TEMPLATES = {"zookeeper_prometheus": "/t/zookeeper-prometheus.yml.j2"}


def test_the_files_of_a_plain_node_and_its_restart_paths():
    written = zookeeper_files(_model(), TEMPLATES, _nodes(myids={"z2": "12\n"}))
    assert written["files"][0] == {"dest": "/var/lib/zookeeper/myid", "content": "1", "owner": "zookeeper",
                                   "group": "zookeeper", "mode": "0640"}
    assert [(entry["dest"], entry.get("template"), entry["owner"], entry["group"], entry["mode"])
            for entry in written["files"][1:]] == [
        ("/etc/zookeeper/zoo.cfg", "zoo.cfg.j2", "root", "zookeeper", "0640"),
        ("/etc/zookeeper/log4j.properties", "log4j.properties.j2", "root", "zookeeper", "0644"),
        ("/etc/systemd/system/zookeeper.service", "zookeeper.service.j2", "root", "root", "0644")]
    assert [server["id"] for server in written["files"][1]["template_vars"]["servers"]] == [1, 12, 3]
    assert written["files"][3]["template_vars"] == {"node_id": 1}
    assert written["directories"] == [
        {"path": "/etc/zookeeper", "owner": "root", "group": "zookeeper", "mode": "0755"},
        {"path": "/var/lib/zookeeper", "owner": "zookeeper", "group": "zookeeper", "mode": "0750"},
        {"path": "/var/log/zookeeper", "owner": "zookeeper", "group": "zookeeper", "mode": "0750"}]
    assert written["restart_paths"] == [
        "/var/lib/zookeeper/myid", "/etc/zookeeper/zoo.cfg", "/etc/zookeeper/log4j.properties",
        "/etc/systemd/system/zookeeper.service", "/etc/zookeeper/zookeeper-server.jaas"]


def test_sasl_tls_and_the_exporter_add_their_files_and_the_tls_folder():
    model = _model(inputs={"zookeeper_quorum_tls": True, "zookeeper_prometheus_enabled": True},
                   settings={"zookeeper_sasl_users": {"kafka": "Secret-1"}})
    written = zookeeper_files(model, TEMPLATES, _nodes())
    assert [(entry["dest"], entry.get("sensitive", False)) for entry in written["files"][4:]] == [
        ("/etc/zookeeper/zookeeper-server.jaas", True), ("/etc/zookeeper/tls/ca.crt", False),
        ("/etc/zookeeper/tls/zookeeper.pem", True), ("/etc/zookeeper/prometheus.yml", False)]
    assert written["files"][-1]["template"] == "/t/zookeeper-prometheus.yml.j2"
    assert written["directories"][-1] == {"path": "/etc/zookeeper/tls", "owner": "root", "group": "zookeeper",
                                          "mode": "0750"}
    assert "/etc/zookeeper/tls/zookeeper.pem" not in written["restart_paths"]


def _statuses(modes, pending=()):
    return {host: {"__zookeeper_status": {"mode": mode}, "__zookeeper_restart_pending": host in pending}
            for host, mode in modes.items()}


def test_followers_restart_before_the_leader_and_only_pending_ones_unless_all():
    nodes = _statuses({"z1": "follower", "z2": "leader", "z3": "follower"}, pending=("z2", "z3"))
    assert restart_order(HOSTS, nodes) == {"hosts": ["z3", "z2"], "problems": []}
    assert restart_order(HOSTS, nodes, restart_all=True)["hosts"] == ["z1", "z3", "z2"]
    single = restart_order(["z1"], _statuses({"z1": "standalone"}), restart_all=True)
    assert single == {"hosts": ["z1"], "problems": []}


def test_an_ensemble_without_exactly_one_leader_is_a_problem():
    nodes = _statuses({"z1": "follower", "z2": "follower", "z3": "follower"})
    assert restart_order(HOSTS, nodes)["problems"] == [
        "zookeeper_hosts: expected one leader, the nodes report {'z1': 'follower', 'z2': 'follower', 'z3': 'follower'}"]
    two = _statuses({"z1": "leader", "z2": "leader", "z3": "follower"})
    assert restart_order(HOSTS, two)["problems"]


def test_the_filters_take_hostvars_and_refuse_what_is_no_mapping_or_list():
    model = zookeeper_host_model(INPUTS, SETTINGS, {"host": "z1", "hostvars": {"z1": {}}, "facts": {}})
    assert [server["address"] for server in model["servers"]] == ["z1", "z2", "z3"]
    hostvars = _nodes()
    assert zookeeper_ensemble_problems(model, HOSTS, hostvars) == []
    assert zookeeper_files(model, TEMPLATES, hostvars)["files"][0]["content"] == "1"
    statuses = _statuses({"z1": "leader", "z2": "follower", "z3": "follower"})
    assert zookeeper_restart_order(HOSTS, statuses, restart_all="yes")["hosts"] == ["z2", "z3", "z1"]
    with pytest.raises(AnsibleFilterError, match="zookeeper_host_model: cluster must be a mapping"):
        zookeeper_host_model(INPUTS, SETTINGS, ["z1"])
    with pytest.raises(AnsibleFilterError, match="zookeeper_ensemble_problems: expected a list of host names"):
        zookeeper_ensemble_problems(model, "z1", hostvars)
    with pytest.raises(AnsibleFilterError, match="zookeeper_restart_order: restart_all: expected a boolean"):
        zookeeper_restart_order(HOSTS, statuses, restart_all="perhaps")


def test_the_client_address_follows_the_peer_address_rule():
    assert zookeeper_client_address(({"ansible_host": "10.0.0.2", "zookeeper_client_port": 2182}, "z2")) == (
        "10.0.0.2:2182")
    assert zookeeper_client_address(({}, "z2")) == "z2:2181"


def test_the_model_carries_the_typed_inputs_but_not_the_sasl_users_passwords():
    model = _model(inputs={"zookeeper_sasl_users": {"kafka": "ZooKeeper-Secret"}})
    assert model["inputs"]["zookeeper_client_port"] == 2181
    assert model["inputs"]["zookeeper_four_letter_words"] == ["ruok", "srvr", "mntr"]
    assert "zookeeper_sasl_users" not in model["inputs"]
    assert "ZooKeeper-Secret" not in repr(model["inputs"])
