"""What a reassignment must copy and the least time it takes at a throttle (pure functions of _reassignment_moves)."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils import _reassignment_moves as moves
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_moves import (
    PlanInputError,
    bytes_to_copy,
    check_against_cluster,
    expected_seconds,
    make_batches,
    throttle_entries,
)


def entry(partition, current, target, in_progress=False, topic="t"):
    return dict(topic=topic, partition=partition, current=current, target=target, in_progress=in_progress)


# {topic: {partition: {broker: bytes}}}: t-0 has its leader's copy on 1 and a lagging follower's on 2.
SIZES = {"t": {0: {1: 1000, 2: 900}, 1: {2: 500, 3: 500}}, "u": {0: {4: 70}}}


@pytest.mark.parametrize("pending, sizes, per_broker, total", [
    ([], SIZES, {}, 0),
    # A new replica copies the largest current copy, not the lagging follower's.
    ([entry(0, [1, 2], [1, 3])], SIZES, {3: 1000}, 1000),
    # Each added replica copies the partition once.
    ([entry(0, [1, 2], [3, 4, 5])], SIZES, {3: 1000, 4: 1000, 5: 1000}, 3000),
    # A reorder or a shrink copies nothing.
    ([entry(0, [1, 2], [2, 1]), entry(1, [2, 3], [3])], SIZES, {}, 0),
    # Bytes add up per receiving broker over partitions and topics.
    ([entry(0, [1, 2], [1, 4]), entry(1, [2, 3], [4, 3]), entry(0, [4], [5], topic="u")], SIZES,
     {4: 1500, 5: 70}, 1570),
    # In progress (current lists target and original replicas): only what the new copy still lacks.
    ([entry(0, [3, 1, 2], [3, 1], in_progress=True)], {"t": {0: {1: 1000, 2: 1000, 3: 400}}}, {3: 600}, 600),
    ([entry(0, [3, 1, 2], [3, 1], in_progress=True)], {"t": {0: {1: 1000, 2: 1000}}}, {3: 1000}, 1000),
    ([entry(0, [1, 2, 3], [1, 3], in_progress=True)], {"t": {0: {1: 1000, 2: 1000, 3: 1000}}}, {}, 0),
    # A partition no broker reported counts nothing rather than failing.
    ([entry(7, [1], [2])], SIZES, {}, 0),
    ([entry(0, [1], [2], topic="gone")], SIZES, {}, 0),
], ids=["nothing", "one-new-replica", "three-new-replicas", "reorder-and-shrink", "sums", "in-progress-partial",
        "in-progress-not-started", "in-progress-done", "unknown-partition", "unknown-topic"])
def test_bytes_to_copy(pending, sizes, per_broker, total):
    assert bytes_to_copy(pending, sizes) == (per_broker, total)


@pytest.mark.parametrize("pending, rate, seconds", [
    ([entry(0, [1, 2], [1, 3])], 0, None),
    ([entry(0, [1, 2], [1, 3])], 100, 10.0),
    ([entry(0, [1, 2], [2, 1])], 100, 0.0),
    # Two brokers receive at the same time: the busier one sets the pace.
    ([entry(0, [1, 2], [1, 3]), entry(1, [2, 3], [2, 4])], 100, 10.0),
    # One broker receives both: its copies queue behind the same throttle.
    ([entry(0, [1, 2], [1, 4]), entry(1, [2, 3], [2, 4])], 100, 15.0),
    # A move in progress is not throttled by this run, so it bounds nothing.
    ([entry(0, [3, 1, 2], [3, 1], in_progress=True), entry(1, [2, 3], [2, 4])], 100, 5.0),
])
def test_expected_seconds_in_one_batch(pending, rate, seconds):
    batches = make_batches(pending, 20)
    assert len(batches) == 1
    assert expected_seconds(batches, SIZES, rate) == seconds


def test_expected_seconds_add_up_over_batches():
    # Broker 3 gains a replica in the first move and loses one in the second: one move per broker per batch.
    batches = make_batches([entry(0, [1, 2], [1, 3]), entry(1, [2, 3], [2, 4])], 1)
    assert len(batches) == 2
    assert expected_seconds(batches, SIZES, 100) == 15.0


def _entry(current, target, in_progress=False, adding=None):
    entry = dict(topic="t", partition=0, current=current, target=target, in_progress=in_progress)
    if adding is not None:
        entry["adding"] = adding
    return entry


@pytest.mark.parametrize(
    "entry, leaders, followers",
    [
        # A new move: leaders on every current replica, followers on the replicas it adds.
        (_entry([1, 2, 3], [1, 2, 4]), {"0:1", "0:2", "0:3"}, {"0:4"}),
        # Only a reorder or a smaller replication factor: nothing is copied, nothing throttled.
        (_entry([1, 2, 3], [3, 2, 1]), set(), set()),
        (_entry([1, 2, 3], [1, 2]), set(), set()),
        # A move in progress lists its target among its replicas: the adding replicas say what is copied.
        (_entry([1, 2, 4, 3], [1, 2, 4], in_progress=True, adding=[4]), {"0:1", "0:2", "0:3", "0:4"}, {"0:4"}),
        # In progress but already copied (or not known): nothing to throttle.
        (_entry([1, 2, 4, 3], [1, 2, 4], in_progress=True, adding=[]), set(), set()),
        (_entry([1, 2, 4, 3], [1, 2, 4], in_progress=True), set(), set()),
    ],
)
def test_throttle_entries_cover_exactly_the_replicas_being_copied(entry, leaders, followers):
    found_leaders, found_followers = throttle_entries([entry])
    assert found_leaders.get("t", set()) == leaders
    assert found_followers.get("t", set()) == followers


def test_forget_controller_makes_the_client_ask_again():
    from types import SimpleNamespace

    from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import forget_controller

    client = SimpleNamespace(_controller_id=1)
    forget_controller(client)
    assert client._controller_id is None
    forget_controller(client)
    assert client._controller_id is None


def test_a_partition_in_flight_counts_with_the_factor_it_moves_to():
    # Replication factor 2; partition 0 moves from [1, 2] to [3, 2], so Kafka lists [3, 2, 1] while it copies.
    topics = {"t": {0: [3, 2, 1], 1: [2, 3], 2: [3, 1]}}
    parsed = [("t", 0, [3, 2])]
    pending = check_against_cluster(parsed, topics, [1, 2, 3], {("t", 0): [3, 2]})
    assert [(item["partition"], item["in_progress"]) for item in pending] == [(0, True)]
    # A plan that does change the factor must still list every partition.
    with pytest.raises(PlanInputError, match="must list all its 3 partitions"):
        check_against_cluster([("t", 1, [2, 3, 1])], topics, [1, 2, 3], {("t", 0): [3, 2]})


def test_bytes_left_counts_what_new_copies_still_lack_and_later_batches_whole():
    in_flight = [dict(topic="t", partition=0, current=[1, 2], target=[1, 3], in_progress=False)]
    later = [dict(topic="t", partition=1, current=[1, 2], target=[2, 4], in_progress=False)]
    sizes = {"t": {0: {1: 100, 2: 100, 3: 40}, 1: {1: 50, 2: 50}}}
    assert moves.bytes_left(in_flight, later, sizes) == ({3: 60, 4: 50}, 110)


@pytest.mark.parametrize("left, throttle, expected", [
    (({3: 60, 4: 50}, 110), 10, dict(bytes_copied=90, rate=9, seconds_left=6.0)),
    (({3: 60, 4: 50}, 110), 0, dict(bytes_copied=90, rate=9, seconds_left=12.2)),
    (None, 10, dict(bytes_copied=None, rate=None, seconds_left=None)),
])
def test_progress_status(left, throttle, expected):
    status = moves.progress_status(1, 2, 12.34, 10.0, 200, left, throttle)
    assert dict((key, status[key]) for key in expected) == expected
    assert (status["done"], status["total"], status["elapsed"], status["bytes_total"]) == (1, 2, 12.3, 200)


def test_describe_progress_names_every_figure_it_has():
    line = moves.describe_progress(dict(done=3, total=12, elapsed=95, bytes_total=3 << 30, bytes_copied=1 << 29,
                                        rate=10 << 20, seconds_left=262.4))
    assert line == "3 of 12 partitions moved, 512.0 MiB of 3.0 GiB copied, 10.0 MiB/s, about 4 min 22 s left, " \
                   "1 min 35 s elapsed"
    assert moves.describe_progress(dict(done=0, total=1, elapsed=2.0, bytes_total=None, bytes_copied=None, rate=None,
                                        seconds_left=None)) == "0 of 1 partitions moved, 2 s elapsed"
