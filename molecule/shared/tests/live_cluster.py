"""Reads of a live cluster and of the scenario's inventory, shared by the scenario checks."""

import functools
import os
import time
import uuid

import testinfra.utils.ansible_runner
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient
from kafka.errors import KafkaError
from playbook_runner import read_run


def inventory_hosts(*groups):
    runner = testinfra.utils.ansible_runner.AnsibleRunner(os.environ["MOLECULE_INVENTORY_FILE"])
    return runner, [name for group in groups for name in runner.get_hosts(group)]


def host_address(name):
    """The address the host's containers answer on (its first address on eth0)."""
    return testinfra.get_host(name, ansible_inventory=os.environ["MOLECULE_INVENTORY_FILE"],
                              connection="ansible").interface("eth0").addresses[0]


def bootstrap(hosts):
    """Client addresses of hosts that run one broker each on the default port."""
    return ["%s:9092" % host_address(name) for name in hosts]


def broker_instances(runner, name, broker_hosts):
    """The broker instances the inventory asks for on a host, as (broker_id, port) pairs; a host without
    kafka_broker_id gets its place in broker_hosts plus one, as the role gives it."""
    variables = runner.get_variables(name)
    given = variables.get("kafka_broker_instances") or []
    if given:
        # A host's only instance may leave its port to kafka_broker_port, as the role reads it.
        return [(int(item["broker_id"]), int(item.get("port") or variables.get("kafka_broker_port") or 9092))
                for item in given]
    return [(int(variables.get("kafka_broker_id") or broker_hosts.index(name) + 1), 9092)]


def instance_addresses(runner, broker_hosts, excluded=()):
    """Client addresses of every broker instance of the hosts, but those with an id in excluded."""
    return ["%s:%d" % (host_address(name), port) for name in broker_hosts
            for broker_id, port in broker_instances(runner, name, broker_hosts) if broker_id not in excluded]


def expected_broker_ids(runner, broker_hosts):
    return sorted(instance[0] for name in broker_hosts for instance in broker_instances(runner, name, broker_hosts))


@functools.cache
def client_settings():
    """kafka-python settings that log in to the scenario's client (EXTERNAL) listener as the collection's
    admin user: none for PLAINTEXT; for SASL and SSL, the admin password of the inventory and the CA the
    scenario's certificates were generated under (its ephemeral folder's tls/)."""
    runner = testinfra.utils.ansible_runner.AnsibleRunner(os.environ["MOLECULE_INVENTORY_FILE"])
    variables = runner.get_variables(runner.get_hosts("kafka_broker")[0])
    protocol = variables.get("kafka_broker_external_security_protocol", "PLAINTEXT")
    settings = {}
    if protocol != "PLAINTEXT":
        settings["security_protocol"] = protocol
    if protocol.startswith("SASL_"):
        settings.update(sasl_mechanism=variables.get("kafka_broker_sasl_mechanism", "SCRAM-SHA-512"),
                        sasl_plain_username=variables.get("kafka_broker_admin_user", "admin"),
                        sasl_plain_password=variables["kafka_broker_admin_password"])
    if "SSL" in protocol:
        settings["ssl_cafile"] = os.path.join(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"], "tls", "ca.crt")
    return settings


def write_and_read_back(settings, topic, key):
    """Writes one new record (acks=all) with the client settings given, then reads it back at its offset.

    Returns (offset written, value written, (offset, value) read), for the caller to compare.
    """
    marker = ("%s-%s" % (key, uuid.uuid4().hex)).encode()
    producer = KafkaProducer(acks="all", **settings)
    try:
        written = producer.send(topic, key=key.encode(), value=marker).get(timeout=30)
    finally:
        producer.close(timeout=5)
    consumer = KafkaConsumer(enable_auto_commit=False, consumer_timeout_ms=20000, **settings)
    try:
        partition = TopicPartition(topic, written.partition)
        consumer.assign([partition])
        consumer.seek(partition, written.offset)
        record = next(iter(consumer))
    finally:
        consumer.close()
    return written.offset, marker, (record.offset, record.value)


def write_refused(settings, topic):
    """What a write of one record (acks=all) with the client settings given ended with: the error, or None
    when the record landed."""
    producer = KafkaProducer(acks="all", max_block_ms=15000, **settings)
    try:
        producer.send(topic, b"should not land").get(timeout=15)
    except KafkaError as error:
        return error
    finally:
        producer.close(timeout=5)
    return None


def describe(servers, topics):
    """Broker ids and (topic, partition metadata) of every partition of the topics (all for None)."""
    admin = KafkaAdminClient(bootstrap_servers=servers, request_timeout_ms=30000, **dict(client_settings()))
    try:
        # Live brokers: DescribeCluster v2 also lists fenced ones (KRaft: stopped, still registered).
        brokers = sorted(broker["broker_id"] for broker in admin.describe_cluster()["brokers"]
                         if not broker.get("is_fenced"))
        partitions = [(topic["name"], partition) for topic in admin.describe_topics(topics)
                      for partition in topic["partitions"]]
    finally:
        admin.close()
    return brokers, partitions


def replica_and_leader_counts(partitions, brokers):
    """Replicas and preferred leaders per broker, over the given partitions."""
    replicas, leaders = dict.fromkeys(brokers, 0), dict.fromkeys(brokers, 0)
    for _topic, partition in partitions:
        for broker in partition["replica_nodes"]:
            replicas[broker] += 1
        leaders[partition["replica_nodes"][0]] += 1
    return replicas, leaders


def under_replicated(partitions):
    return ["%s-%d" % (name, partition["partition_index"]) for name, partition in partitions
            if sorted(partition["isr_nodes"]) != sorted(partition["replica_nodes"])]


def throttle_configs_left(servers, brokers, topics):
    """Every replication throttle setting found on the brokers and topics, as 'kind name key' strings."""
    admin = KafkaAdminClient(bootstrap_servers=servers, request_timeout_ms=30000)
    try:
        resources = [ConfigResource(ConfigResourceType.BROKER, str(broker)) for broker in brokers]
        resources += [ConfigResource(ConfigResourceType.TOPIC, name) for name in topics]
        described = admin.describe_configs(resources)
    finally:
        admin.close()
    return ["%s %s %s" % (kind, name, key) for kind, entries in described.items()
            for name, configs in entries.items() for key in configs if "throttled" in key]


def settled(read, holds, timeout=120, interval=2):
    """The first reading for which holds(reading) is true, or the last one after timeout seconds.

    Metadata right after a restart or a change (ISRs, live brokers, settings) can lag for a while on a
    loaded machine; a state that lasts is still caught, because the caller asserts on what this returns.
    """
    deadline = time.monotonic() + timeout
    reading = read()
    while not holds(reading) and time.monotonic() < deadline:
        time.sleep(interval)
        reading = read()
    return reading


def check_every_acknowledged_record(saved):
    """The Spark job's report (verify-report.json) against both producers' manifests (bulk and steady):
    every acknowledged record there once, in order, intact, with no offset holes."""
    report = saved("verify-report.json")
    acknowledged = saved("bulk-manifest.json")["acknowledged"] + saved("steady-manifest.json")["acknowledged"]
    assert (report["lost"], report["duplicates"], report["out_of_order"], report["corrupt"],
            report["offset_gaps"]) == (0, 0, 0, 0, 0), report["examples"]
    assert report["ok"] is True
    steady = saved("steady-manifest.json")
    assert steady["acknowledged"] > 0
    # It wrote the whole time: stopped when asked, neither silent long enough to give up nor out of time.
    assert steady["stopped_by"] == "signal", {name: value for name, value in steady.items() if name != "partitions"}
    assert report["records"] >= acknowledged > 0


def check_decommission_runs(saved, leaving):
    """decommission.yml ran twice (decommission.json: each run's JSON events), both to their end, the second
    changing nothing, and its plan moved, in each partition with a replica on the leaving broker, that one
    replica only."""
    runs = saved("decommission.json")
    first, again = read_run(runs["first"]), read_run(runs["again"])
    assert first.stats, first.describe()
    assert again.stats and again.changes == {}, again.describe()
    plan, rollback = saved("decommission-plan.json"), saved("decommission-plan.rollback.json")
    before = {(entry["topic"], entry["partition"]): entry["replicas"] for entry in rollback["partitions"]}
    assert before and all(leaving in replicas for replicas in before.values())
    for entry in plan["partitions"]:
        old = before[(entry["topic"], entry["partition"])]
        assert leaving not in entry["replicas"] and len(set(entry["replicas"]) - set(old)) == 1, (entry, old)
    return runs
