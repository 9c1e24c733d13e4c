"""Checks of the secure scenario (and, for the clients and the logs, of combined, kraft-secure and migration): each door
of the cluster refuses what it must, as the client sees it
(printed, for the issue's note), lets in what it must, and no secret of the scenario shows anywhere in
its Ansible log or the services' logs. The side effect (molecule/secure/secure.yml) left the Spark
report, the producer's manifest, the reassignment figures and the certificates' fingerprints before
their rotation in the scenario's ephemeral folder.
"""

import datetime
import glob
import hashlib
import os
import socket
import ssl
import subprocess

import pytest
import testinfra
import testinfra.utils.ansible_runner
from cryptography import x509
from kafka import KafkaConsumer, TopicPartition
from kafka.admin import KafkaAdminClient
from kafka.errors import KafkaError, TopicAuthorizationFailedError
from kazoo.client import KazooClient
from kazoo.exceptions import NoAuthError
from live_cluster import (
    bootstrap,
    client_settings,
    describe,
    host_address,
    settled,
    under_replicated,
    write_and_read_back,
    write_refused,
)
from module_runs import run_module

# The checks of the clients' doors and of the logs also run in combined and kraft-secure (KRaft, SASL_SSL,
# users and ACLs) and, on the cluster it migrated to KRaft, in migration.
pytestmark = pytest.mark.scenarios("secure")

FOLDER = os.environ.get("MOLECULE_EPHEMERAL_DIRECTORY", "")
testinfra_hosts = testinfra.utils.ansible_runner.AnsibleRunner(os.environ["MOLECULE_INVENTORY_FILE"]).get_hosts("all")


@pytest.fixture(scope="module")
def brokers(inventory):
    return inventory.get_hosts("kafka_broker")


@pytest.fixture(scope="module")
def servers(brokers):
    return bootstrap(brokers)


@pytest.fixture(scope="module")
def as_user(servers):
    """kafka-python settings for a SCRAM user over SASL_SSL, trusting the scenario's CA."""
    admin = dict(client_settings())

    def settings(name, password):
        return dict(admin, bootstrap_servers=servers, sasl_plain_username=name, sasl_plain_password=password,
                    request_timeout_ms=15000)

    return settings


# A refused client never bootstraps: kafka-python then gives up after bootstrap_timeout_ms, 30 s by default, which
# these two checks spent waiting in each of four scenarios. A refusal comes within a connection's first exchange.
REFUSED_WITHIN_MS = 6000


def _node(name):
    return testinfra.get_host(name, ansible_inventory=os.environ["MOLECULE_INVENTORY_FILE"], connection="ansible")


@pytest.mark.scenarios("secure", "combined", "kraft-secure", "migration")
def test_a_plaintext_client_is_refused(servers):
    with pytest.raises(KafkaError) as refused:
        KafkaAdminClient(bootstrap_servers=servers, request_timeout_ms=10000, bootstrap_timeout_ms=REFUSED_WITHIN_MS)
    print("\nPLAINTEXT client on the SASL_SSL listener: %r" % refused.value)


def _refused_logins_since(brokers, since):
    """The lines of the brokers' logs, stamped at or after since, in which a broker refused a SASL login for
    its credentials."""
    found = []
    for name in brokers:
        lines = _node(name).run("cat /var/log/kafka/*/server.log* | grep -F 'invalid credentials' || true").stdout
        found += [line for line in lines.splitlines()
                  if "Failed authentication with" in line and line[1:20] >= since.strftime("%Y-%m-%d %H:%M:%S")]
    return found


@pytest.mark.scenarios("secure", "combined", "kraft-secure", "migration")
def test_a_wrong_password_is_refused(as_user, brokers, scenario_variables, caplog):
    since = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    settings = as_user(scenario_variables.get("kafka_broker_admin_user", "admin"), "not-the-password")
    with pytest.raises(KafkaError) as refused:
        KafkaAdminClient(bootstrap_timeout_ms=REFUSED_WITHIN_MS, **settings)
    said = [record.getMessage() for record in caplog.records if "uthentication" in record.getMessage()]
    print("\nadmin with a wrong password: %r; the client logged: %s" % (refused.value, said[:1]))
    # Why it was refused is the broker's to say: it answers the login with an error and closes the
    # connection, and kafka-python sometimes sees only the close ("socket disconnected"), not the answer.
    logged = settled(lambda: _refused_logins_since(brokers, since), bool, timeout=20, interval=2)
    assert logged, "no broker logged a refused login since %s; the client logged: %s" % (since, caplog.text[-2000:])
    print("the broker logged: %s" % logged[0].split("] ", 1)[-1])


@pytest.mark.scenarios("secure", "combined", "kraft-secure")
def test_a_user_without_an_acl_is_denied(as_user, scenario_variables):
    mallory = {user["name"]: user["password"] for user in scenario_variables["kafka_access_users"]}["mallory"]
    denied = write_refused(as_user("mallory", mallory), "orders")
    assert isinstance(denied, TopicAuthorizationFailedError), denied
    print("\nmallory (no ACL) writing to orders: %r" % denied)
    consumer = KafkaConsumer(enable_auto_commit=False, consumer_timeout_ms=10000, **as_user("mallory", mallory))
    try:
        # Where reading starts and ends is the first thing a reader asks for: refused too.
        with pytest.raises(TopicAuthorizationFailedError) as denied:
            consumer.end_offsets([TopicPartition("orders", 0)])
    finally:
        consumer.close()
    print("mallory (no ACL) reading orders: %r" % denied.value)


@pytest.mark.scenarios("kraft-secure")
def test_a_plan_as_a_login_without_describe_on_the_cluster_is_refused_naming_it(servers, scenario_variables):
    """kafka_reassignment_plan as alice (she may describe her topic, not the Cluster resource): refused before
    anything, naming the login option, the permission and how to grant it, instead of Kafka's own message."""
    alice = {user["name"]: user["password"] for user in scenario_variables["kafka_access_users"]}["alice"]
    settings = client_settings()
    arguments = {"bootstrap_servers": servers, "security_protocol": settings["security_protocol"],
                 "sasl_mechanism": settings["sasl_mechanism"], "sasl_username": "alice", "sasl_password": alice,
                 "ssl_cafile": settings["ssl_cafile"], "topics": ["orders"], "balance": "bytes",
                 "broker_list": ",".join(str(broker) for broker in describe(servers, ["orders"])[0])}
    run = run_module("kafka_reassignment_plan", arguments)
    result, printed = run.result, run.output
    assert result.get("failed") and result.get("field") == "sasl_username", result
    assert "'alice' (User:alice) may not Describe the Cluster resource" in result["msg"], result["msg"]
    assert "operation=describe" in result["msg"] and "nothing was changed" in result["msg"], result["msg"]
    assert alice not in printed
    print("\nalice planning a move: %s" % result["msg"])


@pytest.mark.scenarios("secure", "combined", "kraft-secure")
def test_a_user_with_acls_writes_and_reads(as_user, scenario_variables):
    alice = {user["name"]: user["password"] for user in scenario_variables["kafka_access_users"]}["alice"]
    offset, marker, read = write_and_read_back(as_user("alice", alice), "orders", "alice")
    assert read == (offset, marker)


@pytest.mark.scenarios("kraft-secure")
def test_the_brokers_replicate_to_each_other_as_their_scram_user(servers):
    """Two KRaft brokers whose INTERNAL listener is SASL_SSL: each follower fetches from the other logged in
    as the inter-broker user, which the controller's metadata log started with. A follower that could not log
    in would drop out of the ISRs (and, with min.insync.replicas 2, acks=all writes would fail)."""
    brokers, partitions = settled(lambda: describe(servers, ["orders"]),
                                  lambda found: found[1] and not under_replicated(found[1]))
    assert brokers == [1, 2]
    assert len(partitions) == 4 and under_replicated(partitions) == []
    assert all(sorted(partition["replica_nodes"]) == [1, 2] for unused, partition in partitions)


@pytest.fixture
def anonymous_zookeeper(inventory, scenario_variables):
    """(a ZooKeeper client that has not logged in, rooted at Kafka's chroot, the chroot)."""
    chroot = scenario_variables.get("kafka_broker_zookeeper_chroot") or ""
    client = KazooClient(hosts=",".join("%s:2181" % host_address(name) for name in inventory.get_hosts("zookeeper"))
                         + chroot, timeout=10)
    client.start(timeout=30)
    try:
        yield client, chroot
    finally:
        client.stop()
        client.close()


# /intruder sits right under the chroot, which the role made before any broker started (for the SCRAM
# users) with the ACL a broker gives it.
@pytest.mark.parametrize("path", ["/intruder", "/brokers/ids/99", "/brokers/topics/orders/partitions/99",
                                  "/config/topics/intruder", "/config/users/eve",
                                  "/config/changes/config_change_9999999999"])
def test_an_anonymous_zookeeper_client_cannot_create_under_brokers_or_config(anonymous_zookeeper, path):
    client, chroot = anonymous_zookeeper
    with pytest.raises(NoAuthError) as refused:
        client.create(path, b"anonymous")
    print("\nanonymous ZooKeeper client, create %s%s: %r" % (chroot, path, refused.value))


def test_the_users_credentials_in_zookeeper_are_kept_from_anyone_but_the_brokers(anonymous_zookeeper,
                                                                                 scenario_variables):
    """The inter-broker and admin users, which module zookeeper_scram_users wrote before the first broker started
    (the brokers logged in with them, or nothing would replicate): anyone else is refused their znodes, as a
    broker with zookeeper.set.acl keeps them; the change notices beside them are readable by all and
    changed only by the brokers' login."""
    client, chroot = anonymous_zookeeper
    for name in (scenario_variables.get("kafka_broker_inter_broker_user", "broker"),
                 scenario_variables.get("kafka_broker_admin_user", "admin")):
        with pytest.raises(NoAuthError) as refused:
            client.get("/config/users/%s" % name)
        print("\nanonymous ZooKeeper client, read %s/config/users/%s: %r" % (chroot, name, refused.value))
    acl = client.get_acls("/config/changes")[0]
    print("ACL of %s/config/changes: %s" % (chroot, acl))
    assert sorted((entry.id.scheme, entry.id.id, entry.perms) for entry in acl) == [
        ("sasl", scenario_variables["kafka_broker_zookeeper_sasl_user"], 31), ("world", "anyone", 1)]


@pytest.mark.parametrize("path", ["/brokers/topics/orders", "/config/topics/orders", "/brokers/ids/1"])
def test_an_anonymous_zookeeper_client_cannot_delete_or_change_kafkas_znodes(anonymous_zookeeper, path):
    client, chroot = anonymous_zookeeper
    assert client.exists(path), "%s%s should exist" % (chroot, path)
    with pytest.raises(NoAuthError) as refused:
        client.delete(path, recursive=False)
    with pytest.raises(NoAuthError):
        client.set(path, b"anonymous")
    print("\nanonymous ZooKeeper client, delete %s%s: %r" % (chroot, path, refused.value))


def test_jmx_answers_on_loopback_only(brokers):
    """kafkaops-sec1 opens JMX to the network with a password and TLS; the others keep it on loopback."""
    first, other = [name for name in brokers if name != "kafkaops-sec1"][:2]
    jmx_port = 9092 + 20000
    probe = "timeout 5 bash -c '</dev/tcp/%s/%d' && echo open || echo closed"
    assert _node(first).run(probe % ("127.0.0.1", jmx_port)).stdout.strip() == "open"
    from_other = _node(other).run(probe % (host_address(first), jmx_port)).stdout.strip()
    print("\nJMX of %s from %s: %s" % (first, other, from_other))
    assert from_other == "closed"


def _jmx_probe(host, password, transport):
    """Run JmxProbe.java (a JMX client, as a monitoring system has one) from this machine."""
    completed = subprocess.run(
        ["java", os.path.join(os.path.dirname(__file__), "JmxProbe.java"), host_address(host), str(9092 + 20000),
         "monitor", password, os.path.join(FOLDER, "tls", "ca.crt"), transport],
        capture_output=True, text=True, timeout=120, check=False)
    return completed.returncode, (completed.stdout + completed.stderr).strip()


def test_jmx_on_the_network_needs_tls_and_the_password(scenario_variables):
    password = scenario_variables["kafka_broker_jmx_password"]
    code, answer = _jmx_probe("kafkaops-sec1", password, "tls")
    print("\nJMX over TLS with the password: %s" % answer)
    assert code == 0 and answer == "BrokerState 3", answer
    code, answer = _jmx_probe("kafkaops-sec1", "not-the-password", "tls")
    print("JMX over TLS with a wrong password: %s" % answer)
    assert code == 1 and "Authentication failed" in answer, answer
    code, answer = _jmx_probe("kafkaops-sec1", password, "plain")
    print("JMX without TLS: %s" % answer)
    assert code == 1 and answer.startswith("refused:"), answer
    assert password not in answer


# Run inside a ZooKeeper node: a TLS handshake with a peer's election port, as the peer itself would
# make it (its own quorum key and certificate, the CA, the peer's name checked); prints the certificate
# the peer served.
_QUORUM_HANDSHAKE = """python3 - <<'PY'
import hashlib, socket, ssl
context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
context.load_verify_locations('/etc/zookeeper/tls/ca.crt')
context.load_cert_chain('/etc/zookeeper/tls/zookeeper.pem')
with socket.create_connection(('%s', 3888), timeout=10) as raw:
    with context.wrap_socket(raw, server_hostname='%s') as secured:
        print(hashlib.sha256(secured.getpeercert(binary_form=True)).hexdigest())
PY"""


def test_zookeeper_quorum_speaks_tls_and_renewed_its_certificates_without_a_restart(inventory, saved):
    before = saved("fingerprints-before.json")
    members = inventory.get_hosts("zookeeper")
    for index, name in enumerate(members):
        with open(os.path.join(FOLDER, "tls", "zookeeper", "%s.crt" % name)) as handle:
            current = hashlib.sha256(ssl.PEM_cert_to_DER_cert(handle.read())).hexdigest()
        previous = before["zookeeper"][name].replace(":", "").upper()
        assert current.upper() not in previous, "%s kept its certificate" % name
        peer = members[(index + 1) % len(members)]
        served = _node(peer).run(_QUORUM_HANDSHAKE % (name, name))
        assert served.rc == 0, served.stderr
        assert served.stdout.strip() == current, "%s serves another quorum certificate than its new one" % name
        process = _node(name).run("systemctl show --property=MainPID --value zookeeper").stdout.strip()
        assert process == before["zookeeper_processes"][name], "%s was restarted for its new certificate" % name
    print("\nZooKeeper quorum: each node completed a TLS handshake with a peer (its quorum certificate, the CA,"
          " the peer's name) and served its renewed certificate from the same process; test_cluster checks the"
          " ensemble still has one leader")


def test_every_certificate_was_rotated_and_is_served(brokers, saved):
    before = saved("fingerprints-before.json")["brokers"]
    context = ssl.create_default_context(cafile=os.path.join(FOLDER, "tls", "ca.crt"))
    for name in brokers:
        with open(os.path.join(FOLDER, "tls", "hosts", "%s.crt" % name)) as handle:
            current = hashlib.sha256(ssl.PEM_cert_to_DER_cert(handle.read())).hexdigest()
        assert current.upper() not in before[name].replace(":", "").upper(), "%s kept its certificate" % name
        address = host_address(name)
        with socket.create_connection((address, 9092), timeout=10) as raw:
            with context.wrap_socket(raw, server_hostname=address) as secured:
                served = hashlib.sha256(secured.getpeercert(binary_form=True)).hexdigest()
        assert served == current, "%s serves another certificate than its new one" % name


def _cluster_info(servers, **options):
    """kafka_cluster_info run as the admin user through `ansible localhost -m`: (its result, everything printed)."""
    settings = client_settings()
    arguments = dict({"bootstrap_servers": servers, "security_protocol": settings["security_protocol"],
                      "sasl_mechanism": settings["sasl_mechanism"], "sasl_username": settings["sasl_plain_username"],
                      "sasl_password": settings["sasl_plain_password"], "ssl_cafile": settings["ssl_cafile"],
                      "partitions": "none"}, **options)
    run = run_module("kafka_cluster_info", arguments)
    result, printed = run.result, run.output
    assert not result.get("failed"), result
    assert settings["sasl_plain_password"] not in printed
    return result, printed


def test_kafka_cluster_info_reads_each_brokers_certificate_as_a_handshake_does(servers):
    """include_certificates: each live broker's served certificate, verified against the scenario's CA, with the
    serial and expiry a handshake from here reads (parsed with cryptography); a window wider than any certificate
    lists every one as expiring and warns of each, naming the broker, its address, the subject and the date."""
    result, unused = _cluster_info(servers, include_certificates=True)
    certificates = result["certificates"]
    assert sorted(entry["broker"] for entry in certificates) == sorted(broker["id"] for broker in result["brokers"])
    assert certificates and result["certificates_expiring"] == []
    context = ssl.create_default_context(cafile=os.path.join(FOLDER, "tls", "ca.crt"))
    for entry in certificates:
        assert "error" not in entry and entry["verified"] and entry["verify_error"] is None, entry
        host, port = entry["address"].rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=10) as raw:
            with context.wrap_socket(raw, server_hostname=host) as secured:
                served = x509.load_der_x509_certificate(secured.getpeercert(binary_form=True))
        assert int(entry["serial"], 16) == served.serial_number, entry
        assert entry["not_after"] == served.not_valid_after_utc.strftime("%Y-%m-%dT%H:%M:%SZ"), entry
        assert entry["subject"] == served.subject.rfc4514_string() and entry["issuer"] == served.issuer.rfc4514_string()
        left = served.not_valid_after_utc - datetime.datetime.now(datetime.UTC)
        assert entry["days_left"] in (left.days, left.days - 1) and not entry["expiring"], entry
    wide, unused = _cluster_info(servers, include_certificates=True, certificate_warn_days=100000)
    assert [entry["serial"] for entry in wide["certificates_expiring"]] == [entry["serial"] for entry in certificates]
    # The JSON callback keeps a module's warnings in its result, word for word.
    for entry in certificates:
        warning = ("broker %d at %s serves a certificate within certificate_warn_days (100000): its certificate (%s) "
                   "expires on %s" % (entry["broker"], entry["address"], entry["subject"], entry["not_after"]))
        assert any(item.startswith(warning) for item in wide.get("warnings", [])), wide.get("warnings")
    print("\nserved certificates: %s" % ", ".join("broker %d %s until %s (%d days)" % (
        entry["broker"], entry["subject"], entry["not_after"], entry["days_left"]) for entry in certificates))


def test_no_acknowledged_record_was_lost_through_the_rotation(saved):
    report = saved("verify-report.json")
    steady = saved("steady-manifest.json")["acknowledged"]
    bulk = saved("bulk-manifest.json")["acknowledged"]
    assert (report["lost"], report["duplicates"], report["out_of_order"], report["corrupt"],
            report["offset_gaps"]) == (0, 0, 0, 0, 0), report["examples"]
    assert report["ok"] is True
    assert bulk == 20000 and steady > 0
    assert report["records"] >= steady + bulk
    print("\nover SASL_SSL: the steady producer (through the rotation) %d acknowledged, the bulk producer %d;"
          " all read back by Spark" % (steady, bulk))


def test_the_reassignment_moved_the_topic_off_broker_1(servers, saved):
    summary = saved("reassignment-summary.json")
    assert summary["replica_moves"] > 0
    unused, partitions = describe(servers, ["moves"])
    assert partitions and all(1 not in partition["replica_nodes"] for unused, partition in partitions)


def test_the_declared_topics_were_made_over_sasl_ssl(servers):
    unused, partitions = describe(servers, ["orders", "moves"])
    counts = {}
    for topic, _partition in partitions:
        counts[topic] = counts.get(topic, 0) + 1
    assert counts == {"orders": 6, "moves": 4}


def _secret_fragments(scenario_variables):
    """Every password of the scenario, and a line of each private key (which no line of a log may hold)."""
    fragments = set(scenario_variables["secure_secrets"])
    for key_file in glob.glob(os.path.join(FOLDER, "tls", "**", "*.key"), recursive=True):
        with open(key_file) as handle:
            body = [line.strip() for line in handle if line.strip() and not line.startswith("-----")]
        fragments.add(body[len(body) // 2])
    return fragments


@pytest.mark.scenarios("secure", "combined", "kraft-secure", "migration")
def test_no_secret_appears_in_the_scenarios_ansible_log(scenario_variables, saved):
    """Every playbook of the scenario (converge, idempotence, side effect) logged here, each task's result
    included. Only that part is searched: what verify itself adds (ansible-inventory dumps of the
    scenario's own inventory, which holds the test passwords) is not the collection's output. Nor is
    what an earlier run of the scenario left above this run's: Molecule empties its folder only at the
    end of a run, so a run cut short (a CI timeout, say) leaves its log, verify's dumps included, and the
    next run appends to it. This run's part begins at its create step, Molecule's play "Create"."""
    with open(os.path.join(FOLDER, "ansible.log"), "rb") as handle:
        log = handle.read(saved("playbook-log.json")["bytes"]).decode(errors="replace")
    start = log.rfind("PLAY [Create]")
    assert start >= 0, "this run's create step is not in the log"
    log = log[start:]
    assert len(log) > 100000, "the log looks too short to hold the whole scenario"
    fragments = _secret_fragments(scenario_variables)
    found = sorted(fragment for fragment in fragments if fragment in log)
    print("\nsecrets searched in the Ansible log of the scenario's playbooks (%d bytes): %d, found: %d"
          % (len(log), len(fragments), len(found)))
    assert found == []


@pytest.mark.scenarios("secure", "combined", "kraft-secure", "migration")
def test_no_secret_appears_in_the_services_logs(host, scenario_variables):
    for number, secret in enumerate(sorted(scenario_variables["secure_secrets"])):
        found = host.run("grep -rlF -- %s /var/log/kafka /var/log/zookeeper; journalctl --no-pager | grep -cF -- %s"
                         % (secret, secret))
        assert found.stdout.strip() in ("0", ""), "secret %d found on %s: %s" % (number, host.backend.host,
                                                                                 found.stdout)
