"""kafka_reassignment_plan's run: the planner's inputs from a fake cluster or offline, and the plan files."""

import hashlib
import json

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils import _reassignment_planner_io as _io
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_reassignment_plan

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}
CURRENT = {"version": 1, "partitions": [{"topic": "orders", "partition": partition, "replicas": [1, 2]}
                                        for partition in range(4)]}


@pytest.fixture
def cluster(fake_cluster):
    """Three brokers; orders has 4 partitions, all on brokers 1 and 2."""
    return fake_cluster(brokers=(1, 2, 3), topics={"orders": dict((partition, [1, 2]) for partition in range(4))})


def test_a_plan_is_made_from_the_cluster_without_writing_to_it(run_module, cluster):
    result = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list=[1, 2, 3]), cluster)
    assert not result.get("failed"), result
    assert not result["changed"] and result["plan"]["partitions"]
    assert set(entry["topic"] for entry in result["plan"]["partitions"]) == {"orders"}
    assert cluster.writes() == [] and all(client.closed for client in cluster.clients)


def test_the_same_plan_offline_from_the_current_assignment(run_module, cluster):
    online = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3"), cluster)
    offline = run_module(kafka_reassignment_plan.main, dict(current_assignment=json.dumps(CURRENT),
                                                            broker_list="1,2,3"), None)
    assert offline["plan"] == online["plan"] and offline["rollback_plan"] == online["rollback_plan"]


def test_plan_files_are_written_once_predicted_in_check_mode_and_shown_in_diff_mode(run_module, tmp_path):
    dest = tmp_path / "plan.json"
    args = dict(current_assignment=CURRENT, broker_list=[1, 2, 3], dest=str(dest), return_plan=True)
    predicted = run_module(kafka_reassignment_plan.main, args, None, check_mode=True, diff=True)
    assert predicted["changed"] and not dest.exists()
    plan_diff, rollback_diff = predicted["diff"]
    assert plan_diff["before"] == "" and json.loads(plan_diff["after"]) == predicted["plan"]
    assert rollback_diff["after_header"] == str(tmp_path / "plan.rollback.json")
    assert json.loads(rollback_diff["after"]) == predicted["rollback_plan"]
    written = run_module(kafka_reassignment_plan.main, args, None, diff=True)
    assert written["changed"] and json.loads(dest.read_text()) == written["plan"] == predicted["plan"]
    assert written["rollback_dest"] == str(tmp_path / "plan.rollback.json")
    assert json.loads((tmp_path / "plan.rollback.json").read_text()) == written["rollback_plan"]
    again = run_module(kafka_reassignment_plan.main, args, None, diff=True)
    assert not again["changed"] and "diff" not in again


def test_with_dest_only_the_summary_is_returned_unless_asked(run_module, tmp_path):
    dest = tmp_path / "plan.json"
    args = dict(current_assignment=CURRENT, broker_list=[1, 2, 3], dest=str(dest))
    written = run_module(kafka_reassignment_plan.main, args, None)
    assert written["changed"] and "plan" not in written and "rollback_plan" not in written
    assert written["summary"]["partitions_changed"] == len(json.loads(dest.read_text())["partitions"]) > 0
    asked = run_module(kafka_reassignment_plan.main, dict(args, return_plan=True), None)
    assert not asked["changed"] and asked["plan"] == json.loads(dest.read_text())
    without_dest = run_module(kafka_reassignment_plan.main, dict(current_assignment=CURRENT, broker_list=[1, 2, 3]),
                              None)
    assert without_dest["plan"] == asked["plan"] and without_dest["rollback_plan"] == asked["rollback_plan"]
    declined = run_module(kafka_reassignment_plan.main, dict(current_assignment=CURRENT, broker_list=[1, 2, 3],
                                                             return_plan=False), None)
    assert "plan" not in declined and declined["summary"] == asked["summary"]


def test_a_changed_rollback_file_alone_is_a_change(run_module, tmp_path):
    dest = tmp_path / "plan.json"
    args = dict(current_assignment=CURRENT, broker_list=[1, 2, 3], dest=str(dest))
    run_module(kafka_reassignment_plan.main, args, None)
    (tmp_path / "plan.rollback.json").write_text("{}\n")
    again = run_module(kafka_reassignment_plan.main, args, None, diff=True)
    assert again["changed"] and [diff["before"] for diff in again["diff"]] == ["{}\n"]
    assert json.loads((tmp_path / "plan.rollback.json").read_text())["partitions"]


def test_the_diff_of_a_large_plan_is_a_summary_line_per_side(run_module, tmp_path):
    current = {"version": 1, "partitions": [{"topic": "orders", "partition": partition, "replicas": [1, 2]}
                                            for partition in range(300)]}
    dest = tmp_path / "plan.json"
    dest.write_text(_io.kafka_json_text(CURRENT))
    args = dict(current_assignment=current, broker_list=[1, 2, 3], dest=str(dest))
    predicted = run_module(kafka_reassignment_plan.main, args, None, check_mode=True, diff=True)
    plan_diff = predicted["diff"][0]
    written = run_module(kafka_reassignment_plan.main, args, None)
    text = dest.read_text()
    small = _io.kafka_json_text(CURRENT)
    assert plan_diff["before"] == _io.file_summary(str(dest), small)
    assert plan_diff["before"].startswith("%s: 4 partitions, %d bytes, sha256 %s (whole files are shown up to 100 "
                                          % (dest, len(small), hashlib.sha256(small.encode()).hexdigest()))
    partitions = written["summary"]["partitions_changed"]
    assert partitions > 100 and plan_diff["after"] == "%s: %d partitions, %d bytes, sha256 %s %s" % (
        dest, partitions, len(text), hashlib.sha256(text.encode()).hexdigest(), "(whole files are shown up to 100 "
        "partitions)\n")
    # A new rollback file: nothing before, a summary after.
    assert predicted["diff"][1]["before"] == "" and "partitions, " in predicted["diff"][1]["after"]


@pytest.mark.parametrize("document", [
    {"version": 1, "partitions": []},
    CURRENT,
    {"version": 1, "partitions": [{"topic": "ordres-\u00e9t\u00e9 \"q\"", "partition": 12, "replicas": [1003, 7, 22]},
                                  {"topic": "a", "partition": 0, "replicas": [5]}]},
], ids=["empty", "small", "odd-names"])
def test_plan_text_is_what_json_writes_with_an_indent_of_two(document):
    assert _io.kafka_json_text(document) == json.dumps(document, indent=2, sort_keys=True) + "\n"


def test_the_current_assignment_can_come_from_a_file(run_module, tmp_path):
    path = tmp_path / "current.json"
    path.write_text(json.dumps(CURRENT))
    from_file = run_module(kafka_reassignment_plan.main, dict(current_assignment_file=str(path), broker_list="1,2,3"),
                           None)
    from_value = run_module(kafka_reassignment_plan.main, dict(current_assignment=CURRENT, broker_list="1,2,3"), None)
    assert not from_file.get("failed"), from_file
    assert from_file["plan"] == from_value["plan"] and from_file["summary"] == from_value["summary"]


def _write(tmp_path, text):
    path = tmp_path / "current.json"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("make_args, field, words", [
    (lambda tmp_path: dict(current_assignment_file=str(tmp_path / "missing.json")), "current_assignment_file",
     "cannot read"),
    (lambda tmp_path: dict(current_assignment_file=_write(tmp_path, '{"version": 1, "partitions": [')),
     "current_assignment_file", "is not valid JSON"),
    (lambda tmp_path: dict(current_assignment_file=_write(tmp_path, json.dumps(
        {"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": []}]}))),
     "current_assignment_file", "orders-0: replicas must be a non-empty list"),
    (lambda tmp_path: dict(current_assignment_file=_write(tmp_path, json.dumps(
        {"version": 1, "partitions": [{"topic": "orders", "partition": 0}]}))),
     "current_assignment_file", "needs topic, partition and replicas"),
    (lambda tmp_path: dict(current_assignment={"version": 1, "partitions": [
        {"topic": "orders", "partition": 3, "replicas": [1, 2, 1]}]}), "current_assignment",
     "orders-3: a broker appears twice in replicas [1, 2, 1]"),
    (lambda tmp_path: dict(current_assignment="{not json"), "current_assignment", "not valid JSON"),
    (lambda tmp_path: dict(current_assignment={"version": 2, "partitions": []}), "current_assignment",
     "unsupported version 2"),
], ids=["missing-file", "bad-json-file", "no-replicas", "entry-without-replicas", "broker-twice", "bad-json-value",
        "version"])
def test_a_bad_current_assignment_fails_naming_the_option(run_module, tmp_path, make_args, field, words):
    failed = run_module(kafka_reassignment_plan.main, dict(make_args(tmp_path), broker_list=[1, 2, 3]), None)
    assert failed["failed"] and failed["field"] == field and words in failed["msg"], failed


def test_one_current_assignment_at_a_time(run_module, tmp_path):
    failed = run_module(kafka_reassignment_plan.main, dict(current_assignment=CURRENT, broker_list=[1, 2, 3],
                                                           current_assignment_file=str(tmp_path / "c.json")), None)
    assert failed["failed"] and "mutually exclusive" in failed["msg"]


@pytest.mark.parametrize("args, field, words", [
    (dict(current_assignment=CURRENT, broker_list=[1, 2], broker_racks={"one": "a"}), "broker_racks",
     "keys are broker ids"),
    (dict(current_assignment=CURRENT, broker_list=[1, 2], broker_racks="rack-a"), "broker_racks", "a mapping"),
    (dict(current_assignment=CURRENT, broker_list=[1, 2], replication_factor=0), "replication_factor", "at least 1"),
    (dict(current_assignment=CURRENT, broker_list=[1, 2], dest="/nonexistent/folder/plan.json"), "dest",
     "does not exist"),
    (dict(SERVERS, broker_list=[1, 2, 3], topics=["orders"]), "topics", "being reassigned now: orders-0"),
], ids=["rack-key", "racks-shape", "zero-replication-factor", "missing-folder", "move-in-progress"])
def test_bad_input_fails_naming_the_field(run_module, cluster, args, field, words):
    cluster.moving[("orders", 0)] = [1, 3]
    failed = run_module(kafka_reassignment_plan.main, args, cluster if "bootstrap_servers" in args else None)
    assert failed["failed"] and failed["field"] == field and words in failed["msg"], failed
    assert "changed" not in failed and cluster.writes() == []


# balance=bytes: a large topic and a small one on brokers 1-3, broker 4 new.
BYTES_TOPICS = {"large": dict((partition, [1 + partition % 3, 1 + (partition + 1) % 3]) for partition in range(6)),
                "small": dict((partition, [1 + partition % 3, 1 + (partition + 1) % 3]) for partition in range(12))}


def test_bytes_balance_reads_sizes_and_disks_in_one_request_and_evens_the_fill(run_module, fake_cluster):
    cluster = fake_cluster(brokers=(1, 2, 3, 4), topics=BYTES_TOPICS, sizes={"large": 1000, "small": 10})
    result = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4", balance="bytes"), cluster)
    assert not result.get("failed"), result
    summary = result["summary"]
    assert summary["balance"] == "bytes" and summary["sizes_from"] == "DescribeLogDirs"
    assert summary["capacities_from"] is None and summary["max_disk_fill"] is None
    assert summary["imbalance_before"] > 1.3 and summary["imbalance_after"] < 1.1, summary
    assert 1.0 <= summary["imbalance_lower_bound"] <= summary["imbalance_after"], summary
    assert summary["bytes_moved_lower_bound"] <= summary["bytes_moved"] <= 1.1 * summary["bytes_moved_lower_bound"]
    assert summary["lower_bound"] is None and summary["counting_bound"] is None
    rows = dict((row["broker"], row) for row in summary["brokers"])
    assert rows[4]["bytes_before"] == 0 and rows[4]["bytes_after"] > 0
    assert sum(row["bytes_after"] for row in rows.values()) == sum(row["bytes_before"] for row in rows.values())
    assert [call[0] for call in cluster.calls].count("describe_log_dirs") == 1
    assert cluster.writes() == []


def test_bytes_balance_fills_larger_disks_more_and_counts_what_else_they_hold(run_module, fake_cluster):
    # Broker 4 (new) has twice the disk of the others; broker 1's holds 3000 bytes of other data besides.
    selected = dict((broker, sum((1000 if topic == "large" else 10) for topic, partitions in BYTES_TOPICS.items()
                                 for replicas in partitions.values() if broker in replicas)) for broker in (1, 2, 3))
    selected[4] = 0
    other = {1: 3000, 2: 0, 3: 0, 4: 0}
    totals = {1: 20000, 2: 20000, 3: 20000, 4: 40000}
    disks = dict((broker, (totals[broker], totals[broker] - selected[broker] - other[broker])) for broker in totals)
    cluster = fake_cluster(brokers=(1, 2, 3, 4), topics=BYTES_TOPICS, sizes={"large": 1000, "small": 10}, disks=disks)
    result = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4", balance="bytes"), cluster)
    assert not result.get("failed"), result
    summary = result["summary"]
    assert summary["capacities_from"] == "DescribeLogDirs" and summary["max_disk_fill"] == 0.85
    rows = dict((row["broker"], row) for row in summary["brokers"])
    assert rows[1]["other_bytes"] == 3000 and rows[2]["other_bytes"] == 0 and rows[4]["capacity_bytes"] == 40000
    fills = dict((broker, (rows[broker]["bytes_after"] + rows[broker]["other_bytes"]) / rows[broker]["capacity_bytes"])
                 for broker in totals)
    assert rows[4]["bytes_after"] > max(rows[broker]["bytes_after"] for broker in (1, 2, 3)), rows
    assert rows[1]["bytes_after"] < min(rows[broker]["bytes_after"] for broker in (2, 3)), rows
    assert max(fills.values()) < 1.3 * min(fills.values()), fills


def test_bytes_balance_refuses_a_plan_the_disks_cannot_hold_naming_the_room(run_module, fake_cluster):
    disks = dict((broker, (2000, 0)) for broker in (1, 2, 3, 4))
    cluster = fake_cluster(brokers=(1, 2, 3, 4), topics=BYTES_TOPICS, sizes={"large": 1000, "small": 10}, disks=disks)
    failed = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4", balance="bytes"), cluster)
    assert failed["failed"] and failed["field"] == "max_disk_fill", failed
    assert "need 12240 bytes" in failed["msg"] and "85 %" in failed["msg"], failed["msg"]
    assert cluster.writes() == []


def test_bytes_balance_offline_takes_the_sizes_as_yaml_gives_them(run_module, fake_cluster):
    cluster = fake_cluster(brokers=(1, 2, 3, 4), topics=BYTES_TOPICS, sizes={"large": 1000, "small": 10})
    online = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4", balance="bytes"), cluster)
    current = {"version": 1, "partitions": [{"topic": topic, "partition": partition, "replicas": replicas}
                                            for topic, partitions in BYTES_TOPICS.items()
                                            for partition, replicas in partitions.items()]}
    sizes = dict((topic, dict((str(partition), 1000 if topic == "large" else 10) for partition in partitions))
                 for topic, partitions in BYTES_TOPICS.items())
    offline = run_module(kafka_reassignment_plan.main, dict(current_assignment=current, broker_list="1,2,3,4",
                                                            balance="bytes", partition_sizes=sizes), None)
    assert offline["summary"]["sizes_from"] == "partition_sizes"
    assert offline["plan"] == online["plan"]


@pytest.mark.parametrize("args, field, words", [
    (dict(balance="bytes"), "partition_sizes", "needed with balance=bytes when planning offline"),
    (dict(balance="replicas", partition_sizes={"orders": {0: 5}}), "partition_sizes", "goes with balance=bytes"),
    (dict(balance="bytes", partition_sizes={"orders": {"zero": 5}}), "partition_sizes", "keys are partition numbers"),
    (dict(balance="bytes", partition_sizes={"orders": {0: 5}}), "partition_sizes", "no size for 3 partitions"),
    (dict(balance="bytes", partition_sizes={"orders": {0: 5, 1: 5, 2: 5, 3: -1}}), "partition_sizes",
     "orders-3: a size in bytes"),
    (dict(balance="bytes", max_disk_fill=1.5, partition_sizes={"orders": {0: 5}}), "max_disk_fill", "at most 1"),
    (dict(balance="bytes", partition_sizes={"orders": dict((p, 5) for p in range(4))}, broker_capacities={1: 100}),
     "broker_capacities", "no capacity for target brokers 2, 3"),
], ids=["no-sizes-offline", "sizes-without-bytes", "partition-key", "missing-sizes", "negative-size", "fill-above-one",
        "capacities-missing"])
def test_bad_byte_balance_input_fails_naming_the_field(run_module, args, field, words):
    failed = run_module(kafka_reassignment_plan.main, dict(current_assignment=CURRENT, broker_list=[1, 2, 3], **args),
                        None)
    assert failed["failed"] and failed["field"] == field and words in failed["msg"], failed


def test_bytes_balance_takes_large_size_lists_from_a_file_and_names_it_when_unreadable(run_module, tmp_path):
    sizes = tmp_path / "sizes.json"
    sizes.write_text(json.dumps({"orders": {"0": 50, "1": 50, "2": 5, "3": 5}}))
    args = dict(current_assignment=CURRENT, broker_list=[1, 2, 3], balance="bytes")
    planned = run_module(kafka_reassignment_plan.main, dict(args, partition_sizes_file=str(sizes)), None)
    assert not planned.get("failed"), planned
    assert planned["summary"]["sizes_from"] == "partition_sizes_file"
    assert planned["summary"]["imbalance_after"] < planned["summary"]["imbalance_before"]
    for text, words in (("{", "is not valid JSON"), ('{"orders": [1]}', "topic orders: a mapping")):
        sizes.write_text(text)
        failed = run_module(kafka_reassignment_plan.main, dict(args, partition_sizes_file=str(sizes)), None)
        assert failed["failed"] and failed["field"] == "partition_sizes_file" and words in failed["msg"], failed
    failed = run_module(kafka_reassignment_plan.main, dict(args, partition_sizes_file=str(tmp_path / "none.json")),
                        None)
    assert failed["failed"] and failed["field"] == "partition_sizes_file" and "cannot read" in failed["msg"]


# balance=auto (the default): bytes wherever sizes can be read, replicas where there is nothing to weigh.
def test_auto_balances_bytes_when_it_reads_sizes_from_the_cluster(run_module, fake_cluster):
    cluster = fake_cluster(brokers=(1, 2, 3, 4), topics=BYTES_TOPICS, sizes={"large": 1000, "small": 10})
    auto = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4"), cluster)
    asked = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4", balance="bytes"), cluster)
    assert auto["summary"]["balance"] == "bytes" and auto["summary"]["balance_chosen"] == _io.AUTO_FROM_CLUSTER
    assert asked["summary"]["balance_chosen"] == "asked for"
    assert auto["plan"] == asked["plan"]


def test_auto_balances_replicas_when_the_partitions_hold_no_data(run_module, fake_cluster):
    cluster = fake_cluster(brokers=(1, 2, 3, 4), topics=BYTES_TOPICS, sizes={"large": 0, "small": 0},
                           disks=dict((broker, (1 << 40, 1 << 39)) for broker in (1, 2, 3, 4)))
    auto = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4"), cluster)
    summary = auto["summary"]
    assert summary["balance"] == "replicas"
    assert summary["balance_chosen"] == "auto: the selected partitions hold no data"
    assert summary["replica_moves"] == summary["lower_bound"] > 0 and "sizes_from" not in summary
    assert [call[0] for call in cluster.calls].count("describe_log_dirs") == 1


def test_auto_offline_balances_replicas_without_sizes_and_bytes_with_them(run_module):
    without = run_module(kafka_reassignment_plan.main, dict(current_assignment=CURRENT, broker_list=[1, 2, 3]), None)
    assert without["summary"]["balance"] == "replicas", without
    assert without["summary"]["balance_chosen"].startswith("auto: planning offline without partition_sizes")
    sizes = {"orders": {0: 50, 1: 50, 2: 5, 3: 5}}
    given = run_module(kafka_reassignment_plan.main, dict(current_assignment=CURRENT, broker_list=[1, 2, 3],
                                                          partition_sizes=sizes), None)
    assert given["summary"]["balance"] == "bytes"
    assert given["summary"]["balance_chosen"] == "auto: partition_sizes given"


def test_brokers_on_one_filesystem_weigh_alike_and_its_other_data_is_none_of_theirs(run_module, fake_cluster):
    # Four containers on one host: every log dir reports the host's disk, the same total and (within a few
    # bytes written between the answers) the same used bytes, far more than the partitions hold.
    shared = dict((broker, (1 << 40, (1 << 39) - broker * 4096)) for broker in (1, 2, 3, 4))
    cluster = fake_cluster(brokers=(1, 2, 3, 4), topics=BYTES_TOPICS, sizes={"large": 1000, "small": 10},
                           disks=shared)
    result = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4"), cluster)
    summary = result["summary"]
    assert summary["capacities_from"].startswith("none: every broker's log dirs report the same filesystem")
    rows = dict((row["broker"], row) for row in summary["brokers"])
    assert all(row["capacity_bytes"] is None and row["other_bytes"] is None for row in rows.values())
    # Balanced on the partitions' own bytes, as without disks at all.
    plain = fake_cluster(brokers=(1, 2, 3, 4), topics=BYTES_TOPICS, sizes={"large": 1000, "small": 10})
    assert result["plan"] == run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4"),
                                        plain)["plan"]
    assert summary["imbalance_after"] < 1.1 < summary["imbalance_before"]


@pytest.mark.parametrize("disks, replica_bytes, shared", [
    ({1: dict(total_bytes=100, used_bytes=60), 2: dict(total_bytes=100, used_bytes=60)}, 50, True),
    # Full disks of one size: each would have to hold every replica, and cannot.
    ({1: dict(total_bytes=100, used_bytes=100), 2: dict(total_bytes=100, used_bytes=100)}, 150, False),
    ({1: dict(total_bytes=100, used_bytes=60), 2: dict(total_bytes=200, used_bytes=60)}, 50, False),
    ({1: dict(total_bytes=1 << 40, used_bytes=1 << 30),
      2: dict(total_bytes=1 << 40, used_bytes=(1 << 30) + (65 << 20))}, 0, False),
    ({1: dict(total_bytes=100, used_bytes=60)}, 50, False),
], ids=["one-host", "full-disks", "sizes-differ", "used-differs", "one-broker"])
def test_what_counts_as_one_filesystem(disks, replica_bytes, shared):
    assert _io.shared_filesystem(disks, sorted(disks), replica_bytes) is shared


# mode: what the plan may change (the planner's modes), through the module's options.
def _moved_onto(result, current):
    """{(topic, partition): brokers gained} of the plan's partitions."""
    return dict(((entry["topic"], entry["partition"]),
                 set(entry["replicas"]) - set(current[entry["topic"]][entry["partition"]]))
                for entry in result["plan"]["partitions"])


def test_mode_add_reads_the_cluster_and_moves_only_onto_the_new_broker(run_module, fake_cluster):
    topics = {"orders": dict((partition, [1 + partition % 3, 1 + (partition + 1) % 3]) for partition in range(6))}
    cluster = fake_cluster(brokers=(1, 2, 3, 4), topics=topics)
    result = run_module(kafka_reassignment_plan.main, dict(SERVERS, broker_list="1,2,3,4", mode="add",
                                                           balance="replicas"), cluster)
    assert not result.get("failed"), result
    summary = result["summary"]
    assert summary["mode"] == "add" and summary["new_brokers"] == [4]
    gained = _moved_onto(result, topics)
    assert gained and all(brokers <= {4} for brokers in gained.values())
    assert summary["replica_moves"] == summary["lower_bound"] == 3 and cluster.writes() == []


def test_mode_remove_offline_moves_only_off_the_leaving_broker_and_predicts_its_files(run_module, tmp_path):
    current = {"version": 1, "partitions": [{"topic": "orders", "partition": partition,
                                             "replicas": [1 + partition % 3, 1 + (partition + 1) % 3]}
                                            for partition in range(6)]}
    dest = tmp_path / "remove-3.json"
    args = dict(current_assignment=current, broker_racks=[1, 2, 3, 4], broker_list=[1, 2, 4], mode="remove",
                dest=str(dest), return_plan=True)
    predicted = run_module(kafka_reassignment_plan.main, args, None, check_mode=True, diff=True)
    assert predicted["changed"] and not dest.exists() and predicted["summary"]["leaving_brokers"] == [3]
    for entry, old in zip(predicted["plan"]["partitions"], predicted["rollback_plan"]["partitions"], strict=True):
        assert 3 in old["replicas"] and 3 not in entry["replicas"]
        assert set(old["replicas"]) - {3} <= set(entry["replicas"])
    written = run_module(kafka_reassignment_plan.main, args, None)
    assert written["changed"] and json.loads(dest.read_text()) == predicted["plan"]
    assert not run_module(kafka_reassignment_plan.main, args, None)["changed"]


def test_mode_demote_moves_no_data_and_reads_no_sizes(run_module, fake_cluster):
    cluster = fake_cluster(brokers=(1, 2, 3), topics={"orders": {0: [1, 2], 1: [1, 3], 2: [2, 3], 3: [1]}},
                           sizes={"orders": 100})
    result = run_module(kafka_reassignment_plan.main, dict(SERVERS, mode="demote", demote_brokers=[1]), cluster)
    assert not result.get("failed"), result
    summary = result["summary"]
    assert summary["balance"] == "replicas" and summary["balance_chosen"] == "auto: mode=demote moves no data"
    assert summary["replica_moves"] == 0 and summary["demote_impossible_partitions"] == ["orders-3"]
    assert [entry["replicas"] for entry in result["plan"]["partitions"]] == [[2, 1], [3, 1]]
    assert "describe_log_dirs" not in [call[0] for call in cluster.calls]


def test_mode_fix_offline_places_dead_and_failed_log_dir_replicas_read_from_the_cluster(run_module, fake_cluster):
    # Broker 5 holds replicas but is gone; orders-1's replica on broker 2 sits on a failed log dir.
    topics = {"orders": {0: [1, 5], 1: [2, 3], 2: [3, 1], 3: [1, 2]}}
    cluster = fake_cluster(brokers=(1, 2, 3, 4), topics=topics, sizes={"orders": 100})
    cluster.offline[("orders", 1)] = [2]
    result = run_module(kafka_reassignment_plan.main, dict(SERVERS, mode="fix_offline"), cluster)
    assert not result.get("failed"), result
    summary = result["summary"]
    assert summary["mode"] == "fix_offline" and summary["balance"] == "bytes" and summary["offline_replicas"] == 2
    assert summary["bytes_moved"] == summary["bytes_moved_lower_bound"] == 200
    assert sorted(entry["partition"] for entry in result["plan"]["partitions"]) == [0, 1]
    final = dict((entry["partition"], entry["replicas"]) for entry in result["plan"]["partitions"])
    assert 1 in final[0] and 5 not in final[0] and 3 in final[1] and 2 not in final[1]
    # The offline replicas can be named instead, as when planning offline.
    named = run_module(kafka_reassignment_plan.main, dict(SERVERS, mode="fix_offline", balance="replicas",
                                                          offline_replicas={"orders": {"3": [2]}}), cluster)
    assert sorted(entry["partition"] for entry in named["plan"]["partitions"]) == [0, 3], named


@pytest.mark.parametrize("args, field, words", [
    (dict(mode="add"), "broker_list", "needed with mode=add"),
    (dict(mode="add", broker_list=[1, 2, 3], replication_factor=2), "replication_factor", "goes with mode=full"),
    (dict(mode="full", broker_list=[1, 2, 3], new_brokers=[3]), "new_brokers", "goes with mode=add only"),
    (dict(mode="demote"), "demote_brokers", "needed with mode=demote"),
    (dict(mode="demote", demote_brokers=[1], broker_list=[1, 2]), "broker_list", "does not go with mode=demote"),
    (dict(mode="demote", demote_brokers=[1], partition_sizes={"orders": {0: 1}}), "partition_sizes",
     "does not go with mode=demote"),
    (dict(mode="remove", broker_list=[1, 2], offline_replicas={"orders": {0: [1]}}), "offline_replicas",
     "goes with mode=fix_offline only"),
    (dict(mode="fix_offline", offline_replicas={"orders": {"zero": [1]}}), "offline_replicas",
     "keys are partition numbers"),
], ids=["add-without-list", "add-replication-factor", "new-brokers-in-full", "demote-without-brokers",
        "demote-with-list", "demote-with-sizes", "offline-replicas-in-remove", "offline-replicas-key"])
def test_mode_options_that_do_not_go_together_fail_before_connecting(run_module, cluster, args, field, words):
    failed = run_module(kafka_reassignment_plan.main, dict(SERVERS, **args), cluster)
    assert failed["failed"] and failed["field"] == field and words in failed["msg"], failed
    assert cluster.clients == []


@pytest.mark.parametrize("balance", ["auto", "bytes"])
def test_sizes_a_broker_refuses_to_describe_are_missing_not_zero(run_module, fake_cluster, balance):
    # Broker 2 answers DescribeLogDirs with no log dir, as Kafka does a login without Describe on the Cluster.
    cluster = fake_cluster(brokers=(1, 2, 3, 4), topics={"orders": dict((partition, [1, 2, 3][partition % 3:]
                                                                         + [1, 2, 3][:partition % 3])
                                                                        for partition in range(6))},
                           sizes={"orders": 1 << 20})
    cluster.log_dirs_refused.add(2)
    result = run_module(kafka_reassignment_plan.main, dict(SERVERS, balance=balance, broker_list=[1, 2, 3, 4]),
                        cluster)
    words = "broker(s) 2 answered DescribeLogDirs with no log dir: the login lacks Describe on the Cluster resource"
    if balance == "bytes":
        assert result["failed"] and result["field"] == "balance" and words in result["msg"], result
    else:
        # auto plans by bytes only where the sizes can be read, and says why it did not.
        assert not result.get("failed"), result
        assert result["summary"]["balance"] == "replicas" and words in result["summary"]["balance_chosen"], result
    assert cluster.writes() == []


def test_remove_run_again_after_its_moves_plans_nothing(run_module, fake_cluster):
    # decommission.yml run again once the leaving brokers hold nothing: an empty plan, no change, no error.
    cluster = fake_cluster(brokers=(1, 2, 3, 4), topics={"orders": dict((partition, [1, 2, 3][partition % 3:]
                                                                         + [1, 2, 3][:partition % 3])
                                                                        for partition in range(3))})
    options = dict(SERVERS, balance="replicas", mode="remove", broker_list=[1, 2, 3])
    result = run_module(kafka_reassignment_plan.main, options, cluster)
    assert not result.get("failed") and not result["changed"], result
    assert result["plan"]["partitions"] == [] and result["summary"]["replica_moves"] == 0, result
    assert cluster.writes() == []


@pytest.mark.parametrize("args, field, words", [
    (dict(mode="add", broker_list=[1, 2, 3]), "broker_list", "adds no new broker"),
    (dict(mode="demote", demote_brokers=[7]), "demote_brokers", "unknown broker ids 7"),
], ids=["add-nothing-new", "demote-unknown"])
def test_mode_requests_the_cluster_rules_out_fail_naming_the_field(run_module, fake_cluster, args, field, words):
    cluster = fake_cluster(brokers=(1, 2, 3), topics={"orders": dict((partition, [1, 2, 3][partition % 3:]
                                                                      + [1, 2, 3][:partition % 3])
                                                                     for partition in range(3))})
    failed = run_module(kafka_reassignment_plan.main, dict(SERVERS, balance="replicas", **args), cluster)
    assert failed["failed"] and failed["field"] == field and words in failed["msg"], failed
    assert cluster.writes() == []
