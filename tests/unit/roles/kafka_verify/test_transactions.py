"""The steady producer's transactional mode: the schedule of aborts, the ledger of outcomes, the manifest, and a
whole run against a fake kafka-python producer (no broker needed)."""

import json
import signal
import threading

import pytest
from kafka.future import Future

from kafkaops_verify import steady_produce
from kafkaops_verify.manifests import (
    MANIFEST_FORMAT,
    TRANSACTIONAL_MANIFEST_FORMAT,
    ManifestError,
    aborted_from_manifests,
    build_manifest,
    read_manifest,
    write_manifest,
)
from kafkaops_verify.transactions import TransactionLedger, aborts, wait_for


@pytest.mark.parametrize("abort_every, expected", [
    (4, [3, 7, 11]),  # every 4th, counted from transaction 0
    (1, list(range(12))),  # every one
    (0, []),  # none
])
def test_every_nth_transaction_aborts(abort_every, expected):
    assert [number for number in range(12) if aborts(number, abort_every)] == expected


class _Metadata:
    def __init__(self, partition):
        self.partition = partition


def _acknowledged(partition):
    future = Future()
    future.success(_Metadata(partition))
    return future


def _fill(transaction, key, sequences, partition=0):
    for sequence in sequences:
        transaction.add(key, sequence, _acknowledged(partition))


def test_the_ledger_keeps_committed_by_partition_aborted_by_key_and_counts_the_uncertain():
    ledger = TransactionLedger(abort_every=3)
    first, second, third, fourth = (ledger.open() for _unused in range(4))
    _fill(first, "a", range(0, 3), partition=1)
    _fill(second, "a", range(3, 6), partition=1)
    _fill(third, "a", range(6, 9), partition=1)  # number 2: aborted on purpose
    third.add("b", 0, None)  # a send that raised: still part of the aborted transaction
    _fill(fourth, "a", range(9, 12), partition=1)
    ledger.settle(first, None)
    ledger.settle(second, TimeoutError("no answer in 5 s"))  # a commit that did not return: uncertain
    ledger.settle(third, None)
    ledger.settle(fourth, None)
    assert ledger.partition_keys() == {1: {"a": [[0, 3], [9, 12]]}}
    fields = ledger.manifest_fields(3)
    assert fields["aborted_keys"] == {"a": [[6, 9]], "b": [[0, 1]]}
    assert (fields["aborted"], fields["uncertain"]) == (4, 3)
    assert fields["transactions"] == {"committed": 2, "aborted": 1, "uncertain": 1}
    assert fields["transaction_errors"] == {"TimeoutError": 1}


def test_a_commit_or_abort_that_hangs_is_given_up_on():
    release = threading.Event()
    assert isinstance(wait_for(release.wait, 0.05), TimeoutError)
    release.set()
    assert wait_for(lambda: None, 1) is None

    def fenced():
        raise RuntimeError("fenced")

    error = wait_for(fenced, 1)
    assert isinstance(error, RuntimeError) and str(error) == "fenced"


def test_a_transactional_manifest_has_its_own_format_and_plain_ones_keep_theirs(tmp_path):
    plain = build_manifest("steady", "run-1", "orders", {0: {"a": [[0, 2]]}})
    assert plain["format"] == MANIFEST_FORMAT
    ledger = TransactionLedger(abort_every=2)
    committed, aborted = ledger.open(), ledger.open()
    _fill(committed, "a", range(2))
    _fill(aborted, "a", range(2, 4))
    ledger.settle(committed, None)
    ledger.settle(aborted, None)
    manifest = build_manifest("transactional", "run-2", "orders", ledger.partition_keys(), **ledger.manifest_fields(2))
    assert manifest["format"] == TRANSACTIONAL_MANIFEST_FORMAT
    assert (manifest["acknowledged"], manifest["aborted"]) == (2, 2)
    path = tmp_path / "manifest.json"
    write_manifest(str(path), manifest)
    assert aborted_from_manifests([read_manifest(str(path)), plain]) == [("orders", "run-2", "a", 2, 4)]
    del manifest["aborted_keys"]
    write_manifest(str(path), manifest)
    with pytest.raises(ManifestError, match="missing aborted_keys"):
        read_manifest(str(path))


class _FakeTransactionalProducer:
    """kafka-python's transactional producer as the steady loop uses it. Sends are acknowledged at once, in
    partition len(key) % 2. The commit of the transaction numbered fail_commit (over every producer of the
    run) raises, as a fenced producer's would."""

    made = []
    transactions = 0
    fail_commit = None

    def __init__(self, **settings):
        self.settings = settings
        self.events = []
        type(self).made.append(self)

    def init_transactions(self):
        self.events.append("init")

    def begin_transaction(self):
        self.events.append("begin")

    def send(self, topic, key, value):
        return _acknowledged(len(key) % 2)

    def _end(self, what):
        number = type(self).transactions
        type(self).transactions += 1
        self.events.append(what)
        if what == "commit" and number == type(self).fail_commit:
            raise RuntimeError("ProducerFencedError")

    def commit_transaction(self):
        self._end("commit")

    def abort_transaction(self):
        self._end("abort")

    def flush(self, timeout=None):
        pass

    def close(self, timeout=None):
        self.events.append("close")


@pytest.fixture
def fake_producer(monkeypatch):
    import kafka

    class Producer(_FakeTransactionalProducer):
        made = []
        transactions = 0
        fail_commit = None

    monkeypatch.setattr(kafka, "KafkaProducer", Producer)
    # main() installs its own SIGTERM and SIGINT handlers; pytest's come back afterwards.
    handlers = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGINT)}
    yield Producer
    for number, handler in handlers.items():
        signal.signal(number, handler)


def _run(tmp_path, *options):
    manifest = tmp_path / "manifest.json"
    code = steady_produce.main(["--bootstrap-servers", "b:9092", "--topic", "orders", "--manifest", str(manifest),
                                "--run-id", "run-t", "--keys", "2", "--rate", "400", "--duration", "0.3",
                                "--send-interval", "0.05", "--progress-seconds", "60", *options])
    assert code == 0
    return json.loads(manifest.read_text())


def _transaction_of(manifest, size):
    """{(key, sequence): transaction number} of every record sent: keys in round robin, size records each."""
    return {("key-%04d" % (index % 2), index // 2): index // size for index in range(manifest["sent"])}


def _listed(ranges_by_key):
    return {(key, number) for key, ranges in ranges_by_key.items() for start, end in ranges
            for number in range(start, end)}


def test_a_transactional_run_commits_and_aborts_as_scheduled(fake_producer, tmp_path):
    manifest = _run(tmp_path, "--transaction-records", "5", "--abort-every", "4")
    assert manifest["format"] == TRANSACTIONAL_MANIFEST_FORMAT and manifest["producer"] == "transactional"
    assert fake_producer.made[0].settings["transactional_id"] == "kafkaops-verify-run-t"
    numbers = _transaction_of(manifest, 5)
    committed = _listed({key: ranges for entry in manifest["partitions"] for key, ranges in entry["keys"].items()})
    assert committed == {record for record, number in numbers.items() if number % 4 != 3}
    assert _listed(manifest["aborted_keys"]) == {record for record, number in numbers.items() if number % 4 == 3}
    assert manifest["acknowledged"] + manifest["aborted"] == manifest["sent"] > 20
    assert manifest["uncertain"] == 0 and manifest["producer_restarts"] == 0
    # Keys of even length land in partition 0 here; both keys are 8 characters.
    assert [entry["partition"] for entry in manifest["partitions"]] == [0]
    # The last transaction was ended too, even if short, and nothing was left open.
    events = fake_producer.made[0].events
    assert events.count("begin") == events.count("commit") + events.count("abort") == -(-manifest["sent"] // 5)


def test_a_failed_commit_makes_its_records_uncertain_and_replaces_the_producer(fake_producer, tmp_path):
    fake_producer.fail_commit = 1
    manifest = _run(tmp_path, "--transaction-records", "5", "--abort-every", "4")
    numbers = _transaction_of(manifest, 5)
    uncertain = {record for record, number in numbers.items() if number == 1}
    committed = _listed({key: ranges for entry in manifest["partitions"] for key, ranges in entry["keys"].items()})
    assert committed == {record for record, number in numbers.items() if number % 4 != 3} - uncertain
    assert _listed(manifest["aborted_keys"]) == {record for record, number in numbers.items() if number % 4 == 3}
    assert manifest["uncertain"] == 5
    assert manifest["transactions"]["uncertain"] == 1 and manifest["producer_restarts"] == 1
    assert len(fake_producer.made) == 2 and fake_producer.made[1].events[0] == "init"


def test_without_transactions_the_manifest_is_a_plain_one(fake_producer, tmp_path):
    manifest = _run(tmp_path)
    assert manifest["format"] == MANIFEST_FORMAT and "aborted_keys" not in manifest
    assert "transactional_id" not in fake_producer.made[0].settings
    assert manifest["acknowledged"] == manifest["sent"]


@pytest.mark.parametrize("options", [["--transaction-records", "-1"], ["--abort-every", "-2"]])
def test_transaction_options_are_checked(options):
    with pytest.raises(SystemExit, match="--transaction-records >= 0 and --abort-every >= 0"):
        steady_produce.main(["--bootstrap-servers", "b:9092", "--topic", "t", "--manifest", "m.json", *options])
