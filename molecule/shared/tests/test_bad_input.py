"""Bad input fails in preflight with a message naming the variable, and changes nothing.

Runs site.yml against the live scenario once per bad setting, all runs at the same time (each is
refused in preflight, so they only read; together they take the time of about two), and compares
the configuration files and service PIDs after all of them with what they were before.
"""

import atexit
import datetime
import json
import os
import shutil
import tempfile

import pytest
import testinfra
import testinfra.utils.ansible_runner
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from playbook_runner import playbook_command, run_playbooks

INVENTORY = os.environ["MOLECULE_INVENTORY_FILE"]
PROJECT = os.environ.get("MOLECULE_PROJECT_DIRECTORY", os.getcwd())
# The multi-broker scenario's host: ZooKeeper (Debian's package) and brokers 1-3.
HOST = "kafkaops-multi"
BROKERS = (1, 2, 3)
WATCHED_FILES = (["/etc/zookeeper/zoo.cfg", "/var/lib/zookeeper/myid", "/etc/systemd/system/zookeeper.service"]
                 + ["/etc/kafka/broker-%d/server.properties" % broker for broker in BROKERS]
                 + ["/etc/systemd/system/kafka-broker-%d.service" % broker for broker in BROKERS])
WATCHED_UNITS = ["zookeeper"] + ["kafka-broker-%d" % broker for broker in BROKERS]


def _certificate_of_another_key():
    """A CA, a host certificate it signed and a key that is not the certificate's, written to a folder of their own
    on the controller: {variable: path} for the provided TLS files. Made when the checks load, removed when they end."""
    folder = tempfile.mkdtemp(prefix="kafkaops-mismatch-")
    atexit.register(shutil.rmtree, folder, True)
    now = datetime.datetime.now(datetime.UTC)
    ca_key, host_key, other_key = (ec.generate_private_key(ec.SECP256R1()) for unused in range(3))

    def certificate(subject, key, issuer, signer):
        return (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)])).public_key(key.public_key())
                .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
                .not_valid_after(now + datetime.timedelta(days=30)).sign(signer, hashes.SHA256()))

    files = {"kafka_broker_tls_ca_file": certificate("mismatch CA", ca_key, "mismatch CA", ca_key),
             "kafka_broker_tls_cert_file": certificate(HOST, host_key, "mismatch CA", ca_key)}
    paths = {}
    for variable, issued in files.items():
        paths[variable] = os.path.join(folder, variable + ".pem")
        with open(paths[variable], "wb") as handle:
            handle.write(issued.public_bytes(serialization.Encoding.PEM))
    paths["kafka_broker_tls_key_file"] = os.path.join(folder, "other.key")
    with open(paths["kafka_broker_tls_key_file"], "wb") as handle:
        handle.write(other_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                             serialization.NoEncryption()))
    return paths


MISMATCHED_TLS_FILES = _certificate_of_another_key()

BAD_INPUTS = [
    ({"kafka_broker_instances": [{"broker_id": 1, "port": 9093}, {"broker_id": 1, "port": 9094}]},
     "kafka_broker_instances[1].broker_id: 1 is already used by kafka_broker_instances[0]"),
    ({"kafka_broker_instances": [{"broker_id": 1, "port": 9093}, {"broker_id": 2, "port": 9093}]},
     "kafka_broker_instances[1].port: port 9093 clashes with kafka_broker_instances[0].port"),
    ({"kafka_broker_default_replication_factor": 4},
     "kafka_broker_default_replication_factor (4)"),
    ({"zookeeper_hosts": [HOST, "another-node"]},
     "zookeeper_hosts: an ensemble needs an odd number of nodes"),
    ({"kafka_broker_heap_size": "lots"},
     "kafka_broker_heap_size ('lots') must be a JVM size"),
    ({"kafka_distribution_archive_checksum": "sha256:" + "0" * 64},
     "kafka_distribution_archive_checksum: the archive's sha256 is"),
    ({"zookeeper_client_port": 2888},
     "zookeeper_client_port / zookeeper_peer_port / zookeeper_election_port: must be three different ports"),
    # A ZooKeeper-mode broker switched to KRaft by a plain run (as an inventory that gains a kafka_controller
    # group would do) instead of through the migration's phases.
    ({"kafka_broker_metadata_mode": "kraft", "kafka_broker_controller_quorum_servers": ["127.0.0.1:9093"]},
     "kafka_broker_metadata_mode: "
     + "; ".join("broker %d runs in zookeeper mode, the run asks for kraft" % broker for broker in BROKERS)
     + "; moving a broker between ZooKeeper mode and KRaft mode is the ZooKeeper-to-KRaft migration: "
     "run playbooks/migrate_to_kraft.yml"),
    # Security settings that do not fit together (guide "Securing the cluster", docs/docsite/rst/guide_security.rst).
    ({"kafka_broker_internal_security_protocol": "TLS"},
     "kafka_broker_internal_security_protocol must be one of: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL"),
    ({"kafka_broker_external_security_protocol": "SASL_SSL"},
     "kafka_broker_admin_password: required by the SASL setting named beside it"),
    ({"kafka_broker_internal_security_protocol": "SASL_SSL", "kafka_broker_inter_broker_password": "two words"},
     "kafka_broker_inter_broker_password: must not contain spaces"),
    ({"kafka_broker_internal_security_protocol": "SSL", "kafka_broker_tls_certificates": "provided",
      "kafka_broker_tls_ca_file": "/nonexistent/ca.crt"},
     "An SSL listener (or kafka_broker_jmx_tls) needs a CA, a certificate and a key: "
     "kafka_broker_tls_cert_file: not set; kafka_broker_tls_key_file: not set; "
     "kafka_broker_tls_ca_file: no such file on the controller"),
    ({"kafka_broker_authorizer_enabled": True},
     "kafka_broker_authorizer_enabled: the INTERNAL and EXTERNAL listener(s) do not identify clients"),
    ({"kafka_broker_jmx_bind_address": "0.0.0.0"},
     "kafka_broker_jmx_bind_address ('0.0.0.0') other than loopback needs kafka_broker_jmx_password"),
    ({"zookeeper_sasl_users": {"kafka": ""}},
     "zookeeper_sasl_users: each user name must be letters"),
    # Files that are all there, but the certificate was issued for another key.
    (dict(MISMATCHED_TLS_FILES, kafka_broker_internal_security_protocol="SSL",
          kafka_broker_tls_certificates="provided"),
     "kafka_broker_tls_cert_file: the certificate in %s (CN=%s) does not match kafka_broker_tls_key_file (%s): its "
     "public key is not that key's" % (MISMATCHED_TLS_FILES["kafka_broker_tls_cert_file"], HOST,
                                       MISMATCHED_TLS_FILES["kafka_broker_tls_key_file"])),
    ({"kafka_broker_jmx_tls": True, "kafka_broker_jmx_password": "Monitor-Pass"},
     "kafka_broker_jmx_tls (True) needs kafka_broker_jmx_password and kafka_broker_jmx_tls_keystore_password"),
    ({"zookeeper_quorum_tls": True, "zookeeper_tls_certificates": "provided", "zookeeper_tls_key_file": "/nonexistent"},
     "zookeeper_quorum_tls (or zookeeper_quorum_tls_port_unification) needs a CA, a certificate and a key for every "
     "node: zookeeper_tls_ca_file: not set; zookeeper_tls_cert_file: not set; zookeeper_tls_key_file: no such file"),
]

# A Kafka without ZooKeeper mode is found out from the installed archive's jars: the archive unpacks
# into a folder of its own beside the one in use (so the run is not free of changes), and the
# services' accounts, configuration, units and processes stay as they were. The role that installs it first
# refuses it: the broker role where ZooKeeper runs from Debian's package (multi-broker, which downloads its
# archives by URL: this run copies one from the controller instead, with that archive's checksum), the
# ZooKeeper role where ZooKeeper runs from the archive too (cluster, below: CLUSTER_ARCHIVE_REFUSALS).
ARCHIVE_4_4 = {
    "kafka_distribution_archive_src": "{{ kafkaops_cache_dir }}/kafka_2.13-4.4.0.tgz",
    "kafka_distribution_archive_url": "",
    "kafka_distribution_archive_checksum":
        "sha256:{{ lookup('ansible.builtin.file', kafka_distribution_archive_src ~ '.sha256').split()[0] }}",
}
ARCHIVE_REFUSALS = [
    (ARCHIVE_4_4,
     "kafka_distribution_archive_src / kafka_distribution_archive_url: Kafka 4.4.0 has no ZooKeeper mode "
     "(removed in 4.0), and kafka_broker_metadata_mode is zookeeper"),
]

# The cluster scenario runs inventories/example over SSH, on nodes that do not resolve each other's
# inventory names. Settings that would make the configs name them are refused before any change,
# naming the node, the name and the variable (the example used to set kafka_broker_internal_host so).
UNRESOLVED_NAMES = [
    ({"zookeeper_peer_address": "{{ inventory_hostname }}"},
     "zookeeper_peer_address: kafka-a cannot resolve 'kafka-b' (zookeeper_peer_address of kafka-b)"),
    ({"kafka_broker_internal_host": "{{ inventory_hostname }}"},
     "kafka-a cannot resolve 'kafka-b' (kafka_broker_internal_host of kafka-b)"),
]

# Refused in the ZooKeeper play, when the archive it installs for ZooKeeper turns out to carry none.
CLUSTER_ARCHIVE_REFUSALS = [
    (ARCHIVE_4_4,
     "kafka_distribution_archive_src / kafka_distribution_archive_url: Kafka 4.4.0 carries no ZooKeeper "
     "(removed in 4.0)"),
]

CLUSTER_NODES = ["kafka-a", "kafka-b", "kafka-c"]


def _run_site_at_once(settings, environment=None):
    """Starts site.yml once per entry of settings (extra vars) at the same time (_run_at_once)."""
    return _run_at_once([("kafkaops.cluster.site", extra_vars) for extra_vars in settings], environment)


def _run_at_once(playbooks, environment=None):
    """Starts each (playbook, extra vars[, further inventory sources]) of playbooks at the same time, with the
    scenario's inventory; returns the PlaybookRun of each, in order. Extra vars: a mapping goes as one JSON -e
    (typed values); a list of "key=value" as one -e each, strings all, as an operator types them."""
    return run_playbooks([playbook_command(playbook, [INVENTORY] + (more[0] if more else []), extra_vars)
                          for playbook, extra_vars, *more in playbooks], environment, timeout=600)


# Refused while the archive is installed (its sha256 is known once it is read), not by a role's preflight.
INSTALL_TIME_REFUSALS = ["kafka_distribution_archive_checksum: the archive's sha256 is"]


def _refused_with(run, message):
    """Whether a failed task of the run said message."""
    return any(message in refusal for refusal in run.failure_messages())


def _check_refused(run, message):
    assert run.rc != 0, run.describe()
    assert _refused_with(run, message), run.describe()
    # The run got to its stats, and no host had a change.
    assert run.stats and run.changes == {}, run.describe()
    if message not in INSTALL_TIME_REFUSALS:
        # site.yml's first play checks every service role's settings: the run stops there, before the
        # ZooKeeper play (or any other) starts.
        assert run.plays[-1:] == ["Check every service's settings before any change"], run.describe()
        assert "ZooKeeper ensemble" not in run.plays, run.describe()


def _snapshot(node):
    files = {path: node.file(path).sha256sum for path in WATCHED_FILES}
    pids = {unit: node.run("systemctl show --property=MainPID --value %s" % unit).stdout.strip()
            for unit in WATCHED_UNITS}
    return files, pids


@pytest.fixture(scope="module")
def host_refusals(saved):
    """(state before, one outcome per bad input, state after)."""
    node = testinfra.get_host(HOST, ansible_inventory=INVENTORY, connection="ansible")
    before = _snapshot(node)
    environment = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(PROJECT, ".cache", "collections"),
                       ANSIBLE_CONFIG=os.path.join(PROJECT, "ansible.cfg"))
    # What the side effect's upgrade deployed (the 3.9.2 archive, the raised protocol), so that only the bad
    # setting differs from what runs.
    deployed = saved("deployed-settings.json")
    outcomes = _run_site_at_once([dict(deployed, **extra_vars) for extra_vars, unused in BAD_INPUTS + ARCHIVE_REFUSALS],
                                 environment)
    return before, outcomes, _snapshot(node)


@pytest.mark.scenarios("multi-broker")
@pytest.mark.parametrize("case", range(len(BAD_INPUTS)), ids=[case[1][:40] for case in BAD_INPUTS])
def test_bad_input_is_refused_before_any_change(host_refusals, case):
    before, outcomes, after = host_refusals
    assert all(before[1].values()) and "0" not in before[1].values()
    _check_refused(outcomes[case], BAD_INPUTS[case][1])
    assert after == before


@pytest.mark.scenarios("multi-broker")
@pytest.mark.parametrize("case", range(len(ARCHIVE_REFUSALS)), ids=[case[1][-40:] for case in ARCHIVE_REFUSALS])
def test_a_kafka_without_zookeeper_mode_is_refused_before_the_services_change(host_refusals, case):
    before, outcomes, after = host_refusals
    run = outcomes[len(BAD_INPUTS) + case]
    assert run.rc != 0, run.describe()
    assert _refused_with(run, ARCHIVE_REFUSALS[case][1]), run.describe()
    assert after == before


def _cluster_snapshot():
    snapshots = {}
    for name in CLUSTER_NODES:
        node = testinfra.get_host(name, ansible_inventory=INVENTORY, connection="ansible")
        files = {path: node.file(path).sha256sum for path in ["/etc/zookeeper/zoo.cfg"]}
        files.update({path: node.file(path).sha256sum
                      for path in node.check_output("ls -d /etc/kafka/broker-*/server.properties").split()})
        pids = node.check_output("systemctl show --property=MainPID --value zookeeper 'kafka-broker-*'").split()
        snapshots[name] = (files, pids)
    return snapshots


@pytest.fixture(scope="module")
def cluster_refusals(saved, tmp_path_factory):
    """(state before, one outcome per unresolvable setting and per archive refusal, state after)."""
    before = _cluster_snapshot()
    # What the side effect deployed last, so that site.yml has nothing else to change before it
    # reaches the refused setting.
    deployed = saved("deployed-settings.json")
    # The archive refusals run with broker 1004 (kafka-d, joined by the side effect) in kafka_broker, as an
    # operator's inventory has it after a scale-out, so that site.yml's inventory check lets them reach the
    # ZooKeeper play.
    joined = tmp_path_factory.mktemp("joined") / "joined.ini"
    joined.write_text("[kafka_broker]\nkafka-d\n")
    site = "kafkaops.cluster.site"
    outcomes = _run_at_once([(site, dict(deployed, **extra_vars)) for extra_vars, unused in UNRESOLVED_NAMES]
                            + [(site, dict(deployed, **extra_vars), [str(joined)])
                               for extra_vars, unused in CLUSTER_ARCHIVE_REFUSALS])
    return before, outcomes, _cluster_snapshot()


@pytest.mark.scenarios("cluster")
@pytest.mark.parametrize("case", range(len(UNRESOLVED_NAMES)), ids=["zookeeper", "broker"])
def test_unresolvable_peer_names_are_refused_before_any_change(cluster_refusals, case):
    before, outcomes, after = cluster_refusals
    assert all(pid != "0" for unused, pids in before.values() for pid in pids)
    _check_refused(outcomes[case], UNRESOLVED_NAMES[case][1])
    assert after == before


@pytest.mark.scenarios("cluster")
@pytest.mark.parametrize("case", range(len(CLUSTER_ARCHIVE_REFUSALS)), ids=["zookeeper-role"])
def test_a_kafka_without_zookeeper_is_refused_where_zookeeper_runs_from_the_archive(cluster_refusals, case):
    before, outcomes, after = cluster_refusals
    run = outcomes[len(UNRESOLVED_NAMES) + case]
    assert run.rc != 0, run.describe()
    # Refused in the ZooKeeper play, once the archive was read, not in the first play's settings check.
    assert any(failure.play == "ZooKeeper ensemble" and CLUSTER_ARCHIVE_REFUSALS[case][1] in failure.message
               for failure in run.failures()), run.describe()
    assert after == before


# kraft-secure: the SCRAM users a new KRaft cluster's controllers format with go to the storage tool as
# [name=...,password=...]; a value it would misread is refused in site.yml's first play, naming the user
# and never the password, with every file and process of the running cluster as it was.
KRAFT_SECURE_FILES = {"ksec-c1": ["/etc/kafka/controller/server.properties"],
                      "ksec-b1": ["/etc/kafka/broker-1/server.properties"],
                      "ksec-b2": ["/etc/kafka/broker-2/server.properties"]}
KRAFT_SECURE_UNITS = {"ksec-c1": "kafka-controller", "ksec-b1": "kafka-broker-1", "ksec-b2": "kafka-broker-2"}


def _kraft_secure_snapshot():
    snapshot = {}
    for name, paths in KRAFT_SECURE_FILES.items():
        node = testinfra.get_host(name, ansible_inventory=INVENTORY, connection="ansible")
        snapshot[name] = ({path: node.file(path).sha256sum for path in paths},
                          node.check_output("systemctl show --property=MainPID --value %s", KRAFT_SECURE_UNITS[name]))
    return snapshot


@pytest.mark.scenarios("kraft-secure")
def test_scram_users_the_storage_tool_would_misread_are_refused_before_any_change():
    before = _kraft_secure_snapshot()
    environment = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(PROJECT, ".cache", "collections"),
                       ANSIBLE_CONFIG=os.path.join(PROJECT, "ansible.cfg"))
    password = "Two,Parts-4kQ9"
    run, = _run_site_at_once([{"kafka_controller_scram_users": [{"name": "admin", "password": password}]}],
                             environment)
    _check_refused(run, "kafka_controller_scram_users: the name or password of admin is empty or holds a space")
    # Nowhere in what the run printed: its results, its warnings, its errors.
    assert password not in run.text
    assert all(pid != "0" for unused, pid in before.values())
    assert _kraft_secure_snapshot() == before


# The cluster scenario's own inventory keeps kafka-d in spare_broker, as an operator's would stay after
# scale_out.yml (which joins the new hosts to kafka_broker for its own run only), while the cluster has
# broker 1004 there. Every playbook that acts on the whole cluster refuses that inventory before any change,
# naming the broker and where the cluster has it; all runs at once (they only read). Each entry: the playbook,
# its extra vars, and the playbook the refusal names (scale_out.yml's own site.yml run is the one that refuses,
# before it deploys or plans anything).
DRIFT_RUNS = [
    ("kafkaops.cluster.site", {}, "site.yml"),
    ("kafkaops.cluster.rolling_restart", {}, "rolling_restart"),
    ("kafkaops.cluster.upgrade", {}, "upgrade"),
    ("kafkaops.cluster.migrate_to_kraft", {"phase": "controllers"}, "migrate_to_kraft"),
    ("kafkaops.cluster.decommission", {"broker_ids": "1001"}, "decommission"),
    ("kafkaops.cluster.scale_out", {"broker_list": "1001,1002,1003"}, "site.yml"),
]


@pytest.fixture(scope="module")
def drift_refusals():
    """(state before, one PlaybookRun per playbook of DRIFT_RUNS, state after)."""
    before = _drift_snapshot()
    outcomes = _run_at_once([(playbook, extra_vars) for playbook, extra_vars, _name in DRIFT_RUNS])
    return before, outcomes, _drift_snapshot()


def _drift_snapshot():
    """The three first nodes' files and processes, and broker 1004's on kafka-d."""
    node = testinfra.get_host("kafka-d", ansible_inventory=INVENTORY, connection="ansible")
    return dict(_cluster_snapshot(), **{"kafka-d": (
        {"server.properties": node.file("/etc/kafka/broker-1004/server.properties").sha256sum},
        [node.check_output("systemctl show --property=MainPID --value kafka-broker-1004")])})


@pytest.mark.scenarios("cluster")
@pytest.mark.parametrize("case", range(len(DRIFT_RUNS)), ids=[run[0].split(".")[-1] for run in DRIFT_RUNS])
def test_an_inventory_without_a_registered_broker_is_refused_before_any_change(drift_refusals, case):
    before, outcomes, after = drift_refusals
    run = outcomes[case]
    assert run.rc != 0, run.describe()
    # One refusal says all of it.
    said = ("broker 1004 (registered, at 198.18.47.14:9092, holding replicas of",
            "is not in the inventory's kafka_broker group; %s would leave it out" % DRIFT_RUNS[case][2],
            "Add its host to kafka_broker (with kafka_broker_id: 1004)", "Nothing was changed.")
    assert any(all(part in refusal for part in said) for refusal in run.failure_messages()), run.describe()
    assert run.stats and run.changes == {}, run.describe()
    # Broker 1004 runs, and no file or process of any node changed.
    assert all(pid != "0" for unused, pids in before.values() for pid in pids)
    assert after == before


# Issue 34, "inputs typed once": every -e key=value is a string, and the roles convert each input by its argument
# spec's type once (lookup role_inputs). Given every int, float and bool input of the roles in play as such a
# string, at the value the cluster runs with, site.yml passes and changes nothing; a value that is no int is
# refused in the first play, naming the variable, the value and the type, before any change.
TYPED_ROLES = {"multi-broker": ("zookeeper", "kafka_broker"), "kraft-secure": ("kafka_controller", "kafka_broker")}


def _as_typed(value):
    """The text an operator types for a value: true/false for a bool, the number's own digits otherwise."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _inputs_as_strings(roles, deployed):
    """["name=value", ...] for every int, float and bool input of the roles' main entry points, at the value in
    force: the deployed settings', else the inventory's or the spec's default, when that is the same on every
    host (an input in force at different values per host, such as an id, is left out, as one -e would give every
    host one value; so is one without a default, or with a template)."""
    runner = testinfra.utils.ansible_runner.AnsibleRunner(INVENTORY)
    host_variables = [runner.get_variables(name) for name in runner.get_hosts("all")]
    pairs = []
    for role in roles:
        with open(os.path.join(PROJECT, "roles", role, "meta", "argument_specs.yml"), encoding="utf-8") as handle:
            options = yaml.safe_load(handle)["argument_specs"]["main"]["options"]
        for name, option in sorted(options.items()):
            if option.get("type") not in ("int", "float", "bool"):
                continue
            if name in deployed:
                value = deployed[name]
            else:
                in_force = {json.dumps(variables.get(name, option.get("default"))) for variables in host_variables}
                if len(in_force) > 1:
                    continue
                value = json.loads(in_force.pop())
            if value is None or "{{" in str(value):
                continue
            pairs.append("%s=%s" % (name, _as_typed(value)))
    return pairs


def _typed_snapshot(hosts_and_paths):
    """{host: (sha256 of each file, MainPID of each kafka/zookeeper unit)}."""
    snapshot = {}
    for name, paths in hosts_and_paths.items():
        node = testinfra.get_host(name, ansible_inventory=INVENTORY, connection="ansible")
        pids = node.check_output("systemctl show --property=MainPID --value 'kafka-*' 'zookeeper*'").split()
        snapshot[name] = ({path: node.file(path).sha256sum for path in paths}, pids)
    return snapshot


def _typed_runs(scenario, deployed, watched):
    """(state before, the run with every typed input as a string, the run with kafka_broker_min_insync_replicas=two,
    state after, the pairs given)."""
    environment = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(PROJECT, ".cache", "collections"),
                       ANSIBLE_CONFIG=os.path.join(PROJECT, "ansible.cfg"))
    pairs = _inputs_as_strings(TYPED_ROLES[scenario], deployed)
    before = _typed_snapshot(watched)
    # One after the other: the first run must find nothing to change, so the refusal must not race it.
    as_strings, = _run_at_once([("kafkaops.cluster.site", [json.dumps(deployed)] + pairs)], environment)
    refused, = _run_at_once([("kafkaops.cluster.site", [json.dumps(deployed)] + pairs
                              + ["kafka_broker_min_insync_replicas=two"])], environment)
    return before, as_strings, refused, _typed_snapshot(watched), pairs


def _check_typed_runs(runs, expected_names):
    before, as_strings, refused, after, pairs = runs
    given = {pair.split("=", 1)[0] for pair in pairs}
    assert expected_names <= given, sorted(expected_names - given)
    assert as_strings.rc == 0, as_strings.describe()
    assert as_strings.stats and as_strings.changes == {}, as_strings.describe()
    # Refused by whichever check reads it first: the role_inputs lookup, or Ansible's validation of an entry
    # point's arguments (site.yml's settings pass runs the broker role's preflight first in KRaft mode); both
    # name the variable, the value and the type.
    message = "kafka_broker_min_insync_replicas: 'two' is not an int"
    if not _refused_with(refused, message):
        message = "argument 'kafka_broker_min_insync_replicas' is of type str and we were unable to convert to int"
        assert any(message in refusal and "'two'" in refusal and "cannot be converted to an int" in refusal
                   for refusal in refused.failure_messages()), refused.describe()
    _check_refused(refused, message)
    assert all(pid != "0" for unused, pids in before.values() for pid in pids)
    assert after == before


@pytest.mark.scenarios("multi-broker")
def test_zookeeper_and_broker_inputs_given_as_strings_change_nothing(saved):
    runs = _typed_runs("multi-broker", saved("deployed-settings.json"), {HOST: WATCHED_FILES})
    _check_typed_runs(runs, {"zookeeper_client_port", "zookeeper_tick_time", "zookeeper_prometheus_enabled",
                             "kafka_broker_min_insync_replicas", "kafka_broker_num_partitions",
                             "kafka_broker_prometheus_enabled", "kafka_broker_jmx_tls", "kafka_broker_combined"})


@pytest.mark.scenarios("kraft-secure")
def test_controller_and_broker_inputs_given_as_strings_change_nothing():
    runs = _typed_runs("kraft-secure", {}, KRAFT_SECURE_FILES)
    _check_typed_runs(runs, {"kafka_controller_port", "kafka_controller_max_lag", "kafka_controller_prometheus_enabled",
                             "kafka_broker_authorizer_enabled", "kafka_broker_min_insync_replicas"})
