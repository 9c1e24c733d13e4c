"""The whole report, as verify() writes it, and the summary printed from it."""

from kafkaops_verify.report import CHECKS, summary_lines
from sample_records import TOPIC, clean_rows, ranges_for, report_for, value


def test_report_is_ok_on_clean_data(spark):
    rows = clean_rows(partition=0) + clean_rows(partition=1, keys=("c",))
    range_rows = ranges_for() + ranges_for(keys=("c",), partition=1)
    report = report_for(spark, rows, range_rows)
    assert report["ok"] is True
    assert {check: report[check] for check in CHECKS} == dict.fromkeys(CHECKS, 0)
    assert (report["records"], report["expected"], report["unacknowledged"]) == (9, 9, 0)
    assert [entry["records"] for entry in report["per_partition"]] == [6, 3]
    assert report["examples"] == []


def test_report_counts_every_kind_and_shows_examples(spark):
    rows = clean_rows(per_key=4)  # offsets 0..7; a and b, sequences 0..3
    rows = [row for row in rows if row[2] != 0]  # a/0 gone: lost, and a hole at offset 0
    rows.append((TOPIC, 0, 8, b"b", value("b", 1)))  # a duplicate
    rows.append((TOPIC, 0, 9, b"b", b"v1|run-1|b|4|0|payload"))  # corrupt (crc mismatch)
    rows.append((TOPIC, 0, 11, b"a", value("a", 5)))  # offset 10 missing
    rows.append((TOPIC, 0, 12, b"a", value("a", 4)))  # out of order
    report = report_for(spark, rows, ranges_for(per_key=4), bounds={(TOPIC, 0): (0, 13)})
    assert report["ok"] is False
    assert {check: report[check] for check in CHECKS} == {
        "lost": 1,
        "duplicates": 1,
        "out_of_order": 1,
        "corrupt": 1,
        "offset_gaps": 2,
        "aborted_visible": 0,
    }
    kinds = {example["kind"] for example in report["examples"]}
    assert kinds == set(CHECKS) - {"aborted_visible"}
    lost = [example for example in report["examples"] if example["kind"] == "lost"]
    assert [(example["key"], example["sequence"]) for example in lost] == [("a", 0)]


def test_report_counts_a_missing_partition_as_lost(spark):
    report = report_for(spark, clean_rows(), ranges_for() + ranges_for(keys=("z",), partition=3))
    assert (report["ok"], report["lost"]) == (False, 3)
    missing = [entry for entry in report["per_partition"] if not entry["exists"]]
    assert [(entry["partition"], entry["lost"]) for entry in missing] == [(3, 3)]


def test_summary_names_each_violation(spark):
    rows = [row for row in clean_rows() if row[2] != 2]
    report = report_for(spark, rows, ranges_for(), bounds={(TOPIC, 0): (0, 6)})
    report.update({"manifests": [{}], "elapsed_seconds": 1.0})
    text = "\n".join(summary_lines(report))
    assert "FAILED" in text and "lost=1" in text and "offset_gaps=1" in text
