"""What a reassignment must copy and the least time it takes at a throttle (pure functions of _reassignment_moves)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ansible_collections.kafkaops.cluster.plugins.module_utils import _disk_ledger as disk_ledger
from ansible_collections.kafkaops.cluster.plugins.module_utils import _reassignment_moves as moves
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_moves import (
    PlanInputError,
    bytes_to_copy,
    check_against_cluster,
    expected_seconds,
    make_batches,
    throttle_entries,
)


def ledger_of(room, sizes, delays=None):
    """The DiskLedger of a reassignment's entries, counted on brokers alone."""
    return disk_ledger.DiskLedger(room, moves.reassignment_effects(sizes), delays=delays)


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
    waiting = dict(seconds_left=42.0, places=["broker 4's log dir /a", "broker 4"])
    assert moves.describe_progress(dict(done=2, total=3, elapsed=70, bytes_total=None, bytes_copied=None, rate=None,
                                        seconds_left=None, waiting_for_deletions=waiting)) == (
        "2 of 3 partitions moved, the next batch waits 42 s for deletions to free room on broker 4's log dir /a, "
        "broker 4, 1 min 10 s elapsed")
    # kafka_log_dirs' balance, waiting to plan from disks without old copies.
    before = dict(done=0, total=3, elapsed=5, bytes_total=None, bytes_copied=None, rate=None, seconds_left=None)
    assert moves.describe_progress(dict(before, settling=dict(seconds_left=61.5, brokers=[2, 3])), "replicas moved") \
        == "0 of 3 replicas moved, the plan waits 1 min 02 s for broker(s) 2, 3 to delete the old replicas earlier " \
           "moves may have left, 5 s elapsed"
    assert moves.describe_progress(dict(before, settling=dict(seconds_left=None, brokers=[2])), "replicas moved") \
        == "0 of 3 replicas moved, the plan waits for the copies running on broker(s) 2 to end and their old " \
           "replicas to be deleted, 5 s elapsed"


# ---- batches that keep every broker's disks under their limit while copying ------------------------------


def test_without_room_the_batches_are_those_of_the_count_limit():
    pending = [entry(0, [1, 2], [1, 3]), entry(1, [2, 3], [2, 4]), entry(0, [4], [5], topic="u")]
    assert make_batches(pending, 1, SIZES, None) == make_batches(pending, 1)
    # Room enough everywhere changes nothing either.
    assert make_batches(pending, 1, SIZES, {3: 10 ** 9, 4: 10 ** 9, 5: 10 ** 9}) == make_batches(pending, 1)


def test_a_copy_waits_until_a_move_off_its_broker_has_freed_room():
    # Broker 3 has room for 600 bytes: t-0's copy (1,000) fits only after t-1's replica on 3 (500) is gone.
    pending = [entry(0, [1, 2], [1, 3]), entry(1, [2, 3], [2, 4])]
    batches = make_batches(pending, 20, SIZES, {3: 600, 4: 10 ** 6})
    assert [[(item["topic"], item["partition"]) for item in batch] for batch in batches] == [[("t", 1)], [("t", 0)]]
    disks = {3: {"total_bytes": 2000, "used_bytes": 600}, 4: {"total_bytes": 10 ** 7, "used_bytes": 0}}
    # 600 + 1,000 after the 500 left; had both run at once, 3 would have held 600 + 1,000 before the 500 left.
    assert moves.disk_peaks(batches, SIZES, disks)[3] == 1100
    assert moves.disk_peaks(make_batches(pending, 20), SIZES, disks)[3] == 1600


def test_a_dropped_replica_gives_its_room_back_only_once_its_broker_deletes_it():
    # As above: t-1's replica leaves broker 3 in the first batch, and t-0's copy needs its room. Broker 3 deletes
    # it 60 s after its move was seen complete (log.segment.delete.delay.ms); until then the room is not there.
    pending = [entry(0, [1, 2], [1, 3]), entry(1, [2, 3], [2, 4])]
    room = {3: 600, 4: 10 ** 6}
    first, second = make_batches(pending, 20, SIZES, room)
    ledger = ledger_of(room, SIZES, delays={3: 60, 2: 5})
    ledger.start(first)
    ledger.complete(first, now=100)
    assert ledger.ready_at(second) == (160, [3])
    ledger.delete(159.9)
    assert ledger.short(ledger.gains(second)) == [(3, 1000, 600)]
    ledger.delete(160)
    assert ledger.ready_at(second) == (None, []) and ledger.room[3] == 1100
    # Deleting at once (a delay of 0, or none known), the room is back as the move completes.
    at_once = ledger_of(room, SIZES, delays={3: 0})
    at_once.start(first)
    at_once.complete(first, now=100)
    assert at_once.ready_at(second) == (None, [])


def test_a_batch_waits_for_the_deletions_it_needs_and_no_more():
    # Broker 5 gives up three replicas of 300 bytes, seen complete at 0, 10 and 20 s and deleted 30 s after each;
    # a copy of 500 onto it (no room of its own) needs two of them gone, one of 1,000 more than all three.
    sizes = {"t": {0: {5: 300}, 1: {5: 300}, 2: {5: 300}, 3: {1: 500}, 4: {1: 1000}}}
    ledger = ledger_of({5: 0}, sizes, delays={5: 30})
    for seen, partition in ((0, 0), (10, 1), (20, 2)):
        ledger.complete([entry(partition, [5], [6])], now=seen)
    assert ledger.ready_at([entry(3, [1], [5])]) == (40, [5])
    # Not room enough even with every deletion done: the last one is the best there is (a move already copying).
    assert ledger.ready_at([entry(4, [1], [5])]) == (50, [5])
    ledger.delete(40)
    assert ledger.room[5] == 600 and ledger.ready_at([entry(3, [1], [5])]) == (None, [])
    # Nothing to wait for: no deletion is due.
    assert ledger_of({5: 0}, sizes).ready_at([entry(3, [1], [5])]) == (None, [5])


def test_disk_peaks_count_a_dropped_replica_until_a_batch_needs_its_room():
    pending = [entry(0, [1, 2], [1, 3]), entry(1, [2, 3], [2, 4])]
    room = {3: 600, 4: 10 ** 6}
    batches = make_batches(pending, 20, SIZES, room)
    disks = {3: {"total_bytes": 2000, "used_bytes": 600}, 4: {"total_bytes": 10 ** 7, "used_bytes": 0}}
    # Deleted at once: 600 - 500 + 1,000. Kept 60 s: the copy may land with all of it there but the 400 bytes of
    # room it lacks, so up to 1,200, the fill.
    assert moves.disk_peaks(batches, SIZES, disks, room=room, delays={3: 0})[3] == 1100
    assert moves.disk_peaks(batches, SIZES, disks, room=room, delays={3: 60})[3] == 1200
    # A broker with room to spare counts what it gives up until the end.
    assert moves.disk_peaks(batches, SIZES, disks, room={3: 10 ** 6}, delays={3: 60})[3] == 1600


def test_copies_onto_one_broker_share_its_room_within_a_batch():
    sizes = {"t": {0: {1: 400}, 1: {1: 400}, 2: {1: 400}}}
    pending = [entry(partition, [1], [2]) for partition in range(3)]
    assert len(make_batches(pending, 20, sizes, {2: 1200})) == 1
    # Two copies fit beside each other, the third would pass the room; nothing leaves broker 2, so it never fits.
    with pytest.raises(disk_ledger.CapacityOrderError) as refused:
        make_batches(pending, 20, sizes, {2: 1000, 1: 10 ** 6})
    assert "none of the 1 move(s) left fits: t-2 needs 400 B on broker 2, which has 200 B" in str(refused.value)
    assert refused.value.needs == [("t", 2, 2, 400, 200)]


def test_two_full_brokers_exchanging_replicas_are_refused_naming_both():
    sizes = {"t": {0: {1: 2 << 20}, 1: {2: 3 << 20}}}
    pending = [entry(0, [1], [2]), entry(1, [2], [1])]
    with pytest.raises(disk_ledger.CapacityOrderError) as refused:
        make_batches(pending, 20, sizes, {1: 1 << 20, 2: -5})
    message = str(refused.value)
    assert "none of the 2 move(s) left fits" in message
    assert "t-0 needs 2.0 MiB on broker 2, which has none" in message
    assert "t-1 needs 3.0 MiB on broker 1, which has 1.0 MiB" in message


def test_a_move_in_progress_goes_first_whatever_the_room():
    pending = [entry(0, [3, 1, 2], [3, 1], in_progress=True), entry(1, [2, 3], [2, 4])]
    batches = make_batches(pending, 20, SIZES, {3: 0, 4: 10 ** 6})
    assert batches[0][0]["in_progress"] and len(batches) == 1


def test_disk_room_is_the_fill_limit_less_what_the_disks_hold():
    disks = {1: {"total_bytes": 1000, "used_bytes": 700}, 2: {"total_bytes": 1000, "used_bytes": 900}}
    assert disk_ledger.disk_room(disks, 0.85) == {1: 150, 2: -50}


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_random_batches_never_take_a_broker_past_its_room(data):
    brokers = list(range(1, data.draw(st.integers(3, 6)) + 1))
    count = data.draw(st.integers(1, 12))
    sizes, pending = {"t": {}}, []
    for partition in range(count):
        current = data.draw(st.lists(st.sampled_from(brokers), min_size=1, max_size=3, unique=True))
        target = data.draw(st.lists(st.sampled_from(brokers), min_size=1, max_size=3, unique=True))
        size = data.draw(st.integers(0, 1000))
        sizes["t"][partition] = dict((broker, size) for broker in current)
        pending.append(entry(partition, current, target))
    room = dict((broker, data.draw(st.integers(-100, 3000))) for broker in brokers)
    limit = data.draw(st.integers(1, 3))
    try:
        batches = make_batches(pending, limit, sizes, room)
    except disk_ledger.CapacityOrderError as refused:
        # Refused only when some move is short of room at the point where the greedy order stopped.
        assert refused.needs and all(needed > left for _t, _p, _b, needed, left in refused.needs)
        return
    scheduled = [item["partition"] for batch in batches for item in batch]
    assert sorted(scheduled) == list(range(count))
    # Each broker's disks hold its current copies; no batch takes them further than the room it had, since a
    # batch's copies fit the room left after earlier batches' copies and frees.
    held = dict((broker, sum(copies.get(broker, 0) for copies in sizes["t"].values())) for broker in brokers)
    disks = dict((broker, {"total_bytes": 10 ** 9, "used_bytes": held[broker]}) for broker in brokers)
    peaks = moves.disk_peaks(batches, sizes, disks)
    assert all(peaks[broker] <= held[broker] + max(room[broker], 0) for broker in brokers), (peaks, held, room)


# ---- places: the filesystems of a broker's log dirs -------------------------------------------------------------


def _dir(total, used, cordoned=False, online=True):
    """A log dir as log_dir_state() gives it: its filesystem's total and usable bytes, and its state."""
    return dict(total_bytes=total, usable_bytes=total - used, online=online, cordoned=cordoned, error=None)


# Broker 1: /a and /b on two filesystems, /c cordoned on a third; t-0's replica in /a. Broker 2: /x and /y on one
# filesystem (the same total, usable bytes within the slack). Broker 3: one dir.
STATE = {
    1: dict(dirs={"/a": _dir(10000, 6000), "/b": _dir(20000, 1000), "/c": _dir(30000, 0, cordoned=True)},
            replicas={("t", 0): dict(dir="/a", bytes=1000)}),
    2: dict(dirs={"/x": _dir(50000, 400), "/y": _dir(50000, 500)}, replicas={("t", 1): dict(dir="/y", bytes=500)}),
    3: dict(dirs={"/d": _dir(9000, 900)}, replicas={}),
}
A, B, C = (1, ("/a",)), (1, ("/b",)), (1, ("/c",))


def test_only_brokers_with_dirs_on_several_filesystems_get_places_of_their_own():
    places = moves.LogDirPlaces(STATE)
    assert places.figures == {A: dict(total_bytes=10000, used_bytes=6000), B: dict(total_bytes=20000, used_bytes=1000),
                              C: dict(total_bytes=30000, used_bytes=0)}
    assert places.open == {1: [A, B]}
    assert disk_ledger.disk_room(places.figures, 0.5) == {A: -1000, B: 9000, C: 15000}
    assert [disk_ledger.place_name(place) for place in (3, A, (2, ("/x", "/y")))] == [
        "broker 3", "broker 1's log dir /a", "broker 2's log dirs /x, /y (one filesystem)"]


@pytest.mark.parametrize("wanted, key, landing", [
    # The dir the plan names.
    ({("t", 5): {1: "/b"}}, ("t", 5, 1), [B]),
    # None named: every open dir (not the cordoned /c), whichever Kafka picks.
    ({}, ("t", 5, 1), [A, B]),
    ({("t", 5): {2: "/x"}}, ("t", 5, 1), [A, B]),
    # A replica the broker holds already (a move in progress copying into it) fills its dir, whatever is named.
    ({("t", 0): {1: "/b"}}, ("t", 0, 1), [A]),
    # A broker whose dirs share one filesystem, or with one dir: its own place counts it.
    ({("t", 5): {2: "/x"}}, ("t", 5, 2), []),
    ({}, ("t", 5, 3), []),
], ids=["named", "any", "named-elsewhere", "held", "one-filesystem", "one-dir"])
def test_where_a_copy_lands(wanted, key, landing):
    assert moves.LogDirPlaces(STATE, wanted).landing(*key) == landing


def test_a_move_frees_its_broker_and_the_dir_its_old_replica_is_in():
    places = moves.LogDirPlaces(STATE, {("t", 0): {3: "/d"}})
    sizes = {"t": {0: {1: 1000}}}
    assert moves._gains_and_frees(entry(0, [1], [3]), sizes, places) == ({3: 1000}, {1: 1000, A: 1000})
    assert moves._gains_and_frees(entry(0, [1], [1, 2]), sizes, places) == ({2: 1000}, {})


def test_copies_kafka_places_share_the_room_of_every_dir_they_may_land_in():
    # Broker 1's /a has room for 1,500 at 0.5 beside its own 3,500, /b for plenty: two copies with no dir named may
    # both land in /a, so they go one after the other, the move off /a freeing room in between.
    state = {1: dict(dirs={"/a": _dir(10000, 3500), "/b": _dir(20000, 0)},
                     replicas={("t", 2): dict(dir="/a", bytes=1000)}),
             2: dict(dirs={"/d": _dir(10 ** 6, 2000)}, replicas={})}
    places = moves.LogDirPlaces(state)
    sizes = {"t": {0: {2: 1000}, 1: {2: 1000}, 2: {1: 1000}}}
    pending = [entry(0, [2], [1]), entry(1, [2], [1]), entry(2, [1], [2])]
    disks = {1: dict(total_bytes=30000, used_bytes=3500), 2: dict(total_bytes=10 ** 6, used_bytes=2000)}
    figures = dict(disks)
    figures.update(places.figures)
    room = disk_ledger.disk_room(figures, 0.5)
    batches = make_batches(pending, 20, sizes, room, places)
    assert [[item["partition"] for item in batch] for batch in batches] == [[0, 2], [1]]
    # By the broker alone the three fit at once.
    assert len(make_batches(pending, 20, sizes, disk_ledger.disk_room(disks, 0.5))) == 1
    peaks = moves.disk_peaks(batches, sizes, figures, places)
    # Each copy counts in /a and in /b until the end: where Kafka put it is not read again. The broker's is exact.
    assert (peaks[1], peaks[(1, ("/a",))], peaks[(1, ("/b",))]) == (4500, 4500, 2000)
    assert places.per_log_dir(peaks, state) == {1: {"/a": 4500, "/b": 2000}, 2: {"/d": 3000}}
    # Named, the same copies count in /b alone and run at once.
    named = moves.LogDirPlaces(state, {("t", 0): {1: "/b"}, ("t", 1): {1: "/b"}})
    assert len(make_batches(pending, 20, sizes, room, named)) == 1
    with pytest.raises(disk_ledger.CapacityOrderError) as refused:
        make_batches(pending[:2], 20, sizes, {**room, A: 500}, places)
    assert "t-0 needs 1000 B on broker 1's log dir /a, which has 500 B" in str(refused.value)


def test_a_move_between_a_brokers_dirs_fills_the_broker_and_the_new_dir_from_the_start():
    places = moves.LogDirPlaces(STATE)
    sizes = {"t": {0: {1: 1000, 2: 1200}, 1: {2: 500}}}
    requests = [dict(topic="t", partition=0, broker=1, to_dir="/b"),
                dict(topic="t", partition=1, broker=2, to_dir="/x"),
                # Not on broker 3 yet: the move's copy, counted by the batches.
                dict(topic="t", partition=1, broker=3, to_dir="/d")]
    assert moves.copies_within_brokers(requests, sizes, places) == {1: 1200, B: 1200, 2: 500}
