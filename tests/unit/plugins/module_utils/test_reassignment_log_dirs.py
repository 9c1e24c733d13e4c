"""kafka_reassignment honours a plan's log_dirs (Kafka's JSON: one per replica, "any" or an absolute path)."""

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from kafka import errors as kafka_errors
from ansible_collections.kafkaops.cluster.plugins.module_utils import _reassignment_executor as executor
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_reassignment
from ansible_collections.kafkaops.cluster.tests.unit.plugins.service_samples import FakeClock

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}
DELETE_DELAY_KEY = "log.segment.delete.delay.ms"


@pytest.fixture
def cluster(fake_cluster, monkeypatch):
    """Four brokers with log dirs /a and /b; orders-0 on 1, 2, 3 and orders-1 on 2, 3, 1, every replica in /a.

    A replica's dir: where AlterReplicaLogDirs moved it, else where it was created: the dir asked for before the
    broker held it (the broker keeps it and creates the replica there), else the one cluster.choose(broker, (topic,
    partition)) picks, by default Kafka's (the open dir holding the fewest partitions; ties by path), else /a. Moves
    between dirs and between brokers finish at once, a move's new copies landing before its old replicas go.

    As Kafka does, a broker deletes a replica it gave up (a move off it, or off its old dir) only once its
    log.segment.delete.delay.ms (60 s unless cluster.broker_configs sets it) has passed on cluster.clock, which is
    the executor's clock too: until then DescribeLogDirs no longer lists it, but its bytes stay in its dir's used
    bytes and in the peaks (cluster.deleting: [(broker, path, bytes, when it is deleted)]).

    Sizes: cluster.sizes {topic: bytes of each replica, or {partition: bytes}}; cluster.dir_totals {(broker, path):
    total bytes} of the dirs that report their filesystem (each dir its own; the others answer -1, as before
    Kafka 3.3), and cluster.other_bytes {(broker, path): bytes of other files}. cluster.peaks and
    cluster.broker_peaks hold the most bytes each dir and each broker held at any point seen (each DescribeLogDirs,
    and each moment copies landed before the replicas they replace left).
    """
    cluster = fake_cluster(brokers=(1, 2, 3, 4), topics={"orders": {0: [1, 2, 3], 1: [2, 3, 1]}},
                           sizes={"orders": 1000})
    cluster.log_dirs = dict((broker, {"/a": False, "/b": False}) for broker in (1, 2, 3, 4))
    cluster.placed, cluster.preferred = {}, {}
    cluster.dir_totals, cluster.other_bytes = {}, {}
    cluster.peaks, cluster.broker_peaks = {}, {}
    # The executor's clock: it stands in for the executor's time module.
    cluster.clock, cluster.deleting = FakeClock(), []
    monkeypatch.setattr(executor, "time", cluster.clock)

    def delay_of(broker):
        return int(cluster.broker_configs.get(broker, {}).get(DELETE_DELAY_KEY)
                   or cluster.broker_defaults[DELETE_DELAY_KEY]) / 1000.0

    def drop(broker, path, count):
        """The broker renames the replica for deletion: it leaves its listing, its bytes stay for the delay."""
        cluster.deleting.append((broker, path, count, cluster.clock.now + delay_of(broker)))

    def dir_of(key):
        return cluster.placed.get(key) or cluster.preferred.get(key) or "/a"

    def size_of(topic, partition):
        size = cluster.sizes.get(topic, 0)
        return size.get(partition, 0) if isinstance(size, dict) else size

    def held_in(broker):
        """{(topic, partition): dir} of the broker's replicas."""
        return dict(((topic, partition), dir_of((broker, topic, partition)))
                    for topic, partitions in cluster.topics.items()
                    for partition, replicas in partitions.items() if broker in replicas)

    def used(broker, path, landing=()):
        """Bytes of the dir: its other files, its replicas, those renamed for deletion and not deleted yet, and the
        copies landing ((broker, path, bytes))."""
        return cluster.other_bytes.get((broker, path), 0) + sum(
            size_of(*key) for key, where in held_in(broker).items() if where == path) + sum(
            count for owner, where, count, due in cluster.deleting
            if (owner, where) == (broker, path) and due > cluster.clock.now) + sum(
            count for owner, where, count in landing if (owner, where) == (broker, path))

    def note_usage(landing=()):
        for broker, dirs in cluster.log_dirs.items():
            total = 0
            for path in dirs:
                now = used(broker, path, landing)
                cluster.peaks[(broker, path)] = max(cluster.peaks.get((broker, path), 0), now)
                total += now
            cluster.broker_peaks[broker] = max(cluster.broker_peaks.get(broker, 0), total)

    def kafka_choice(broker, key):
        counts = dict((path, 0) for path, cordoned in cluster.log_dirs[broker].items() if not cordoned)
        # Replicas the same request created a moment before count too: the broker creates them one by one.
        created = [where for (owner, topic, partition), where in cluster.placed.items()
                   if owner == broker and broker not in cluster.topics[topic][partition]]
        for where in list(held_in(broker).values()) + created:
            if where in counts:
                counts[where] += 1
        return min(counts, key=lambda path: (counts[path], path))

    cluster.choose = kafka_choice

    def describe_log_dirs(client, topic_partitions=None, brokers=None):
        client._record("describe_log_dirs", topics=topic_partitions, brokers=brokers)
        note_usage()
        answers = []
        for broker in brokers if brokers is not None else sorted(cluster.brokers):
            held = dict((path, {}) for path in cluster.log_dirs[broker])
            for (topic, partition), path in sorted(held_in(broker).items()):
                held[path].setdefault(topic, []).append(dict(
                    partition_index=partition, partition_size=size_of(topic, partition), offset_lag=0,
                    is_future_key=False))
            answers.append(dict(broker=broker, log_dirs=[dict(
                error_code=0, log_dir=path, is_cordoned=cluster.log_dirs[broker][path],
                total_bytes=cluster.dir_totals.get((broker, path), -1),
                usable_bytes=cluster.dir_totals[(broker, path)] - used(broker, path)
                if (broker, path) in cluster.dir_totals else -1,
                topics=[dict(name=topic, partitions=items) for topic, items in sorted(topics.items())])
                for path, topics in sorted(held.items())]))
        return answers

    def alter_replica_log_dirs(client, replica_assignments):
        client._record("alter_replica_log_dirs", moves=dict(
            ((key.topic, key.partition, key.broker_id), path) for key, path in replica_assignments.items()))
        outcome = {}
        for key, path in replica_assignments.items():
            place = (key.broker_id, key.topic, key.partition)
            if key.broker_id in cluster.topics[key.topic][key.partition]:
                if dir_of(place) != path:
                    # The future replica is a whole copy in the new dir before the old one goes.
                    note_usage([(key.broker_id, path, size_of(key.topic, key.partition))])
                    drop(key.broker_id, dir_of(place), size_of(key.topic, key.partition))
                cluster.placed[place] = path
                outcome[key] = kafka_errors.NoError
            else:
                cluster.preferred[place] = path
                outcome[key] = kafka_errors.ReplicaNotAvailableError
        return outcome

    moves_at_once = cluster.client_class.alter_partition_reassignments

    def alter_partition_reassignments(client, request, timeout_ms=None):
        landing, leaving = [], []
        for tp, replicas in request.items():
            current = cluster.topics[tp.topic][tp.partition]
            for broker in replicas or ():
                if broker not in current:
                    key = (broker, tp.topic, tp.partition)
                    path = cluster.preferred.pop(key, None) or cluster.choose(broker, (tp.topic, tp.partition))
                    landing.append((broker, path, size_of(tp.topic, tp.partition)))
                    cluster.placed[key] = path
            leaving.extend((broker, tp.topic, tp.partition) for broker in current
                           if broker not in (replicas or current))
        note_usage(landing)
        outcome = moves_at_once(client, request, timeout_ms)
        for key in leaving:
            drop(key[0], dir_of(key), size_of(key[1], key[2]))
            cluster.placed.pop(key, None)
        return outcome

    monkeypatch.setattr(cluster.client_class, "describe_log_dirs", describe_log_dirs)
    monkeypatch.setattr(cluster.client_class, "alter_replica_log_dirs", alter_replica_log_dirs, raising=False)
    monkeypatch.setattr(cluster.client_class, "alter_partition_reassignments", alter_partition_reassignments)
    cluster.dir_of = dir_of
    cluster.used = used
    return cluster


def plan(*entries):
    return {"version": 1, "partitions": [dict(topic=topic, partition=partition, replicas=replicas, log_dirs=dirs)
                                         for topic, partition, replicas, dirs in entries]}


def dir_calls(cluster):
    return [arguments["moves"] for name, arguments in cluster.calls if name == "alter_replica_log_dirs"]


def test_a_new_replica_lands_in_the_dir_the_plan_names(run_module, cluster):
    args = dict(SERVERS, plan=plan(("orders", 0, [1, 2, 4], ["any", "any", "/b"])), poll_interval=0.01)
    predicted = run_module(kafka_reassignment.main, args, cluster, check_mode=True)
    assert predicted["changed"] and predicted["log_dir_moves"] == ["orders-0 on broker 4 to /b"]
    assert dir_calls(cluster) == []
    result = run_module(kafka_reassignment.main, args, cluster)
    assert not result.get("failed"), result
    assert cluster.topics["orders"][0] == [1, 2, 4] and cluster.dir_of((4, "orders", 0)) == "/b"
    # Asked before the move (broker 4 did not hold it yet), and again once it did.
    assert dir_calls(cluster) == [{("orders", 0, 4): "/b"}, {("orders", 0, 4): "/b"}]
    again = run_module(kafka_reassignment.main, args, cluster)
    assert not again["changed"] and again["log_dir_moves"] == []


def test_a_plan_that_only_changes_a_replicas_dir_moves_it_and_then_changes_nothing(run_module, cluster):
    args = dict(SERVERS, plan=plan(("orders", 0, [1, 2, 3], ["/b", "any", "any"])), poll_interval=0.01)
    result = run_module(kafka_reassignment.main, args, cluster)
    assert result["changed"] and result["partitions"] == []
    assert result["log_dir_moves"] == ["orders-0 on broker 1 to /b"]
    assert cluster.dir_of((1, "orders", 0)) == "/b"
    assert not run_module(kafka_reassignment.main, args, cluster)["changed"]


@pytest.mark.parametrize("dirs, words", [
    (["/c", "any", "any"], "broker 1 has no log dir /c; its log dirs are /a, /b"),
    (["any", "any"], "one log dir per replica (3)"),
    (["b", "any", "any"], "neither \"any\" nor an absolute path"),
    (["any", "/b", "any"], "broker 2's log dir /b is cordoned"),
], ids=["unknown-dir", "wrong-length", "relative-path", "cordoned-dir"])
def test_a_bad_log_dir_is_refused_naming_the_entry_before_any_write(run_module, cluster, dirs, words):
    cluster.log_dirs[2]["/b"] = True
    failed = run_module(kafka_reassignment.main, dict(SERVERS, plan=plan(("orders", 0, [1, 2, 3], dirs))), cluster)
    assert failed["failed"] and failed["field"] == "plan.partitions[0].log_dirs" and words in failed["msg"], failed
    assert cluster.writes() == [] and dir_calls(cluster) == []


# ---- max_disk_fill on brokers with several log dirs: no dir's filesystem past the fill while the moves copy --------


def _filesystems(cluster, **broker_4):
    """Every log dir its own filesystem of 1 MB (a few bytes apart, so no two look like one), but broker 4's:
    broker_4 {path: (total bytes, bytes of other files)}."""
    for broker, dirs in cluster.log_dirs.items():
        for index, path in enumerate(sorted(dirs)):
            cluster.dir_totals[(broker, path)] = 1000000 + index
    for path, (total, other) in broker_4.items():
        cluster.dir_totals[(4, "/" + path)] = total
        cluster.other_bytes[(4, "/" + path)] = other


def _requests(cluster):
    return [sorted(arguments["request"]) for arguments in cluster.requests("alter_partition_reassignments")]


@pytest.mark.parametrize("delay_ms", [None, 0], ids=["default-delay", "no-delay"])
def test_two_copies_into_a_dir_with_room_for_one_run_one_batch_after_the_other(run_module, cluster, delay_ms):
    # orders-0 and orders-1 move onto broker 4's /a, which holds orders-2 and other files: 3,500 of its 10,000
    # bytes, room for 1,500 at 0.5. Broker 4 as a whole has room for 11,500 (its /b is empty), so by the broker
    # alone all three moves would run at once and /a would hold 5,500. orders-2 leaving /a frees room for the second
    # once broker 4 deletes it: after its log.segment.delete.delay.ms, 60 s unless set (0: at once).
    cluster.topics = {"orders": {0: [1], 1: [2], 2: [4]}}
    if delay_ms is not None:
        cluster.broker_configs[4] = {DELETE_DELAY_KEY: str(delay_ms)}
    _filesystems(cluster, a=(10000, 2500), b=(20000, 0))
    args = dict(SERVERS, plan=plan(("orders", 0, [4], ["/a"]), ("orders", 1, [4], ["/a"]), ("orders", 2, [3], ["any"])),
                max_disk_fill=0.5, poll_interval=0.01)
    predicted = run_module(kafka_reassignment.main, args, cluster, check_mode=True)
    assert not predicted.get("failed"), predicted
    assert predicted["delete_delay_ms"] == {1: 60000, 2: 60000, 4: 60000 if delay_ms is None else 0}
    assert predicted["delete_delay_unread"] == {} and predicted["warnings"] == []
    if delay_ms is None:
        # Whether broker 4 has deleted orders-2 when the first batch ends depends on how long its copies take: the
        # peaks count only the 500 bytes of it the second copy needs in /a, and none of it on the broker.
        assert predicted["disk_peak_bytes"][4] == 5500
        assert predicted["disk_peak_bytes_per_log_dir"][4] == {"/a": 5000, "/b": 0}
    else:
        assert predicted["disk_peak_bytes"][4] == 4500
        assert predicted["disk_peak_bytes_per_log_dir"][4] == {"/a": 4500, "/b": 0}
    assert cluster.writes() == [] and dir_calls(cluster) == []
    started = cluster.clock.now
    result = run_module(kafka_reassignment.main, args, cluster)
    assert not result.get("failed"), result
    assert _requests(cluster) == [[("orders", 0), ("orders", 2)], [("orders", 1)]]
    assert cluster.topics["orders"] == {0: [4], 1: [4], 2: [3]}
    assert cluster.dir_of((4, "orders", 0)) == cluster.dir_of((4, "orders", 1)) == "/a"
    # The second copy landed once orders-2 was gone from /a, never beside it.
    assert cluster.peaks[(4, "/a")] == 4500 <= 5000 and cluster.broker_peaks[4] == 4500
    assert result["disk_peak_bytes_per_log_dir"] == predicted["disk_peak_bytes_per_log_dir"]
    assert result["disk_peak_bytes"] == predicted["disk_peak_bytes"]
    waiting = [reading["waiting_for_deletions"] for reading in result["progress"] if "waiting_for_deletions" in reading]
    if delay_ms is None:
        assert result["deletion_waits"] == [dict(batch=2, seconds=60.0, places=["broker 4's log dir /a"])]
        assert result["deletion_wait_seconds"] == 60.0 and cluster.clock.now - started == 60.0
        # A reading as the wait starts and every progress_interval (10 s) after.
        assert waiting == [dict(seconds_left=60.0 - 10 * index, places=["broker 4's log dir /a"])
                           for index in range(6)]
    else:
        assert result["deletion_waits"] == [] and result["deletion_wait_seconds"] == 0
        assert waiting == [] and cluster.clock.now == started


def test_a_wait_for_deletions_past_the_timeout_fails_at_once_and_a_later_run_finishes(run_module, cluster):
    # As above, with 30 s to go: the second batch would wait until broker 4 deletes orders-2, 60 s on.
    cluster.topics = {"orders": {0: [1], 1: [2], 2: [4]}}
    _filesystems(cluster, a=(10000, 2500), b=(20000, 0))
    args = dict(SERVERS, plan=plan(("orders", 0, [4], ["/a"]), ("orders", 1, [4], ["/a"]), ("orders", 2, [3], ["any"])),
                max_disk_fill=0.5, poll_interval=0.01, timeout=30)
    started = cluster.clock.now
    failed = run_module(kafka_reassignment.main, args, cluster)
    assert failed["failed"] and failed["msg"] == (
        "timed out: 2 of 3 partition(s) moved, and the next batch needs room on broker 4's log dir /a that the "
        "replicas earlier batches moved off give back only once their brokers delete them "
        "(log.segment.delete.delay.ms), 60 s from now, past the timeout of 30 s. Run again with the same plan once "
        "they are deleted"), failed["msg"]
    assert cluster.clock.now == started and cluster.topics["orders"] == {0: [4], 1: [2], 2: [3]}
    cluster.clock.sleep(60)
    again = run_module(kafka_reassignment.main, dict(args, timeout=3600), cluster)
    assert not again.get("failed") and again["moved"] == 1 and again["deletion_waits"] == [], again
    assert cluster.topics["orders"] == {0: [4], 1: [4], 2: [3]} and cluster.peaks[(4, "/a")] == 4500


@pytest.mark.parametrize("check_mode", [True, False], ids=["check-mode", "real"])
@pytest.mark.parametrize("dirs, words", [
    (["any", "any", "/a"], "orders-0 needs 1000 B on broker 4's log dir /a, which has 500 B"),
    # Kafka may put a copy whose dir the plan does not name in /a: it counts there too.
    (["any", "any", "any"], "orders-0 needs 1000 B on broker 4's log dir /a, which has 500 B. Free space there, move "
     "less at once, or raise max_disk_fill. A copy whose dir the plan does not name (orders-0) counts against "
     "every open log dir of its broker"),
], ids=["named-dir", "dir-kafka-chooses"])
def test_a_copy_a_dir_has_no_room_for_is_refused_naming_the_dir_before_any_change(run_module, cluster, check_mode,
                                                                                  dirs, words):
    # Broker 4's /a holds 4,500 of 10,000 bytes: room for 500 at 0.5, and orders-0's copy is 1,000. Its /b is empty.
    _filesystems(cluster, a=(10000, 4500), b=(20000, 0))
    failed = run_module(kafka_reassignment.main, dict(SERVERS, plan=plan(("orders", 0, [1, 2, 4], dirs)),
                                                      max_disk_fill=0.5), cluster, check_mode=check_mode)
    assert failed["failed"] and failed["field"] == "max_disk_fill", failed
    assert failed["msg"].startswith("max_disk_fill: no broker's disks may pass 0.5 of their size while the moves "
                                    "copy, nor any filesystem of its log dirs"), failed["msg"]
    assert words in failed["msg"], failed["msg"]
    assert cluster.writes() == [] and dir_calls(cluster) == [] and cluster.topics["orders"][0] == [1, 2, 3]


@pytest.mark.parametrize("dirs, cordoned", [(["any", "any", "/b"], False), (["any", "any", "any"], True)],
                         ids=["dir-named", "only-dir-open"])
def test_a_copy_that_can_only_land_in_the_dir_with_room_moves(run_module, cluster, dirs, cordoned):
    _filesystems(cluster, a=(10000, 4500), b=(20000, 0))
    # Kafka places no new replica in a cordoned dir (KIP-1066): with /a cordoned, /b is where it goes.
    cluster.log_dirs[4]["/a"] = cordoned
    result = run_module(kafka_reassignment.main, dict(SERVERS, plan=plan(("orders", 0, [1, 2, 4], dirs)),
                                                      max_disk_fill=0.5, poll_interval=0.01), cluster)
    assert not result.get("failed"), result
    assert cluster.topics["orders"][0] == [1, 2, 4] and cluster.dir_of((4, "orders", 0)) == "/b"
    assert result["disk_peak_bytes_per_log_dir"][4] == {"/a": 4500, "/b": 1000}


def test_max_disk_fill_names_the_dirs_that_do_not_report_their_size(run_module, cluster):
    _filesystems(cluster)
    del cluster.dir_totals[(2, "/b")]
    failed = run_module(kafka_reassignment.main, dict(SERVERS, plan=plan(("orders", 0, [1, 2, 4], ["any"] * 3)),
                                                      max_disk_fill=0.9), cluster)
    assert failed["failed"] and failed["msg"] == (
        "max_disk_fill: the brokers do not report the size of their log dirs' disks (Kafka 3.3 and later do; an "
        "offline dir does not), so the fill cannot be kept: broker 2's log dir /b"), failed["msg"]
    assert cluster.writes() == []


def test_a_move_between_a_brokers_dirs_past_the_fill_is_refused_naming_the_dir(run_module, cluster):
    # orders-1 stays on broker 4 and is to move from /a to /b, which holds 9,600 of 20,000 bytes: at 0.5, room for
    # 400, and the move copies 1,000 there before /a frees it.
    cluster.topics["orders"][1] = [2, 3, 4]
    _filesystems(cluster, a=(10000, 0), b=(20000, 9600))
    move = plan(("orders", 1, [2, 3, 4], ["any", "any", "/b"]))
    failed = run_module(kafka_reassignment.main, dict(SERVERS, plan=move, max_disk_fill=0.5), cluster)
    assert failed["failed"] and failed["field"] == "max_disk_fill", failed
    assert "broker 4's log dir /b gains 1000 B and has room for 400 B" in failed["msg"], failed["msg"]
    assert dir_calls(cluster) == [] and cluster.dir_of((4, "orders", 1)) == "/a"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_random_plans_take_no_dir_past_its_fill_whatever_dir_kafka_picks(run_module, cluster, data):
    """Random brokers with one to three log dirs of random sizes, replicas in random dirs, and a plan naming a dir
    for some replicas (moves between a broker's dirs among them) and leaving Kafka to pick for the rest, which it
    does at random here among the open dirs. Each broker keeps a replica it gave up for a random
    log.segment.delete.delay.ms (0, 1 s, Kafka's default 60 s, 5 min), its bytes on disk until then. In half the
    cases the plan lists every partition and each dir's other files leave it room at the fill for what it gains
    less what it gives up (some dirs for one of the largest replica more), and in half every replica moves one
    broker on, so that copies wait for earlier batches' deletions. A plan is refused before any change, or no dir
    and no broker ever holds more than its fill allows (or what it held when that was more), deleted replicas
    still on disk included, and each peak reported is at least the one seen: the same where its broker deletes at
    once, no copy's dir was left to Kafka and nothing moved between a broker's dirs."""
    cluster.calls.clear()
    for store in (cluster.placed, cluster.preferred, cluster.dir_totals, cluster.other_bytes, cluster.peaks,
                  cluster.broker_peaks, cluster.broker_configs, cluster.deleting):
        store.clear()
    brokers = [1, 2, 3, 4]
    delays = {}
    for broker in brokers:
        delay = data.draw(st.sampled_from([None, 0, 1000, 60000, 300000]))
        if delay is not None:
            cluster.broker_configs[broker] = {DELETE_DELAY_KEY: str(delay)}
        delays[broker] = 60000 if delay is None else delay
    factor = data.draw(st.integers(1, 3))
    fill = data.draw(st.sampled_from([0.5, 0.7, 0.9, 1.0]))
    tight = data.draw(st.booleans())
    cluster.log_dirs = {}
    for broker in brokers:
        paths = ["/a", "/b", "/c"][:data.draw(st.integers(1, 3))]
        cordoned = data.draw(st.lists(st.sampled_from(paths), unique=True, max_size=len(paths) - 1))
        cluster.log_dirs[broker] = dict((path, path in cordoned) for path in paths)
        for index, path in enumerate(paths):
            cluster.dir_totals[(broker, path)] = data.draw(st.integers(400, 2000)) * 10 + index
            if not tight:
                cluster.other_bytes[(broker, path)] = data.draw(st.integers(0, 2000))
    count = data.draw(st.integers(2, 10))
    cluster.sizes = {"t": dict((partition, data.draw(st.integers(0, 3000))) for partition in range(count))}
    cluster.topics = {"t": {}}
    for partition in range(count):
        replicas = data.draw(st.permutations(brokers))[:factor]
        cluster.topics["t"][partition] = replicas
        for broker in replicas:
            cluster.placed[(broker, "t", partition)] = data.draw(st.sampled_from(sorted(cluster.log_dirs[broker])))
    open_dirs = dict((broker, sorted(path for path, cordoned in dirs.items() if not cordoned))
                     for broker, dirs in cluster.log_dirs.items())
    entries, unnamed, within = [], set(), set()
    # Random targets, or every replica one broker on (each broker gives up as many replicas as it gains, so a copy
    # onto a full broker waits for one to leave it).
    rotate = data.draw(st.booleans())
    for partition in data.draw(st.lists(st.integers(0, count - 1), unique=True, min_size=count if tight else 1)):
        if rotate:
            target = [broker % len(brokers) + 1 for broker in cluster.topics["t"][partition]]
        else:
            target = data.draw(st.permutations(brokers))[:factor]
        dirs = []
        for broker in target:
            current = cluster.topics["t"][partition]
            if tight and broker in current:
                # Tight: a replica that stays keeps its dir (a move between dirs counts for the whole run).
                path = "any"
            else:
                path = data.draw(st.sampled_from((["any"] if not tight else []) + open_dirs[broker]))
            dirs.append(path)
            if path == "any" and broker not in current:
                unnamed.add(broker)
            if path != "any" and broker in current and cluster.placed[(broker, "t", partition)] != path:
                within.add(broker)
        entries.append(("t", partition, target, dirs))
    if tight:
        # Each dir's room: what it gains less what it gives up (its copies fit once its old replicas are gone),
        # and in some dirs room for one more of the largest replica (where copies can start).
        gains = dict(((broker, path), 0) for broker, dirs in cluster.log_dirs.items() for path in dirs)
        for entry in entries:
            partition, target, dirs = entry[1:]
            current, size = cluster.topics["t"][partition], cluster.sizes["t"][partition]
            for broker, path in zip(target, dirs, strict=True):
                if broker not in current:
                    gains[(broker, path)] += size
            for broker in current:
                if broker not in target:
                    gains[(broker, cluster.placed[(broker, "t", partition)])] -= size
        largest = max(cluster.sizes["t"].values())
        for (broker, path), gained in gains.items():
            room = max(0, gained) + data.draw(st.sampled_from([0, 0, largest]))
            cluster.other_bytes[(broker, path)] = max(0, int(fill * cluster.dir_totals[(broker, path)])
                                                      - cluster.used(broker, path) - room)
    cluster.choose = lambda broker, key: data.draw(st.sampled_from(open_dirs[broker]))
    start = dict(((broker, path), cluster.used(broker, path)) for broker, dirs in cluster.log_dirs.items()
                 for path in dirs)
    # Tight plans are cut into batches by room, not by the count of moves.
    moves_per_broker = data.draw(st.integers(3 if tight else 1, 3))
    result = run_module(kafka_reassignment.main, dict(
        SERVERS, plan=plan(*entries), max_disk_fill=fill, max_moves_per_broker=moves_per_broker, poll_interval=0.01,
        elect_leaders=False, timeout=36000), cluster)
    if result.get("failed"):
        assert result["field"] == "max_disk_fill", result
        assert cluster.writes() == [] and dir_calls(cluster) == []
        return
    if not result["changed"]:
        # The plan is in place already: nothing to check the fill for.
        assert "disk_peak_bytes" not in result and cluster.writes() == [] and dir_calls(cluster) == []
        return
    assert result["delete_delay_ms"] == dict((broker, delays[broker]) for broker in result["delete_delay_ms"])
    if result["partitions"]:
        waits = result["deletion_waits"]
        event("a batch waited for deletions" if waits else "no batch waited")
        assert result["deletion_wait_seconds"] == round(sum(item["seconds"] for item in waits), 1)
        assert all(item["seconds"] <= max(delays.values()) / 1000.0 for item in waits), waits
    else:
        # Only moves between a broker's dirs: no batch, nothing to wait for.
        assert "deletion_waits" not in result
    for (broker, path), held in start.items():
        limit = int(fill * cluster.dir_totals[(broker, path)])
        assert cluster.peaks[(broker, path)] <= max(held, limit), (broker, path, cluster.peaks, limit)
        reported = result["disk_peak_bytes_per_log_dir"][broker][path]
        if len(cluster.log_dirs[broker]) == 1 or broker in unnamed or broker in within or delays[broker]:
            assert reported >= cluster.peaks[(broker, path)], (broker, path, reported, cluster.peaks)
        else:
            assert reported == cluster.peaks[(broker, path)], (broker, path, reported, cluster.peaks)
    for broker in brokers:
        held = sum(count for (owner, unused), count in start.items() if owner == broker)
        limit = int(fill * sum(total for (owner, unused), total in cluster.dir_totals.items() if owner == broker))
        assert cluster.broker_peaks[broker] <= max(held, limit)
        if broker in within or delays[broker]:
            assert result["disk_peak_bytes"][broker] >= cluster.broker_peaks[broker]
        else:
            assert result["disk_peak_bytes"][broker] == cluster.broker_peaks[broker], (broker, result,
                                                                                       cluster.broker_peaks)
