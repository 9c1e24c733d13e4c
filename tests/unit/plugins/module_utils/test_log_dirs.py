"""kafka_log_dirs against a fake cluster of brokers with several log dirs: plan, cordon, move, wait, clean up."""

import json
from types import SimpleNamespace

import pytest
from kafka import errors as kafka_errors
from ansible_collections.kafkaops.cluster.plugins.module_utils import _log_dirs as log_dirs
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_log_dirs

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}
GB = 1 << 30
THROTTLE_KEY = "replica.alter.log.dirs.io.max.bytes.per.second"
CORDON_KEY = "cordoned.log.dirs"
# DescribeConfigs' config_source number of a broker's own dynamic setting; IncrementalAlterConfigs' DELETE.
DYNAMIC_BROKER, DELETE = 2, 1
KAFKA_STORAGE_ERROR = 56


class FakeJbodCluster:
    """Brokers with several log dirs, as plain data, and the requests sent to them.

    disks: {broker: {path: total bytes}}, each dir its own volume (other files: 1 GiB on each); offline: (broker,
    path) pairs that answer KAFKA_STORAGE_ERROR. replicas: {broker: {(topic, partition): (path, bytes)}}.
    configs: {broker: {key: value}} set dynamically. A move copies for copy_polls DescribeLogDirs rounds (its
    future replica half copied meanwhile), then takes the place of the old replica. metadata_level: the finalized
    metadata.version (None: the cluster answers no features).
    """

    def __init__(self, disks, replicas, metadata_level=31, copy_polls=1, offline=(), cordon_lag=0):
        self.disks = disks
        self.replicas = dict((broker, dict(held)) for broker, held in replicas.items())
        self.offline = set(offline)
        self.metadata_level = metadata_level
        self.copy_polls = copy_polls
        self.configs = dict((broker, {}) for broker in disks)
        # A broker applies a cordon change cordon_lag DescribeLogDirs rounds after accepting it, as a live one
        # applies a dynamic config a moment later; until then it reports and enforces the old cordon.
        self.cordon_lag = cordon_lag
        self.applied_cordons = {}
        self.pending_cordons = {}
        self.future = {}
        self.calls = []
        self.clients = []

    def connect(self):
        client = FakeJbodClient(self)
        self.clients.append(client)
        return client

    def writes(self):
        return [(name, arguments) for name, arguments in self.calls
                if name in ("alter_replica_log_dirs", "incremental_alter_configs")
                and not arguments.get("validate_only")]

    def cordoned(self, broker):
        value = self.applied_cordons.get(broker, self.configs[broker].get(CORDON_KEY, ""))
        return [path for path in value.split(",") if path]

    def cordon_set(self, broker, value):
        if self.cordon_lag:
            self.applied_cordons.setdefault(broker, self.configs[broker].get(CORDON_KEY, ""))
            self.pending_cordons[broker] = [value, self.cordon_lag]

    def cordon_round(self):
        for broker, pending in list(self.pending_cordons.items()):
            pending[1] -= 1
            if pending[1] <= 0:
                self.applied_cordons[broker] = pending[0]
                del self.pending_cordons[broker]

    def where(self, broker):
        return dict((key, path) for key, (path, unused) in self.replicas[broker].items())


class FakeJbodClient:
    def __init__(self, cluster):
        self.cluster = cluster
        self.closed = False

    def _record(self, name, **arguments):
        self.cluster.calls.append((name, arguments))

    def close(self):
        self.closed = True

    def describe_cluster(self):
        self._record("describe_cluster")
        return dict(cluster_id="fake", controller_id=1, brokers=[
            dict(broker_id=broker, host="kafka%d" % broker, port=9092, rack=None)
            for broker in sorted(self.cluster.disks)])

    def describe_features(self):
        self._record("describe_features")
        # kafka-python 3.0.12's shape, as a live 4.4 broker gave it: {feature: {supported, finalized, epoch}}.
        if self.cluster.metadata_level is None:
            return {}
        level = self.cluster.metadata_level
        return {"metadata.version": {"supported": (1, 31), "finalized": (level, level), "finalized_epoch": 7}}

    def _advance(self):
        for key, move in list(self.cluster.future.items()):
            move["polls"] -= 1
            if move["polls"] < 0:
                broker, topic, partition = key
                path, size = self.cluster.replicas[broker][(topic, partition)]
                self.cluster.replicas[broker][(topic, partition)] = (move["dir"], size)
                del self.cluster.future[key]

    def describe_log_dirs(self, topic_partitions=None, brokers=None):
        self._record("describe_log_dirs", topics=topic_partitions, brokers=brokers)
        self._advance()
        self.cluster.cordon_round()
        answers = []
        for broker in brokers:
            log_dirs = []
            for path, total in sorted(self.cluster.disks[broker].items()):
                if (broker, path) in self.cluster.offline:
                    log_dirs.append(dict(error_code=KAFKA_STORAGE_ERROR, log_dir=path, topics=[], total_bytes=-1,
                                         usable_bytes=-1, is_cordoned=False))
                    continue
                held = {}
                used = GB
                for (topic, partition), (where, size) in sorted(self.cluster.replicas[broker].items()):
                    if where == path:
                        used += size
                        held.setdefault(topic, []).append(dict(partition_index=partition, partition_size=size,
                                                               offset_lag=0, is_future_key=False))
                for (owner, topic, partition), move in sorted(self.cluster.future.items()):
                    if owner == broker and move["dir"] == path:
                        copied = self.cluster.replicas[broker][(topic, partition)][1] // 2
                        used += copied
                        held.setdefault(topic, []).append(dict(partition_index=partition, partition_size=copied,
                                                               offset_lag=0, is_future_key=True))
                if topic_partitions is not None:
                    held = dict((topic, [item for item in items if item["partition_index"] in topic_partitions[topic]])
                                for topic, items in held.items() if topic in topic_partitions)
                cordoned = (self.cluster.metadata_level or 0) >= 30 and path in self.cluster.cordoned(broker)
                log_dirs.append(dict(error_code=0, log_dir=path, total_bytes=total, usable_bytes=total - used,
                                     is_cordoned=cordoned, topics=[dict(name=topic, partitions=items)
                                                                   for topic, items in sorted(held.items())]))
            answers.append(dict(broker=broker, log_dirs=log_dirs))
        return answers

    def alter_replica_log_dirs(self, replica_assignments):
        self._record("alter_replica_log_dirs", moves=dict(
            ((key.topic, key.partition, key.broker_id), path) for key, path in replica_assignments.items()))
        outcome = {}
        for key, path in replica_assignments.items():
            if path in self.cluster.cordoned(key.broker_id):
                outcome[key] = kafka_errors.InvalidReplicationAssignmentError
                continue
            outcome[key] = kafka_errors.NoError
            self.cluster.future[(key.broker_id, key.topic, key.partition)] = dict(dir=path,
                                                                                  polls=self.cluster.copy_polls)
        return outcome

    # DescribeConfigs and IncrementalAlterConfigs of one broker go to that broker, as built for the wire.

    @property
    def _manager(self):
        return SimpleNamespace(run=lambda function, *arguments: function(*arguments), send=self._send)

    def _send(self, request, node_id=None):
        [(unused, resource_name, entries)] = request.resources
        assert node_id == int(resource_name)
        held = self.cluster.configs[node_id]
        if type(request).__name__.startswith("DescribeConfigs"):
            self._record("describe_configs", broker=node_id)
            return SimpleNamespace(results=[SimpleNamespace(error_code=0, error_message=None, configs=[
                dict(name=key, value=value, config_source=DYNAMIC_BROKER, is_sensitive=False)
                for key, value in sorted(held.items())])])
        self._record("incremental_alter_configs", broker=node_id, entries=list(entries),
                     validate_only=request.validate_only)
        if (self.cluster.metadata_level or 0) < 30 and any(key == CORDON_KEY for key, unused, unused in entries):
            return SimpleNamespace(responses=[SimpleNamespace(error_code=40, error_message="needs 4.3-IV0")])
        for key, operation, value in entries:
            if key == CORDON_KEY:
                self.cluster.cordon_set(node_id, "" if operation == DELETE else value)
            if operation == DELETE:
                held.pop(key, None)
            else:
                held[key] = value
        return SimpleNamespace(responses=[SimpleNamespace(error_code=0, error_message=None)])


@pytest.fixture
def cluster():
    """Brokers 1 and 2, each with /a and /b of 100 GiB; broker 1's /a holds three orders replicas (45 GiB)."""
    return FakeJbodCluster(
        disks={1: {"/a": 100 * GB, "/b": 100 * GB}, 2: {"/a": 100 * GB, "/b": 100 * GB}},
        replicas={1: {("orders", 0): ("/a", 20 * GB), ("orders", 1): ("/a", 15 * GB), ("orders", 2): ("/a", 10 * GB)},
                  2: {("orders", 0): ("/a", 20 * GB), ("orders", 1): ("/b", 15 * GB)}})


EVACUATE_A = dict(SERVERS, evacuate=[dict(broker=1, log_dir="/a")], poll_interval=0.01)


def test_check_mode_predicts_the_evacuation_and_the_cordon_and_sends_nothing(run_module, cluster):
    predicted = run_module(kafka_log_dirs.main, EVACUATE_A, cluster, check_mode=True)
    assert not predicted.get("failed"), predicted
    assert predicted["changed"] and predicted["cordon_supported"] is True
    moves = sorted((move["partition"], move["to_dir"]) for move in predicted["moves"])
    assert moves == [(0, "/b"), (1, "/b"), (2, "/b")]
    assert predicted["bytes_moved"] == predicted["bytes_moved_lower_bound"] == 45 * GB
    assert predicted["cordoned"] == {"1": ["/a"]}
    assert cluster.writes() == [] and all(client.closed for client in cluster.clients)


def test_an_evacuation_cordons_moves_throttled_and_leaves_no_throttle_behind(run_module, cluster):
    result = run_module(kafka_log_dirs.main, dict(EVACUATE_A, throttle=50000000), cluster)
    assert not result.get("failed"), result
    assert result["changed"] and result["moved"] == 3 and result["throttled"] == [1]
    assert set(cluster.where(1).values()) == {"/b"} and cluster.cordoned(1) == ["/a"]
    assert THROTTLE_KEY not in cluster.configs[1]
    # The cordon first, then the throttle, the moves, and the throttle removed.
    written = [(name, arguments.get("entries", [[None]])[0][0]) for name, arguments in cluster.writes()]
    assert written == [("incremental_alter_configs", CORDON_KEY), ("incremental_alter_configs", THROTTLE_KEY),
                       ("alter_replica_log_dirs", None), ("incremental_alter_configs", THROTTLE_KEY)]
    assert result["progress"][-1]["done"] == 3 and result["progress"][-1]["bytes_copied"] == 45 * GB
    again = run_module(kafka_log_dirs.main, dict(EVACUATE_A, throttle=50000000), cluster)
    assert not again["changed"] and again["moves"] == [] and again["cordoned"] == {}


def test_check_mode_predicts_what_the_real_run_does(run_module, cluster):
    args = dict(SERVERS, balance=True, poll_interval=0.01)
    predicted = run_module(kafka_log_dirs.main, args, cluster, check_mode=True)
    done = run_module(kafka_log_dirs.main, args, cluster)
    assert predicted["moves"] == done["moves"] and predicted["changed"] and done["changed"]
    assert run_module(kafka_log_dirs.main, args, cluster, check_mode=True)["changed"] is False
    assert run_module(kafka_log_dirs.main, args, cluster)["changed"] is False


def test_balance_evens_the_dirs_by_fill_and_moves_the_fewest_bytes_it_can(run_module, cluster):
    result = run_module(kafka_log_dirs.main, dict(SERVERS, balance=True, poll_interval=0.01), cluster)
    # Broker 1: /a 46 GiB used, /b 1 GiB: orders-0 (20 GiB) brings them to 26 and 21; broker 2 is even enough
    # only after orders-1 and orders-0 are apart, which they are.
    assert [(move["broker"], move["partition"]) for move in result["moves"]] == [(1, 0)]
    broker_one = result["brokers"]["1"]
    assert broker_one["weights"] == "capacity" and broker_one["imbalance_after"] < broker_one["imbalance_before"]
    assert result["bytes_moved_lower_bound"] <= result["bytes_moved"] == 20 * GB


def test_diff_mode_shows_each_dirs_replicas_and_the_cordon_before_and_after(run_module, cluster):
    result = run_module(kafka_log_dirs.main, EVACUATE_A, cluster, check_mode=True, diff=True)
    assert result["diff"]["before"] == {"1": {"/a": ["orders-0", "orders-1", "orders-2"], "/b": [], CORDON_KEY: []}}
    assert result["diff"]["after"] == {"1": {"/a": [], "/b": ["orders-0", "orders-1", "orders-2"], CORDON_KEY: ["/a"]}}


def test_a_cluster_before_4_3_evacuates_without_cordoning(run_module, cluster):
    cluster.metadata_level = 29
    result = run_module(kafka_log_dirs.main, EVACUATE_A, cluster)
    assert result["changed"] and result["cordon_supported"] is False and result["cordoned"] == {}
    assert "not cordoned" in result["warnings"][0] and "4.3-IV0" in result["warnings"][0]
    assert set(cluster.where(1).values()) == {"/b"}
    assert not any(name == "incremental_alter_configs" for name, unused in cluster.writes())


@pytest.mark.parametrize("lag", [0, 3], ids=["applied-at-once", "applied-three-reads-later"])
def test_uncordon_lets_the_dir_take_replicas_again_in_the_same_run(run_module, cluster, lag):
    # A live broker applies the uncordon a moment after accepting it and refuses copies into the dir until then
    # (seen on Kafka 4.4): the run waits until DescribeLogDirs shows the dir open before it moves anything.
    cluster.cordon_lag = lag
    cluster.configs[1][CORDON_KEY] = "/b"
    args = dict(SERVERS, uncordon=[dict(broker=1, log_dir="/b")], balance=True, brokers=[1], poll_interval=0.01)
    result = run_module(kafka_log_dirs.main, args, cluster)
    assert result["uncordoned"] == {"1": ["/b"]} and cluster.cordoned(1) == []
    assert [move["to_dir"] for move in result["moves"]] == ["/b"]
    assert not run_module(kafka_log_dirs.main, args, cluster)["changed"]


@pytest.mark.parametrize("args, field, words", [
    (dict(evacuate=[dict(broker=1, log_dir="/c")]), "evacuate[0].log_dir", "its log dirs are /a, /b"),
    (dict(evacuate=[dict(broker=9, log_dir="/a")]), "evacuate[0].broker", "not a live broker"),
    (dict(balance=True, brokers=[1, 7]), "brokers[1]", "not a live broker"),
    (dict(evacuate=[dict(broker=1, log_dir="/a"), dict(broker=1, log_dir="/b")]), "evacuate[1].log_dir",
     "every online log dir of broker 1"),
    (dict(evacuate=[dict(broker=1, log_dir="/a"), dict(broker=1, log_dir="/a/")]), "evacuate[1]", "already listed"),
    (dict(evacuate=[dict(broker=1, log_dir="data/a")]), "evacuate[0].log_dir", "an absolute path"),
    (dict(evacuate=[dict(broker=1, log_dir="/a")], max_disk_fill=0.3), "evacuate[0].log_dir", "no room on broker 1"),
    (dict(evacuate=[dict(broker=1, log_dir="/a")], throttle=10, wait=False), "throttle", "needs wait: true"),
    (dict(), "evacuate", "nothing to do"),
    (dict(balance=True, cordon=True), "cordon", "none is given"),
    (dict(uncordon=[dict(broker=1, log_dir="/z")]), "uncordon[0].log_dir", "no log dir /z"),
    (dict(evacuate=[dict(broker=1, log_dir="/a")], uncordon=[dict(broker=1, log_dir="/a")]), "uncordon",
     "also to be evacuated"),
    (dict(balance=True, max_disk_fill=1.5), "max_disk_fill", "at most 1"),
], ids=["unknown-dir", "unknown-broker", "unknown-balance-broker", "all-dirs", "dir-twice", "relative-path",
        "no-room", "throttle-without-wait", "nothing-to-do", "cordon-without-evacuate", "unknown-uncordon-dir",
        "evacuate-and-uncordon", "fill-out-of-range"])
def test_bad_input_fails_naming_the_field_before_any_write(run_module, cluster, args, field, words):
    failed = run_module(kafka_log_dirs.main, dict(SERVERS, **args), cluster)
    assert failed["failed"] and failed["field"] == field and words in failed["msg"], failed
    assert not failed["changed"] and cluster.writes() == []


@pytest.mark.parametrize("level, option", [(29, "cordon"), (None, "uncordon")], ids=["4.2", "no-features"])
def test_cordoning_on_a_cluster_that_cannot_is_refused_naming_the_option(run_module, cluster, level, option):
    cluster.metadata_level = level
    args = dict(SERVERS, evacuate=[dict(broker=1, log_dir="/a")], cordon=True) if option == "cordon" else \
        dict(SERVERS, uncordon=[dict(broker=1, log_dir="/a")])
    failed = run_module(kafka_log_dirs.main, args, cluster)
    assert failed["failed"] and failed["field"] == option and "4.3-IV0" in failed["msg"]
    assert cluster.writes() == []


def test_an_offline_dir_cannot_be_evacuated_and_takes_no_replica(run_module, cluster):
    cluster.disks[1]["/c"] = 100 * GB
    cluster.offline.add((1, "/c"))
    failed = run_module(kafka_log_dirs.main, dict(SERVERS, evacuate=[dict(broker=1, log_dir="/c")]), cluster)
    assert failed["field"] == "evacuate[0].log_dir" and "offline (KafkaStorageError)" in failed["msg"]
    result = run_module(kafka_log_dirs.main, EVACUATE_A, cluster, check_mode=True)
    assert set(move["to_dir"] for move in result["moves"]) == {"/b"}


def test_batches_keep_to_max_moves_per_broker(run_module, cluster):
    result = run_module(kafka_log_dirs.main, dict(EVACUATE_A, max_moves_per_broker=1, timeout=3), cluster)
    submitted = [arguments["moves"] for name, arguments in cluster.writes() if name == "alter_replica_log_dirs"]
    assert result["moved"] == 3 and [len(moves) for moves in submitted] == [1, 1, 1]


def test_a_timeout_names_the_moves_keeps_the_throttle_on_their_broker_and_a_rerun_finishes(run_module, cluster):
    cluster.copy_polls = 10 ** 6
    args = dict(EVACUATE_A, throttle=1000000, timeout=1, poll_interval=0.05)
    failed = run_module(kafka_log_dirs.main, args, cluster)
    assert failed["failed"] and "timed out" in failed["msg"] and "orders-0 on broker 1: /a -> /b" in failed["msg"]
    assert "stays on broker(s) 1" in failed["msg"] and cluster.configs[1][THROTTLE_KEY] == "1000000"
    # The copies finish; a re-run waits for them, moves nothing more and removes the throttle.
    cluster.copy_polls = 1
    for move in cluster.future.values():
        move["polls"] = 0
    again = run_module(kafka_log_dirs.main, args, cluster)
    assert not again.get("failed"), again
    assert THROTTLE_KEY not in cluster.configs[1] and set(cluster.where(1).values()) == {"/b"}


def test_a_rerun_waits_for_copies_still_running_without_submitting_them_again(run_module, cluster):
    cluster.copy_polls = 10 ** 6
    run_module(kafka_log_dirs.main, dict(EVACUATE_A, timeout=1, poll_interval=0.05, max_moves_per_broker=1), cluster)
    in_flight = dict(cluster.future)
    assert len(in_flight) == 1
    cluster.copy_polls = 1
    for move in cluster.future.values():
        move["polls"] = 2
    result = run_module(kafka_log_dirs.main, dict(EVACUATE_A, max_moves_per_broker=1, timeout=30), cluster)
    assert not result.get("failed"), result
    assert [move.get("in_progress", False) for move in result["moves"]] == [True, False, False]
    submitted = [arguments["moves"] for name, arguments in cluster.writes() if name == "alter_replica_log_dirs"]
    assert sum(len(moves) for moves in submitted) == 3 and set(cluster.where(1).values()) == {"/b"}


def test_a_move_the_broker_refuses_fails_naming_it_and_removes_the_throttle(run_module, cluster, monkeypatch):
    def refuse(client, replica_assignments):
        return dict((key, kafka_errors.KafkaStorageError) for key in replica_assignments)

    monkeypatch.setattr(FakeJbodClient, "alter_replica_log_dirs", refuse)
    failed = run_module(kafka_log_dirs.main, dict(EVACUATE_A, throttle=1000, cordon=False), cluster)
    assert failed["failed"] and "orders-0 on broker 1 to /b: KafkaStorageError" in failed["msg"]
    assert THROTTLE_KEY not in cluster.configs[1]


def test_progress_is_written_as_json_lines(run_module, cluster, tmp_path):
    path = tmp_path / "progress.jsonl"
    run_module(kafka_log_dirs.main, dict(EVACUATE_A, progress_file=str(path)), cluster)
    readings = [json.loads(line) for line in path.read_text().splitlines()]
    assert readings and readings[-1]["done"] == readings[-1]["total"] == 3


def test_an_operators_throttle_is_put_back_as_it_was(run_module, cluster):
    cluster.configs[1][THROTTLE_KEY] = "777"
    run_module(kafka_log_dirs.main, dict(EVACUATE_A, throttle=1000), cluster)
    assert cluster.configs[1][THROTTLE_KEY] == "777"


def test_read_log_dirs_puts_future_replicas_apart_and_offline_dirs_offline(cluster):
    cluster.offline.add((2, "/b"))
    cluster.future[(1, "orders", 0)] = dict(dir="/b", polls=5)
    state = log_dirs.read_log_dirs(cluster.connect(), [1, 2])
    assert state[1]["future"] == {("orders", 0): dict(dir="/b", bytes=10 * GB)}
    assert state[1]["replicas"][("orders", 0)] == dict(dir="/a", bytes=20 * GB)
    assert state[2]["dirs"]["/b"]["online"] is False and state[2]["dirs"]["/b"]["total_bytes"] is None
