"""kafka_log_dirs and the log_dirs of kafka_reassignment's plans on a live broker with two log dirs (JBOD).

The kraft scenario gives broker 2 a second log dir on Kafka 4.4, whose metadata version can cordon a dir
(KIP-1066). A topic's replicas are placed in the first dir with a plan's log_dirs, the dir is evacuated under a
throttle while the steady producer writes to that topic (cordoned first, so nothing new lands there; every
record it acknowledged is read back afterwards), a new topic is shown to stay out of it, and it is uncordoned
and the dirs balanced again; a second balance asked at once, the old copies of the first still on disk, moves
nothing. A plan of kafka_reassignment_plan that moves replicas onto the broker names the dir
for each, and they land there. kafka_reassignment's max_disk_fill holds the broker's dirs as well as the broker and
reports each dir's peak. Bad input is refused before anything changes.
"""

import json
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType

from kafkaops_verify.manifests import manifest_ranges
from kafkaops_verify.records import RecordFormatError, decode_value

CORDON_KEY = "cordoned.log.dirs"
COPY_THROTTLE_KEY = "replica.alter.log.dirs.io.max.bytes.per.second"
PARTITIONS = 4
MEGABYTES_PER_PARTITION = 2
# The folder holding the verify jobs' package: python -m runs the steady producer from there, as the role does.
JOBS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    "roles", "kafka_verify", "files")


@pytest.fixture(scope="module")
def admin(bootstrap_servers, client_settings):
    client = KafkaAdminClient(bootstrap_servers=bootstrap_servers, request_timeout_ms=30000, **client_settings)
    yield client
    client.close()


def _dirs(admin):
    """{broker: {log dir: {topic: [partitions]}}} as DescribeLogDirs reports them (future replicas left out)."""
    found = {}
    for broker in admin.describe_log_dirs():
        dirs = found.setdefault(broker["broker"], {})
        for log_dir in broker["log_dirs"]:
            topics = dirs.setdefault(log_dir["log_dir"], {})
            for topic in log_dir["topics"]:
                partitions = [partition["partition_index"] for partition in topic["partitions"]
                              if not partition.get("is_future_key")]
                if partitions:
                    topics.setdefault(topic["name"], []).extend(sorted(partitions))
    return found


def _broker_config(admin, broker, key):
    described = admin.describe_configs([ConfigResource(ConfigResourceType.BROKER, str(broker))])
    value = described["broker"][str(broker)].get(key)
    return value["value"] if isinstance(value, dict) else value


@pytest.fixture(scope="module")
def jbod(admin):
    """(broker, [first dir, second dir]) of the broker the scenario gave two log dirs."""
    brokers = dict((broker, sorted(dirs)) for broker, dirs in _dirs(admin).items() if len(dirs) > 1)
    assert brokers, "the scenario must give one broker two log dirs (kafka_broker_instances[].log_dirs)"
    broker = min(brokers)
    return broker, brokers[broker]


def _until(condition, seconds):
    started = time.time()
    while time.time() - started < seconds:
        if condition():
            return True
        time.sleep(0.5)
    return False


def _fill(bootstrap_servers, client_settings, name):
    """Write MEGABYTES_PER_PARTITION of random bytes to each partition of the topic."""
    producer = KafkaProducer(bootstrap_servers=bootstrap_servers, acks="all", linger_ms=20, **client_settings)
    for partition in range(PARTITIONS):
        for _record in range(MEGABYTES_PER_PARTITION * 100):
            producer.send(name, value=os.urandom(10000), partition=partition)
    producer.flush()
    producer.close()


@pytest.fixture
def placed_topic(kafka, admin, bootstrap_servers, client_settings, jbod):
    """A topic of four one-replica partitions on the JBOD broker, all in its first dir, holding 2 MB each."""
    broker, (first, second) = jbod
    name = "it-jbod-%s" % uuid.uuid4().hex[:8]
    created = kafka("kafka_topic", name=name, partitions=PARTITIONS, replication_factor=1,
                    config={"min.insync.replicas": 1})
    assert created.changed, created.output
    plan = {"version": 1, "partitions": [{"topic": name, "partition": partition, "replicas": [broker],
                                          "log_dirs": [first]} for partition in range(PARTITIONS)]}
    placed = kafka("kafka_reassignment", plan=json.dumps(plan))
    assert not placed.failed, placed.output
    assert _dirs(admin)[broker][first].get(name) == list(range(PARTITIONS)), _dirs(admin)[broker]
    # Placed again: nothing to do.
    again = kafka("kafka_reassignment", plan=json.dumps(plan))
    assert not again.failed and not again.changed, again.output
    _fill(bootstrap_servers, client_settings, name)
    yield name
    kafka("kafka_log_dirs", uncordon=[{"broker": broker, "log_dir": first}])
    kafka("kafka_topic", name=name, state="absent")


def _records(bootstrap_servers, client_settings, topic):
    """How many records the topic's partitions hold (their end offsets)."""
    consumer = KafkaConsumer(bootstrap_servers=bootstrap_servers, enable_auto_commit=False, **client_settings)
    try:
        return sum(consumer.end_offsets([TopicPartition(topic, partition) for partition in range(PARTITIONS)]).values())
    finally:
        consumer.close()


def _every_acknowledged_record_is_there(bootstrap_servers, client_settings, manifest):
    """Reads the topic back: every (key, sequence) the manifest says was acknowledged is in its partition."""
    expected = {}
    for _topic, partition, _run, key, start, end in manifest_ranges(manifest):
        expected.setdefault(int(partition), set()).update((key, sequence) for sequence in range(start, end))
    consumer = KafkaConsumer(bootstrap_servers=bootstrap_servers, enable_auto_commit=False, **client_settings)
    found = {}
    try:
        partitions = [TopicPartition(manifest["topic"], partition) for partition in range(PARTITIONS)]
        consumer.assign(partitions)
        consumer.seek_to_beginning(*partitions)
        ends = consumer.end_offsets(partitions)
        while any(consumer.position(where) < ends[where] for where in partitions):
            for where, records in consumer.poll(timeout_ms=5000).items():
                for record in records:
                    try:
                        decoded = decode_value(record.value)
                    except RecordFormatError:
                        continue  # the fixture's filler records
                    if decoded.run_id == manifest["run_id"]:
                        found.setdefault(where.partition, set()).add((decoded.key, decoded.sequence))
    finally:
        consumer.close()
    missing = {partition: len(keys - found.get(partition, set())) for partition, keys in expected.items()}
    assert sum(len(keys) for keys in expected.values()) == manifest["acknowledged"] > 0
    assert not any(missing.values()), "acknowledged records missing per partition: %s" % missing


def test_a_dir_is_evacuated_cordoned_kept_empty_and_taken_back(
        kafka, admin, jbod, placed_topic, bootstrap_servers, client_settings, tmp_path):
    broker, (first, second) = jbod
    evacuate = [{"broker": broker, "log_dir": first}]
    throttle = 4 << 20
    own_disks = not _on_one_filesystem(_filesystems(admin, broker), first, second)

    predicted = kafka("kafka_log_dirs", check=True, evacuate=evacuate, throttle=throttle)
    assert not predicted.failed and predicted.changed, predicted.output
    ours = [move for move in predicted["moves"] if move["topic"] == placed_topic]
    assert len(ours) == PARTITIONS and all(move["to_dir"] == second for move in ours), predicted["moves"]
    assert predicted["bytes_moved"] == predicted["bytes_moved_lower_bound"] > 0
    assert predicted["cordon_supported"] and predicted["cordoned"] == {str(broker): [first]}, predicted.output
    assert _dirs(admin)[broker][first].get(placed_topic) == list(range(PARTITIONS)), "check mode moved replicas"
    assert not _broker_config(admin, broker, CORDON_KEY), "check mode cordoned the dir"

    # Evacuated while the steady producer writes to the replicas being copied.
    manifest = tmp_path / "steady.json"
    before = _records(bootstrap_servers, client_settings, placed_topic)
    producer = subprocess.Popen(
        [sys.executable, "-m", "kafkaops_verify.steady_produce", "--bootstrap-servers", ",".join(bootstrap_servers),
         "--topic", placed_topic, "--manifest", str(manifest), "--rate", "50", "--keys", "8",
         "--progress-seconds", "600"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=JOBS)
    try:
        assert _until(lambda: _records(bootstrap_servers, client_settings, placed_topic) > before, 60), \
            "the steady producer wrote nothing"
        moved = kafka("kafka_log_dirs", evacuate=evacuate, throttle=throttle)
        # Read at once: Kafka deletes the old copies log.segment.delete.delay.ms after the move (15 s in kraft).
        used_after_move = _used_bytes(admin, broker)
        time.sleep(2)
    finally:
        producer.send_signal(signal.SIGTERM)
        output = producer.communicate(timeout=120)[0]
    assert producer.returncode == 0, output
    assert not moved.failed and moved.changed, moved.output
    # Each moved replica's old copy counts on its disk for the broker's delay, read from it (15 s in kraft).
    assert moved["delete_delay_ms"] == {str(broker): 15000} and moved["delete_delay_unread"] == {}, moved.output
    # The producer's records add to what is copied, a little.
    assert moved["moved"] == len(predicted["moves"]), moved["moves"]
    assert predicted["bytes_moved"] <= moved["bytes_moved"] <= predicted["bytes_moved"] + (1 << 20), moved.output
    steady = json.loads(manifest.read_text())
    assert steady["acknowledged"] >= 50 * moved["elapsed"] * 0.5 and steady["failed"] == 0, steady
    _every_acknowledged_record_is_there(bootstrap_servers, client_settings, steady)
    assert moved["elapsed"] >= 0.5 * moved["bytes_moved"] / throttle, (moved["elapsed"], moved["bytes_moved"])
    dirs = _dirs(admin)[broker]
    assert dirs[first] == {}, dirs[first]
    assert dirs[second].get(placed_topic) == list(range(PARTITIONS)), dirs[second]
    assert _broker_config(admin, broker, CORDON_KEY) == first
    assert _until(lambda: not _broker_config(admin, broker, COPY_THROTTLE_KEY), 30), "the copy throttle was left set"
    if own_disks:
        # The emptied dir lists no replica, yet its disk still holds the old copies until the broker deletes them,
        # log.segment.delete.delay.ms after the move (kafka_reassignment's max_disk_fill counts them until then);
        # then its disk frees them.
        assert used_after_move[first] >= 0.5 * moved["bytes_moved"], (used_after_move, moved["bytes_moved"])
        assert _until(lambda: _used_bytes(admin, broker)[first] <= used_after_move[first] - 0.5 * moved["bytes_moved"],
                      150), (used_after_move, _used_bytes(admin, broker))

    for check in (True, False):
        again = kafka("kafka_log_dirs", check=check, evacuate=evacuate, throttle=throttle)
        assert not again.failed and not again.changed and again["moves"] == [], again.output

    # Cordoned: a new topic with a replica on every broker puts none of them in the first dir.
    newcomer = "it-jbod-new-%s" % uuid.uuid4().hex[:8]
    live = sorted(broker_id for broker_id in _dirs(admin))
    created = kafka("kafka_topic", name=newcomer, partitions=2, replication_factor=len(live),
                    config={"min.insync.replicas": 1})
    try:
        assert created.changed, created.output
        assert _until(lambda: newcomer in _dirs(admin)[broker][second], 30), _dirs(admin)[broker]
        assert newcomer not in _dirs(admin)[broker][first]
    finally:
        kafka("kafka_topic", name=newcomer, state="absent")

    # Taken back and balanced: bytes move into the first dir again, and a second run asked at once, while the old
    # copies the first left are still on disk, finds nothing to do.
    back = kafka("kafka_log_dirs", uncordon=evacuate, balance=True, brokers=[broker], topics=[placed_topic])
    assert not back.failed and back.changed and back["uncordoned"] == {str(broker): [first]}, back.output
    assert not _broker_config(admin, broker, CORDON_KEY)
    assert back["moves"] and all(move["to_dir"] == first for move in back["moves"]), back["moves"]
    assert _dirs(admin)[broker][first].get(placed_topic), _dirs(admin)[broker]
    settled = kafka("kafka_log_dirs", balance=True, brokers=[broker], topics=[placed_topic])
    assert not settled.failed and not settled.changed and settled["moves"] == [], settled.output
    if own_disks:
        # The second dir's disk still counted the old copies: read as fill, they would have moved more. Where the
        # balance found moves at first, it waited for the delay (15 s) and read the dirs again.
        if "settle_wait" in settled:
            assert settled["settle_wait"]["brokers"] == [broker], settled.output
            assert settled["settle_wait"]["seconds"] >= 15, settled.output
    else:
        # One filesystem: the balance weighs the replicas' bytes, which leave out old copies; nothing to wait for.
        assert "settle_wait" not in settled, settled.output


def test_a_plan_onto_the_jbod_broker_names_its_dirs_and_the_replicas_land_there(
        kafka, admin, bootstrap_servers, client_settings, jbod):
    broker, dirs = jbod
    live = sorted(_dirs(admin))
    other = min(broker_id for broker_id in live if broker_id != broker)
    name = "it-jbod-plan-%s" % uuid.uuid4().hex[:8]
    created = kafka("kafka_topic", name=name, partitions=PARTITIONS, replication_factor=1,
                    config={"min.insync.replicas": 1})
    assert created.changed, created.output
    try:
        # All on one other broker, so that evening the bytes out moves some onto the JBOD broker.
        away = {"version": 1, "partitions": [{"topic": name, "partition": partition, "replicas": [other]}
                                             for partition in range(PARTITIONS)]}
        assert not kafka("kafka_reassignment", plan=json.dumps(away)).failed
        _fill(bootstrap_servers, client_settings, name)
        # Onto the JBOD broker only. The scenario's dirs report the host's disk, whose fill is not this test's.
        planned = kafka("kafka_reassignment_plan", topics=[name], broker_list=",".join(map(str, live)), mode="add",
                        new_brokers=[broker], balance="bytes", max_disk_fill=1.0)
        assert not planned.failed, planned.output
        onto = dict((entry["partition"], entry["log_dirs"][entry["replicas"].index(broker)])
                    for entry in planned["plan"]["partitions"] if broker in entry["replicas"])
        assert onto and set(onto.values()) <= set(dirs), planned["plan"]
        assert planned["summary"]["log_dirs_from"] == "DescribeLogDirs", planned["summary"]
        moved = kafka("kafka_reassignment", plan=json.dumps(planned["plan"]))
        assert not moved.failed and moved.changed, moved.output
        found = _dirs(admin)[broker]
        assert all(partition in found[path].get(name, []) for partition, path in onto.items()), (onto, found)
    finally:
        kafka("kafka_topic", name=name, state="absent")


def _filesystems(admin, broker):
    """{log dir: (total bytes, usable bytes)} of the broker's dirs, as DescribeLogDirs reports them (Kafka 3.3+)."""
    for answer in admin.describe_log_dirs():
        if answer["broker"] == broker:
            return dict((log_dir["log_dir"], (log_dir["total_bytes"], log_dir["usable_bytes"]))
                        for log_dir in answer["log_dirs"])
    raise AssertionError("broker %d did not describe its log dirs" % broker)


def _used_bytes(admin, broker):
    """{log dir: bytes its filesystem holds (total - usable)} of the broker's dirs."""
    return dict((path, total - usable) for path, (total, usable) in _filesystems(admin, broker).items())


def _on_one_filesystem(figures, first, second):
    """Whether two dirs are on one filesystem, as the log dir planner tells it: the same total, usable bytes within
    64 MiB. The checks of a dir's disk run where the dirs are disks of their own (the kraft scenario's are not: see
    its molecule.yml)."""
    return figures[first][0] == figures[second][0] and abs(figures[first][1] - figures[second][1]) <= 64 << 20


def test_max_disk_fill_holds_the_jbod_brokers_dirs_and_reports_each_dirs_peak(
        kafka, admin, bootstrap_servers, client_settings, jbod):
    """Issue 35, point 4: two partitions move onto the JBOD broker, one into the first dir the plan names, one where
    Kafka picks. With no room anywhere the plan is refused before anything moves, naming the broker and, where
    its dirs are on filesystems of their own, the dir and the copy whose dir the plan leaves to Kafka. With room,
    they move, and each dir's peak is reported: on one filesystem (the scenario's containers) the broker's."""
    broker, (first, second) = jbod
    other = min(broker_id for broker_id in _dirs(admin) if broker_id != broker)
    name = "it-jbod-fill-%s" % uuid.uuid4().hex[:8]
    created = kafka("kafka_topic", name=name, partitions=2, replication_factor=1, config={"min.insync.replicas": 1})
    assert created.changed, created.output
    try:
        away = {"version": 1, "partitions": [{"topic": name, "partition": partition, "replicas": [other]}
                                             for partition in range(2)]}
        assert not kafka("kafka_reassignment", plan=json.dumps(away)).failed
        producer = KafkaProducer(bootstrap_servers=bootstrap_servers, acks="all", linger_ms=20, **client_settings)
        for partition in range(2):
            for _record in range(100):
                producer.send(name, value=os.urandom(10000), partition=partition)
        producer.flush()
        producer.close()
        one_filesystem = _on_one_filesystem(_filesystems(admin, broker), first, second)
        onto = json.dumps({"version": 1, "partitions": [
            {"topic": name, "partition": 0, "replicas": [broker], "log_dirs": [first]},
            {"topic": name, "partition": 1, "replicas": [broker], "log_dirs": ["any"]}]})

        for check in (True, False):
            refused = kafka("kafka_reassignment", check=check, plan=onto, max_disk_fill=0.0001)
            assert refused.failed and refused["field"] == "max_disk_fill", refused.output
            assert "%s-0 needs" % name in refused["msg"] and "on broker %d," % broker in refused["msg"], refused["msg"]
            if not one_filesystem:
                assert "on broker %d's log dir %s," % (broker, first) in refused["msg"], refused["msg"]
                assert "does not name (%s-1)" % name in refused["msg"], refused["msg"]
        assert name not in _dirs(admin)[broker][first] and name not in _dirs(admin)[broker][second]

        predicted = kafka("kafka_reassignment", check=True, plan=onto, max_disk_fill=1.0)
        moved = kafka("kafka_reassignment", plan=onto, max_disk_fill=1.0, poll_interval=0.2)
        assert not predicted.failed and not moved.failed and moved["moved"] == 2, moved.output
        for run in (predicted, moved):
            per_dir = run["disk_peak_bytes_per_log_dir"][str(broker)]
            assert set(per_dir) == {first, second}, per_dir
            if one_filesystem:
                assert per_dir[first] == per_dir[second] == run["disk_peak_bytes"][str(broker)], run.output
            else:
                # Partition 1's copy counts in both dirs (Kafka picks one), partition 0's in the first only.
                assert min(per_dir.values()) >= 1000000, per_dir
        found = _dirs(admin)[broker]
        assert 0 in found[first].get(name, []), found
        assert 1 in found[first].get(name, []) + found[second].get(name, []), found
        again = kafka("kafka_reassignment", plan=onto, max_disk_fill=1.0)
        assert not again.failed and not again.changed and again.get("disk_peak_bytes") is None, again.output
    finally:
        kafka("kafka_topic", name=name, state="absent")


@pytest.mark.parametrize("options, field, words", [
    (lambda broker, dirs: {"evacuate": [{"broker": broker, "log_dir": "/var/lib/kafka/no-such-dir"}]},
     "evacuate[0].log_dir", "no-such-dir"),
    (lambda broker, dirs: {"evacuate": [{"broker": broker, "log_dir": log_dir} for log_dir in dirs]},
     "evacuate", "every"),
    (lambda broker, dirs: {"brokers": [99], "balance": True}, "brokers[0]", "99"),
], ids=["unknown-dir", "every-dir", "unknown-broker"])
def test_bad_input_is_refused_naming_the_field_before_anything_changes(kafka, admin, jbod, options, field, words):
    broker, dirs = jbod
    before = _dirs(admin)
    refused = kafka("kafka_log_dirs", **options(broker, dirs))
    assert refused.failed and refused.get("field", "").startswith(field.split("[")[0]), refused.output
    assert words in refused["msg"], refused["msg"]
    if field == "evacuate[0].log_dir":
        # The message lists the dirs the broker has.
        assert all(log_dir in refused["msg"] for log_dir in dirs), refused["msg"]
    assert _dirs(admin) == before
    assert not _broker_config(admin, broker, CORDON_KEY)
