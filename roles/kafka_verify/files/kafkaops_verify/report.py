"""The report: per partition counts of every check, the totals, examples, and the summary printed."""

import json

CHECKS = ("lost", "duplicates", "out_of_order", "corrupt", "offset_gaps", "aborted_visible")


def partition_entries(bounds, counts, matches, committed_topics=()):
    """The report's per_partition list: counts {(topic, partition): records, corrupt, duplicates,
    out_of_order, identified, found, aborted_visible}, matches {(topic, partition): expected, lost}.

    Topics in committed_topics were read with read_committed: there transaction markers and aborted
    records leave offsets no reader is given, which cannot be told from a hole without reading the
    topic uncommitted. Their missing offsets are reported as committed_read_gaps, not as offset_gaps
    (a violation); the lost check against the manifest still finds any committed record that is gone.
    """
    per_partition = []
    for identity in sorted(set(bounds) | set(matches)):
        flags = counts.get(identity, {})
        matched = matches.get(identity, {})
        start, end = bounds.get(identity, (None, None))
        records = flags.get("records", 0)
        missing_offsets = (end - start - records) if identity in bounds else 0
        committed_read = identity[0] in committed_topics
        per_partition.append(
            {
                "topic": identity[0],
                "partition": identity[1],
                "start_offset": start,
                "end_offset": end,
                "exists": identity in bounds,
                "records": records,
                "expected": matched.get("expected") or 0,
                "lost": matched.get("lost") or 0,
                "duplicates": flags.get("duplicates", 0),
                "out_of_order": flags.get("out_of_order", 0),
                "corrupt": flags.get("corrupt", 0),
                "offset_gaps": 0 if committed_read else missing_offsets,
                "committed_read_gaps": missing_offsets if committed_read else 0,
                # Records of transactions the producer saw aborted, yet read with read_committed.
                "aborted_visible": flags.get("aborted_visible", 0),
                # Present records that no manifest acknowledged: other runs, or sends whose
                # acknowledgement never arrived. Not a violation.
                "unacknowledged": flags.get("identified", 0) - flags.get("found", 0),
            }
        )
    return per_partition


def report_of(per_partition, examples):
    totals = {check: sum(entry[check] for entry in per_partition) for check in CHECKS}
    return {
        "ok": not any(totals.values()),
        "records": sum(entry["records"] for entry in per_partition),
        **totals,
        "expected": sum(entry["expected"] for entry in per_partition),
        "unacknowledged": sum(entry["unacknowledged"] for entry in per_partition),
        "per_partition": per_partition,
        "examples": examples,
    }


def summary_lines(report):
    verdict = "OK" if report["ok"] else "FAILED"
    lines = [
        "verify: %s: %d records read in %d partitions, %d acknowledged by %d manifest(s)"
        % (verdict, report["records"], len(report["per_partition"]), report["expected"], len(report["manifests"])),
        "  " + ", ".join("%s=%d" % (check, report[check]) for check in CHECKS),
    ]
    if not report["manifests"]:
        lines.append("  no manifest given: lost records were not checked")
    transactional = report.get("transactional")
    if transactional:
        lines.append(
            "  transactional topics (read_committed): %s; committed=%d, aborted=%d, aborted_visible=%d,"
            " uncertain=%d (not checked), offsets without a committed record=%d"
            % (", ".join(transactional["topics"]), transactional["committed"], transactional["aborted"],
               report["aborted_visible"], transactional["uncertain"],
               sum(entry.get("committed_read_gaps", 0) for entry in report["per_partition"]))
        )
    for entry in report["per_partition"]:
        bad = ["%s=%d" % (check, entry[check]) for check in CHECKS if entry[check]]
        if bad or not entry["exists"]:
            where = "%s-%d" % (entry["topic"], entry["partition"])
            lines.append("  %s: %s%s" % (where, "" if entry["exists"] else "partition missing; ", ", ".join(bad)))
    for example in report["examples"]:
        lines.append("  example %s" % json.dumps(example, sort_keys=True, default=str))
    lines.append("  %.1f s" % report["elapsed_seconds"])
    return lines
