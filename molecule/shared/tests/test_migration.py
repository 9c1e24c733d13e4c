"""ZooKeeper to KRaft: what the migration scenario's runs of migrate_to_kraft.yml left (molecule/migration).

The side effect (migrate.yml) keeps every run's output (migration-runs.json: their results as JSON events, one a
line, which playbook_runner reads), the Spark job's report and the check-mode runs of the declared topics, ACLs and
users after the migration (migration-survivors.json).
"""

import datetime
import json
import os
import re

import pytest
import testinfra
import testinfra.utils.ansible_runner
from kafka.admin import KafkaAdminClient
from kafka.errors import TopicAuthorizationFailedError
from live_cluster import (
    bootstrap,
    check_every_acknowledged_record,
    client_settings,
    settled,
    write_and_read_back,
    write_refused,
)
from playbook_runner import read_run

pytestmark = pytest.mark.scenarios("migration")

INVENTORY = os.environ["MOLECULE_INVENTORY_FILE"]
RUNNER = testinfra.utils.ansible_runner.AnsibleRunner(INVENTORY)
BROKERS = RUNNER.get_hosts("kafka_broker")
CONTROLLERS = RUNNER.get_hosts("migration_controllers")
CONTROLLER_IDS = [9001, 9002, 9003]


def _node(name):
    return testinfra.get_host(name, ansible_inventory=INVENTORY, connection="ansible")


def _settings(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))


@pytest.fixture(scope="module")
def runs(saved):
    """migration-runs.json, each run's output read as a PlaybookRun (run 5a's too: cut_short.run)."""
    kept = saved("migration-runs.json")
    return dict(kept, runs=[read_run(output) for output in kept["runs"]], refused=read_run(kept["refused"]),
                cut_short=dict(kept["cut_short"], run=read_run(kept["cut_short"]["output"])))


def _said(run, pattern):
    """Whether a result's message of the run (a debug task's lines included) matches the regular expression."""
    return any(re.search(pattern, message) for message in run.messages())


def test_the_precheck_refused_bad_settings_before_any_change(runs):
    refused = runs["refused"]
    assert any("kafka_controller_node_id: node ids 2 are broker ids too" in message
               for message in refused.failure_messages()), refused.describe()
    assert any(re.search(r"mig-b\d: kafka_broker_properties sets authorizer.class.name", message)
               for message in refused.failure_messages()), refused.describe()
    assert set(refused.stats or {}) >= set(BROKERS + CONTROLLERS), refused.describe()
    assert refused.changes == {}, refused.describe()
    # Nothing was set up: run 1 found the controllers still to deploy.
    assert sum(runs["runs"][0].stats[name]["changed"] for name in CONTROLLERS) > 0


def test_a_phase_run_twice_changes_nothing_the_second_time(runs):
    first, second = runs["runs"][0], runs["runs"][1]
    assert sum(first.stats[name]["changed"] for name in CONTROLLERS) > 0, first.describe()
    assert set(second.stats or {}) >= set(BROKERS + CONTROLLERS), second.describe()
    assert all(counts["changed"] == 0 and counts["failures"] == 0 for counts in second.stats.values()), \
        second.describe()
    assert _said(second, "This run: nothing to do"), second.describe()
    assert _said(second, "Last phase done: controllers"), second.describe()


def test_a_broker_was_killed_during_the_brokers_roll(runs, saved):
    # The kill time against the run that rolled the brokers (the command module's start and end, UTC here).
    killed = datetime.datetime.fromtimestamp(runs["kill"]["killed_at"], datetime.UTC).replace(tzinfo=None)
    run = runs["runs"][2]
    assert run.stats and all(counts["failures"] == 0 for counts in run.stats.values()), run.describe()
    assert runs["kill"]["pid"] > 0
    assert _said(run, "This run: brokers_migration, metadata_migrated, brokers_kraft"), run.describe()
    window = saved("migration-run-3-window.json")
    assert window["start"] <= killed.isoformat() <= window["end"], (killed, window)


def test_the_rollback_from_dual_write_left_zookeeper_mode(runs):
    after = runs["after_rollback"]
    for text in after["properties"]:
        settings = _settings(text)
        assert "process.roles" not in settings and "zookeeper.metadata.migration.enable" not in settings
        assert "controller.quorum.bootstrap.servers" not in settings
        assert settings["zookeeper.connect"]
    # A ZooKeeper-mode broker is the controller again, and the migration state is gone.
    chroot = RUNNER.get_variables(BROKERS[0])["kafka_broker_zookeeper_chroot"]
    assert after["znodes"][chroot + "/controller"]["value"]["brokerid"] in (1, 2, 3)
    assert after["znodes"][chroot + "/migration"] == {"exists": False}
    steps = "rollback_brokers_to_migration, rollback_controllers, rollback_brokers_to_zookeeper"
    assert _said(runs["runs"][3], "This run: %s" % steps), runs["runs"][3].describe()


def test_a_run_cut_short_during_the_roll_into_kraft_mode_is_finished_by_the_next(runs):
    """Run 5a's ansible-playbook (its whole process group) was SIGKILLed while the roll into KRaft mode restarted
    its second broker, every broker's file already saying KRaft; run 5, the same command, found the brokers whose
    restart was still due, restarted only those, and reached the dual-write phase."""
    cut = runs["cut_short"]
    cut_run = cut["run"]
    # A run that ended by itself before the kill says why in its failures.
    assert cut["status"] == "rc=137", (cut["status"], cut_run.failure_messages()[-3:])
    # Killed: it never got to its stats.
    assert cut_run.stats is None, cut_run.describe()
    assert _said(cut_run, r"This run: [a-z_, ]*metadata_migrated, brokers_kraft"), cut_run.describe()
    assert "Brokers rolled as KRaft brokers" in cut_run.plays, cut_run.describe()
    # The brokers whose restart the roll had noted (the task started) before the kill.
    note = r"kafkaops\.cluster\.kafka_broker : Note the restart of broker (\d+)"
    done_before = {found.group(1) for found in (re.fullmatch(note, task.name) for task in cut_run.tasks
                                                if task.play == "Brokers rolled as KRaft brokers") if found}
    assert done_before, cut_run.describe()

    resumed = runs["runs"][4]
    assert _said(resumed, r"This run: brokers_kraft\b(?!,)"), resumed.describe()
    assert _said(resumed, "Last phase done: metadata_migrated"), resumed.describe()
    restart = r"kafkaops\.cluster\.service_common : Restart broker (\d+)"
    restarted = {found.group(1) for found in (re.fullmatch(restart, task.name) for task in resumed.tasks) if found}
    assert restarted and not restarted & done_before, (done_before, restarted)
    ids = {str(RUNNER.get_variables(name)["kafka_broker_id"]) for name in BROKERS}
    assert done_before | restarted == ids, (done_before, restarted)
    assert resumed.stats and all(counts["failures"] == 0 for counts in resumed.stats.values()), resumed.describe()


def test_finalize_waits_for_the_soak(runs):
    assert runs["return_codes"] == [2]
    assert any("migration_soak_minutes" in message and "no way back" in message
               for message in runs["runs"][5].failure_messages()), runs["runs"][5].describe()
    assert _said(runs["runs"][6], "This run: finalize"), runs["runs"][6].describe()


def test_the_upgrade_ran_every_node_on_kafka_4_and_raised_the_metadata_version(runs):
    run = runs["runs"][8]
    # The task started (a role's task is named "role : name").
    assert any(task.name.split(" : ")[-1] == "Raise the metadata version to 4.4" for task in run.tasks), \
        run.describe()
    for name in BROKERS + CONTROLLERS:
        unit = ("kafka-controller" if name in CONTROLLERS
                else "kafka-broker-%d" % int(RUNNER.get_variables(name)["kafka_broker_id"]))
        assert "kafka_2.13-4.4.0/libs" in _node(name).file("/etc/systemd/system/%s.service" % unit).content_string
    node = _node(CONTROLLERS[0])
    described = node.check_output(
        "java -Xmx128m -cp '/opt/kafkaops/kafka_2.13-4.4.0/libs/*' org.apache.kafka.tools.FeatureCommand "
        "--bootstrap-controller %s:9093 describe 2>/dev/null" % CONTROLLERS[0])
    assert re.search(r"Feature: metadata\.version\s.*FinalizedVersionLevel: 4\.4-", described), described


@pytest.mark.parametrize("name", BROKERS)
def test_brokers_run_kraft_with_no_zookeeper_setting_left(name):
    node = _node(name)
    broker_id = int(RUNNER.get_variables(name)["kafka_broker_id"])
    text = node.file("/etc/kafka/broker-%d/server.properties" % broker_id).content_string
    settings = _settings(text)
    assert settings["process.roles"] == "broker" and settings["node.id"] == str(broker_id)
    assert settings["authorizer.class.name"] == "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
    assert [line for line in text.splitlines() if "zookeeper" in line.lower() and not line.startswith("#")] == []
    assert "java.security.auth.login.config" not in node.file(
        "/etc/systemd/system/kafka-broker-%d.service" % broker_id).content_string
    assert not node.file("/etc/kafka/zookeeper-client.jaas").exists
    assert node.service("kafka-broker-%d" % broker_id).is_running
    # The process runs what the file says: its last start was as a KRaft broker, not a ZooKeeper-mode one.
    starts = node.check_output("grep -h 'KafkaServer id=[0-9]*] started\\|KafkaRaftServer nodeId=[0-9]*] Kafka Server "
                               "started' /var/log/kafka/broker-%d/server.log" % broker_id).splitlines()
    assert starts and "KafkaRaftServer" in starts[-1], starts[-5:]


@pytest.mark.parametrize("name", CONTROLLERS)
def test_controllers_are_finalized_and_zookeeper_is_stopped(name):
    node = _node(name)
    text = node.file("/etc/kafka/controller/server.properties").content_string
    assert [line for line in text.splitlines() if "zookeeper" in line.lower() and not line.startswith("#")] == []
    # The brokers' logins the controllers used while migrating are gone with the migration mode.
    assert "sasl.jaas.config" not in text and "INTERNAL" not in text
    unit = node.file("/etc/systemd/system/kafka-controller.service").content_string
    assert "java.security.auth.login.config" not in unit
    assert not node.file("/etc/kafka/controller/zookeeper-client.jaas").exists
    assert not node.file("/etc/kafka/controller/tls").exists
    assert node.service("kafka-controller").is_running
    assert not node.service("zookeeper").is_running
    assert not node.service("zookeeper").is_enabled


def test_the_cluster_id_and_the_quorum_are_the_controllers():
    admin = KafkaAdminClient(bootstrap_servers=bootstrap(BROKERS), request_timeout_ms=30000, **client_settings())
    try:
        quorum = settled(lambda: admin.describe_metadata_quorum()["topics"][0]["partitions"][0],
                         lambda found: found["leader_id"] in CONTROLLER_IDS)
    finally:
        admin.close()
    assert sorted(voter["replica_id"] for voter in quorum["current_voters"]) == CONTROLLER_IDS
    # The controllers were formatted with the id ZooKeeper held, which the brokers kept.
    ids = set()
    for name in CONTROLLERS:
        meta = _node(name).file("/var/lib/kafka/controller-metadata/meta.properties").content_string
        ids.add(_settings(meta)["cluster.id"])
    for name in BROKERS:
        broker_id = int(RUNNER.get_variables(name)["kafka_broker_id"])
        path = "/var/lib/kafka/broker-%d/meta.properties" % broker_id
        ids.add(_settings(_node(name).file(path).content_string)["cluster.id"])
    assert len(ids) == 1, ids


def test_topics_configs_acls_and_users_survived(saved):
    survivors = saved("migration-survivors.json")
    assert survivors == {"topics_changed": False, "acls_changed": False, "users_changed": False,
                         "topics_that_would_change": []}, survivors


def _as_user(name, password):
    return dict(client_settings(), bootstrap_servers=bootstrap(BROKERS), sasl_plain_username=name,
                sasl_plain_password=password, request_timeout_ms=15000)


def test_users_and_acls_made_in_zookeeper_mode_work_on_the_migrated_cluster(scenario_variables):
    """orders-app was created, with its ACLs, through ZooKeeper-mode brokers before the migration (migrate.yml):
    its SCRAM credential and ACLs now come from the metadata log. It logs in, writes and reads mig-orders as its
    ACLs allow, and is denied writing mig-audit, on which it has none."""
    orders_app = [secret for secret in scenario_variables["secure_secrets"] if secret.startswith("Mig-Orders-App-")][0]
    offset, marker, read = write_and_read_back(_as_user("orders-app", orders_app), "mig-orders", "orders-app")
    assert read == (offset, marker)
    denied = write_refused(_as_user("orders-app", orders_app), "mig-audit")
    assert isinstance(denied, TopicAuthorizationFailedError), denied
    print("\norders-app wrote and read mig-orders at offset %d; writing mig-audit: %r" % (offset, denied))


def test_every_acknowledged_record_is_there(saved):
    check_every_acknowledged_record(saved)
    steady = saved("steady-manifest.json")
    figures = {key: saved("verify-report.json")[key] for key in ("records", "lost")}
    figures.update({key: steady.get(key) for key in ("failed", "producer_restarts", "longest_silence_seconds")})
    print("\nmigration: %s" % json.dumps(figures))
