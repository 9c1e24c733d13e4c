"""Dirs for the replicas a reassignment copies onto brokers with several log dirs (JBOD): the choice, the plan's
log_dirs, properties on random clusters, and the module kafka_reassignment_plan with a fake cluster."""

import copy
import fractions
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ansible_collections.kafkaops.cluster.plugins.module_utils import _reassignment_planner_io as _io
from ansible_collections.kafkaops.cluster.plugins.module_utils._disk_ledger import volumes
from ansible_collections.kafkaops.cluster.plugins.module_utils._log_dir_planner import (
    LogDirPlanError,
    add_log_dirs,
    place_arrivals,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_planner import plan_reassignment
from ansible_collections.kafkaops.cluster.tests.unit.plugins.module_utils.log_dir_samples import GB, broker, disk


# ---- choosing a dir ------------------------------------------------------------------------------


@pytest.mark.parametrize("dirs, replicas, arriving, expected", [
    # Capacity weights: the fill after taking the replica, here the emptier disk.
    ({"/a": disk(100 * GB, 60 * GB), "/b": disk(100 * GB, 20 * GB)}, {}, [10 * GB], ["/b"]),
    # A larger disk takes more: /a ends at 110 of 400 GiB, /b would end at 40 of 100 GiB.
    ({"/a": disk(400 * GB, 100 * GB), "/b": disk(100 * GB, 30 * GB)}, {}, [10 * GB], ["/a"]),
    # Bytes weights (sizes not reported): the dir holding the fewest bytes, not the fewest partitions.
    ({"/a": disk(), "/b": disk()}, {("x", 0): ("/a", 100), ("x", 1): ("/b", 30), ("x", 2): ("/b", 30)}, [50], ["/b"]),
    # Largest first: 30 to /a (a tie broken by name), 20 to /b, then 10 to /b (30 against 40).
    ({"/a": disk(), "/b": disk()}, {}, [10, 30, 20], ["/b", "/a", "/b"]),
    # Cordoned and offline dirs take nothing.
    ({"/a": disk(), "/b": disk(cordoned=True), "/c": disk(online=False), "/d": disk()},
     {("x", 0): ("/a", 100)}, [10], ["/d"]),
    # Bytes weights (one dir's size unknown) but /b's volume has no room below max_disk_fill: /a, fuller in bytes.
    ({"/a": disk(), "/b": disk(100 * GB, 85 * GB)}, {("x", 0): ("/a", GB)}, [GB], ["/a"]),
    # Empty partitions fill nothing: between dirs as full, the one holding the fewest replicas, as Kafka chooses.
    ({"/a": disk(), "/b": disk()}, {("x", 0): ("/a", 0)}, [0, 0, 0], ["/b", "/a", "/b"]),
], ids=["emptier-disk", "larger-disk", "fewest-bytes", "largest-first", "open-dirs-only", "room", "empty-spread"])
def test_a_copy_goes_to_the_open_dir_least_full_after_taking_it(dirs, replicas, arriving, expected):
    arrivals = dict((("t", index, 1), size) for index, size in enumerate(arriving))
    placed = place_arrivals({1: broker(dirs, replicas)}, arrivals)
    assert [placed["dirs"][("t", index, 1)] for index in range(len(arriving))] == expected
    figures = placed["brokers"][1]["dirs"]
    assert sum(item["bytes_after"] - item["bytes_before"] for item in figures.values()) == sum(arriving)
    assert sum(item["replicas_placed"] for item in figures.values()) == len(arriving)


def test_the_replicas_leaving_free_their_dir_first_and_one_open_dir_is_left_to_kafka():
    # Broker 1 loses x-0 (60 on /a) and takes a copy of 50: /a then holds 40 against /b's 70.
    state = {1: broker({"/a": disk(), "/b": disk()},
                       {("x", 0): ("/a", 60), ("x", 1): ("/a", 40), ("y", 0): ("/b", 70)}),
             2: broker({"/a": disk(), "/b": disk(cordoned=True)}),
             3: broker({"/data": disk()})}
    placed = place_arrivals(state, {("t", 0, 1): 50, ("t", 0, 2): 50, ("t", 0, 3): 50}, [("x", 0, 1)])
    assert placed["dirs"] == {("t", 0, 1): "/a"}
    assert placed["brokers"][1]["dirs"]["/a"]["bytes_after"] == 90
    # Broker 2's one open dir takes its copy (Kafka puts it there anyway); broker 3 has one dir: nothing to plan.
    assert placed["brokers"][2]["dirs"]["/a"]["bytes_after"] == 50 and 3 not in placed["brokers"]


def test_a_copy_no_open_dir_can_take_is_refused_naming_the_broker_partition_bytes_and_rooms():
    state = {4: broker({"/a": disk(100 * GB, 80 * GB), "/b": disk(100 * GB, 75 * GB), "/c": disk(cordoned=True)})}
    with pytest.raises(LogDirPlanError) as refused:
        place_arrivals(state, {("orders", 3, 4): 20 * GB})
    assert refused.value.field == "max_disk_fill"
    assert "no open log dir of broker 4 can take orders-3 (20.0 GiB)" in refused.value.message
    assert "/a can take 5.0 GiB more, /b can take 10.0 GiB more" in refused.value.message
    with pytest.raises(LogDirPlanError) as closed:
        place_arrivals({4: broker({"/a": disk(cordoned=True), "/b": disk(online=False)})}, {("orders", 3, 4): 1})
    assert "it has none (every dir offline or cordoned)" in closed.value.message


def _plan(entries):
    """(plan, rollback) of (topic, partition, current replicas, new replicas)."""
    return ({"version": 1, "partitions": [dict(topic=t, partition=p, replicas=new) for t, p, _old, new in entries]},
            {"version": 1, "partitions": [dict(topic=t, partition=p, replicas=old) for t, p, old, _new in entries]})


def test_a_plan_names_the_chosen_dir_beside_its_replica_and_the_rollback_the_dir_it_leaves():
    state = {1: broker({"/a": disk(), "/b": disk()}, {("orders", 0): ("/b", 10), ("orders", 1): ("/a", 10)}),
             2: broker({"/data": disk()}, {("orders", 0): ("/data", 10), ("orders", 1): ("/data", 10)}),
             3: broker({"/a": disk(), "/b": disk()}, {("logs", 0): ("/a", 500)})}
    plan, rollback = _plan([("orders", 0, [1, 2], [3, 2]), ("orders", 1, [2, 1], [1, 2]), ("orders", 2, [2], [3])])
    rows = add_log_dirs(plan, rollback, state, {"orders": {0: 10, 1: 10, 2: 20}})
    assert [entry.get("log_dirs") for entry in plan["partitions"]] == [["/b", "any"], None, ["/b"]]
    # orders-0 leaves broker 1's /b, which has two dirs: rolled back, it returns there. Broker 2 has one dir.
    assert [entry.get("log_dirs") for entry in rollback["partitions"]] == [["/b", "any"], None, None]
    assert dict(((row["broker"], row["log_dir"]), (row["bytes_before"], row["bytes_after"])) for row in rows) == {
        (1, "/a"): (10, 10), (1, "/b"): (10, 0), (3, "/a"): (500, 500), (3, "/b"): (0, 30)}


def test_a_plan_for_brokers_with_one_log_dir_is_unchanged():
    state = dict((broker_id, broker({"/data": disk(100 * GB, GB)}, {("orders", 0): ("/data", 10)}))
                 for broker_id in (1, 2))
    state[3] = broker({"/data": disk()})
    plan, rollback = _plan([("orders", 0, [1, 2], [3, 2])])
    before = copy.deepcopy((plan, rollback))
    assert add_log_dirs(plan, rollback, state, {"orders": {0: 10}}) == []
    assert (plan, rollback) == before


@pytest.mark.parametrize("document", [
    {"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [4, 1], "log_dirs": ["/b", "any"]},
                                  {"topic": "orders", "partition": 1, "replicas": [1, 2]}]},
    {"version": 1, "partitions": [{"topic": "d\u00e9p\u00f4t", "partition": 3, "replicas": [7],
                                   "log_dirs": ["/data/\u00e9t\u00e9 \"2\""]}]},
], ids=["mixed", "odd-names"])
def test_plan_text_with_log_dirs_is_what_json_writes(document):
    assert _io.kafka_json_text(document) == json.dumps(document, indent=2, sort_keys=True) + "\n"


# ---- properties on random clusters ----------------------------------------------------------------

STEP = 1 << 27


@st.composite
def jbod_clusters(draw):
    """(assignment, broker ids, target brokers, sizes, dirs): random replicas on 3-5 brokers, each with 1-3 dirs;
    every broker's dirs hold its replicas, sizes in steps of 128 MiB (so volumes differ by more than the slack)."""
    broker_ids = list(range(1, draw(st.integers(3, 5)) + 1))
    holders = broker_ids[:-1] if draw(st.booleans()) else broker_ids
    assignment, sizes = {}, {}
    for topic in ("a", "b"):
        factor = draw(st.integers(1, 2))
        assignment[topic], sizes[topic] = {}, {}
        for partition in range(draw(st.integers(1, 6))):
            assignment[topic][partition] = draw(st.permutations(holders))[:factor]
            sizes[topic][partition] = STEP * draw(st.integers(0, 20))
    dirs = {}
    for broker_id in broker_ids:
        paths = ["/d%d" % index for index in range(draw(st.integers(1, 3)))]
        known = draw(st.booleans())
        infos = dict((path, disk(STEP * draw(st.integers(1, 400)) if known else None,
                                 online=draw(st.integers(0, 6)) > 0, cordoned=draw(st.integers(0, 5)) == 0))
                     for path in paths)
        infos[paths[0]].update(online=True)
        online = [path for path in paths if infos[path]["online"]]
        replicas = {}
        for topic, partitions in assignment.items():
            for partition, replicas_of in partitions.items():
                if broker_id in replicas_of:
                    replicas[(topic, partition)] = (draw(st.sampled_from(online)), sizes[topic][partition])
        for path, info in infos.items():
            held = sum(size for where, size in replicas.values() if where == path)
            if info["total_bytes"] is not None:
                info["total_bytes"] += held
                info["usable_bytes"] = info["total_bytes"] - held - STEP * draw(st.integers(0, 40))
                info["usable_bytes"] = max(0, info["usable_bytes"])
        dirs[broker_id] = broker(infos, replicas)
    return assignment, broker_ids, sizes, dirs


def _open(state):
    return sorted(path for path, info in state["dirs"].items() if info["online"] and not info["cordoned"])


def _end_state(state, broker_id, plan, rollback, sizes):
    """{path: bytes of replicas}, {volume: used bytes} of the broker once the plan is done, the copies in the dirs
    the plan names (the one open dir where it names none), and [(path, size)] of the copies it received."""
    found = volumes(state["dirs"])
    replica_bytes = dict((path, 0) for path in state["dirs"])
    used = dict((volume, volume[1] - volume[2]) for volume in found.values() if volume[0] == "volume")
    for replica in state["replicas"].values():
        replica_bytes[replica["dir"]] += replica["bytes"]
    arrived = []
    for entry, before in zip(plan["partitions"], rollback["partitions"], strict=True):
        key = (entry["topic"], entry["partition"])
        if broker_id in before["replicas"] and broker_id not in entry["replicas"] and key in state["replicas"]:
            where = state["replicas"][key]
            replica_bytes[where["dir"]] -= where["bytes"]
            if found[where["dir"]] in used:
                used[found[where["dir"]]] -= where["bytes"]
        if broker_id in entry["replicas"] and broker_id not in before["replicas"]:
            named = entry.get("log_dirs", ["any"] * len(entry["replicas"]))[entry["replicas"].index(broker_id)]
            path = _open(state)[0] if named == "any" else named
            size = sizes[key[0]][key[1]]
            replica_bytes[path] += size
            if found[path] in used:
                used[found[path]] += size
            arrived.append((path, size))
    return replica_bytes, used, arrived


@settings(max_examples=300, deadline=None)
@given(jbod_clusters(), st.sampled_from([0.85, 1.0]))
def test_properties_of_the_dirs_of_every_plan(case, max_disk_fill):
    assignment, broker_ids, sizes, dirs = case
    planned = plan_reassignment(assignment, broker_ids, broker_ids, balance="bytes", sizes=sizes)
    plan, rollback = copy.deepcopy(planned["plan"]), copy.deepcopy(planned["rollback_plan"])
    try:
        rows = add_log_dirs(plan, rollback, dirs, sizes, max_disk_fill)
    except LogDirPlanError as refused:
        # A refusal names a broker with several dirs, none of whose open dirs has the room.
        assert refused.field == "max_disk_fill" and "no open log dir of broker" in refused.message
        return
    # The dirs change no replica: without log_dirs the plans are the planner's.
    bare = copy.deepcopy((plan, rollback))
    for document in bare:
        for entry in document["partitions"]:
            entry.pop("log_dirs", None)
    assert bare == (planned["plan"], planned["rollback_plan"])
    jbod = [broker_id for broker_id in broker_ids if len(dirs[broker_id]["dirs"]) > 1]
    if not jbod:
        # Brokers with one log dir each: the plans are exactly today's.
        assert (plan, rollback) == (planned["plan"], planned["rollback_plan"]) and rows == []
        return
    assert sorted(set(row["broker"] for row in rows)) == jbod
    for entry, before in zip(plan["partitions"], rollback["partitions"], strict=True):
        named = entry.get("log_dirs", ["any"] * len(entry["replicas"]))
        # log_dirs only where it names a dir, one per replica.
        assert len(named) == len(entry["replicas"]) and ("log_dirs" not in entry or set(named) != {"any"})
        for broker_id, path in zip(entry["replicas"], named, strict=True):
            arriving = broker_id not in before["replicas"]
            # A dir is named exactly for a copy onto a broker with two or more open dirs, and is one of them.
            assert (path != "any") == (arriving and len(_open(dirs[broker_id])) > 1)
            assert path == "any" or path in _open(dirs[broker_id])
        for broker_id, path in zip(before["replicas"], before.get("log_dirs", ["any"] * len(before["replicas"])),
                                   strict=True):
            if path != "any":
                # The rollback returns a removed replica to the dir it is in now.
                assert broker_id not in entry["replicas"]
                assert path == dirs[broker_id]["replicas"][(entry["topic"], entry["partition"])]["dir"]
    for broker_id in jbod:
        _check_broker_dirs(dirs[broker_id], broker_id, plan, rollback, rows, sizes, max_disk_fill)


def _check_broker_dirs(state, broker_id, plan, rollback, rows, sizes, max_disk_fill):
    """The figures, max_disk_fill and the greedy rule's promise on one broker with several dirs."""
    replica_bytes, used, arrived = _end_state(state, broker_id, plan, rollback, sizes)
    found = volumes(state["dirs"])
    figures = dict((row["log_dir"], row) for row in rows if row["broker"] == broker_id)
    assert dict((path, row["bytes_after"]) for path, row in figures.items()) == replica_bytes

    def room(path):
        if found[path] not in used:
            return None
        return int(max_disk_fill * found[path][1]) - used[found[path]]

    for path, _size in arrived:
        # No dir that received a copy ends above max_disk_fill.
        assert room(path) is None or room(path) >= 0
    open_dirs = _open(state)
    capacity = all(found[path][0] == "volume" for path in open_dirs) and \
        len(set(found[path] for path in open_dirs)) == len(open_dirs)

    def fill(path, extra=0):
        if capacity:
            return fractions.Fraction(used[found[path]] + extra, found[path][1])
        return fractions.Fraction(replica_bytes[path] + extra)

    # As even as the greedy rule promises: a copy moved from its dir h to any other open dir e with room for it
    # would leave e at least as full as h is, so no such move lowers the largest fill. (The last copy h took was
    # no larger, and e was no emptier when h was chosen for it.)
    for path, size in arrived:
        for other in open_dirs:
            if other != path and (room(other) is None or room(other) >= size):
                assert fill(other, size) >= fill(path), (path, other, size)


# ---- the module ------------------------------------------------------------------------------------

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}
# orders: six partitions of 1 GiB and six of 10 MiB on brokers 1-3; broker 4 is new, with two disks.
TOPICS = {"orders": dict((partition, [1 + partition % 3, 1 + (partition + 1) % 3]) for partition in range(12))}


def _size(partition):
    return GB if partition < 6 else 10 << 20


@pytest.fixture
def jbod_cluster(fake_cluster, monkeypatch):
    """Brokers 1-3 with one dir (/data, 1 TiB), broker 4 with /a (1 TiB, 600 GiB used) and /b (1 TiB, 100 GiB
    used): a copy onto broker 4 belongs in /b. cluster.dirs {broker: {path: (total, usable)}} can be changed."""
    cluster = fake_cluster(brokers=(1, 2, 3, 4), topics=TOPICS)
    tib = 1 << 40
    cluster.dirs = dict((broker_id, {"/data": (tib, tib - 400 * GB)}) for broker_id in (1, 2, 3))
    cluster.dirs[4] = {"/a": (tib, tib - 600 * GB), "/b": (tib, tib - 100 * GB)}

    def describe_log_dirs(client, topics=None, brokers=None):
        client._record("describe_log_dirs", topics=topics)
        answers = []
        for broker_id, dirs in sorted(client.cluster.dirs.items()):
            held = dict((path, []) for path in dirs)
            for partition, replicas in sorted(client.cluster.topics["orders"].items()):
                if broker_id in replicas:
                    held[min(dirs)].append(dict(partition_index=partition, partition_size=_size(partition),
                                                is_future_key=False))
            answers.append(dict(broker=broker_id, log_dirs=[dict(
                error_code=0, log_dir=path, total_bytes=dirs[path][0], usable_bytes=dirs[path][1],
                topics=[dict(name="orders", partitions=held[path])] if held[path] else []) for path in sorted(dirs)]))
        return answers

    monkeypatch.setattr(cluster.client_class, "describe_log_dirs", describe_log_dirs)
    return cluster


def test_the_module_places_copies_onto_a_jbod_broker_in_the_emptier_dir_and_says_where(run_module, jbod_cluster,
                                                                                       tmp_path):
    from ansible_collections.kafkaops.cluster.plugins.modules import kafka_reassignment_plan

    dest = tmp_path / "plan.json"
    result = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4", dest=str(dest),
                                                           return_plan=True), jbod_cluster)
    assert not result.get("failed"), result
    arriving = [entry for entry in result["plan"]["partitions"] if 4 in entry["replicas"]]
    assert arriving and all(entry["log_dirs"][entry["replicas"].index(4)] == "/b" for entry in arriving)
    assert all(entry["log_dirs"].count("any") == len(entry["replicas"]) - 1 for entry in arriving)
    summary = result["summary"]
    assert summary["log_dirs_from"] == "DescribeLogDirs"
    rows = dict((row["log_dir"], row) for row in summary["log_dirs"])
    assert sorted(rows) == ["/a", "/b"] and rows["/b"]["replicas_placed"] == len(arriving)
    assert rows["/b"]["bytes_after"] - rows["/b"]["bytes_before"] == sum(_size(entry["partition"])
                                                                         for entry in arriving)
    assert rows["/b"]["fill_before"] < rows["/b"]["fill_after"] < rows["/a"]["fill_after"] == 0.5859
    # The file holds the dirs too, and the dir choice copies no more bytes between brokers.
    assert json.loads(dest.read_text()) == result["plan"]
    assert [call[0] for call in jbod_cluster.calls].count("describe_log_dirs") == 1
    bare = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4"),
                      _single_dir_twin(jbod_cluster))
    assert summary["bytes_moved"] == bare["summary"]["bytes_moved"]
    assert [dict((key, value) for key, value in entry.items() if key != "log_dirs")
            for entry in result["plan"]["partitions"]] == bare["plan"]["partitions"]
    assert "log_dirs" not in bare["summary"]
    assert not any("log_dirs" in entry for entry in bare["plan"]["partitions"] + bare["rollback_plan"]["partitions"])


def test_by_replicas_the_dirs_are_read_only_for_a_plan_that_copies(run_module, jbod_cluster):
    from ansible_collections.kafkaops.cluster.plugins.modules import kafka_reassignment_plan

    result = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4", balance="replicas"),
                        jbod_cluster)
    assert not result.get("failed"), result
    arriving = [entry for entry in result["plan"]["partitions"] if 4 in entry["replicas"]]
    assert arriving and all(entry["log_dirs"][entry["replicas"].index(4)] == "/b" for entry in arriving)
    assert result["summary"]["log_dirs_from"] == "DescribeLogDirs"
    assert [call[0] for call in jbod_cluster.calls].count("describe_log_dirs") == 1
    # Nothing copied (the replicas are even on brokers 1-3 already): the dirs are not read.
    jbod_cluster.calls[:] = []
    even = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3", balance="replicas"),
                      jbod_cluster)
    assert even["summary"]["replica_moves"] == 0 and "log_dirs" not in even["summary"], even
    assert "describe_log_dirs" not in [call[0] for call in jbod_cluster.calls]


def _single_dir_twin(cluster):
    """The same cluster with broker 4's two disks as one of their size (so its bytes balance is the same)."""
    twin = copy.copy(cluster)
    twin.calls, twin.clients = [], []
    twin.dirs = dict(cluster.dirs)
    twin.dirs[4] = {"/a": (2 << 40, (2 << 40) - 700 * GB)}
    return twin


def test_the_module_refuses_a_copy_no_dir_of_the_jbod_broker_can_take(run_module, jbod_cluster):
    from ansible_collections.kafkaops.cluster.plugins.modules import kafka_reassignment_plan

    # Broker 4's disks are 50 GiB with 42 GiB used: below 0.85 each has room for half a GiB, not for a copy of 1 GiB
    # (the capacities given, 1 TiB a broker, let the plan between brokers through).
    jbod_cluster.dirs[4] = {"/a": (50 * GB, 8 * GB), "/b": (50 * GB, 8 * GB - (100 << 20))}
    failed = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4",
                                                           broker_capacities={1: 1 << 40, 2: 1 << 40, 3: 1 << 40,
                                                                              4: 1 << 40}), jbod_cluster)
    assert failed["failed"] and failed["field"] == "max_disk_fill", failed
    assert "no open log dir of broker 4 can take orders-" in failed["msg"] and "/a can take" in failed["msg"]


def test_brokers_on_one_host_fill_their_dirs_past_max_disk_fill_as_the_bytes_balance_does(run_module, jbod_cluster):
    from ansible_collections.kafkaops.cluster.plugins.modules import kafka_reassignment_plan

    # Containers on one host, its disk 90 % full: every dir reports it (usable bytes read a moment apart).
    tib = 1 << 40
    jbod_cluster.dirs = dict((broker_id, {"/data": (tib, tib // 10 - broker_id * 4096)}) for broker_id in (1, 2, 3))
    jbod_cluster.dirs[4] = {"/a": (tib, tib // 10), "/b": (tib, tib // 10 - 8192)}
    result = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4"), jbod_cluster)
    assert not result.get("failed"), result
    assert result["summary"]["capacities_from"].startswith("none: every broker's log dirs report the same filesystem")
    arriving = [entry["log_dirs"][entry["replicas"].index(4)] for entry in result["plan"]["partitions"]
                if 4 in entry["replicas"]]
    # One filesystem: the dirs weigh their bytes, and the copies share them out.
    assert set(arriving) == {"/a", "/b"}, result["plan"]
    # With the brokers' own disks given (so not one host's), the limit holds: no dir of that disk has room below it.
    refused = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4", max_disk_fill=0.85,
                                                            broker_capacities=dict((broker_id, 1 << 50)
                                                                                   for broker_id in (1, 2, 3, 4))),
                         jbod_cluster)
    assert refused["failed"] and "no open log dir of broker 4" in refused["msg"], refused


def test_the_module_plans_offline_from_log_dirs_as_kafka_cluster_info_returns_them(run_module, jbod_cluster):
    from ansible_collections.kafkaops.cluster.plugins.modules import kafka_reassignment_plan

    online = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4"), jbod_cluster)
    # kafka_cluster_info's log_dirs (with include_sizes), and which partitions each dir holds.
    entries = []
    for broker_id, dirs in sorted(jbod_cluster.dirs.items()):
        for path, (total, usable) in sorted(dirs.items()):
            held = [partition for partition, replicas in sorted(TOPICS["orders"].items())
                    if broker_id in replicas and path == min(dirs)]
            entries.append(dict(broker=broker_id, log_dir=path, bytes=sum(_size(partition) for partition in held),
                                total_bytes=total, usable_bytes=usable, error_code=0, partitions={"orders": held}))
    current = {"version": 1, "partitions": [dict(topic="orders", partition=partition, replicas=replicas)
                                            for partition, replicas in sorted(TOPICS["orders"].items())]}
    capacities = dict((broker_id, dict(total_bytes=sum(total for total, unused in dirs.values()),
                                       used_bytes=sum(total - usable for total, usable in dirs.values())))
                      for broker_id, dirs in jbod_cluster.dirs.items())
    offline = run_module(kafka_reassignment_plan.main, dict(
        current_assignment=current, broker_list="1,2,3,4", broker_capacities=capacities, log_dirs=entries,
        partition_sizes={"orders": dict((str(partition), _size(partition)) for partition in range(12))}), None)
    assert not offline.get("failed"), offline
    assert offline["plan"] == online["plan"] and offline["summary"]["log_dirs"] == online["summary"]["log_dirs"]
    assert offline["summary"]["log_dirs_from"] == "log_dirs"


@pytest.mark.parametrize("entry, field, words", [
    (dict(broker=4, log_dir="data/a"), "log_dirs[0].log_dir", "an absolute path"),
    (dict(broker=4, log_dir="/a", total_bytes=-1), "log_dirs[0].total_bytes", "0 or more"),
    (dict(broker=4, log_dir="/a", partitions={"orders": ["zero"]}), "log_dirs[0].partitions",
     "a list of partition numbers"),
], ids=["relative", "negative", "partition-names"])
def test_a_bad_log_dirs_entry_fails_naming_it_before_connecting(run_module, entry, field, words):
    from ansible_collections.kafkaops.cluster.plugins.modules import kafka_reassignment_plan

    failed = run_module(kafka_reassignment_plan.main, dict(
        current_assignment={"version": 1, "partitions": [dict(topic="orders", partition=0, replicas=[1])]},
        broker_list=[1, 4], partition_sizes={"orders": {0: 1}}, log_dirs=[entry]), None)
    assert failed["failed"] and failed["field"] == field and words in failed["msg"], failed
