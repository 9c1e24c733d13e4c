"""Checks of the resilience scenario after its side effect: broker 5 joined a loaded cluster and a plan
for two topics moved the fewest replicas onto it, while a leading broker was SIGKILLed; the ZooKeeper
leader was stopped for a while; broker 5 was cut off from the other nodes, then paused past its ZooKeeper
session; the cluster had a rolling restart; broker 4 was decommissioned; and all
the while an acks=all idempotent producer wrote. Prints the figures that docs/benchmarks.md records.
"""

import json
import os
import re

import pytest
import testinfra
from kafka import KafkaConsumer, TopicPartition
from live_cluster import (check_decommission_runs, check_every_acknowledged_record, describe,
                          replica_and_leader_counts, settled, throttle_configs_left, under_replicated)

pytestmark = pytest.mark.scenarios("resilience")


@pytest.fixture(scope="module")
def targets(scenario_variables):
    """The brokers at the end: those the move spread the topics over, less the one decommissioned after."""
    return [int(broker) for broker in scenario_variables["resilience_broker_list"].split(",")
            if int(broker) not in scenario_variables["scenario_decommissioned_brokers"]]


@pytest.fixture(scope="module")
def moved_topics(scenario_variables):
    return scenario_variables["resilience_topics"]


def test_every_acknowledged_record_is_there_once_in_order_and_intact(saved):
    check_every_acknowledged_record(saved)


def test_the_plan_moved_the_fewest_replicas(saved):
    summary = saved("reassignment-summary.json")
    assert summary["replica_moves"] == summary["lower_bound"] > 0
    assert len(saved("reassignment-plan.json")["partitions"]) == summary["partitions_changed"] > 0


def test_the_move_finished_despite_the_killed_broker_and_spread_the_topics(saved, grown_brokers, targets,
                                                                           moved_topics):
    move = saved("reassignment.json")
    assert move["moving_at_kill"] > 0
    finished = move["rerun"] or move["first_run"]
    assert not finished.get("failed"), finished.get("msg")
    assert finished["moved"] > 0
    brokers, partitions = settled(lambda: describe(grown_brokers, moved_topics), lambda found: found[0] == targets)
    assert brokers == targets
    # The move's plan balanced the replicas of the topics it moved together, the new broker included (the floor
    # or ceiling of their mean); the decommission after it moved only broker 4's replicas (mode remove: see
    # test_the_decommissioned_broker_was_drained_with_the_fewest_moves_stopped_and_is_gone).
    rows = [row for row in saved("reassignment-summary.json")["brokers"] if row["target"]]
    total = sum(row["replicas_after"] for row in rows)
    assert all(total // len(rows) <= row["replicas_after"] <= -(-total // len(rows)) for row in rows), rows
    replicas, unused = replica_and_leader_counts(partitions, targets)
    assert replicas[targets[-1]] > 0, replicas


def test_preferred_leaders_are_balanced_and_were_elected(saved, grown_brokers, targets):
    # Who leads right now is not checked: the rolling restarts after the move shift leadership, and
    # the brokers hand it back to the preferred replicas only at their next imbalance check.
    move = saved("reassignment.json")
    finished = move["rerun"] or move["first_run"]
    assert finished["election_failed"] == [] and not finished.get("election_error"), finished
    # The last plan, the decommission's, covered every topic there was (internal ones too) and balanced the
    # preferred leaders over all of them together, not over the two topics the first move took.
    unused, partitions = describe(grown_brokers, saved("decommission.json")["topics"])
    unused, leaders = replica_and_leader_counts(partitions, targets)
    assert max(leaders.values()) - min(leaders.values()) <= 1, leaders


def test_a_first_run_that_failed_said_why_and_left_no_throttle(saved, grown_brokers, targets, moved_topics):
    move = saved("reassignment.json")
    if move["first_run"].get("failed"):
        assert "Run again with the same plan" in move["first_run"]["msg"]
        assert move["rerun"] and not move["rerun"].get("failed")
    else:
        assert move["rerun"] is None
    left = settled(lambda: throttle_configs_left(grown_brokers, targets, moved_topics), lambda found: found == [])
    assert left == []


def test_every_record_written_before_the_move_is_still_readable(grown_brokers, moved_topics, scenario_variables):
    topic = [name for name in moved_topics if name != scenario_variables["resilience_topic"]][0]
    consumer = KafkaConsumer(bootstrap_servers=grown_brokers, enable_auto_commit=False, consumer_timeout_ms=60000)
    partitions = [TopicPartition(topic, number) for number in consumer.partitions_for_topic(topic)]
    consumer.assign(partitions)
    consumer.seek_to_beginning(*partitions)
    values = set()
    for record in consumer:
        values.add(record.value)
        if len(values) == 5000:
            break
    consumer.close()
    assert values == {b"click-%d" % index for index in range(5000)}


def test_a_plan_for_a_dead_broker_was_refused_naming_it(saved):
    assert "broker 5 is not a live broker" in saved("refusal.json")["msg"]


def test_writes_went_on_without_the_zookeeper_leader(saved):
    outage = saved("zookeeper-outage.json")
    assert outage["probe_acknowledged"] == 1000
    assert outage["steady_records_while_down"] > 0


def test_broker_5_cut_off_left_every_isr_while_writes_went_on_and_came_back(saved):
    cut, heal = saved("faults.json")["cut"], saved("faults.json")["heal"]
    # The fault happened: our rules were in place and dropped the other nodes' packets, and the others took
    # broker 5 out of every ISR and moved its leaders away.
    assert cut["proof"]["in_place"] and cut["proof"]["dropped_packets"] > 0, cut["proof"]
    assert cut["led_before"] > 0 and cut["replicas_before"] > 0, cut
    assert cut["seconds_until_out"] >= 0
    # Acknowledged writes went on through the others, the steady producer's among them.
    assert cut["writes"]["probe_acknowledged"] == 1000, cut["writes"]
    assert cut["writes"]["steady_records_while_down"] > 0, cut["writes"]
    assert heal["healed"] and heal["seconds_until_back"] >= 0, heal


def test_a_rolling_restart_under_the_cut_stopped_before_restarting_anything(saved):
    faults = saved("faults.json")
    assert "rolling restart of the brokers stopped" in faults["restart_under_cut"]
    assert "under-replicated" in faults["restart_under_cut"], faults["restart_under_cut"]
    before, after = faults["broker_1_pid"]
    assert before == after != "0", faults["broker_1_pid"]


def test_broker_5_paused_past_its_zookeeper_session_left_the_cluster_and_came_back(saved):
    pause = saved("faults.json")["pause"]
    # The fault happened: the process was stopped (state T), long enough for ZooKeeper to expire its session.
    assert pause["proof"]["in_place"] and pause["proof"]["state"] in ("T", "t"), pause["proof"]
    assert pause["seconds_until_unregistered"] < pause["seconds_paused"], pause
    assert pause["running_again"] and pause["seconds_until_back"] >= 0, pause


def _healthy(partitions):
    return under_replicated(partitions) == [] and all(entry[1]["leader_id"] >= 0 for entry in partitions)


def test_nothing_is_under_replicated_or_offline(grown_brokers):
    # The Spark job has just shared the two cores with every broker: give ISRs time to settle.
    unused, partitions = settled(lambda: describe(grown_brokers, None), lambda found: _healthy(found[1]))
    assert partitions
    assert under_replicated(partitions) == []
    assert all(partition["leader_id"] >= 0 for unused, partition in partitions)


def test_a_broker_that_did_not_come_back_stopped_the_rolling_restart_naming_it(saved):
    message = saved("stopped-restart.json")["message"]
    assert "rolling restart of the brokers stopped" in message
    # The wait asks from the controller, at the broker's client address.
    assert re.search(r"broker 4 at \S+:9092 \(unit kafka-broker-4\) is not coming up", message), message
    # The cause, from the broker's server.log: the value it refused.
    assert "num.network.threads" in message and "during the wait, last exit status 1" in message


def test_the_decommissioned_broker_was_drained_with_the_fewest_moves_stopped_and_is_gone(
        saved, grown_brokers, scenario_variables, inventory):
    leaving, = scenario_variables["scenario_decommissioned_brokers"]
    # Run twice, the second changing nothing; the fewest moves.
    runs = check_decommission_runs(saved, leaving)
    # Three of five brokers leaving was refused before anything moved (resilience.yml checked the replicas).
    assert any("topic payments: replication factor 3, but only 2 broker(s) would remain" in line
               for line in runs["refused"]), runs["refused"]
    brokers, partitions = describe(grown_brokers, None)
    assert leaving not in brokers
    assert [label for label, partition in partitions if leaving in partition["replica_nodes"]] == []
    host_name = [name for name in inventory.get_hosts("all")
                 if inventory.get_variables(name).get("kafka_broker_id") == leaving][0]
    node = testinfra.get_host(host_name, ansible_inventory=os.environ["MOLECULE_INVENTORY_FILE"], connection="ansible")
    service = node.service("kafka-broker-%d" % leaving)
    assert not service.is_running and not service.is_enabled


# What differs between two runs of the job on the same records: where and when it ran.
RUN_FIELDS = {"spark_master", "spark_executors", "started_at", "elapsed_seconds"}


def test_the_jobs_ran_on_the_spark_standalone_cluster(saved):
    report, master = saved("verify-report.json"), saved("spark-master.json")
    assert report["spark_master"].startswith("spark://")
    # Both workers' executors served the job, each on its own host (container).
    assert len({address.rsplit(":", 1)[0] for address in report["spark_executors"]}) == 2
    assert master["aliveworkers"] == 2
    finished = {app["name"] for app in master["completedapps"] if app["state"] == "FINISHED"}
    assert "kafkaops-bulk-produce %s" % report["manifests"][0]["topic"] in finished
    assert "kafkaops-verify " + ",".join(report["topics"]) in finished


def test_the_standalone_cluster_gave_the_report_local_2_gave(saved):
    standalone, local = saved("verify-report.json"), saved("verify-report-local.json")
    assert local["spark_master"] == "local[2]" and local["spark_executors"] == []
    assert local["ok"] and standalone["records"] > 0
    assert ({name: value for name, value in standalone.items() if name not in RUN_FIELDS}
            == {name: value for name, value in local.items() if name not in RUN_FIELDS})


def test_print_the_figures(saved):
    report, move, summary = saved("verify-report.json"), saved("reassignment.json"), saved("reassignment-summary.json")
    finished = move["rerun"] or move["first_run"]
    figures = {
        "bulk_acknowledged": saved("bulk-manifest.json")["acknowledged"],
        "steady_acknowledged": saved("steady-manifest.json")["acknowledged"],
        "records_verified": report["records"],
        "killed_broker": move["victim"],
        "partitions_moving_at_kill": move["moving_at_kill"],
        "first_run_failed": bool(move["first_run"].get("failed")),
        "replica_moves_planned": summary["replica_moves"],
        "lower_bound": summary["lower_bound"],
        "moved": finished["moved"],
        "reassignment_seconds": finished["elapsed"],
        # Partitions done against seconds: shows whether the broker's death held up one partition or all.
        "reassignment_progress": finished.get("progress"),
        "bytes_to_move": finished.get("bytes_to_move"),
        "throttle": move["throttle"],
        "zookeeper_outage": saved("zookeeper-outage.json"),
        "faults_on_broker_5": {name: {key: value for key, value in figures.items() if key != "proof"}
                               for name, figures in saved("faults.json").items() if isinstance(figures, dict)},
        "rolling_restart_seconds": saved("rolling-restart.json")["seconds"],
        "verify_seconds_standalone_2_workers": report["elapsed_seconds"],
        "verify_seconds_local_2": saved("verify-report-local.json")["elapsed_seconds"],
    }
    if figures["bytes_to_move"]:
        figures["seconds_at_throttle"] = round(figures["bytes_to_move"] / float(move["throttle"]), 1)
    print("resilience figures: %s" % json.dumps(figures, sort_keys=True))
    assert figures["records_verified"] >= figures["bulk_acknowledged"] + figures["steady_acknowledged"]
