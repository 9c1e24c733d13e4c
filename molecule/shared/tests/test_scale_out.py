"""Checks of the scale-out scenario after its side effect: two brokers joined, two topics were spread
over all five with a throttled reassignment while records flowed, and the Spark job checked them.
"""

import json
import os

from kafka import KafkaConsumer, TopicPartition

if os.environ.get("MOLECULE_SCENARIO_NAME") == "scale-out":
    from live_cluster import (bootstrap, describe, inventory_hosts, replica_and_leader_counts, settled,
                              throttle_configs_left, under_replicated)

    RUNNER, HOSTS = inventory_hosts("kafka_broker", "new_broker")
    FOLDER = os.environ["MOLECULE_EPHEMERAL_DIRECTORY"]
    VARIABLES = RUNNER.get_variables(HOSTS[0])
    MOVED = VARIABLES["scale_out_topics"]
    TARGETS = [int(broker) for broker in VARIABLES["scale_out_broker_list"].split(",")]

    def test_the_new_brokers_hold_their_share_and_counts_are_even():
        brokers, partitions = describe(bootstrap(HOSTS), MOVED)
        assert brokers == TARGETS
        counts, unused = replica_and_leader_counts(partitions, TARGETS)
        total = sum(counts.values())
        assert all(total // len(TARGETS) <= count <= -(-total // len(TARGETS)) for count in counts.values()), counts
        assert counts[4] > 0 and counts[5] > 0

    def test_preferred_leaders_are_balanced_and_lead():
        unused, partitions = settled(lambda: describe(bootstrap(HOSTS), MOVED),
                                     lambda found: all(partition["leader_id"] == partition["replica_nodes"][0]
                                                       for unused, partition in found[1]))
        unused, leaders = replica_and_leader_counts(partitions, TARGETS)
        assert all(partition["leader_id"] == partition["replica_nodes"][0] for unused, partition in partitions)
        assert max(leaders.values()) - min(leaders.values()) <= 1, leaders

    def test_no_partition_is_under_replicated():
        unused, partitions = settled(lambda: describe(bootstrap(HOSTS), None),
                                     lambda found: under_replicated(found[1]) == [])
        assert partitions
        assert under_replicated(partitions) == []

    def test_no_throttle_is_left_on_any_broker_or_topic():
        assert settled(lambda: throttle_configs_left(bootstrap(HOSTS), TARGETS, MOVED), lambda left: left == []) == []

    def test_the_plan_moved_the_fewest_replicas():
        with open(os.path.join(FOLDER, "reassignment-summary.json")) as handle:
            summary = json.load(handle)
        assert summary["replica_moves"] == summary["lower_bound"] > 0
        with open(os.path.join(FOLDER, "reassignment-plan.json")) as handle:
            plan = json.load(handle)
        assert len(plan["partitions"]) == summary["partitions_changed"]

    def test_the_spark_job_found_every_acknowledged_record():
        with open(os.path.join(FOLDER, "verify-report.json")) as handle:
            report = json.load(handle)
        with open(os.path.join(FOLDER, "sales-manifest.json")) as handle:
            manifest = json.load(handle)
        assert manifest["acknowledged"] > 0
        assert report["ok"] is True
        assert (report["lost"], report["duplicates"], report["out_of_order"], report["corrupt"],
                report["offset_gaps"]) == (0, 0, 0, 0, 0)
        assert report["records"] >= manifest["acknowledged"]

    def test_every_record_written_before_the_move_is_still_readable():
        consumer = KafkaConsumer(bootstrap_servers=bootstrap(HOSTS), enable_auto_commit=False,
                                 consumer_timeout_ms=60000)
        partitions = [TopicPartition("clicks", number) for number in range(8)]
        consumer.assign(partitions)
        consumer.seek_to_beginning(*partitions)
        values = set()
        for record in consumer:
            values.add(record.value)
            if len(values) == 5000:
                break
        consumer.close()
        assert values == {b"click-%d" % index for index in range(5000)}
