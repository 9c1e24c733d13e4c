"""The Spark jobs' progress readings as the operator reads them."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._job_progress import describe_job_progress


@pytest.mark.parametrize("reading, line", [
    (dict(job="verify", elapsed=23.0, tasks_done=7, tasks=12, records_read=1200000, records_expected=3000000),
     "verify: 7 of 12 tasks done, 1,200,000 of 3,000,000 records read (40%), 52,174 records/s, about 34 s left,"
     " 23 s elapsed"),
    (dict(job="verify", elapsed=57.3, tasks_done=12, tasks=12, records_read=3000000, records_expected=3000000,
          final=True),
     "verify: finished, 12 of 12 tasks done, 3,000,000 of 3,000,000 records read (100%), 52,356 records/s,"
     " 57 s elapsed"),
    # Nothing read yet: no rate and no time left to give.
    (dict(job="verify", elapsed=4.0, tasks_done=0, tasks=0, records_read=0, records_expected=500),
     "verify: 0 of 0 tasks done, 0 of 500 records read (0%), 4 s elapsed"),
    (dict(job="verify", elapsed=1.0, tasks_done=0, tasks=0, records_read=0, records_expected=0),
     "verify: 0 of 0 tasks done, 0 of 0 records read, 1 s elapsed"),
    # The producer knows no records to read.
    (dict(job="bulk_produce", elapsed=12.4, tasks_done=3, tasks=8), "bulk_produce: 3 of 8 tasks done, 12 s elapsed"),
    # A reading the job could not take says why, and the job goes on.
    (dict(job="verify", elapsed=10.2, error="Py4JError: gone"), "verify: no reading at 10 s (Py4JError: gone)"),
])
def test_a_reading_reads_as_one_line(reading, line):
    assert describe_job_progress(reading) == line
