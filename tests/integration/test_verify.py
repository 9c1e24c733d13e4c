"""The verification pipeline against a live cluster: it must catch every fault injected on purpose.

One set of topics (2 partitions each) gets records from the producers, then one fault each:
records deleted from the start of a partition (DeleteRecords), records produced twice, a record with
a bad crc, and a record whose new sequence arrives late (0, 1, 3, 2). A clean topic gets records from
the bulk producer (playbooks/produce.yml) and from the steady producer started and stopped through the
role, and a transactional topic gets the transactional producer the role starts beside it (commits and
aborts). A second transactional topic gets the fault of its kind: committed records listed as aborted in a
copy of its manifest, which a read_committed reader sees. One run of playbooks/verify.yml over all of them
must fail naming every kind and count, find each fault in its own topic only, and find nothing wrong with
the clean topics. Two Spark jobs in all (each costs tens of seconds to start): the clean topics ride along
in the faulty run rather than paying for a third; the verify role's passing run is shown by the kraft,
migration and resilience scenarios.
"""

import json
import os
import re
import subprocess
import sys
import uuid

import pytest
from playbook_runner import run_playbook

from kafkaops_verify.manifests import build_manifest, write_manifest
from kafkaops_verify.records import encode_value, make_payload, payload_crc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The folder holding the jobs' package: python -m runs them from there, as the role does.
JOBS = os.path.join(ROOT, "roles", "kafka_verify", "files")

PARTITIONS = 2
DELETED = 100
DUPLICATED = 50
# Small and fixed, so the file stays fast on a shared machine; any master URL works in real use.
SPARK_SETTINGS = {"spark_master": "local[2]", "kafka_verify_shuffle_partitions": 4, "kafka_verify_driver_memory": "1g"}


def playbook(name, tmp_path, bootstrap_servers, **variables):
    """Runs playbooks/<name> on the controller; returns its PlaybookRun."""
    extra = tmp_path / ("%s-%s.json" % (name, uuid.uuid4().hex[:6]))
    extra.write_text(json.dumps({"bootstrap_servers": bootstrap_servers, **SPARK_SETTINGS, **variables}))
    path = name if os.path.isabs(name) else os.path.join(ROOT, "playbooks", name)
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    return run_playbook(path, ["localhost,"], ["ansible_python_interpreter=%s" % sys.executable, "@%s" % extra],
                        options=["-c", "local"], environment=env, timeout=900)


# The tasks of the kafka_verify role whose output the checks read, by the names the runs give them.
VERIFY_JOB = "kafkaops.cluster.kafka_verify : Run the verification job"
VERIFY_SUMMARY = "kafkaops.cluster.kafka_verify : Show the summary"
VERIFY_FAILURE = "kafkaops.cluster.kafka_verify : Fail on violations"
BULK_PRODUCER = "kafkaops.cluster.kafka_verify : Run the bulk producer"


def steady(bootstrap_servers, topic, manifest, run_id, *options):
    """Starts the steady producer for about 1.5 s at 2000 records per second."""
    command = [sys.executable, "-m", "kafkaops_verify.steady_produce",
               "--bootstrap-servers", ",".join(bootstrap_servers), "--topic", topic,
               "--manifest", str(manifest), "--run-id", run_id, "--rate", "2000",
               "--duration", "1.5", "--keys", "12", "--progress-seconds", "60", *options]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=JOBS)


def read_partition(bootstrap_servers, topic, partition, count):
    """The first count records (key, value) of a partition."""
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(bootstrap_servers=bootstrap_servers, enable_auto_commit=False, consumer_timeout_ms=30000)
    try:
        where = TopicPartition(topic, partition)
        consumer.assign([where])
        consumer.seek_to_beginning(where)
        records = []
        for record in consumer:
            records.append((record.key, record.value))
            if len(records) == count:
                break
    finally:
        consumer.close()
    assert len(records) == count, "read %d of %d records of %s-%d" % (len(records), count, topic, partition)
    return records


def send_in_order(bootstrap_servers, topic, partition, records):
    """Sends (key, value) pairs one at a time, each acknowledged before the next."""
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap_servers, acks="all", max_in_flight_requests_per_connection=1)
    try:
        for key, value in records:
            producer.send(topic, key=key, value=value, partition=partition).get(timeout=30)
    finally:
        producer.close()


def partition_count(manifest_path, partition):
    manifest = json.loads(manifest_path.read_text())
    return next((entry["count"] for entry in manifest["partitions"] if entry["partition"] == partition), 0)


@pytest.fixture(scope="module")
def topics(kafka):
    prefix = "it-verify-%s-" % uuid.uuid4().hex[:6]
    names = {kind: prefix + kind for kind in ("clean", "deleted", "duplicated", "corrupt", "reordered",
                                              "transactional", "listed-aborted")}
    # One replica, so acks=all needs min.insync.replicas 1 whatever the brokers' default.
    declared = [{"name": name, "partitions": PARTITIONS, "replication_factor": 1, "config": {"min.insync.replicas": 1}}
                for name in names.values()]
    created = kafka("kafka_topic", topics=declared)
    assert not created.failed, created.output
    yield names
    kafka("kafka_topic", topics=[{"name": name, "state": "absent"} for name in names.values()])


@pytest.fixture(scope="module")
def faulty(topics, bootstrap_servers, tmp_path_factory):
    """Produces to the faulty topics, injects one fault in each; returns their manifests."""
    from kafka import KafkaAdminClient, TopicPartition

    work = tmp_path_factory.mktemp("faulty")
    kinds = ("deleted", "duplicated", "corrupt", "reordered")
    manifests = {kind: work / ("%s.json" % kind) for kind in kinds}
    producers = [steady(bootstrap_servers, topics[kind], manifests[kind], "it-%s" % kind) for kind in kinds]
    for producer in producers:
        output = producer.communicate(timeout=120)[0]
        assert producer.returncode == 0, output
    for kind in kinds:
        assert partition_count(manifests[kind], 0) > DELETED + DUPLICATED, manifests[kind].read_text()

    admin = KafkaAdminClient(bootstrap_servers=bootstrap_servers)
    try:
        admin.delete_records({TopicPartition(topics["deleted"], 0): DELETED})
    finally:
        admin.close()

    send_in_order(bootstrap_servers, topics["duplicated"], 0,
                  read_partition(bootstrap_servers, topics["duplicated"], 0, DUPLICATED))

    payload = make_payload("it-bad-crc", "key-bad", 0, 64)
    good = encode_value("it-bad-crc", "key-bad", 0, payload)
    bad = good.replace(b"|%d|" % payload_crc(payload), b"|%d|" % ((payload_crc(payload) + 1) % 2**32), 1)
    assert bad != good
    send_in_order(bootstrap_servers, topics["corrupt"], 1, [(b"key-bad", bad)])

    # A new sequence sent late: 0, 1, 3, 2. Its own manifest says all four were acknowledged, so the
    # fault shows as out of order only.
    late = [(b"key-late", encode_value("it-late", "key-late", number, make_payload("it-late", "key-late", number, 64)))
            for number in (0, 1, 3, 2)]
    send_in_order(bootstrap_servers, topics["reordered"], 1, late)
    manifests["late"] = work / "late.json"
    write_manifest(str(manifests["late"]),
                   build_manifest("steady", "it-late", topics["reordered"], {1: {"key-late": [[0, 4]]}}))

    # Transactions of 10, every 4th aborted; then a copy of the manifest lists one committed range as aborted.
    written = work / "transactional.json"
    producer = steady(bootstrap_servers, topics["listed-aborted"], written, "it-listed-aborted",
                      "--transaction-records", "10", "--abort-every", "4")
    output = producer.communicate(timeout=120)[0]
    assert producer.returncode == 0, output
    manifest = json.loads(written.read_text())
    assert manifest["aborted"] > 0 and manifest["uncertain"] == 0, manifest
    entry = manifest["partitions"][0]
    key, ranges = next(iter(entry["keys"].items()))
    start, end = ranges.pop(0)
    entry["count"] -= end - start
    manifest["acknowledged"] -= end - start
    manifest["aborted_keys"].setdefault(key, []).append([start, end])
    manifests["listed-aborted"] = work / "listed-aborted.json"
    write_manifest(str(manifests["listed-aborted"]), manifest)
    manifests["listed-aborted-count"] = end - start
    return manifests


@pytest.fixture(scope="module")
def faulty_run(faulty, clean, bootstrap_servers, tmp_path_factory):
    """One run of playbooks/verify.yml over every faulty topic and the clean one: the process and the report."""
    report = tmp_path_factory.mktemp("faulty-report") / "report.json"
    manifests = ([str(path) for kind, path in faulty.items() if kind != "listed-aborted-count"]
                 + [str(clean["bulk"]), str(clean["steady"]), str(clean["transactional"])])
    run = playbook("verify.yml", report.parent, bootstrap_servers, kafka_verify_progress_interval=1,
                   manifests=manifests, report=str(report))
    assert report.exists(), run.describe()
    return run, json.loads(report.read_text())


def by_topic(report, topic, checks=("lost", "duplicates", "out_of_order", "corrupt", "offset_gaps")):
    """Sums of the checks over the topic's partitions, and which partitions have any violation."""
    entries = [entry for entry in report["per_partition"] if entry["topic"] == topic]
    totals = {check: sum(entry[check] for entry in entries) for check in checks}
    faulty_partitions = sorted(entry["partition"] for entry in entries if any(entry[check] for check in checks))
    return totals, faulty_partitions


def test_the_play_fails_naming_each_violation_and_count(faulty_run):
    run, report = faulty_run
    assert run.rc != 0, run.describe()
    assert not report["ok"]
    # The role's failure, once: "verify: records are not all there as acknowledged: lost=..., ... (report: ...)".
    failure, = run.failure_messages(VERIFY_FAILURE)
    violations = failure.split("records are not all there as acknowledged:")[-1].split("(report")[0]
    assert "lost=%d" % DELETED in violations, failure
    assert "duplicates=%d" % DUPLICATED in violations, failure
    assert "out_of_order=1" in violations, failure
    assert "corrupt=1" in violations, failure
    assert "offset_gaps=0" not in violations, failure
    assert report["offset_gaps"] == 0


def test_records_deleted_from_the_start_are_lost(faulty_run, topics):
    report = faulty_run[1]
    totals, partitions = by_topic(report, topics["deleted"])
    assert totals == {"lost": DELETED, "duplicates": 0, "out_of_order": 0, "corrupt": 0, "offset_gaps": 0}
    assert partitions == [0]
    start = next(entry for entry in report["per_partition"]
                 if entry["topic"] == topics["deleted"] and entry["partition"] == 0)["start_offset"]
    assert start == DELETED
    lost = [example for example in report["examples"] if example["kind"] == "lost"]
    assert lost and all(example["topic"] == topics["deleted"] for example in lost)


def test_records_produced_twice_are_duplicates(faulty_run, topics):
    totals, partitions = by_topic(faulty_run[1], topics["duplicated"])
    assert totals == {"lost": 0, "duplicates": DUPLICATED, "out_of_order": 0, "corrupt": 0, "offset_gaps": 0}
    assert partitions == [0]


def test_a_record_with_a_bad_crc_is_corrupt(faulty_run, topics):
    report = faulty_run[1]
    totals, partitions = by_topic(report, topics["corrupt"])
    assert totals == {"lost": 0, "duplicates": 0, "out_of_order": 0, "corrupt": 1, "offset_gaps": 0}
    assert partitions == [1]
    corrupt = [example for example in report["examples"] if example["kind"] == "corrupt"]
    assert [(example["key"], example["corrupt_reason"]) for example in corrupt] == [("key-bad", "crc mismatch")]


def test_a_sequence_sent_late_is_out_of_order(faulty_run, topics):
    report = faulty_run[1]
    totals, partitions = by_topic(report, topics["reordered"])
    assert totals == {"lost": 0, "duplicates": 0, "out_of_order": 1, "corrupt": 0, "offset_gaps": 0}
    assert partitions == [1]
    late = [example for example in report["examples"] if example["kind"] == "out_of_order"]
    assert [(example["key"], example["sequence"], example["previous_sequence"]) for example in late] == [
        ("key-late", 2, 3)
    ]


STEADY_PLAY = """\
- name: Steady producer through the role
  hosts: localhost
  gather_facts: false
  vars:
    kafka_verify_bootstrap_servers: "{{ bootstrap_servers }}"
    kafka_verify_produce_topic: "%(topic)s"
    kafka_verify_produce_manifest: "%(manifest)s"
    kafka_verify_steady_rate: 500
    kafka_verify_transactional: true
    kafka_verify_transactional_topic: "%(transactional_topic)s"
    kafka_verify_transactional_manifest: "%(transactional_manifest)s"
    kafka_verify_transactional_rate: 200
  tasks:
    - name: Start
      ansible.builtin.include_role:
        name: kafkaops.cluster.kafka_verify
        tasks_from: steady_start.yml
    - name: Let it run
      ansible.builtin.wait_for:
        timeout: 3
    - name: Stop
      ansible.builtin.include_role:
        name: kafkaops.cluster.kafka_verify
        tasks_from: steady_stop.yml
    - name: It acknowledged records
      ansible.builtin.assert:
        that: kafka_verify_steady_result.acknowledged > 0 and kafka_verify_steady_result.failed == 0
    - name: The transactional producer committed and aborted transactions, each confirmed
      ansible.builtin.assert:
        that:
          - kafka_verify_transactional_result.acknowledged > 0 and kafka_verify_transactional_result.aborted > 0
          - kafka_verify_transactional_result.uncertain == 0 and kafka_verify_transactional_result.failed == 0
"""


@pytest.fixture(scope="module")
def clean(topics, bootstrap_servers, tmp_path_factory):
    """Records on the clean topic from the bulk producer (produce.yml) and the steady producer (the role)."""
    work = tmp_path_factory.mktemp("clean")
    bulk_manifest = work / "bulk.json"
    produced = playbook("produce.yml", work, bootstrap_servers, topic=topics["clean"], records=3000,
                        seed=7, manifest=str(bulk_manifest))
    assert produced.rc == 0, produced.describe()
    assert json.loads(bulk_manifest.read_text())["acknowledged"] == 3000

    steady_manifest = work / "steady.json"
    transactional_manifest = work / "transactional.json"
    play = work / "steady.yml"
    play.write_text(STEADY_PLAY % {"topic": topics["clean"], "manifest": steady_manifest,
                                   "transactional_topic": topics["transactional"],
                                   "transactional_manifest": transactional_manifest})
    steadied = playbook(str(play), work, bootstrap_servers)
    assert steadied.rc == 0, steadied.describe()
    acknowledged = json.loads(steady_manifest.read_text())["acknowledged"]
    return {"bulk": bulk_manifest, "steady": steady_manifest, "expected": 3000 + acknowledged,
            "produced": produced, "transactional": transactional_manifest}


def test_the_clean_topic_has_every_record_once_in_order(faulty_run, clean, topics):
    report = faulty_run[1]
    totals, partitions = by_topic(report, topics["clean"])
    assert totals == {"lost": 0, "duplicates": 0, "out_of_order": 0, "corrupt": 0, "offset_gaps": 0}
    assert partitions == []
    entries = [entry for entry in report["per_partition"] if entry["topic"] == topics["clean"]]
    assert [entry["partition"] for entry in entries] == list(range(PARTITIONS))
    records, expected = (sum(entry[field] for entry in entries) for field in ("records", "expected"))
    assert records == expected == clean["expected"]
    # The producer's progress, shown while its task ran, ended with its final reading.
    producer, = clean["produced"].task_runs(BULK_PRODUCER)
    assert any(line.startswith("bulk_produce: finished, ") for line in producer.printed), producer.printed


def test_a_transactional_topic_shows_every_committed_record_and_no_aborted_one(faulty_run, clean, topics):
    report = faulty_run[1]
    manifest = json.loads(clean["transactional"].read_text())
    assert manifest["acknowledged"] > 0 and manifest["aborted"] > 0
    topic = topics["transactional"]
    checks = ("lost", "duplicates", "out_of_order", "corrupt", "offset_gaps", "aborted_visible")
    totals, partitions = by_topic(report, topic, checks)
    assert totals == dict.fromkeys(checks, 0) and partitions == []
    entries = [entry for entry in report["per_partition"] if entry["topic"] == topic]
    records, expected, unacknowledged, markers = (
        sum(entry[field] for entry in entries)
        for field in ("records", "expected", "unacknowledged", "committed_read_gaps"))
    # read_committed gave exactly the committed records; markers and aborted records left offsets unread.
    assert records == expected == manifest["acknowledged"] and unacknowledged == 0
    # Each committed transaction leaves a commit marker's offset unread; an aborted one, its records sent
    # before the abort and its marker (records the abort failed before they were sent take no offset).
    assert markers >= manifest["transactions"]["committed"] > 0
    assert topic in report["transactional"]["topics"]
    summary = faulty_run[0].messages(VERIFY_SUMMARY)
    assert any(line.startswith("transactional topics (read_committed): ") for line in summary), summary


def test_committed_records_listed_as_aborted_are_visible_aborted_records(faulty_run, faulty, topics):
    run, report = faulty_run
    listed = faulty["listed-aborted-count"]
    topic = topics["listed-aborted"]
    checks = ("lost", "duplicates", "out_of_order", "corrupt", "offset_gaps", "aborted_visible")
    totals, partitions = by_topic(report, topic, checks)
    assert totals == {**dict.fromkeys(checks, 0), "aborted_visible": listed}
    assert len(partitions) == 1
    assert report["aborted_visible"] == listed
    # Named with its count in the play's failure.
    assert any("aborted_visible=%d" % listed in failure for failure in run.failure_messages(VERIFY_FAILURE)), \
        run.describe()
    visible = [example for example in report["examples"] if example["kind"] == "aborted_visible"]
    assert visible and all(example["topic"] == topic for example in visible)


def test_the_job_showed_its_progress_while_it_ran(faulty_run):
    run, report = faulty_run
    # Readings printed while the job's task ran, then the final one, which counts every record the report checked.
    job, = run.task_runs(VERIFY_JOB)
    job_output = "\n".join(job.printed)
    readings = re.findall(r"^verify: (finished, )?(\d+) of (\d+) tasks done, ([\d,]+) of ([\d,]+) records read",
                          job_output, re.MULTILINE)
    assert readings and readings[-1][0] == "finished, ", job_output
    read, expected = (int(readings[-1][index].replace(",", "")) for index in (3, 4))
    # Expected is the offsets' span; a read_committed topic's transaction markers and aborted records take
    # offsets no record is read from (committed_read_gaps), and nothing else is left unread.
    gaps = sum(entry.get("committed_read_gaps", 0) for entry in report["per_partition"])
    assert read == report["records"] and expected - read == gaps, (read, expected, gaps)


def test_a_drain_that_runs_out_still_leaves_the_manifest_and_a_stuck_producer_is_replaced(
        kafka, bootstrap_servers, tmp_path):
    """Records still outstanding when the run ends (here held back by a linger longer than the run, then given
    no time to drain): the producer is stopped without sending them (a flush would send what the linger holds,
    and the broker could acknowledge them after the run gave up), exits 0 with a manifest of what was
    acknowledged (nothing) and says how many it left unanswered. Then the same hold-back for longer than
    --restart-seconds: each producer that heard nothing back with records waiting is closed (its records count
    as failed) and replaced, and the manifest counts the replacements."""
    topic = "it-verify-drain-%s" % uuid.uuid4().hex[:6]
    created = kafka("kafka_topic", topics=[{"name": topic, "partitions": 1, "replication_factor": 1,
                                            "config": {"min.insync.replicas": 1}}])
    assert not created.failed, created.output

    def produce(manifest, *options):
        return subprocess.run(
            [sys.executable, "-m", "kafkaops_verify.steady_produce", "--bootstrap-servers", ",".join(bootstrap_servers),
             "--topic", topic, "--manifest", str(manifest), "--rate", "20", "--drain-seconds", "0",
             "--client-option", "linger_ms=30000", "--progress-seconds", "60", *options],
            capture_output=True, text=True, timeout=120, check=False, cwd=JOBS)

    try:
        run = produce(tmp_path / "drain.json", "--duration", "2")
        replaced = produce(tmp_path / "replaced.json", "--duration", "7", "--restart-seconds", "2")
    finally:
        kafka("kafka_topic", topics=[{"name": topic, "state": "absent"}])
    # The fault happened: the drain ran out with records unanswered.
    left = re.search(r"steady_produce: (\d+) records unanswered after a drain of 0 s", run.stderr)
    assert left, run.stderr
    assert run.returncode == 0, run.stderr
    written = json.loads((tmp_path / "drain.json").read_text())
    assert written["acknowledged"] == 0 and written["sent"] > 0
    assert written["unanswered"] == written["sent"] == int(left.group(1)) and written["stopped_by"] == "duration"
    assert written["producer_restarts"] == 0
    # Nothing came back for 2 s with records waiting, twice or more in 7 s: each time a new producer.
    assert replaced.returncode == 0, replaced.stderr
    assert replaced.stderr.count("starting a new one") >= 2, replaced.stderr
    written = json.loads((tmp_path / "replaced.json").read_text())
    assert written["producer_restarts"] == replaced.stderr.count("starting a new one")
    assert written["acknowledged"] == 0 and written["failed"] > 0, written
    assert written["failed"] + written["unanswered"] == written["sent"] and written["stopped_by"] == "duration"
