"""KRaft: the controllers' quorum, the brokers in it, storage formatted once, and refusals that change nothing.

After the kraft scenario's side effect (join.yml) its seventh node is a fourth controller and a fourth
broker, and broker 3 has been decommissioned (scenario_decommissioned_brokers): stopped, unregistered,
holding nothing. The quorum is asked through the brokers (they forward DescribeQuorum to the controllers).
"""

import json
import os
import re

import pytest
import testinfra
import testinfra.utils.ansible_runner
from kafka.admin import KafkaAdminClient
from live_cluster import (bootstrap, check_decommission_runs, check_every_acknowledged_record, client_settings,
                          describe, replica_and_leader_counts, settled, throttle_configs_left, under_replicated)
from playbook_runner import read_run, run_playbook

pytestmark = pytest.mark.scenarios("kraft")

INVENTORY = os.environ["MOLECULE_INVENTORY_FILE"]
PROJECT = os.environ.get("MOLECULE_PROJECT_DIRECTORY", os.getcwd())
RUNNER = testinfra.utils.ansible_runner.AnsibleRunner(INVENTORY)
JOINER = RUNNER.get_hosts("kraft_joiner")
CONTROLLER_HOSTS = RUNNER.get_hosts("kafka_controller") + JOINER
BROKER_HOSTS = RUNNER.get_hosts("kafka_broker") + JOINER
# The kraft scenario's inventory gives every id (read in the checks: other scenarios' hosts have none).
CONTROLLER_IDS = []
BROKER_IDS = []
# The brokers still in the cluster, and the hosts that run them.
LIVE_BROKER_IDS = []
LIVE_BROKER_HOSTS = []
DECOMMISSIONED = set(RUNNER.get_variables(RUNNER.get_hosts("all")[0]).get("scenario_decommissioned_brokers") or [])


@pytest.fixture(scope="module", autouse=True)
def _ids():
    CONTROLLER_IDS[:] = sorted(int(RUNNER.get_variables(name)["kafka_controller_node_id"]) for name in CONTROLLER_HOSTS)
    BROKER_IDS[:] = sorted(int(RUNNER.get_variables(name)["kafka_broker_id"]) for name in BROKER_HOSTS)
    LIVE_BROKER_IDS[:] = [broker for broker in BROKER_IDS if broker not in DECOMMISSIONED]
    LIVE_BROKER_HOSTS[:] = [name for name in BROKER_HOSTS
                            if int(RUNNER.get_variables(name)["kafka_broker_id"]) not in DECOMMISSIONED]


META_FILES = {"controller": "/var/lib/kafka/controller-metadata/meta.properties"}


def _node(name):
    return testinfra.get_host(name, ansible_inventory=INVENTORY, connection="ansible")


def _meta(name, path):
    text = _node(name).file(path).content_string
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))


def _quorum():
    admin = KafkaAdminClient(bootstrap_servers=bootstrap(LIVE_BROKER_HOSTS), request_timeout_ms=30000,
                             **dict(client_settings()))
    try:
        return admin.describe_metadata_quorum()["topics"][0]["partitions"][0]
    finally:
        admin.close()


def test_the_quorum_has_every_controller_as_a_voter_and_a_leader():
    # The joined controller was added as a voter (KIP-853 add-controller) by site.yml.
    partition = settled(_quorum, lambda found: sorted(voter["replica_id"] for voter in found["current_voters"])
                        == CONTROLLER_IDS and found["leader_id"] in CONTROLLER_IDS)
    assert sorted(voter["replica_id"] for voter in partition["current_voters"]) == CONTROLLER_IDS
    assert partition["leader_id"] in CONTROLLER_IDS
    # Brokers follow the metadata log as observers, the joined one too (the leader may still list a broker
    # stopped a moment ago).
    observers = set(observer["replica_id"] for observer in partition["observers"])
    assert set(LIVE_BROKER_IDS) <= observers <= set(BROKER_IDS), observers


def test_every_broker_is_registered_and_unfenced():
    admin = KafkaAdminClient(bootstrap_servers=bootstrap(LIVE_BROKER_HOSTS), request_timeout_ms=30000,
                             **dict(client_settings()))
    try:
        # DescribeCluster (v2, as kafka-python asks it) lists fenced brokers too, marked is_fenced: a
        # decommissioned broker is not even there.
        brokers = settled(lambda: sorted((broker["broker_id"], bool(broker.get("is_fenced")))
                                         for broker in admin.describe_cluster()["brokers"]),
                          lambda found: found == [(broker, False) for broker in LIVE_BROKER_IDS])
    finally:
        admin.close()
    assert brokers == [(broker, False) for broker in LIVE_BROKER_IDS]


def test_controllers_run_on_their_own_and_no_zookeeper_anywhere():
    for name in CONTROLLER_HOSTS:
        node = _node(name)
        assert node.service("kafka-controller").is_running, name
        assert node.service("kafka-controller").is_enabled, name
        assert node.socket("tcp://0.0.0.0:9093").is_listening, name
        properties = node.file("/etc/kafka/controller/server.properties").content_string
        assert "process.roles=controller\n" in properties
        assert "controller.quorum.bootstrap.servers=" in properties
        assert not node.service("zookeeper").is_running
    for name in BROKER_HOSTS:
        properties = _node(name).file(
            "/etc/kafka/broker-%s/server.properties" % RUNNER.get_variables(name)["kafka_broker_id"]).content_string
        assert "process.roles=broker\n" in properties
        assert "zookeeper.connect" not in properties


def test_every_node_is_formatted_once_for_one_cluster():
    clusters = set()
    for name in CONTROLLER_HOSTS:
        meta = _meta(name, META_FILES["controller"])
        assert int(meta["node.id"]) == int(RUNNER.get_variables(name)["kafka_controller_node_id"])
        clusters.add(meta["cluster.id"])
    for name in BROKER_HOSTS:
        broker_id = int(RUNNER.get_variables(name)["kafka_broker_id"])
        meta = _meta(name, "/var/lib/kafka/broker-%d/meta.properties" % broker_id)
        assert int(meta["node.id"]) == broker_id
        clusters.add(meta["cluster.id"])
    assert len(clusters) == 1, clusters


def _snapshot():
    state = {}
    for name in CONTROLLER_HOSTS + BROKER_HOSTS:
        node = _node(name)
        for unit in ("kafka-controller", "kafka-broker-%s" % RUNNER.get_variables(name).get("kafka_broker_id", "")):
            state[(name, unit)] = node.run("systemctl show --property=MainPID --value %s" % unit).stdout.strip()
        for path in (META_FILES["controller"], "/etc/kafka/controller/server.properties"):
            state[(name, path)] = node.file(path).sha256sum if node.file(path).exists else None
    return state


def test_another_cluster_id_is_refused_and_changes_nothing():
    """A controller is never formatted again: a cluster id other than the one on disk stops the run in
    preflight, naming the variable, with every service and file as it was."""
    before = _snapshot()
    environment = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(PROJECT, ".cache", "collections"),
                       ANSIBLE_CONFIG=os.path.join(PROJECT, "ansible.cfg"))
    run = run_playbook("kafkaops.cluster.site", [INVENTORY], {"kafka_controller_cluster_id": "AAAAAAAAAAAAAAAAAAAAAg"},
                       environment=environment, timeout=600)
    assert run.rc != 0, run.describe()
    refusal = "kafka_controller_cluster_id: storage formatted for another cluster than AAAAAAAAAAAAAAAAAAAAAg"
    assert any(refusal in message for message in run.failure_messages()), run.describe()
    assert run.stats and run.changes == {}, run.describe()
    assert _snapshot() == before


def test_the_join_restarted_nothing_that_ran(saved):
    """join.yml saved each running service's main PID from before and after the new node joined."""
    for name in RUNNER.get_hosts("kafka_controller") + RUNNER.get_hosts("kafka_broker"):
        pids = saved("pids-%s.json" % name)
        assert int(pids["before"]) > 0, name
        assert pids["after"] == pids["before"], name


@pytest.mark.scenarios("combined")
def test_a_combined_broker_is_the_quorum_s_voter_and_leader():
    partition = settled(_quorum, lambda found: found["leader_id"] == BROKER_IDS[0])
    assert [voter["replica_id"] for voter in partition["current_voters"]] == BROKER_IDS
    assert partition["leader_id"] == BROKER_IDS[0]
    properties = _node(BROKER_HOSTS[0]).file("/etc/kafka/broker-%d/server.properties" % BROKER_IDS[0]).content_string
    assert "process.roles=broker,controller\n" in properties
    assert "CONTROLLER://" in properties


@pytest.mark.scenarios("combined")
def test_the_upgrade_rolled_the_node_to_4_4_and_raised_the_metadata_version_once(saved):
    """upgrade.yml (the side effect) rolled the combined node from Kafka 4.3.1 to 4.4.0, raised the metadata
    version and finalized every feature at the highest level the node supports only in the run that asked for
    it, and changed nothing when run again."""
    runs = saved("upgrade.json")
    # Each run's events (the side effect ran them through the jsonl callback).
    upgrade, raised, again = (read_run(runs[name]) for name in ("upgrade", "raise", "again"))
    raise_task = "kafkaops.cluster.service_common : Raise the metadata version to 4.4"
    features_task = "kafkaops.cluster.kafka_broker : Finalize the cluster's feature levels"

    def statuses(run, task):
        """Per run of the task, its hosts' statuses."""
        return [list(hosts.values()) for hosts in run.statuses(task)]

    # Neither task even started in the plain upgrade, which changed the node.
    assert upgrade.stats and not upgrade.task_runs(features_task), upgrade.describe()
    assert upgrade.changes.get("kafkaops-combined", 0) > 0, upgrade.describe()
    assert not upgrade.task_runs(raise_task), upgrade.describe()
    # Kafka's feature tool may have raised some features with the metadata version already: ok or changed.
    assert statuses(raised, features_task) in ([["changed"]], [["ok"]]), raised.describe()
    assert statuses(again, features_task) == [["ok"]], again.describe()
    assert statuses(raised, raise_task) == [["changed"]], raised.describe()
    assert statuses(again, raise_task) == [["skipped"]], again.describe()
    assert again.stats and again.changes == {}, again.describe()
    assert 0 < runs["pid_before"] != runs["pid_after"] > 0

    node = _node(BROKER_HOSTS[0])
    unit = node.file("/etc/systemd/system/kafka-broker-1.service").content_string
    classpath = re.search(r" -cp (\S+) ", unit).group(1)
    assert "4.4.0" in classpath and "4.3.1" not in classpath, classpath
    assert node.run("systemctl show --property=MainPID --value kafka-broker-1").stdout.strip() == str(runs["pid_after"])
    properties = node.file("/etc/kafka/broker-1/server.properties").content_string
    controllers = re.search(r"^controller\.quorum\.bootstrap\.servers=(\S+)$", properties, re.M).group(1)
    features = node.check_output("java -Xmx128m -cp %s org.apache.kafka.tools.FeatureCommand "
                                 "--bootstrap-controller %s describe 2>/dev/null", classpath, controllers)
    finalized = re.search(r"Feature: metadata\.version\s.*?FinalizedVersionLevel: (\S+)", features).group(1)
    assert finalized.startswith("4.4-"), features
    # Every other feature at the highest level the node supports (upgrade_features; metadata.version is the
    # release's, above). Those whose highest is 0 are not finalized.
    levels = re.findall(r"Feature: (\S+)\s.*?SupportedMaxVersion: (\S+)\s.*?FinalizedVersionLevel: (\S+)", features)
    assert len(levels) > 1 and all(finalized == highest for name, highest, finalized in levels
                                   if highest != "0" and name != "metadata.version"), features


def test_the_rolling_restart_took_the_controllers_one_at_a_time_the_leader_last(saved):
    """join.yml ran playbooks/rolling_restart.yml on the four controllers after the join."""
    restarts = [saved("controller-restart-%s.json" % name) for name in CONTROLLER_HOSTS]
    leader = restarts[0]["leader_before"]
    assert leader in CONTROLLER_IDS
    for restart in restarts:
        assert restart["leader_before"] == leader
        if restart["pid_before_restart"] is not None:
            assert restart["pid"] != restart["pid_before_restart"], restart
    order = [restart["node_id"] for restart in sorted(restarts, key=lambda restart: restart["started"])]
    assert order[-1] == leader, order
    assert sorted(order) == CONTROLLER_IDS


def test_every_acknowledged_record_is_there_once_in_order_and_intact(saved):
    """The Spark job read the topic after the join, the move under a killed controller and the rolling restart."""
    check_every_acknowledged_record(saved)


def test_the_move_finished_despite_the_killed_controller_with_the_fewest_moves(saved, scenario_variables):
    summary = saved("reassignment-summary.json")
    assert summary["replica_moves"] == summary["lower_bound"] > 0
    move = saved("reassignment.json")
    assert move["moving_at_kill"] > 0
    assert move["victim"] in CONTROLLER_IDS
    assert move["leader_after_kill"] in CONTROLLER_IDS
    finished = move["rerun"] or move["first_run"]
    assert not finished.get("failed"), finished.get("msg")
    assert finished["moved"] > 0
    assert finished["election_failed"] == [] and not finished.get("election_error"), finished
    topic = scenario_variables["kraft_topic"]
    servers = bootstrap(LIVE_BROKER_HOSTS)
    brokers, partitions = settled(lambda: describe(servers, [topic]),
                                  lambda found: found[0] == LIVE_BROKER_IDS and not under_replicated(found[1]))
    assert brokers == LIVE_BROKER_IDS
    assert under_replicated(partitions) == []
    # The planner spreads the replicas evenly, the new broker included (and again when broker 3 left).
    replicas, unused = replica_and_leader_counts(partitions, LIVE_BROKER_IDS)
    total, count = sum(replicas.values()), len(LIVE_BROKER_IDS)
    assert all(total // count <= replicas[broker] <= -(-total // count) for broker in LIVE_BROKER_IDS), replicas
    left = settled(lambda: throttle_configs_left(servers, LIVE_BROKER_IDS, [topic]), lambda found: found == [])
    assert left == []


def test_the_decommissioned_broker_is_stopped_unregistered_and_holds_nothing(saved):
    leaving, = DECOMMISSIONED
    # Run twice, the second changing nothing; the fewest moves.
    check_decommission_runs(saved, leaving)
    admin = KafkaAdminClient(bootstrap_servers=bootstrap(LIVE_BROKER_HOSTS), request_timeout_ms=30000,
                             **dict(client_settings()))
    try:
        # Neither live nor fenced: the controllers no longer know the id.
        registered = [broker["broker_id"] for broker in admin.describe_cluster()["brokers"]]
        holding = [(topic["name"], partition["partition_index"]) for topic in admin.describe_topics()
                   for partition in topic["partitions"] if leaving in partition["replica_nodes"]]
    finally:
        admin.close()
    assert leaving not in registered and holding == []
    name, = [host for host in BROKER_HOSTS if int(RUNNER.get_variables(host)["kafka_broker_id"]) == leaving]
    service = _node(name).service("kafka-broker-%d" % leaving)
    assert not service.is_running and not service.is_enabled


def test_transactions_through_the_faults_show_every_committed_record_and_no_aborted_one(saved):
    """The transactional producer wrote through the controller kill, the cut and the paused leader (commits and
    aborts); read read_committed, every committed record is there once, in order, and no aborted one is visible."""
    report, manifest = saved("verify-report.json"), saved("transactional-manifest.json")
    assert manifest["acknowledged"] > 0 and manifest["aborted"] > 0, manifest["transactions"]
    assert manifest["transactions"]["committed"] > 0 and manifest["transactions"]["aborted"] > 0
    assert manifest["stopped_by"] == "signal"
    entries = [entry for entry in report["per_partition"] if entry["topic"] == "kraft-transactions"]
    assert entries and report["aborted_visible"] == 0
    assert all(entry[check] == 0 for entry in entries
               for check in ("lost", "duplicates", "out_of_order", "corrupt", "offset_gaps", "aborted_visible"))
    assert sum(entry["records"] for entry in entries) == sum(entry["expected"] for entry in entries) \
        == manifest["acknowledged"]
    assert "kraft-transactions" in report["transactional"]["topics"]


def test_broker_2_cut_off_was_fenced_out_of_every_isr_while_writes_went_on_and_came_back(saved):
    """KRaft mode: cut off from the controllers, broker 2 could not heartbeat; they fenced it and took it out of every
    ISR (and moved its leaders), while acknowledged writes went on through brokers 1 and 4."""
    cut, heal = saved("faults.json")["cut"], saved("faults.json")["heal"]
    assert cut["proof"]["in_place"] and cut["proof"]["dropped_packets"] > 0, cut["proof"]
    assert cut["replicas_before"] > 0, cut
    assert cut["seconds_until_out"] >= 0
    assert cut["writes"]["probe_acknowledged"] == 1000, cut["writes"]
    assert cut["writes"]["steady_records_while_down"] > 0, cut["writes"]
    assert heal["healed"] and heal["seconds_until_back"] >= 0, heal


def test_the_paused_quorum_leader_was_replaced_while_writes_went_on_and_caught_up_after(saved):
    pause = saved("faults.json")["pause_leader"]
    # The fault happened: the leader's process was stopped (state T) until the others elected another in a later
    # epoch; it was let go afterwards and caught up as a voter.
    assert pause["proof"]["in_place"] and pause["proof"]["state"] in ("T", "t"), pause["proof"]
    before, during = pause["quorum_before"], pause["quorum_during"]
    assert before["leader"] in CONTROLLER_IDS and during["leader"] in CONTROLLER_IDS, pause
    assert during["leader"] != before["leader"] and during["epoch"] > before["epoch"], pause
    # Every other voter said so in its own quorum-state file (the joined node's controller is the fourth voter).
    assert len(during["seen_by"]) == len(CONTROLLER_IDS) - 1, pause
    assert pause["seconds_until_new_leader"] < pause["seconds_paused"], pause
    assert pause["writes"]["probe_acknowledged"] == 1000, pause["writes"]
    assert pause["running_again"] and pause["seconds_until_caught_up"] >= 0, pause


def test_print_the_figures(saved):
    report, move, summary = saved("verify-report.json"), saved("reassignment.json"), saved("reassignment-summary.json")
    finished = move["rerun"] or move["first_run"]
    print("\nKRAFT FIGURES " + json.dumps({
        "bulk_acknowledged": saved("bulk-manifest.json")["acknowledged"],
        "steady_acknowledged": saved("steady-manifest.json")["acknowledged"],
        "records_read": report["records"], "lost": report["lost"],
        "replica_moves": summary["replica_moves"], "lower_bound": summary["lower_bound"],
        "killed_controller": move["victim"], "leader_after_kill": move["leader_after_kill"],
        "moving_at_kill": move["moving_at_kill"], "first_run_failed": bool(move["first_run"].get("failed")),
        "move_seconds": (finished.get("progress") or [{}])[-1].get("elapsed"),
    }, sort_keys=True))
