# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Spark jobs' progress readings (roles/kafka_verify/files/kafkaops_verify/progress.py writes them)
as the line an operator reads. Pure: no I/O."""

from __future__ import absolute_import, division, print_function


def describe_job_progress(reading):
    """"verify: 7 of 12 tasks done, 1,200,000 of 3,000,000 records read (40%), 52,174 records/s, about 34 s left"."""
    job, elapsed = reading.get("job", "job"), float(reading.get("elapsed") or 0)
    if reading.get("error"):
        return "%s: no reading at %d s (%s)" % (job, round(elapsed), reading["error"])
    tasks = "%d of %d tasks done" % (reading.get("tasks_done", 0), reading.get("tasks", 0))
    parts = [tasks]
    expected = reading.get("records_expected")
    if expected is not None:
        read = reading.get("records_read", 0)
        share = " (%d%%)" % (100 * read // expected) if expected else ""
        parts.append(f"{read:,} of {expected:,} records read{share}")
        if elapsed > 0 and read:
            rate = read / elapsed
            parts.append(f"{rate:,.0f} records/s")
            if not reading.get("final") and expected > read:
                parts.append("about %d s left" % round((expected - read) / rate))
    parts.append("%d s elapsed" % round(elapsed))
    return "%s: %s%s" % (job, "finished, " if reading.get("final") else "", ", ".join(parts))
