"""What the report page shows, worked out from plain module results: counts per broker, the plan's charts."""

import json
import os

import jinja2
import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.filter.kafka_report import (
    CHART_LABEL_WIDTH,
    CHART_VALUE_WIDTH,
    CHART_WIDTH,
    human_bytes,
    kafka_plan_beside,
    kafka_report_inputs,
    kafka_report_plan_files,
    kafka_report_view,
)


def _partition(number, replicas, leader=None, isr=None, size=None):
    partition = dict(partition=number, leader=replicas[0] if leader is None else leader, replicas=replicas,
                     isr=replicas if isr is None else isr, offline_replicas=[])
    if size is not None:
        # As a result reads once it went through JSON: broker ids as text; a follower holds less.
        partition["sizes"] = dict((str(broker), size if index == 0 else size // 2)
                                  for index, broker in enumerate(replicas))
    return partition


def _cluster(sizes=True):
    """Brokers 1-3 (3 is the newest, still empty); orders on 1 and 2, audit on 2 alone."""
    orders = [_partition(0, [1, 2], size=1000 if sizes else None),
              _partition(1, [2, 1], leader=1, isr=[1], size=3000 if sizes else None)]
    audit = [_partition(0, [2], size=500 if sizes else None)]
    topics = dict(orders=dict(partition_count=2, replication_factor=2, config={"retention.ms": "1000"},
                              partitions=orders),
                  audit=dict(partition_count=1, replication_factor=1, partitions=audit))
    if sizes:
        for topic in topics.values():
            topic["size_bytes"] = sum(sum(item["sizes"].values()) for item in topic["partitions"])
    return dict(cluster_id="c-1", controller_id=2, mode="zookeeper", quorum=None,
                brokers=[dict(id=1, host="kafka1", port=9092, rack="a"), dict(id=2, host="kafka2", port=9092, rack="b"),
                         dict(id=3, host="kafka3", port=9092, rack=None)],
                topics=topics, under_replicated_partitions=["orders-1"], offline_partitions=[], reassignments=[])


# The plan spreads orders over 1-3: partition 0 moves from [1, 2] to [3, 2], partition 1 keeps its replicas
# and gets broker 1 as preferred leader.
PLAN = {"version": 1, "partitions": [
    {"topic": "orders", "partition": 0, "replicas": [3, 2], "log_dirs": ["any", "any"]},
    {"topic": "orders", "partition": 1, "replicas": [1, 2], "log_dirs": ["any", "any"]}]}
ROLLBACK = {"version": 1, "partitions": [
    {"topic": "orders", "partition": 0, "replicas": [1, 2], "log_dirs": ["any", "any"]},
    {"topic": "orders", "partition": 1, "replicas": [2, 1], "log_dirs": ["any", "any"]}]}


def _chart(view, metric):
    chart = [chart for chart in view["plan"]["charts"] if chart["metric"] == metric][0]
    return dict(((rect["broker"], rect["series"]), rect) for rect in chart["bars"])


@pytest.mark.parametrize("value, text", [(0, "0 B"), (1023, "1023 B"), (1536, "1.5 KiB"), (5 * 1024 ** 3, "5.0 GiB")])
def test_bytes_read_as_text(value, text):
    assert human_bytes(value) == text


def test_each_broker_counts_its_replicas_preferred_and_actual_leaders_and_bytes():
    view = kafka_report_view(_cluster())
    rows = dict((broker["id"], broker) for broker in view["brokers"])
    assert [(rows[broker]["replicas"], rows[broker]["preferred_leaders"], rows[broker]["leaders"])
            for broker in (1, 2, 3)] == [(2, 1, 2), (3, 2, 1), (0, 0, 0)]
    # Bytes on disk are what each broker holds: 1000 + 1500 on broker 1, 500 + 3000 + 500 on broker 2.
    assert [rows[broker]["bytes"] for broker in (1, 2, 3)] == ["2.4 KiB", "3.9 KiB", "0 B"]
    assert rows[2]["controller"] and not rows[1]["controller"] and rows[3]["rack"] == ""
    assert view["totals"] == dict(brokers=3, topics=2, partitions=3, replicas=5, bytes="6.3 KiB")
    assert view["plan"] is None and view["verify"] == [] and not view["groups_read"]


def test_brokers_that_serve_nothing_but_hold_replicas_or_stay_registered_are_listed_apart():
    cluster = _cluster()
    # Broker 4 is down and still named in a replica list; broker 5 is fenced (KRaft) and holds nothing.
    cluster["topics"]["audit"]["partitions"].append(_partition(1, [4, 2], leader=2, isr=[2], size=700))
    cluster["topics"]["audit"]["partition_count"] = 2
    cluster["fenced_brokers"] = [5]
    view = kafka_report_view(cluster)
    assert [broker["id"] for broker in view["brokers"]] == [1, 2, 3]
    assert view["down_brokers"] == [
        dict(id=4, state="not registered", replicas=1, preferred_leaders=1, bytes="unknown"),
        dict(id=5, state="fenced", replicas=0, preferred_leaders=0, bytes="unknown")]
    assert view["totals"]["brokers"] == 3
    assert kafka_report_view(_cluster(sizes=False))["down_brokers"] == []
    cluster = _cluster(sizes=False)
    cluster["fenced_brokers"] = [3]
    # A broker listed live is not also listed down, whatever the fenced list says.
    assert kafka_report_view(cluster)["down_brokers"] == []


def _page(view):
    """report.html.j2 rendered with plain Jinja2; the two Ansible filters it uses do what they do there."""
    folder = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "playbooks", "templates")
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(folder), undefined=jinja2.StrictUndefined)
    environment.filters["comment"] = lambda text, style="plain": "<!-- %s -->" % text
    environment.filters["basename"] = os.path.basename
    template = environment.get_template("report.html.j2")
    return template.render(view=view, ansible_managed="managed", generated_at="2026-11-25 00:00:00 UTC",
                           report_plan_path="/plans/move.json")


def test_the_page_shows_the_brokers_that_serve_nothing_only_when_there_are_some():
    cluster = _cluster()
    cluster["topics"]["audit"]["partitions"].append(_partition(1, [4, 2], leader=2, isr=[2], size=700))
    cluster["fenced_brokers"] = [5]
    page = _page(kafka_report_view(cluster))
    table = page.split('<table id="down-brokers">')[1].split("</table>")[0]
    assert '<tr data-broker="4"><td class="number">4</td><td class="bad">not registered</td>' in table
    assert '<tr data-broker="5"><td class="number">5</td><td class="bad">fenced</td>' in table
    assert 'id="down-brokers"' not in _page(kafka_report_view(_cluster()))


def test_topics_show_their_configs_and_unhealthy_partitions():
    topics = dict((topic["name"], topic) for topic in kafka_report_view(_cluster())["topics"])
    assert list(topics) == ["audit", "orders"]
    assert topics["orders"]["configs"] == [["retention.ms", "1000"]] and topics["audit"]["configs"] == []
    assert (topics["orders"]["under_replicated"], topics["orders"]["offline"]) == (1, 0)
    assert [row["preferred"] for row in topics["orders"]["partition_rows"]] == [True, False]


def test_the_plan_is_charted_per_broker_before_and_after():
    view = kafka_report_view(_cluster(), plan=PLAN, rollback=ROLLBACK)
    replicas = _chart(view, "replicas")
    assert [(replicas[(broker, "before")]["value"], replicas[(broker, "after")]["value"]) for broker in (1, 2, 3)] \
        == [(2, 1), (3, 3), (0, 1)]
    leaders = _chart(view, "leaders")
    assert [(leaders[(broker, "before")]["value"], leaders[(broker, "after")]["value"]) for broker in (1, 2, 3)] \
        == [(1, 1), (2, 1), (0, 1)]
    # A partition's bytes are its largest replica's: orders-0 (1000) goes from broker 1 to broker 3.
    stored = _chart(view, "bytes")
    assert [(stored[(broker, "before")]["value"], stored[(broker, "after")]["value"]) for broker in (1, 2, 3)] \
        == [(4000, 3000), (4500, 4500), (0, 1000)]
    plan = view["plan"]
    assert (plan["partitions"], plan["replica_moves"], plan["leader_changes"]) == (2, 1, 2)
    assert plan["bytes_moved"] == "1000 B"
    assert plan["topics"] == ["orders"] and plan["state"].startswith("not carried out yet: 0 of 2")


def test_bars_are_scaled_to_the_largest_value_and_stay_inside_the_chart():
    view = kafka_report_view(_cluster(), plan=PLAN)
    span = CHART_WIDTH - CHART_LABEL_WIDTH - CHART_VALUE_WIDTH
    for chart in view["plan"]["charts"]:
        widths = [rect["width"] for rect in chart["bars"]]
        assert max(widths) == span and min(widths) == 0
        assert all(rect["x"] == CHART_LABEL_WIDTH and rect["text_x"] <= CHART_WIDTH - CHART_VALUE_WIDTH + 4
                   for rect in chart["bars"])
        assert all(0 < rect["y"] and rect["y"] + rect["height"] < chart["height"] for rect in chart["bars"])
        assert len(chart["labels"]) == 3 and len(set(rect["y"] for rect in chart["bars"])) == 6


def test_a_plan_carried_out_still_shows_where_it_started_from_its_rollback_plan():
    cluster = _cluster()
    cluster["topics"]["orders"]["partitions"][0]["replicas"] = [3, 2]
    cluster["topics"]["orders"]["partitions"][1]["replicas"] = [1, 2]
    view = kafka_report_view(cluster, plan=PLAN, rollback=ROLLBACK)
    replicas = _chart(view, "replicas")
    assert (replicas[(3, "before")]["value"], replicas[(3, "after")]["value"]) == (0, 1)
    assert view["plan"]["state"].startswith("carried out")
    # Without the rollback plan, the cluster as read is all there is: before equals after.
    unchanged = _chart(kafka_report_view(cluster, plan=PLAN), "replicas")
    assert unchanged[(3, "before")]["value"] == unchanged[(3, "after")]["value"] == 1


def test_a_plan_in_progress_says_so():
    cluster = _cluster()
    cluster["reassignments"] = [dict(topic="orders", partition=0, replicas=[3, 2, 1], adding_replicas=[3],
                                     removing_replicas=[1])]
    assert kafka_report_view(cluster, plan=PLAN)["plan"]["state"] == "in progress: 1 of 2 partitions moving now"


def test_without_sizes_there_is_no_bytes_chart():
    view = kafka_report_view(_cluster(sizes=False), plan=PLAN)
    assert [chart["metric"] for chart in view["plan"]["charts"]] == ["replicas", "leaders"]
    assert not view["sized"] and view["brokers"][0]["bytes"] == ""


def test_text_from_the_cluster_is_escaped_for_html():
    cluster = _cluster()
    cluster["brokers"][0]["rack"] = '<script>alert("rack")</script>'
    cluster["topics"]["orders"]["config"] = {"message.format": '"><img>'}
    groups = [dict(item=dict(group="<b>billing</b>"), state="Empty", members=[], total_lag=7,
                   partitions=[dict(topic="orders", partition=0, lag=7), dict(topic="orders", partition=1, lag=None)])]
    view = kafka_report_view(cluster, groups=groups)
    assert view["brokers"][0]["rack"] == "&lt;script&gt;alert(&quot;rack&quot;)&lt;/script&gt;"
    assert view["topics"][1]["configs"] == [["message.format", "&quot;&gt;&lt;img&gt;"]]
    assert view["groups"] == [dict(group="&lt;b&gt;billing&lt;/b&gt;", state="Empty", members=0, topics=["orders"],
                                   partitions=2, total_lag=7, lag_unknown=1, failed=None)]


def test_throttles_and_verify_reports_are_summed_up():
    cluster = _cluster()
    cluster["throttles"] = dict(brokers=[dict(id=1, configs={"leader.replication.throttled.rate": "100"})],
                                topics=[])
    report = dict(ok=False, records=10, expected=12, lost=2, duplicates=0, out_of_order=0, corrupt=0, offset_gaps=0,
                  per_partition=[dict(topic="orders", partition=0, exists=True, lost=2),
                                 dict(topic="orders", partition=1, exists=True, lost=0)],
                  topics=["orders"], missing_topics=[], lost_checked=True, started_at="t", elapsed_seconds=3.5)
    view = kafka_report_view(cluster, verify_reports=[dict(path="/data/verify.json", report=report)])
    assert view["throttles_read"] and view["throttled_topics"] == []
    assert view["throttled_brokers"] == [dict(id=1, configs=[["leader.replication.throttled.rate", "100"]])]
    verify = view["verify"][0]
    assert (verify["ok"], verify["records"], verify["bad_partitions"]) == (False, 10, ["orders-0"])
    # A report written before the transactional check counts none there.
    assert [check["count"] for check in verify["checks"]] == [2, 0, 0, 0, 0, 0]
    report.update(lost=0, aborted_visible=3,
                  per_partition=[dict(topic="orders", partition=1, exists=True, aborted_visible=3)])
    verify = kafka_report_view(cluster, verify_reports=[dict(path="/data/verify.json", report=report)])["verify"][0]
    assert verify["checks"][-1] == dict(name="aborted_visible", count=3) and verify["bad_partitions"] == ["orders-1"]


@pytest.mark.parametrize("arguments, words", [
    (dict(cluster={"brokers": []}), "kafka_cluster_info"),
    (dict(cluster=_cluster(), plan={"version": 1}), "the plan is not Kafka's reassignment JSON"),
    (dict(cluster=_cluster(), plan=PLAN, rollback={"partitions": [{"topic": "orders"}]}), "rollback plan lacks"),
], ids=["not-cluster-info", "plan-without-partitions", "rollback-entry-incomplete"])
def test_bad_input_is_refused_naming_it(arguments, words):
    with pytest.raises(AnsibleFilterError, match=words):
        kafka_report_view(**arguments)


def _summary(capacities=True, **changes):
    """A byte-balancing plan's summary for PLAN (two partitions change), as kafka_reassignment_plan returns it.

    Broker 3 has half the disk of the others; after the plan the fills are 0.42, 0.38 and 0.40 of the disks,
    the mean fill 0.40.
    """
    disks = {1: 10000, 2: 10000, 3: 5000}
    before, after = {1: 6000, 2: 4000, 3: 0}, {1: 4200, 2: 3800, 3: 2000}
    summary = dict(balance="bytes", balance_chosen="asked for", partitions_changed=2, replica_moves=1,
                   bytes_moved=2000, bytes_moved_lower_bound=1600, imbalance_before=1.5, imbalance_after=1.05,
                   imbalance_lower_bound=1.01, max_disk_fill=0.85, sizes_from="DescribeLogDirs",
                   capacities_from="DescribeLogDirs" if capacities else None,
                   brokers=[dict(broker=broker, rack=None, live=True, target=True, replicas_before=0, replicas_after=0,
                                 leaders_before=0, leaders_after=0, bytes_before=before[broker],
                                 bytes_after=after[broker], capacity_bytes=disks[broker] if capacities else None,
                                 other_bytes=0 if capacities else None)
                            for broker in (1, 2, 3)])
    summary.update(changes)
    return summary


def _balance_rows(balance):
    return dict((row["id"], row) for row in balance["brokers"])


def test_with_capacities_the_balance_shows_fills_of_the_disks_headroom_and_the_bounds():
    balance = kafka_report_view(_cluster(), plan=PLAN, rollback=ROLLBACK, summary=_summary())["plan"]["balance"]
    rows = _balance_rows(balance)
    assert [(rows[broker]["disk_used_before"], rows[broker]["disk_used_after"]) for broker in (1, 2, 3)] \
        == [("60.0 %", "42.0 %"), ("40.0 %", "38.0 %"), ("0.0 %", "40.0 %")]
    # Each fill over the mean fill (0.40 of the disks): their largest is the imbalance the planner reports.
    assert [(rows[broker]["over_mean_before"], rows[broker]["over_mean_after"]) for broker in (1, 2, 3)] \
        == [("1.500", "1.050"), ("1.000", "0.950"), ("0.000", "1.000")]
    # Headroom: 85 % of the disks less what each holds after the plan.
    assert [(rows[broker]["headroom_bytes"], rows[broker]["capacity"]) for broker in (1, 2, 3)] \
        == [(8500 - 4200, "9.8 KiB"), (8500 - 3800, "9.8 KiB"), (4250 - 2000, "4.9 KiB")]
    assert rows[3]["headroom"] == "2.2 KiB" and rows[1]["bytes_after"] == "4.1 KiB"
    assert (balance["spread_before"], balance["spread_after"], balance["spread_after_value"]) \
        == ("100.0 %", "9.5 %", 9.5)
    # The bound 1.01 on the fullest over the mean: no plan brings the fills closer than 1 - 1/1.01 of each other.
    assert (balance["spread_bound"], balance["above_mean_after"], balance["above_mean_bound"]) \
        == ("1.0 %", "5.0 %", "1.0 %")
    assert (balance["imbalance_before"], balance["imbalance_after"], balance["imbalance_lower_bound"]) \
        == ("1.500", "1.050", "1.010")
    assert (balance["bytes_moved"], balance["bytes_moved_lower_bound"], balance["bytes_moved_ratio"]) \
        == ("2.0 KiB", "1.6 KiB", "1.25")
    assert balance["capacities_known"] and balance["max_disk_fill"] == "85.0 %"


def test_without_capacities_every_broker_weighs_the_same_and_headroom_is_unknown():
    summary = _summary(capacities=False)
    # Broker 4 leaves: it is not part of the balance, its fill is not compared with the mean.
    summary["brokers"].append(dict(broker=4, rack="c", live=True, target=False, bytes_before=1000, bytes_after=0,
                                   capacity_bytes=None, other_bytes=None))
    balance = kafka_report_view(_cluster(), plan=PLAN, summary=summary)["plan"]["balance"]
    rows = _balance_rows(balance)
    assert not balance["capacities_known"] and balance["max_disk_fill"] == ""
    # The mean of the three targets' bytes after is 10000 / 3.
    assert [rows[broker]["over_mean_after"] for broker in (1, 2, 3, 4)] == ["1.260", "1.140", "0.600", "-"]
    assert all((row["headroom"], row["headroom_bytes"], row["capacity"], row["disk_used_after"])
               == ("unknown", None, "unknown", "unknown") for row in rows.values())
    assert rows[4]["rack"] == "c" and not rows[4]["target"]
    assert balance["spread_after"] == "52.4 %"


def test_a_replica_count_plan_or_none_at_all_shows_no_byte_balance():
    replicas = dict(balance="replicas", balance_chosen="asked for", partitions_changed=2, replica_moves=1,
                    lower_bound=1, brokers=[dict(broker=broker, replicas_before=1, replicas_after=1)
                                            for broker in (1, 2, 3)])
    plan = kafka_report_view(_cluster(), plan=PLAN, summary=replicas)["plan"]
    assert plan["balance"] is None and plan["balanced"] == "replicas" and plan["summary_note"] == ""
    plan = kafka_report_view(_cluster(), plan=PLAN)["plan"]
    assert (plan["balance"], plan["balanced"], plan["summary_note"]) == (None, None, "")


def test_a_summary_of_another_plan_is_left_out_saying_so():
    plan = kafka_report_view(_cluster(), plan=PLAN, summary=_summary(partitions_changed=5))["plan"]
    assert plan["balance"] is None
    assert plan["summary_note"].startswith("The summary beside the plan is of another plan (5 partitions change there")


def test_bytes_moved_without_a_bound_above_zero_has_no_ratio():
    summary = _summary(bytes_moved=0, bytes_moved_lower_bound=0)
    assert kafka_report_view(_cluster(), plan=PLAN, summary=summary)["plan"]["balance"]["bytes_moved_ratio"] == "1.00"
    summary = _summary(bytes_moved_lower_bound=0)
    assert kafka_report_view(_cluster(), plan=PLAN, summary=summary)["plan"]["balance"]["bytes_moved_ratio"] is None


def test_log_dirs_show_what_they_hold_and_their_volume_where_the_broker_tells():
    cluster = _cluster()
    cluster["log_dirs"] = [
        dict(broker=1, log_dir="/data/<a>", bytes=2560, total_bytes=4096, usable_bytes=1024, error_code=0),
        dict(broker=2, log_dir="/data/b", bytes=0, total_bytes=None, usable_bytes=None, error_code=56)]
    assert kafka_report_view(cluster)["log_dirs"] == [
        dict(broker=1, log_dir="/data/&lt;a&gt;", bytes="2.5 KiB", total="4.0 KiB", usable="1.0 KiB", used="75.0 %",
             error=""),
        dict(broker=2, log_dir="/data/b", bytes="0 B", total="unknown", usable="unknown", used="unknown",
             error="error 56")]
    page = _page(kafka_report_view(cluster))
    assert '<td><code>/data/&lt;a&gt;</code></td>' in page and '<td class="bad">error 56</td>' in page
    without = kafka_report_view(_cluster())
    assert without["log_dirs"] == [] and 'id="log-dirs"' not in _page(without)


def test_the_page_says_how_close_the_fills_are_beside_the_best_possible():
    page = _page(kafka_report_view(_cluster(), plan=PLAN, rollback=ROLLBACK, summary=_summary()))
    sentence = page.split('<p id="plan-balance-summary"')[1].split("</p>")[0]
    assert 'data-spread-after="9.5"' in sentence and 'data-imbalance-lower-bound="1.010"' in sentence
    assert " ".join(sentence.split()).endswith(
        "After the plan, the brokers' fills are within <b>9.5 %</b> of each other (before: 100.0 %; no plan gets them "
        "closer than 1.0 %). The fullest is 5.0 % above the mean fill: imbalance 1.500 &rarr; <b>1.050</b>, the best "
        "any plan can reach 1.010. It copies <b>2.0 KiB</b>; no plan reaching this balance copies less than 1.6 KiB "
        "(1.25 &times; the bound).")
    table = page.split('<table id="plan-balance">')[1].split("</table>")[0]
    assert table.count("<tr data-broker=") == 3 and "Headroom to 85.0 %" in table and ">2.2 KiB</td>" in table
    # Without a summary the page is as before: the charts and the table of the plan, nothing of the balance.
    plain = _page(kafka_report_view(_cluster(), plan=PLAN, rollback=ROLLBACK))
    assert 'id="plan-brokers"' in plain and "plan-balance" not in plain and "plan-summary-note" not in plain
    note = _page(kafka_report_view(_cluster(), plan=PLAN, summary=_summary(partitions_changed=5)))
    assert 'id="plan-summary-note"' in note and "plan-balance" not in note


def test_the_files_beside_a_plan_are_named_by_one_rule_and_read_when_there(tmp_path):
    assert kafka_plan_beside("plans/move.json", "summary") == "plans/move.summary.json"
    assert kafka_plan_beside("plans/move.json", "rollback") == "plans/move.rollback.json"
    plan_file = tmp_path / "move.json"
    plan_file.write_text(json.dumps(PLAN))
    assert kafka_report_plan_files(str(plan_file)) == dict(plan=PLAN, rollback=None, summary=None)
    (tmp_path / "move.rollback.json").write_text(json.dumps(ROLLBACK))
    (tmp_path / "move.summary.json").write_text(json.dumps(_summary()))
    assert kafka_report_plan_files(str(plan_file)) == dict(plan=PLAN, rollback=ROLLBACK, summary=_summary())
    assert kafka_report_plan_files("") == dict(plan=None, rollback=None, summary=None)
    (tmp_path / "move.summary.json").write_text("{not json")
    with pytest.raises(AnsibleFilterError, match="the summary beside plan_file .*move.summary.json is not JSON"):
        kafka_report_plan_files(str(plan_file))
    with pytest.raises(AnsibleFilterError, match="cannot read the plan_file .*absent.json"):
        kafka_report_plan_files(str(tmp_path / "absent.json"))


@pytest.mark.parametrize("arguments, words", [
    (dict(plan_file="plan.json", kind="diff"), "kind is one of rollback, summary, got 'diff'"),
    (dict(plan_file="", kind="summary"), "plan_file must be a path"),
], ids=["unknown-kind", "no-plan-file"])
def test_a_file_beside_a_plan_needs_a_plan_and_a_known_kind(arguments, words):
    with pytest.raises(AnsibleFilterError, match=words):
        kafka_plan_beside(**arguments)


@pytest.mark.parametrize("summary, words", [
    ("not a summary", "the summary is not a mapping"),
    (dict(balance="bytes", partitions_changed=2, bytes_moved=1, brokers="none"), "summary.brokers is not a list"),
    (dict(balance="bytes", partitions_changed=2, bytes_moved=1, brokers=[dict(broker="x")]), "not a number"),
], ids=["not-a-mapping", "brokers-not-a-list", "broker-id-not-a-number"])
def test_a_bad_summary_is_refused_naming_the_field(summary, words):
    with pytest.raises(AnsibleFilterError, match=words):
        kafka_report_view(_cluster(), plan=PLAN, summary=summary)


def _served(broker, days_left, expiring, verified=True, subject="CN=kafka%d"):
    return dict(broker=broker, address="kafka%d:9093" % broker, subject=subject % broker,
                issuer="CN=kafkaops.cluster CA", serial="0A%02d" % broker, not_before="2026-01-01T00:00:00Z",
                not_after="2027-01-%02dT00:00:00Z" % broker, days_left=days_left, expiring=expiring, verified=verified,
                verify_error=None if verified else "certificate has expired")


def test_each_served_certificate_shows_its_expiry_and_days_left_the_expiring_ones_marked():
    cluster = _cluster()
    cluster["certificates"] = [
        _served(2, 12, True), _served(1, 400, False, subject="CN=<kafka%d>"), _served(3, -2, True, verified=False),
        dict(broker=4, address="kafka4:9093", error="[Errno 111] Connection refused")]
    view = kafka_report_view(cluster)
    assert view["certificates_read"] is True
    assert [(row["broker"], row["days_left"], row["expiring"], row["state"]) for row in view["certificates"]] == [
        (1, 400, False, "valid"), (2, 12, True, "expires soon"), (3, -2, True, "expired"),
        (4, "", True, "could not be read")]
    assert view["certificates"][0]["subject"] == "CN=&lt;kafka1&gt;"
    page = _page(view)
    table = page.split('<table id="certificates">')[1].split("</table>")[0]
    rows = table.split("<tr data-broker=")[1:]
    assert len(rows) == 4
    assert '"1" data-expiring="false"' in rows[0] and "<code>CN=&lt;kafka1&gt;</code>" in rows[0]
    assert '<td class="">2027-01-01T00:00:00Z</td>' in rows[0] and '<td class="number ">400</td>' in rows[0]
    assert '"2" data-expiring="true"' in rows[1] and '<td class="bad">2027-01-02T00:00:00Z</td>' in rows[1]
    assert '<td class="number bad">12</td>' in rows[1] and '<td class="bad">expires soon</td>' in rows[1]
    assert '<td class="bad">no (certificate has expired)</td>' in rows[2] and ">expired</td>" in rows[2]
    assert "could not be read: [Errno 111] Connection refused" in rows[3]


def test_no_certificate_section_without_certificates_read_or_on_a_plaintext_listener():
    without = kafka_report_view(_cluster())
    assert without["certificates_read"] is False and without["certificates"] == []
    plaintext = _cluster()
    plaintext["certificates"] = []
    assert kafka_report_view(plaintext)["certificates_read"] is True
    for view in (without, kafka_report_view(plaintext)):
        assert 'id="certificates"' not in _page(view)


def test_the_inputs_are_absolute_paths_on_the_controller(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "v1.json").write_text("{}")
    os.symlink("v1.json", str(tmp_path / "latest.json"))
    inputs = kafka_report_inputs("page.html", "plan.json", "latest.json,,v1.json", "no")
    real = os.path.realpath(str(tmp_path))
    assert inputs["report_path"] == os.path.join(real, "page.html")
    # A link is followed to its file, as the realpath filter did.
    assert inputs["verify_paths"] == [os.path.join(real, "v1.json")] * 2
    assert [item["variable"] for item in inputs["files"]] == ["plan_file", "verify_reports", "verify_reports"]
    assert inputs["consumer_groups"] is False


def test_inputs_that_cannot_be_typed_are_refused_by_name():
    with pytest.raises(AnsibleFilterError, match="^consumer_groups: 'some' is not a bool"):
        kafka_report_inputs("page.html", "", [], "some")
