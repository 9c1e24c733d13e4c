"""Checks of the resilience scenario after its side effect: broker 5 joined and took its share while
a leading broker was SIGKILLed, the ZooKeeper leader was stopped for a while, the cluster had a
rolling restart, and all the while an acks=all idempotent producer wrote. Prints the figures that
docs/benchmarks.md records.
"""

import json
import os

if os.environ.get("MOLECULE_SCENARIO_NAME") == "resilience":
    from live_cluster import (bootstrap, describe, inventory_hosts, replica_and_leader_counts, settled,
                              throttle_configs_left, under_replicated)

    RUNNER, HOSTS = inventory_hosts("kafka_broker", "new_broker")
    FOLDER = os.environ["MOLECULE_EPHEMERAL_DIRECTORY"]
    VARIABLES = RUNNER.get_variables(HOSTS[0])
    TOPIC = VARIABLES["resilience_topic"]
    TARGETS = [int(broker) for broker in VARIABLES["resilience_broker_list"].split(",")]

    def _saved(name):
        with open(os.path.join(FOLDER, name)) as handle:
            return json.load(handle)

    def test_every_acknowledged_record_is_there_once_in_order_and_intact():
        report = _saved("verify-report.json")
        acknowledged = _saved("bulk-manifest.json")["acknowledged"] + _saved("steady-manifest.json")["acknowledged"]
        assert (report["lost"], report["duplicates"], report["out_of_order"], report["corrupt"],
                report["offset_gaps"]) == (0, 0, 0, 0, 0), report["examples"]
        assert report["ok"] is True
        assert _saved("steady-manifest.json")["acknowledged"] > 0
        assert report["records"] >= acknowledged > 0

    def test_the_move_finished_despite_the_killed_broker_and_spread_the_topic():
        move = _saved("reassignment.json")
        assert move["moving_at_kill"] > 0
        finished = move["rerun"] or move["first_run"]
        assert not finished.get("failed"), finished.get("msg")
        assert finished["moved"] > 0
        brokers, partitions = settled(lambda: describe(bootstrap(HOSTS), [TOPIC]), lambda found: found[0] == TARGETS)
        assert brokers == TARGETS
        replicas, leaders = replica_and_leader_counts(partitions, TARGETS)
        total = sum(replicas.values())
        assert all(total // len(TARGETS) <= count <= -(-total // len(TARGETS)) for count in replicas.values()), replicas
        assert max(leaders.values()) - min(leaders.values()) <= 1, leaders

    def test_a_first_run_that_failed_said_why_and_left_no_throttle():
        move = _saved("reassignment.json")
        if move["first_run"].get("failed"):
            assert "Run again with the same plan" in move["first_run"]["msg"]
            assert move["rerun"] and not move["rerun"].get("failed")
        else:
            assert move["rerun"] is None
        assert settled(lambda: throttle_configs_left(bootstrap(HOSTS), TARGETS, [TOPIC]), lambda left: left == []) == []

    def test_a_plan_for_a_dead_broker_was_refused_naming_it():
        assert "broker 5 is not a live broker" in _saved("refusal.json")["msg"]

    def test_writes_went_on_without_the_zookeeper_leader():
        outage = _saved("zookeeper-outage.json")
        assert outage["probe_acknowledged"] == 1000
        assert outage["steady_records_while_down"] > 0

    def test_nothing_is_under_replicated_or_offline():
        # The Spark job has just shared the two cores with every broker: give ISRs time to settle.
        unused, partitions = settled(lambda: describe(bootstrap(HOSTS), None), lambda found: _healthy(found[1]))
        assert partitions
        assert under_replicated(partitions) == []
        assert all(partition["leader_id"] >= 0 for unused, partition in partitions)

    def _healthy(partitions):
        return under_replicated(partitions) == [] and all(entry[1]["leader_id"] >= 0 for entry in partitions)

    def test_print_the_figures():
        report, move = _saved("verify-report.json"), _saved("reassignment.json")
        finished = move["rerun"] or move["first_run"]
        figures = {
            "bulk_acknowledged": _saved("bulk-manifest.json")["acknowledged"],
            "steady_acknowledged": _saved("steady-manifest.json")["acknowledged"],
            "records_verified": report["records"],
            "killed_broker": move["victim"],
            "partitions_moving_at_kill": move["moving_at_kill"],
            "first_run_failed": bool(move["first_run"].get("failed")),
            "moved": finished["moved"],
            "reassignment_seconds": finished["elapsed"],
            # Partitions done against seconds: shows whether the broker's death held up one partition or all.
            "reassignment_progress": finished.get("progress"),
            "bytes_to_move": finished.get("bytes_to_move"),
            "throttle": move["throttle"],
            "zookeeper_outage": _saved("zookeeper-outage.json"),
            "rolling_restart_seconds": _saved("rolling-restart.json")["seconds"],
        }
        if figures["bytes_to_move"]:
            figures["seconds_at_throttle"] = round(figures["bytes_to_move"] / float(move["throttle"]), 1)
        print("resilience figures: %s" % json.dumps(figures, sort_keys=True))
        assert figures["records_verified"] >= figures["bulk_acknowledged"] + figures["steady_acknowledged"]

    def test_a_broker_that_did_not_come_back_stopped_the_rolling_restart_naming_it():
        message = _saved("stopped-restart.json")["message"]
        assert "rolling restart of the brokers stopped" in message
        assert "broker 4 at 127.0.0.1:9092 (unit kafka-broker-4) is not coming up" in message
        # The cause, from the broker's server.log: the value it refused.
        assert "num.network.threads" in message and "during the wait, last exit status 1" in message
