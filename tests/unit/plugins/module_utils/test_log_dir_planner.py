"""The log dir planner: evacuations, balance, the bound, refusals; properties on random brokers."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ansible_collections.kafkaops.cluster.plugins.module_utils import _cluster
from ansible_collections.kafkaops.cluster.plugins.module_utils import _reassignment_planner_io as _io
from ansible_collections.kafkaops.cluster.plugins.module_utils._disk_ledger import SHARED_FILESYSTEM_SLACK, volumes
from ansible_collections.kafkaops.cluster.plugins.module_utils._log_dir_planner import (
    LogDirPlanError,
    log_dir_ledger,
    order_moves,
    plan_log_dirs,
)
from ansible_collections.kafkaops.cluster.tests.unit.plugins.module_utils.log_dir_samples import GB, broker, disk


def after_move(state, plan):
    """The brokers as they are once the plan's moves are done (volumes' used bytes follow the bytes)."""
    moved = dict(((move["topic"], move["partition"]), move) for move in plan["moves"] if move["broker"] == state[0])
    dirs = dict((path, dict(info)) for path, info in state[1]["dirs"].items())
    replicas = {}
    for key, replica in state[1]["replicas"].items():
        target = moved[key]["to_dir"] if key in moved else replica["dir"]
        replicas[key] = dict(replica, dir=target)
        source_info, target_info = dirs[replica["dir"]], dirs[target]
        if target != replica["dir"] and source_info["total_bytes"] is not None and \
                (source_info["total_bytes"], source_info["usable_bytes"]) != \
                (state[1]["dirs"][target]["total_bytes"], state[1]["dirs"][target]["usable_bytes"]):
            source_info["usable_bytes"] += replica["bytes"]
            target_info["usable_bytes"] -= replica["bytes"]
    return dict(dirs=dirs, replicas=replicas)


def test_an_evacuation_moves_every_replica_of_the_dir_and_the_bound_is_exact():
    state = {1: broker({"/a": disk(), "/b": disk(), "/c": disk()},
                       {("orders", 0): ("/a", 300), ("orders", 1): ("/a", 200), ("logs", 0): ("/b", 100)})}
    plan = plan_log_dirs(state, evacuate={1: ["/a"]})
    assert sorted((move["partition"], move["to_dir"]) for move in plan["moves"]) == [(0, "/c"), (1, "/b")]
    assert plan["bytes_moved"] == plan["bytes_moved_lower_bound"] == 500
    assert plan["brokers"][1]["dirs"]["/a"]["bytes_after"] == 0


def test_balance_by_fill_moves_the_replica_that_best_evens_the_dirs():
    # /a is 60 % full of 100 GiB, /b 20 % of 100 GiB: 40 GiB apart, so 20 GiB should move.
    state = {1: broker({"/a": disk(100 * GB, 60 * GB), "/b": disk(100 * GB, 20 * GB)},
                       {("t", 0): ("/a", 20 * GB), ("t", 1): ("/a", 30 * GB), ("t", 2): ("/a", 5 * GB)})}
    plan = plan_log_dirs(state, balance=True)
    assert [(move["partition"], move["to_dir"]) for move in plan["moves"]] == [(0, "/b")]
    summary = plan["brokers"][1]
    assert summary["weights"] == "capacity" and summary["imbalance_before"] == 1.5 and summary["imbalance_after"] == 1.0
    assert summary["dirs"]["/a"]["fill_after"] == summary["dirs"]["/b"]["fill_after"] == 0.4
    assert plan["bytes_moved_lower_bound"] == plan["bytes_moved"] == 20 * GB


def test_dirs_on_one_filesystem_balance_their_bytes_within_the_room_of_each():
    # Two dirs on one volume report the same disk: the replicas' bytes are evened. Each copy must still fit the
    # room below max_disk_fill: on one filesystem beside its old replica, on two equal disks where it lands.
    state = {1: broker({"/a": disk(1000, 150), "/b": disk(1000, 150)},
                       {("t", 0): ("/a", 40), ("t", 1): ("/a", 30), ("t", 2): ("/a", 20)})}
    plan = plan_log_dirs(state, balance=True, max_disk_fill=0.5)
    assert plan["brokers"][1]["weights"] == "bytes"
    assert plan["brokers"][1]["dirs"]["/b"]["bytes_after"] == 40 and plan["bytes_moved"] == 40
    # Above the fill, no copy has room, whichever the dirs are: nothing moves.
    state = {1: broker({"/a": disk(100, 95), "/b": disk(100, 95)},
                       {("t", 0): ("/a", 40), ("t", 1): ("/a", 30), ("t", 2): ("/a", 20)})}
    assert plan_log_dirs(state, balance=True, max_disk_fill=0.5)["moves"] == []


# Two 100 GiB disks at 61 GiB each report what one filesystem would: the same total and usable bytes.
TWINS = {1: broker({"/a": disk(100 * GB, 61 * GB), "/b": disk(100 * GB, 61 * GB)},
                   dict((("t", index), ("/a", 10 * GB)) for index in range(6)))}


def test_an_evacuation_between_dirs_read_as_one_filesystem_is_held_to_the_targets_room():
    # Read as one filesystem the move changes no fill; on two disks /b would end at 121 of 100 GiB. The planner
    # checks the target's room either way (85 - 61 = 24 GiB) and refuses, naming the room.
    with pytest.raises(LogDirPlanError) as refused:
        plan_log_dirs(TWINS, evacuate={1: ["/a"]}, field={(1, "/a"): "evacuate[0].log_dir"})
    assert refused.value.field == "evacuate[0].log_dir"
    assert "no room on broker 1 for t-" in refused.value.message
    assert "/b can take 4.0 GiB more" in refused.value.message
    # With room for two of the six replicas, a balance moves at most what /b can hold.
    plan = plan_log_dirs(TWINS, balance=True)
    assert 0 < plan["bytes_moved"] <= int(0.85 * 100 * GB) - 61 * GB


def test_the_order_holds_each_dir_of_a_shared_filesystem_to_its_own_room():
    # Moves given in full (as a plan from before this check could hold them): /b may gain 24 GiB in all, so the
    # third 10 GiB copy is refused even though each old replica frees the shared filesystem after its delay.
    moves = [move(index, "/a", "/b", 10 * GB) for index in range(3)]
    ledger, filesystems = log_dir_ledger(TWINS, 0.85)
    assert ledger.effects(moves[0]) == ({(1, ("/a", "/b")): 10 * GB, (1, ("/b",)): 10 * GB},
                                        {(1, ("/a", "/b")): 10 * GB, (1, ("/a",)): 10 * GB})
    with pytest.raises(LogDirPlanError) as refused:
        order_moves(moves, TWINS, 10, 0.85)
    assert "t-2 needs 10.0 GiB on broker 1's log dir /b, which has 4.0 GiB" in refused.value.message
    batches, _peaks = order_moves(moves[:2], TWINS, 10, 0.85)
    assert [len(batch) for batch in batches] == [2]


def test_balance_moves_only_the_topics_selected_but_an_evacuation_moves_everything():
    state = {1: broker({"/a": disk(), "/b": disk(), "/c": disk()},
                       {("big", 0): ("/a", 90), ("small", 0): ("/b", 10), ("small", 1): ("/c", 10)})}
    assert plan_log_dirs(state, balance=True, topics=["small"])["moves"] == []
    plan = plan_log_dirs(state, evacuate={1: ["/a"]}, balance=True, topics=["small"])
    # big lands on /b (the emptier by a tie broken by name), then a small replica of /b evens /c out.
    assert [(move["topic"], move["to_dir"]) for move in plan["moves"]] == [("big", "/b"), ("small", "/c")]


def test_cordoned_and_offline_dirs_receive_nothing():
    state = {1: broker({"/a": disk(), "/b": disk(cordoned=True), "/c": disk(online=False), "/d": disk()},
                       {("t", 0): ("/a", 50), ("t", 1): ("/a", 40)})}
    plan = plan_log_dirs(state, evacuate={1: ["/a"]})
    assert set(move["to_dir"] for move in plan["moves"]) == {"/d"}


def test_an_evacuation_without_room_is_refused_naming_the_field_dir_and_bytes():
    state = {1: broker({"/a": disk(100 * GB, 50 * GB), "/b": disk(100 * GB, 70 * GB)},
                       {("t", 0): ("/a", 30 * GB)})}
    with pytest.raises(LogDirPlanError) as refused:
        plan_log_dirs(state, evacuate={1: ["/a"]}, field={(1, "/a"): "evacuate[0].log_dir"})
    assert refused.value.field == "evacuate[0].log_dir"
    assert "t-0 (30.0 GiB) from /a" in refused.value.message and "/b can take 15.0 GiB more" in refused.value.message


@pytest.mark.parametrize("max_disk_fill, moved", [(0.85, 20), (0.55, 5)], ids=["room", "little-room"])
def test_balance_keeps_every_receiving_dir_under_max_disk_fill(max_disk_fill, moved):
    # Disks of gibibytes: volumes of one size whose usable bytes are within 64 MiB count as one filesystem.
    state = {1: broker({"/a": disk(100 * GB, 90 * GB), "/b": disk(100 * GB, 50 * GB)},
                       {("t", 0): ("/a", 20 * GB), ("t", 1): ("/a", 5 * GB)})}
    plan = plan_log_dirs(state, balance=True, max_disk_fill=max_disk_fill)
    assert plan["bytes_moved"] == moved * GB


def test_an_even_broker_plans_nothing():
    state = {1: broker({"/a": disk(), "/b": disk()}, {("t", 0): ("/a", 10), ("t", 1): ("/b", 10)})}
    plan = plan_log_dirs(state, balance=True)
    assert plan["moves"] == [] and plan["bytes_moved_lower_bound"] == 0
    assert plan["brokers"][1]["imbalance_before"] == plan["brokers"][1]["imbalance_after"] == 1.0


# ---- the order: every copy fits its filesystem beside the old copies not deleted yet ---------------------------


def move(partition, source, target, size, broker=1):
    return dict(topic="t", partition=partition, broker=broker, from_dir=source, to_dir=target, bytes=size)


# Broker 1: /a, /b and /d on one filesystem of 100 GiB holding 21 GiB (room for 15 GiB at 0.36, and so for each
# of its dirs: they might be disks of one size filled alike); /c a disk of its own.
ONE_DISK = {1: broker({"/a": disk(100 * GB, 21 * GB), "/b": disk(100 * GB, 21 * GB), "/c": disk(50 * GB, 40 * GB),
                       "/d": disk(100 * GB, 21 * GB)},
                      {("t", 0): ("/a", 10 * GB), ("t", 1): ("/a", 10 * GB)})}


def test_each_filesystem_of_a_brokers_dirs_is_a_place_and_the_broker_is_none():
    ledger, filesystems = log_dir_ledger(ONE_DISK, 0.36)
    shared, own = (1, ("/a", "/b", "/d")), (1, ("/c",))
    dir_a, dir_b, dir_d = (1, ("/a",)), (1, ("/b",)), (1, ("/d",))
    assert filesystems.place_of == {(1, "/a"): shared, (1, "/b"): shared, (1, "/c"): own, (1, "/d"): shared}
    room = int(0.36 * 100 * GB) - 21 * GB
    assert ledger.room == {shared: room, own: int(0.36 * 50 * GB) - 40 * GB, dir_a: room, dir_b: room, dir_d: room}
    # A move inside one filesystem takes room there and gives it back once its old copy is deleted; the dir it
    # lands in keeps it (were the dirs equal disks), the dir it leaves gets it back.
    assert ledger.effects(move(0, "/a", "/b", 10 * GB)) == (
        {shared: 10 * GB, dir_b: 10 * GB}, {shared: 10 * GB, dir_a: 10 * GB})
    assert ledger.effects(move(1, "/c", "/a", 5 * GB)) == ({shared: 5 * GB, dir_a: 5 * GB}, {own: 5 * GB})


@pytest.mark.parametrize("delays, peak", [(None, 31 * GB), ({1: 0}, 31 * GB), ({1: 60}, int(0.36 * 100 * GB))],
                         ids=["no-delays", "deleted-at-once", "kept-60-s"])
def test_a_copy_waits_for_a_later_batch_until_an_old_copy_has_left_it_room(delays, peak):
    moves = [move(0, "/a", "/b", 10 * GB), move(1, "/a", "/d", 10 * GB)]
    batches, peaks = order_moves(moves, ONE_DISK, 10, 0.36, delays)
    assert [[item["partition"] for item in batch] for batch in batches] == [[0], [1]]
    # One copy beside its old replica: 31 GiB. Kept a while, the old copy counts until the second batch waits for
    # the room it lacks (5 GiB), so the peak is at most the fill.
    assert peaks[1]["/a"] == peaks[1]["/b"] == peaks[1]["/d"] == peak and peaks[1]["/c"] == 40 * GB


def test_the_ledger_says_when_the_second_batch_fits():
    first, second = [move(0, "/a", "/b", 10 * GB)], [move(1, "/a", "/d", 10 * GB)]
    ledger = log_dir_ledger(ONE_DISK, 0.36, {1: 60})[0]
    ledger.start(first)
    ledger.complete(first, now=100)
    assert ledger.ready_at(second) == (160, [(1, ("/a", "/b", "/d"))])
    ledger.delete(160)
    assert ledger.ready_at(second) == (None, [])


def test_a_copy_no_filesystem_has_room_for_even_once_every_old_copy_is_gone_is_refused():
    with pytest.raises(LogDirPlanError) as refused:
        order_moves([move(0, "/a", "/b", 10 * GB), move(1, "/a", "/c", 10 * GB)], ONE_DISK, 10, 0.36)
    assert refused.value.field == "max_disk_fill"
    assert refused.value.message == (
        "a copy lands before its broker deletes the replica it replaces, so no log dir's filesystem may pass 0.36 of "
        "its size while the moves copy, and none of the 1 move(s) left fits: t-1 needs 10.0 GiB on broker 1's log "
        "dir /c, which has none. Free space there, or raise max_disk_fill")


def test_a_move_in_progress_goes_first_whatever_the_room():
    moving = dict(move(0, "/a", "/c", 10 * GB), in_progress=True)
    batches, peaks = order_moves([moving, move(1, "/a", "/b", 10 * GB)], ONE_DISK, 10, 0.36)
    assert batches == [[moving, move(1, "/a", "/b", 10 * GB)]] and peaks[1]["/c"] == 50 * GB


# ---- one filesystem: the same rule for the brokers' disks, the dir planner and the one-host check -----------


def test_dirs_within_the_slack_are_one_filesystem_for_the_brokers_disks_and_for_the_dir_planner():
    drift = SHARED_FILESYSTEM_SLACK - 4096
    responses = [dict(broker=1, log_dirs=[
        dict(log_dir="/data/a", error_code=0, topics=[], total_bytes=100 * GB, usable_bytes=40 * GB),
        dict(log_dir="/data/b", error_code=0, topics=[], total_bytes=100 * GB, usable_bytes=40 * GB - drift)])]
    # The broker's disks: one volume, counted once.
    assert _cluster._disks(responses) == {1: {"total_bytes": 100 * GB, "used_bytes": 60 * GB}}
    # The dir planner: one volume too, so the dirs weigh by their bytes and a move between them fills nothing.
    state = {1: broker({"/data/a": disk(100 * GB, 60 * GB), "/data/b": disk(100 * GB, 60 * GB + drift)}, {})}
    assert volumes(state[1]["dirs"]) == {"/data/a": ("volume", 100 * GB, 40 * GB),
                                         "/data/b": ("volume", 100 * GB, 40 * GB)}
    assert plan_log_dirs(state)["brokers"][1]["weights"] == "bytes"
    # And the reassignment planner's one-host check uses the same rule between brokers.
    assert _io.shared_filesystem({1: dict(total_bytes=100 * GB, used_bytes=60 * GB),
                                  2: dict(total_bytes=100 * GB, used_bytes=60 * GB + drift)}, [1, 2], 0)


def test_dirs_beyond_the_slack_are_separate_volumes_everywhere():
    apart = SHARED_FILESYSTEM_SLACK + 4096
    responses = [dict(broker=1, log_dirs=[
        dict(log_dir="/data/a", error_code=0, topics=[], total_bytes=100 * GB, usable_bytes=40 * GB),
        dict(log_dir="/data/b", error_code=0, topics=[], total_bytes=100 * GB, usable_bytes=40 * GB - apart)])]
    assert _cluster._disks(responses) == {1: {"total_bytes": 200 * GB, "used_bytes": 120 * GB + apart}}
    state = {1: broker({"/data/a": disk(100 * GB, 60 * GB), "/data/b": disk(100 * GB, 60 * GB + apart)}, {})}
    assert plan_log_dirs(state)["brokers"][1]["weights"] == "capacity"
    assert not _io.shared_filesystem({1: dict(total_bytes=100 * GB, used_bytes=60 * GB),
                                      2: dict(total_bytes=100 * GB, used_bytes=60 * GB + apart)}, [1, 2], 0)


# ---- properties on random brokers ---------------------------------------------------------------


# Random sizes come in steps of 128 MiB: two volumes' figures then differ by more than the 64 MiB a filesystem's
# usable bytes may drift between two dirs' answers, or not at all.
STEP = 1 << 27


@st.composite
def random_brokers(draw):
    brokers, evacuate = {}, {}
    for broker_id in range(1, draw(st.integers(1, 3)) + 1):
        count = draw(st.integers(2, 4))
        paths = ["/d%d" % index for index in range(count)]
        sizes_known = draw(st.booleans())
        replicas = {}
        for index in range(draw(st.integers(0, 12))):
            where = draw(st.sampled_from(paths))
            replicas[(draw(st.sampled_from(["a", "b"])), index)] = (where, STEP * draw(st.integers(0, 1000)))
        dirs = {}
        for path in paths:
            held = sum(size for where, size in replicas.values() if where == path)
            total = held + STEP * draw(st.integers(0, 5000)) if sizes_known else None
            dirs[path] = disk(total, held + STEP * draw(st.integers(0, 100)) if total else 0,
                              cordoned=draw(st.integers(0, 5)) == 0)
            if total is not None and dirs[path]["usable_bytes"] < 0:
                dirs[path]["usable_bytes"] = 0
        open_paths = [path for path in paths if not dirs[path]["cordoned"]]
        if len(open_paths) >= 2 and draw(st.booleans()):
            evacuate[broker_id] = [draw(st.sampled_from(open_paths))]
        brokers[broker_id] = broker(dirs, replicas)
    return brokers, evacuate


@settings(max_examples=300, deadline=None)
@given(random_brokers(), st.booleans(), st.sampled_from([None, ["a"]]), st.sampled_from([0.85, 1.0]))
def test_properties_of_every_plan(case, balance, topics, max_disk_fill):
    brokers, evacuate = case
    try:
        plan = plan_log_dirs(brokers, evacuate=evacuate, balance=balance, topics=topics, max_disk_fill=max_disk_fill)
    except LogDirPlanError:
        return
    assert plan["bytes_moved_lower_bound"] <= plan["bytes_moved"]
    for broker_id, state in brokers.items():
        summary = plan["brokers"][broker_id]
        assert summary["bytes_moved_lower_bound"] <= summary["bytes_moved"]
        done = after_move((broker_id, state), plan)
        for move in plan["moves"]:
            if move["broker"] != broker_id:
                continue
            # Every replica ends on an online, uncordoned dir of its own broker that is not evacuated.
            target = state["dirs"][move["to_dir"]]
            assert target["online"] and not target["cordoned"]
            assert move["to_dir"] not in evacuate.get(broker_id, [])
            assert move["from_dir"] == state["replicas"][(move["topic"], move["partition"])]["dir"]
            # A dir that received bytes from another volume ends at or below max_disk_fill.
            info = done["dirs"][move["to_dir"]]
            source = state["dirs"][move["from_dir"]]
            if info["total_bytes"] and (source["total_bytes"], source["usable_bytes"]) != \
                    (target["total_bytes"], target["usable_bytes"]):
                assert info["total_bytes"] - info["usable_bytes"] <= int(max_disk_fill * info["total_bytes"])
        # Dirs read as one filesystem may be equal disks: a dir that gained bytes from the others on its volume
        # ends with them at or below max_disk_fill.
        for path, info in state["dirs"].items():
            if not info["total_bytes"]:
                continue
            figures = (info["total_bytes"], info["usable_bytes"])
            twins = [other for other, data in state["dirs"].items()
                     if other != path and (data["total_bytes"], data["usable_bytes"]) == figures]
            if not twins:
                continue
            gained = sum(move["bytes"] * ((move["to_dir"] == path) - (move["from_dir"] == path))
                         for move in plan["moves"] if move["broker"] == broker_id
                         and {move["to_dir"], move["from_dir"]} <= set(twins + [path]))
            if gained > 0:
                assert info["total_bytes"] - info["usable_bytes"] + gained <= int(max_disk_fill * info["total_bytes"])
        for path in evacuate.get(broker_id, []):
            assert summary["dirs"][path]["bytes_after"] == 0
            assert not any(replica["dir"] == path for replica in done["replicas"].values())
        if not evacuate.get(broker_id):
            continue
        # Without balance, the evacuated bytes are all that move: the bound is met.
        if not balance:
            assert summary["bytes_moved"] == summary["bytes_moved_lower_bound"]
    # Idempotence: planning again on the result moves nothing.
    again = dict((broker_id, after_move((broker_id, state), plan)) for broker_id, state in brokers.items())
    assert plan_log_dirs(again, evacuate=evacuate, balance=balance, topics=topics,
                         max_disk_fill=max_disk_fill)["moves"] == []
