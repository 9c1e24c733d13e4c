"""Checks of the scale-out scenario after its side effect: two brokers joined, two topics were spread
over all five with a throttled reassignment while records flowed, and the Spark job checked them.
"""

import json
import os

from kafka import KafkaConsumer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient

if os.environ.get("MOLECULE_SCENARIO_NAME") == "scale-out":
    import testinfra.utils.ansible_runner

    INVENTORY = os.environ["MOLECULE_INVENTORY_FILE"]
    RUNNER = testinfra.utils.ansible_runner.AnsibleRunner(INVENTORY)
    HOSTS = RUNNER.get_hosts("kafka_broker") + RUNNER.get_hosts("new_broker")
    FOLDER = os.environ["MOLECULE_EPHEMERAL_DIRECTORY"]
    VARIABLES = RUNNER.get_variables(HOSTS[0])
    MOVED = VARIABLES["scale_out_topics"]
    TARGETS = [int(broker) for broker in VARIABLES["scale_out_broker_list"].split(",")]

    def _bootstrap():
        return ["%s:9092" % testinfra.get_host(name, ansible_inventory=INVENTORY, connection="ansible")
                .interface("eth0").addresses[0] for name in HOSTS]

    def _admin():
        return KafkaAdminClient(bootstrap_servers=_bootstrap(), request_timeout_ms=30000)

    def _partitions(admin, topics):
        """(topic, partition metadata) of every partition of the topics (all topics for None)."""
        return [(topic["name"], partition) for topic in admin.describe_topics(topics)
                for partition in topic["partitions"]]

    def test_the_new_brokers_hold_their_share_and_counts_are_even():
        admin = _admin()
        try:
            assert sorted(broker["broker_id"] for broker in admin.describe_cluster()["brokers"]) == TARGETS
            partitions = _partitions(admin, MOVED)
        finally:
            admin.close()
        counts = {broker: 0 for broker in TARGETS}
        for partition in (item[1] for item in partitions):
            for broker in partition["replica_nodes"]:
                counts[broker] += 1
        total = sum(counts.values())
        assert all(total // len(TARGETS) <= count <= -(-total // len(TARGETS)) for count in counts.values()), counts
        assert counts[4] > 0 and counts[5] > 0

    def test_preferred_leaders_are_balanced_and_lead():
        admin = _admin()
        try:
            partitions = _partitions(admin, MOVED)
        finally:
            admin.close()
        leaders = {broker: 0 for broker in TARGETS}
        for partition in (item[1] for item in partitions):
            leaders[partition["replica_nodes"][0]] += 1
            assert partition["leader_id"] == partition["replica_nodes"][0]
        assert max(leaders.values()) - min(leaders.values()) <= 1, leaders

    def test_no_partition_is_under_replicated():
        admin = _admin()
        try:
            partitions = _partitions(admin, None)
        finally:
            admin.close()
        assert partitions
        lagging = ["%s-%d" % (name, partition["partition_index"]) for name, partition in partitions
                   if sorted(partition["isr_nodes"]) != sorted(partition["replica_nodes"])]
        assert lagging == []

    def test_no_throttle_is_left_on_any_broker_or_topic():
        admin = _admin()
        try:
            resources = [ConfigResource(ConfigResourceType.BROKER, str(broker)) for broker in TARGETS]
            resources += [ConfigResource(ConfigResourceType.TOPIC, name) for name in MOVED]
            described = admin.describe_configs(resources)
        finally:
            admin.close()
        left = ["%s %s %s" % (kind, name, key) for kind, entries in described.items()
                for name, configs in entries.items() for key in configs if "throttled" in key]
        assert left == []

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
        consumer = KafkaConsumer(bootstrap_servers=_bootstrap(), enable_auto_commit=False, consumer_timeout_ms=20000)
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
