"""Checks every Molecule scenario runs against its live containers.

Expectations come from the scenario's inventory (which hosts, which broker ids and ports); the
answers come from the running services: systemd, the sockets, ZooKeeper and the brokers.
"""

import itertools
import json
import os
import time
import uuid

import testinfra.utils.ansible_runner
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewTopic
from kazoo.client import KazooClient
from live_cluster import settled

RUNNER = testinfra.utils.ansible_runner.AnsibleRunner(os.environ["MOLECULE_INVENTORY_FILE"])
SCENARIO = os.environ.get("MOLECULE_SCENARIO_NAME", "")
ZOOKEEPER_HOSTS = RUNNER.get_hosts("zookeeper")
# After the side effects of the cluster and scale-out scenarios, the spare and new hosts are brokers too.
BROKER_HOSTS = RUNNER.get_hosts("kafka_broker") + RUNNER.get_hosts("spare_broker") + RUNNER.get_hosts("new_broker")
testinfra_hosts = sorted(set(ZOOKEEPER_HOSTS + BROKER_HOSTS))


def _address(name):
    return testinfra.get_host(name, ansible_inventory=os.environ["MOLECULE_INVENTORY_FILE"],
                              connection="ansible").interface("eth0").addresses[0]


def _instances(name):
    """The broker instances the inventory asks for on a host, as (broker_id, port) pairs."""
    variables = RUNNER.get_variables(name)
    given = variables.get("kafka_broker_instances") or []
    if given:
        return [(int(item["broker_id"]), int(item["port"])) for item in given]
    return [(int(variables.get("kafka_broker_id") or BROKER_HOSTS.index(name) + 1), 9092)]


def _bootstrap():
    return ["%s:%d" % (_address(name), port) for name in BROKER_HOSTS for unused, port in _instances(name)]


def _expected_broker_ids():
    return sorted(instance[0] for name in BROKER_HOSTS for instance in _instances(name))


def _ask_zookeeper(node, word, answered):
    """A four-letter word's answer from the node's ZooKeeper. A node busy after a restart (or sharing two
    cores with a Spark job) can take more than a second to answer: wait for it, and ask a few times
    before counting it out. Returns the last answer, empty if there was none."""
    output = ""
    for _attempt in range(5):
        output = node.run("echo %s | nc -q 3 -w 10 127.0.0.1 2181" % word).stdout
        if answered(output):
            break
        time.sleep(2)
    return output


def test_zookeeper_runs_and_answers_ruok(host):
    if host.backend.host not in ZOOKEEPER_HOSTS:
        assert not host.service("zookeeper").is_running
        return
    assert host.service("zookeeper").is_running
    assert host.service("zookeeper").is_enabled
    assert host.socket("tcp://0.0.0.0:2181").is_listening
    assert _ask_zookeeper(host, "ruok", lambda answer: answer.strip() == "imok").strip() == "imok"


def test_brokers_run_and_listen(host):
    name = host.backend.host
    if name not in BROKER_HOSTS:
        return
    for broker_id, port in _instances(name):
        unit = host.service("kafka-broker-%d" % broker_id)
        assert unit.is_running, "kafka-broker-%d is not running on %s" % (broker_id, name)
        assert unit.is_enabled
        assert host.socket("tcp://0.0.0.0:%d" % port).is_listening
        assert host.socket("tcp://0.0.0.0:%d" % (port + 10000)).is_listening
        properties = host.file("/etc/kafka/broker-%d/server.properties" % broker_id).content_string
        assert "broker.id=%d\n" % broker_id in properties
        assert "auto.create.topics.enable=false\n" in properties


def test_ensemble_has_exactly_one_leader():
    modes = []
    for name in ZOOKEEPER_HOSTS:
        node = testinfra.get_host(name, ansible_inventory=os.environ["MOLECULE_INVENTORY_FILE"],
                                  connection="ansible")
        output = _ask_zookeeper(node, "srvr", lambda answer: "Mode:" in answer)
        modes.extend(line.split(":", 1)[1].strip() for line in output.splitlines() if line.startswith("Mode:"))
    assert len(modes) == len(ZOOKEEPER_HOSTS)
    expected = ["standalone"] if len(ZOOKEEPER_HOSTS) == 1 else ["leader"]
    assert [mode for mode in modes if mode in ("leader", "standalone")] == expected
    assert modes.count("follower") == len(ZOOKEEPER_HOSTS) - 1


def test_every_broker_is_registered_in_zookeeper():
    chroot = RUNNER.get_variables(BROKER_HOSTS[0]).get("kafka_broker_zookeeper_chroot") or ""
    client = KazooClient(hosts=",".join("%s:2181" % _address(name) for name in ZOOKEEPER_HOSTS), timeout=10)
    client.start(timeout=30)
    try:
        # A broker that has just restarted registers again when its ZooKeeper session is up.
        registered = settled(lambda: sorted(int(child) for child in client.get_children(chroot + "/brokers/ids")),
                             lambda found: found == _expected_broker_ids())
    finally:
        client.stop()
        client.close()
    assert registered == _expected_broker_ids()


def test_topic_on_every_broker_takes_acks_all_records_and_returns_them():
    broker_count = len(_expected_broker_ids())
    topic = "molecule-check-%s" % uuid.uuid4().hex[:8]
    admin = KafkaAdminClient(bootstrap_servers=_bootstrap(), request_timeout_ms=30000)
    try:
        # Write only once every partition has a leader; the producer then retries until its delivery timeout.
        admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=broker_count)])
        admin.wait_for_topics([topic], timeout_ms=60000)
        sent = [("key-%d" % number, "value-%d" % number) for number in range(300)]
        producer = KafkaProducer(bootstrap_servers=_bootstrap(), acks="all")
        futures = [producer.send(topic, key=key.encode(), value=value.encode()) for key, value in sent]
        producer.flush(60)
        metadata = [future.get(timeout=60) for future in futures]
        producer.close()
        assert len(metadata) == len(sent)

        consumer = KafkaConsumer(bootstrap_servers=_bootstrap(), auto_offset_reset="earliest",
                                 enable_auto_commit=False, consumer_timeout_ms=60000)
        partitions = [TopicPartition(topic, number) for number in range(3)]
        consumer.assign(partitions)
        consumer.seek_to_beginning(*partitions)
        received = []
        for record in consumer:
            received.append((record.key.decode(), record.value.decode()))
            if len(received) == len(sent):
                break
        consumer.close()
        assert sorted(received) == sorted(sent)

        description = settled(lambda: admin.describe_topics([topic])[0],
                              lambda found: all(sorted(partition["isr_nodes"]) == sorted(partition["replica_nodes"])
                                                for partition in found["partitions"]))
        for partition in description["partitions"]:
            assert len(partition["replica_nodes"]) == broker_count
            assert sorted(partition["isr_nodes"]) == sorted(partition["replica_nodes"])
    finally:
        admin.delete_topics([topic])
        # The checks that follow read the whole cluster: wait until the topic is gone, not only marked.
        deadline = time.monotonic() + 60
        while topic in admin.list_topics() and time.monotonic() < deadline:
            time.sleep(1)
        admin.close()


if SCENARIO == "cluster":

    def test_declared_topics_exist_as_declared():
        declared = RUNNER.get_variables(BROKER_HOSTS[0]).get("kafka_topics_list") or []
        assert declared, "the cluster scenario declares topics in kafka_topics_list"
        admin = KafkaAdminClient(bootstrap_servers=_bootstrap(), request_timeout_ms=30000)
        try:
            names = [item["name"] for item in declared]
            described = {topic["name"]: topic for topic in admin.describe_topics(names)}
            configs = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, name) for name in names])
        finally:
            admin.close()
        for item in declared:
            partitions = described[item["name"]]["partitions"]
            assert len(partitions) == item["partitions"]
            assert all(len(partition["replica_nodes"]) == item["replication_factor"] for partition in partitions)
            for key, value in item.get("config", {}).items():
                assert configs["topic"][item["name"]][key]["value"] == str(value)

    def test_scale_out_joined_without_restarting_the_others():
        ephemeral = os.environ["MOLECULE_EPHEMERAL_DIRECTORY"]
        for name in RUNNER.get_hosts("kafka_broker"):
            with open(os.path.join(ephemeral, "pids-%s.json" % name)) as handle:
                pids = json.load(handle)
            assert all(int(pid) > 0 for pid in pids["before"])
            assert pids["before"] == pids["after"], "%s restarted a service during the scale-out" % name
        spare = RUNNER.get_hosts("spare_broker")[0]
        assert int(RUNNER.get_variables(spare)["kafka_broker_id"]) in _expected_broker_ids()

    # The scenario runs inventories/example over SSH: these check the rig is what it claims to be and
    # that the example's settings reached the services.
    def test_the_play_ran_the_installed_artifact_over_ssh_as_a_sudo_user(host):
        variables = RUNNER.get_variables(host.backend.host)
        assert variables["ansible_connection"] == "ssh" and variables["ansible_user"] == "admin"
        assert host.run("printenv SUDO_USER").stdout.strip() == "admin"
        collections = os.environ["ANSIBLE_COLLECTIONS_PATH"]
        installed = os.path.join(collections, "ansible_collections", "kafkaops", "cluster")
        assert not os.path.islink(installed) and os.path.isfile(os.path.join(installed, "MANIFEST.json"))

    def test_nodes_do_not_resolve_each_others_inventory_names(host):
        for name in ZOOKEEPER_HOSTS:
            if name != host.backend.host:
                assert host.run("getent hosts %s" % name).rc != 0, "%s resolves %s" % (host.backend.host, name)

    def test_configs_use_the_addresses_ansible_reaches_the_nodes_by(host):
        name = host.backend.host
        variables = RUNNER.get_variables(name)
        if name in ZOOKEEPER_HOSTS:
            zoo_cfg = host.file("/etc/zookeeper/zoo.cfg").content_string
            for member in ZOOKEEPER_HOSTS:
                assert "=%s:2888:3888\n" % RUNNER.get_variables(member)["ansible_host"] in zoo_cfg
        for broker_id, port in _instances(name):
            properties = host.file("/etc/kafka/broker-%d/server.properties" % broker_id).content_string
            assert "INTERNAL://%s:%d," % (variables["ansible_host"], port + 10000) in properties
            # Ids above 1000 need reserved.broker.max.id raised, or the broker refuses to start.
            assert "reserved.broker.max.id=%d\n" % broker_id in properties
            assert "broker.rack=%s\n" % variables["kafka_broker_rack"] in properties
            connect = [line for line in properties.splitlines() if line.startswith("zookeeper.connect=")]
            assert connect and connect[0].endswith(variables["kafka_broker_zookeeper_chroot"])

    def test_config_change_restarted_every_broker_one_at_a_time():
        ephemeral = os.environ["MOLECULE_EPHEMERAL_DIRECTORY"]
        rolled = []
        for name in BROKER_HOSTS:
            with open(os.path.join(ephemeral, "rolled-%s.json" % name)) as handle:
                rolled.append(json.load(handle))
        for record in rolled:
            if record["after_scale_out"] is not None:
                assert record["pid"] != record["after_scale_out"], "a broker kept running with the old settings"
        _assert_one_at_a_time(record["started_monotonic_us"] for record in rolled)

        zookeeper = [record for record in rolled if record["zookeeper_pid"] is not None]
        assert len(zookeeper) == len(ZOOKEEPER_HOSTS)
        for record in zookeeper:
            assert record["zookeeper_pid"] != record["zookeeper_after_scale_out"]
        _assert_one_at_a_time(record["zookeeper_started_monotonic_us"] for record in zookeeper)

    def _assert_one_at_a_time(start_times_us):
        """Serial restarts: each node started only after the one before was serving again, which
        takes seconds; nodes restarted together would start within a second of each other."""
        starts = sorted(int(start) for start in start_times_us)
        gaps = [(later - earlier) / 1e6 for earlier, later in itertools.pairwise(starts)]
        assert min(gaps) >= 2, "restart start times too close together: %s s" % gaps
