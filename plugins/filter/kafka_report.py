# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What playbooks/report.yml shows, worked out from what the modules read: the template only lays it out.

Every number and every chart's geometry is computed here, on plain data, so that it can be tested
without a cluster and the template holds no arithmetic.
"""

from __future__ import absolute_import, division, print_function


import json
import os
from collections.abc import Mapping
from html import escape

from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._report_inputs import report_inputs
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._role_inputs import InputTypeError

# The plan's charts: horizontal bars, one pair (before, after) per broker.
# Narrow enough for three charts side by side on a page 1000 pixels wide.
CHART_WIDTH = 300
CHART_LABEL_WIDTH = 62
CHART_VALUE_WIDTH = 64
CHART_BAR_HEIGHT = 12
CHART_ROW_GAP = 10
CHART_TOP = 6
# The verify job's checks (kafkaops_verify.report.CHECKS); a report from before aborted_visible counts 0 there.
VERIFY_CHECKS = ("lost", "duplicates", "out_of_order", "corrupt", "offset_gaps", "aborted_visible")
UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
# What prepare_reassignment.yml keeps beside a plan file, named by one rule (kafka_plan_beside).
PLAN_COMPANIONS = ("rollback", "summary")


def html_escaped(value):
    """value with every text in it escaped for HTML, in element content and in quoted attributes alike.

    Topic names, racks, hosts, group names and config values come from the cluster: escaped here, they
    cannot open an element or close an attribute on the page, whatever the template does with them.
    """
    if isinstance(value, str):
        return escape(value, quote=True)
    if isinstance(value, Mapping):
        return dict((key, html_escaped(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [html_escaped(item) for item in value]
    return value


def human_bytes(count):
    """1536 -> '1.5 KiB'; bytes below 1 KiB as they are."""
    value = float(count)
    for unit in UNITS:
        if abs(value) < 1024 or unit == UNITS[-1]:
            return "%d %s" % (value, unit) if unit == "B" else "%.1f %s" % (value, unit)
        value /= 1024
    return "%d B" % count  # not reached


def percent(fraction):
    """0.0312 -> '3.1 %'."""
    return "%.1f %%" % (100.0 * fraction)


def _int_keys(mapping):
    """A mapping's keys as ints: broker ids arrive as text once a result went through JSON."""
    return dict((int(key), value) for key, value in (mapping or {}).items())


def _assignment_of_plan(document, what):
    """{(topic, partition): [replicas]} from Kafka's reassignment JSON (a mapping with 'partitions')."""
    if document is None:
        return {}
    if not isinstance(document, Mapping) or not isinstance(document.get("partitions"), list):
        raise AnsibleFilterError("kafka_report_view: the %s is not Kafka's reassignment JSON "
                                 "(a mapping with a list 'partitions')" % what)
    assignment = {}
    for entry in document["partitions"]:
        try:
            assignment[(entry["topic"], int(entry["partition"]))] = [int(broker) for broker in entry["replicas"]]
        except (KeyError, TypeError, ValueError):
            raise AnsibleFilterError("kafka_report_view: an entry of the %s lacks topic, partition or "
                                     "replicas: %r" % (what, entry)) from None
    return assignment


def _partition_size(partition):
    """The bytes of one partition: its largest replica (a follower catching up holds less)."""
    return max(list(_int_keys(partition.get("sizes")).values()) or [0])


def _per_broker(assignment, sizes, broker_ids):
    """(replicas, preferred leaders, bytes) per broker id of an assignment."""
    replicas = dict((broker, 0) for broker in broker_ids)
    leaders = dict(replicas)
    stored = dict(replicas)
    for key, brokers in assignment.items():
        for position, broker in enumerate(brokers):
            replicas[broker] = replicas.get(broker, 0) + 1
            stored[broker] = stored.get(broker, 0) + sizes.get(key, 0)
            if position == 0:
                leaders[broker] = leaders.get(broker, 0) + 1
    return replicas, leaders, stored


def bar_chart(metric, title, broker_ids, before, after, format_value=str):
    """One chart's SVG geometry: a pair of bars per broker, before above after, scaled to the largest value."""
    largest = max(list(before.values()) + list(after.values()) + [0])
    span = CHART_WIDTH - CHART_LABEL_WIDTH - CHART_VALUE_WIDTH
    row_height = 2 * CHART_BAR_HEIGHT + CHART_ROW_GAP
    bars, labels = [], []
    for row, broker in enumerate(broker_ids):
        top = CHART_TOP + row * row_height
        labels.append(dict(text="broker %d" % broker, x=CHART_LABEL_WIDTH - 8, y=top + CHART_BAR_HEIGHT + 4))
        for offset, series, values in ((0, "before", before), (CHART_BAR_HEIGHT, "after", after)):
            value = values.get(broker, 0)
            width = int(round(span * value / largest)) if largest else 0
            bars.append(dict(broker=broker, series=series, value=value, text=format_value(value),
                             x=CHART_LABEL_WIDTH, y=top + offset, width=width, height=CHART_BAR_HEIGHT - 1,
                             text_x=CHART_LABEL_WIDTH + width + 4, text_y=top + offset + CHART_BAR_HEIGHT - 2))
    return dict(metric=metric, title=title, width=CHART_WIDTH,
                height=2 * CHART_TOP + len(broker_ids) * row_height - CHART_ROW_GAP, bars=bars, labels=labels)


def _summary_rows(summary):
    rows = summary.get("brokers")
    if not isinstance(rows, list) or not all(isinstance(row, Mapping) and "broker" in row for row in rows):
        raise AnsibleFilterError("kafka_report_view: summary.brokers is not a list of rows each with a broker id, "
                                 "as kafka_reassignment_plan returns it")
    try:
        return [dict(row, broker=int(row["broker"]), bytes_before=int(row.get("bytes_before") or 0),
                     bytes_after=int(row.get("bytes_after") or 0)) for row in rows]
    except (TypeError, ValueError):
        raise AnsibleFilterError("kafka_report_view: summary.brokers holds a broker id or byte count that is "
                                 "not a number") from None


def _balance_view(summary):
    """What the byte balance did, from a plan's summary (balance=bytes): per broker the bytes, the fill and the
    room left, and the plan's figures beside the bounds the planner proved. None for a replica-count plan.

    A broker's load counts what else its disks hold (other_bytes) and its fill is the load over its
    capacity, or the load alone when capacities are unknown (every broker then weighs the same): the
    planner's own terms, so the imbalance worked out here is the one it reports.
    """
    if summary.get("balance") != "bytes" or "bytes_moved" not in summary:
        return None
    rows = _summary_rows(summary)
    targets = [row for row in rows if row.get("target", True)]
    capacities_known = bool(targets) and all(row.get("capacity_bytes") for row in targets)
    limit = summary.get("max_disk_fill")

    def load(row, when):
        return row["bytes_" + when] + int(row.get("other_bytes") or 0)

    def weight(row):
        return row["capacity_bytes"] if capacities_known else 1

    def mean_fill(when):
        total_weight = sum(weight(row) for row in targets)
        return sum(load(row, when) for row in targets) / total_weight if total_weight else 0.0

    def spread(when):
        fills = [load(row, when) / weight(row) for row in targets]
        return (max(fills) - min(fills)) / max(fills) if fills and max(fills) else 0.0

    means = dict((when, mean_fill(when)) for when in ("before", "after"))
    brokers = []
    for row in rows:
        capacity = row.get("capacity_bytes")
        line = dict(id=row["broker"], rack=row.get("rack") or "", target=row.get("target", True),
                    bytes_before=human_bytes(row["bytes_before"]), bytes_after=human_bytes(row["bytes_after"]),
                    capacity=human_bytes(capacity) if capacity else "unknown")
        for when in ("before", "after"):
            line["disk_used_" + when] = percent(load(row, when) / capacity) if capacity else "unknown"
            # Over the targets' mean: a broker that leaves is not part of the balance.
            line["over_mean_" + when] = ("%.3f" % (load(row, when) / weight(row) / means[when])
                                         if line["target"] and means[when] else "-")
        if capacity:
            room = int((limit if limit is not None else 1.0) * capacity) - load(row, "after")
            line.update(headroom=human_bytes(room), headroom_bytes=room)
        else:
            line.update(headroom="unknown", headroom_bytes=None)
        brokers.append(line)
    moved, moved_bound = int(summary["bytes_moved"]), int(summary.get("bytes_moved_lower_bound") or 0)
    if moved_bound:
        moved_ratio = "%.2f" % (moved / moved_bound)
    else:
        moved_ratio = "1.00" if not moved else None
    imbalance = dict((when, float(summary["imbalance_" + when])) for when in ("before", "after", "lower_bound")
                     if summary.get("imbalance_" + when) is not None)
    view = dict(
        bytes_moved=human_bytes(moved), bytes_moved_lower_bound=human_bytes(moved_bound), bytes_moved_ratio=moved_ratio,
        capacities_known=capacities_known, capacities_from=summary.get("capacities_from") or "",
        sizes_from=summary.get("sizes_from") or "",
        max_disk_fill=percent(limit) if limit is not None and capacities_known else "",
        spread_before=percent(spread("before")), spread_after=percent(spread("after")),
        spread_after_value=round(100.0 * spread("after"), 1), brokers=brokers,
        imbalance_before="%.3f" % imbalance["before"] if "before" in imbalance else "unknown",
        imbalance_after="%.3f" % imbalance["after"] if "after" in imbalance else "unknown",
        imbalance_lower_bound="%.3f" % imbalance["lower_bound"] if "lower_bound" in imbalance else "unknown",
        above_mean_after=percent(imbalance["after"] - 1) if "after" in imbalance else "unknown",
        above_mean_bound=percent(imbalance["lower_bound"] - 1) if "lower_bound" in imbalance else "unknown",
        # The fullest fill is at least the bound times the mean and the emptiest at most the mean, so no plan
        # brings the fills closer than 1 - 1 / bound of each other: the bound, in the sentence's own terms.
        spread_bound=percent(1 - 1 / imbalance["lower_bound"]) if imbalance.get("lower_bound") else "unknown")
    return view


def _plan_view(cluster_assignment, sizes, live_ids, plan, rollback, reassignments, summary=None):
    planned = _assignment_of_plan(plan, "plan")
    earlier = _assignment_of_plan(rollback, "rollback plan")
    before = dict(cluster_assignment)
    for key in planned:
        # The rollback plan holds the replicas as they were when the plan was made: once the plan has been
        # carried out, the cluster alone no longer tells them.
        if key in earlier:
            before[key] = earlier[key]
    after = dict(cluster_assignment)
    after.update(planned)
    broker_ids = sorted(set(live_ids) | set(broker for brokers in list(before.values()) + list(after.values())
                                            for broker in brokers))
    replicas_before, leaders_before, bytes_before = _per_broker(before, sizes, broker_ids)
    replicas_after, leaders_after, bytes_after = _per_broker(after, sizes, broker_ids)
    done = sum(1 for key, replicas in planned.items() if cluster_assignment.get(key) == replicas)
    moving = set((item["topic"], item["partition"]) for item in reassignments) & set(planned)
    if planned and done == len(planned):
        state = "carried out: every partition of the plan has its planned replicas"
    elif moving:
        state = "in progress: %d of %d partitions moving now" % (len(moving), len(planned))
    else:
        state = "not carried out yet: %d of %d partitions have their planned replicas" % (done, len(planned))
    charts = [bar_chart("replicas", "Replicas per broker", broker_ids, replicas_before, replicas_after),
              bar_chart("leaders", "Preferred leaders per broker", broker_ids, leaders_before, leaders_after)]
    if any(sizes.values()):
        charts.append(bar_chart("bytes", "Bytes per broker", broker_ids, bytes_before, bytes_after, human_bytes))
    rows = [dict(id=broker, replicas_before=replicas_before[broker], replicas_after=replicas_after[broker],
                 leaders_before=leaders_before[broker], leaders_after=leaders_after[broker],
                 bytes_before=human_bytes(bytes_before[broker]), bytes_after=human_bytes(bytes_after[broker]))
            for broker in broker_ids]
    if summary is not None and not isinstance(summary, Mapping):
        raise AnsibleFilterError("kafka_report_view: the summary is not a mapping (kafka_reassignment_plan's summary)")
    summary_note = ""
    if summary is not None and summary.get("partitions_changed") != len(planned):
        # A plan written again without its summary (kafka_reassignment_plan run alone) leaves an older one
        # beside it: its figures would describe another plan.
        summary_note = ("The summary beside the plan is of another plan (%s partitions change there, %d here): "
                        "its figures are left out." % (summary.get("partitions_changed"), len(planned)))
        summary = None
    return dict(
        balance=_balance_view(summary) if summary is not None else None,
        balanced=summary.get("balance") if summary is not None else None, summary_note=summary_note,
        partitions=len(planned),
        topics=sorted(set(topic for topic, unused in planned)),
        replica_moves=sum(len(set(replicas) - set(before.get(key, []))) for key, replicas in planned.items()),
        leader_changes=sum(1 for key, replicas in planned.items()
                           if replicas[:1] != before.get(key, [])[:1]),
        bytes_moved=human_bytes(sum(sizes.get(key, 0) * len(set(replicas) - set(before.get(key, [])))
                                    for key, replicas in planned.items())),
        rollback_given=rollback is not None, state=state, charts=charts, brokers=rows)


def _verify_view(entry):
    report = entry.get("report") or {}
    return dict(path=entry.get("path", ""), ok=bool(report.get("ok")), records=report.get("records", 0),
                expected=report.get("expected", 0), lost_checked=report.get("lost_checked", True),
                checks=[dict(name=check, count=report.get(check, 0)) for check in VERIFY_CHECKS],
                topics=report.get("topics", []), missing_topics=report.get("missing_topics", []),
                partitions=len(report.get("per_partition", [])),
                bad_partitions=["%s-%s" % (item.get("topic"), item.get("partition"))
                                for item in report.get("per_partition", [])
                                if not item.get("exists", True) or any(item.get(check) for check in VERIFY_CHECKS)],
                started_at=report.get("started_at", ""), elapsed_seconds=report.get("elapsed_seconds"))


def _group_view(entry):
    """One consumer group from a kafka_consumer_group result (as a loop over groups registers it)."""
    item = entry.get("item")
    name = item.get("group") if isinstance(item, Mapping) else (item if item is not None else entry.get("group"))
    partitions = entry.get("partitions") or []
    return dict(group=name, state=entry.get("state", ""), members=len(entry.get("members") or []),
                topics=sorted(set(partition["topic"] for partition in partitions)), partitions=len(partitions),
                total_lag=entry.get("total_lag", 0),
                lag_unknown=sum(1 for partition in partitions if partition.get("lag") is None),
                failed=entry.get("msg") if entry.get("failed") else None)


def _log_dir_view(entry):
    """One log dir of kafka_cluster_info's log_dirs: what it holds now and, where the broker tells, its volume."""
    total, usable = entry.get("total_bytes"), entry.get("usable_bytes")
    reported = total is not None and usable is not None and total > 0
    return dict(broker=entry.get("broker"), log_dir=entry.get("log_dir") or "",
                bytes=human_bytes(entry.get("bytes", 0)), total=human_bytes(total) if reported else "unknown",
                usable=human_bytes(usable) if reported else "unknown",
                used=percent((total - usable) / total) if reported else "unknown",
                error="error %d" % entry["error_code"] if entry.get("error_code") else "")


def _certificate_view(entry):
    """One broker's served certificate of kafka_cluster_info's certificates: its names, expiry and days left, or
    why it could not be read. A certificate that cannot be read is marked as one that expires: nobody can see
    when it does."""
    common = dict(broker=entry.get("broker"), address=entry.get("address") or "")
    if entry.get("error"):
        return dict(common, error=entry["error"], subject="", issuer="", serial="", not_after="", days_left="",
                    expiring=True, verified=False, verify_error="", state="could not be read")
    days = entry.get("days_left")
    expiring = bool(entry.get("expiring"))
    if days is not None and days < 0:
        state = "expired"
    else:
        state = "expires soon" if expiring else "valid"
    return dict(common, error="", subject=entry.get("subject") or "", issuer=entry.get("issuer") or "",
                serial=entry.get("serial") or "", not_after=entry.get("not_after") or "",
                days_left=days if days is not None else "", expiring=expiring, verified=bool(entry.get("verified")),
                verify_error=entry.get("verify_error") or "", state=state)


def kafka_plan_beside(plan_file, kind):
    """The file kept beside a plan: ('plans/move.json', 'summary') -> 'plans/move.summary.json'.

    kafka_reassignment_plan names the rollback plan so; the summary follows the same rule, so a plan's name
    alone finds both.
    """
    if kind not in PLAN_COMPANIONS:
        raise AnsibleFilterError("kafka_plan_beside: kind is one of %s, got %r" % (", ".join(PLAN_COMPANIONS), kind))
    if not isinstance(plan_file, str) or not plan_file:
        raise AnsibleFilterError("kafka_plan_beside: plan_file must be a path, got %r" % (plan_file,))
    return "%s.%s.json" % (os.path.splitext(plan_file)[0], kind)


def _read_json(path, what):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as error:
        raise AnsibleFilterError("kafka_report_plan_files: cannot read the %s %s: %s" % (what, path, error.strerror)) \
            from None
    except ValueError as error:
        raise AnsibleFilterError("kafka_report_plan_files: the %s %s is not JSON: %s" % (what, path, error)) from None


def kafka_report_plan_files(plan_file):
    """{plan, rollback, summary}: a plan file read, with the rollback plan and the summary kept beside it.

    Each is None when its file is absent (a plan from an older run has no summary); all are None without a
    plan file. The files are on the controller, where filters run.
    """
    if not plan_file:
        return dict(plan=None, rollback=None, summary=None)
    files = dict(plan=_read_json(plan_file, "plan_file"))
    for kind in PLAN_COMPANIONS:
        path = kafka_plan_beside(plan_file, kind)
        files[kind] = _read_json(path, "%s beside plan_file" % kind) if os.path.isfile(path) else None
    return files


def kafka_report_inputs(report_file, plan_file, verify_reports, consumer_groups):
    """report.yml's inputs checked and typed once (plugin_utils/_report_inputs.py): {report_path, plan_path,
    verify_paths, files, consumer_groups}, the paths absolute on the controller."""
    try:
        return report_inputs(report_file, plan_file, verify_reports, consumer_groups, os.path.realpath)
    except InputTypeError as error:
        raise AnsibleFilterError(str(error)) from None


def kafka_report_view(cluster, plan=None, rollback=None, groups=None, verify_reports=None, summary=None):
    """Everything report.html.j2 shows, from a kafka_cluster_info result and the optional inputs.

    Every text in the result is HTML-escaped (html_escaped), ready to be written into the page as it is.
    """
    if not isinstance(cluster, Mapping) or "brokers" not in cluster or "topics" not in cluster:
        raise AnsibleFilterError("kafka_report_view: give the result of kafkaops.cluster.kafka_cluster_info")
    topics = cluster["topics"]
    assignment, sizes = {}, {}
    actual_leaders = {}
    for name, topic in topics.items():
        for partition in topic["partitions"]:
            key = (name, partition["partition"])
            assignment[key] = list(partition["replicas"])
            sizes[key] = _partition_size(partition)
            if partition["leader"] >= 0:
                actual_leaders[partition["leader"]] = actual_leaders.get(partition["leader"], 0) + 1
    live_ids = [broker["id"] for broker in cluster["brokers"]]
    replicas, preferred, unused = _per_broker(assignment, sizes, live_ids)
    on_disk = {}
    for topic in topics.values():
        for partition in topic["partitions"]:
            for broker, size in _int_keys(partition.get("sizes")).items():
                on_disk[broker] = on_disk.get(broker, 0) + size
    sized = any("size_bytes" in topic for topic in topics.values())
    quorum = cluster.get("quorum")
    brokers = [dict(id=broker["id"], host=broker["host"], port=broker["port"], rack=broker.get("rack") or "",
                    controller=broker["id"] == cluster.get("controller_id"),
                    replicas=replicas.get(broker["id"], 0), preferred_leaders=preferred.get(broker["id"], 0),
                    leaders=actual_leaders.get(broker["id"], 0),
                    bytes=human_bytes(on_disk.get(broker["id"], 0)) if sized else "")
               for broker in cluster["brokers"]]
    # Brokers that hold replicas or stay registered but serve nothing: stopped or dead (ZooKeeper mode, or
    # KRaft once unregistered), or fenced (KRaft: stopped, still registered). What an operator looks for first.
    fenced = set(cluster.get("fenced_brokers") or [])
    held = set(broker for replica_list in assignment.values() for broker in replica_list)
    down = [dict(id=broker, state="fenced" if broker in fenced else "not registered",
                 replicas=replicas.get(broker, 0), preferred_leaders=preferred.get(broker, 0),
                 # Sizes come from the live brokers' DescribeLogDirs: a broker that serves nothing tells none.
                 bytes="unknown" if sized else "")
            for broker in sorted((held | fenced) - set(live_ids))]
    under_replicated = set(cluster.get("under_replicated_partitions") or [])
    offline = set(cluster.get("offline_partitions") or [])
    topic_rows = []
    for name in sorted(topics):
        topic = topics[name]
        labels = ["%s-%d" % (name, partition["partition"]) for partition in topic["partitions"]]
        topic_rows.append(dict(
            name=name, partitions=topic["partition_count"], replication_factor=topic["replication_factor"],
            configs=sorted((topic.get("config") or {}).items()),
            under_replicated=len(under_replicated.intersection(labels)), offline=len(offline.intersection(labels)),
            bytes=human_bytes(topic["size_bytes"]) if "size_bytes" in topic else "",
            partition_rows=[dict(partition=partition["partition"], leader=partition["leader"],
                                 replicas=partition["replicas"], isr=partition["isr"],
                                 preferred=partition["replicas"][:1] == [partition["leader"]])
                            for partition in topic["partitions"]]))
    throttles = cluster.get("throttles") or {}
    view = dict(
        cluster_id=cluster.get("cluster_id") or "", mode=cluster.get("mode", ""),
        controller_id=cluster.get("controller_id"),
        quorum=None if not quorum else dict(
            leader_id=quorum["leader_id"], leader_epoch=quorum["leader_epoch"],
            high_watermark=quorum["high_watermark"],
            members=[dict(member, role=role, leader=member["id"] == quorum["leader_id"])
                     for role in ("voter", "observer") for member in quorum.get(role + "s", [])]),
        brokers=brokers, down_brokers=down, sized=sized, topics=topic_rows,
        totals=dict(brokers=len(brokers), topics=len(topic_rows), partitions=len(assignment),
                    replicas=sum(len(replicas) for replicas in assignment.values()),
                    bytes=human_bytes(sum(on_disk.values())) if sized else ""),
        under_replicated=sorted(under_replicated), offline=sorted(offline),
        reassignments=list(cluster.get("reassignments") or []),
        throttles_read="throttles" in cluster,
        throttled_brokers=[dict(id=item["id"], configs=sorted(item["configs"].items()))
                           for item in throttles.get("brokers", [])],
        throttled_topics=[dict(topic=item["topic"], configs=sorted(item["configs"].items()))
                          for item in throttles.get("topics", [])],
        groups_read=groups is not None,
        groups=[_group_view(entry) for entry in groups or []],
        plan=None if plan is None else _plan_view(assignment, sizes, live_ids, plan, rollback,
                                                  cluster.get("reassignments") or [], summary),
        log_dirs=[_log_dir_view(entry) for entry in cluster.get("log_dirs") or []],
        certificates_read="certificates" in cluster,
        certificates=[_certificate_view(entry) for entry in sorted(
            cluster.get("certificates") or [], key=lambda entry: (entry.get("broker") is None, entry.get("broker")))],
        verify=[_verify_view(entry) for entry in verify_reports or []])
    return html_escaped(view)


class FilterModule(object):

    def filters(self):
        return {"kafka_report_view": kafka_report_view, "kafka_plan_beside": kafka_plan_beside,
                "kafka_report_plan_files": kafka_report_plan_files, "kafka_report_inputs": kafka_report_inputs}
