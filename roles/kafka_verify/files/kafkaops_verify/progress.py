"""Readings of a running job for the operator, every few seconds while Spark works.

A job's result reaches the play only when it ends, and a verification of a large topic can run for
many minutes. With --progress-file, a thread of the job appends a reading (JSON, one per line) every
--progress-interval seconds and one when the job ends: tasks done of all tasks so far, and for the
verification the records read of those it will read (Spark's input metrics, which running tasks report
at each executor heartbeat). The kafkaops.cluster.spark_job action shows them in the play's output.

The figures come from the driver's status store (what Spark's UI shows, kept with or without the UI),
so they hold for any master.
"""

import contextlib
import json
import threading
import time


def stage_totals(stages):
    """(tasks done, tasks, records read) over a job's stages as Spark's REST API lists them.

    Skipped stages ran nothing. Records read is the most any stage read: the checks read the topics in
    one stage, and a later stage reading cached or shuffled rows must not count them twice.
    """
    done = total = records = 0
    for stage in stages:
        if stage.get("status") == "SKIPPED":
            continue
        done += stage.get("numCompleteTasks", 0)
        total += stage.get("numTasks", 0)
        records = max(records, stage.get("inputRecords", 0))
    return done, total, records


def reading(job, elapsed, stages, records_expected=None, final=False):
    """One reading: the job, seconds since it started, tasks and (when known) records."""
    done, total, records = stage_totals(stages)
    entry = {"job": job, "elapsed": round(elapsed, 1), "tasks_done": done, "tasks": total, "final": final}
    if records_expected is not None:
        entry.update({"records_read": records, "records_expected": records_expected})
    return entry


def application_stages(spark):
    """The stages of the session's application, from the driver's status store (what Spark's UI and
    its REST API show, kept whether the UI runs or not), as the REST API's stage fields."""
    context = spark.sparkContext
    gateway = context._gateway
    # AppStatusStore.stageList(statuses, details, withSummaries, unsortedQuantiles, taskStatus): every stage.
    no_quantiles = gateway.new_array(gateway.jvm.double, 0)
    stages = context._jsc.sc().statusStore().stageList(None, False, False, no_quantiles, None)
    listed = []
    for index in range(stages.size()):
        stage = stages.apply(index)
        listed.append(
            {
                "status": stage.status().toString(),
                "numTasks": stage.numTasks(),
                "numCompleteTasks": stage.numCompleteTasks(),
                "inputRecords": stage.inputRecords(),
            }
        )
    return listed


class ProgressFile(threading.Thread):
    """Appends a reading to `path` every `interval` seconds until stopped, and a final one then."""

    def __init__(self, spark, path, job, records_expected=None, interval=10.0, stages=application_stages):
        super().__init__(name="kafkaops-progress", daemon=True)
        self.spark, self.path, self.job = spark, path, job
        self.records_expected, self.interval, self.stages = records_expected, interval, stages
        self.started = time.monotonic()
        self.stopping = threading.Event()

    def write(self, final=False):
        elapsed = time.monotonic() - self.started
        try:
            entry = reading(self.job, elapsed, self.stages(self.spark), self.records_expected, final)
        except Exception as error:  # noqa: BLE001 - a missed reading is no reason to fail the job
            entry = {"job": self.job, "elapsed": round(elapsed, 1), "final": final, "error": str(error)[:300]}
        with open(self.path, "a") as stream:
            stream.write(json.dumps(entry, sort_keys=True) + "\n")

    def run(self):
        while not self.stopping.wait(self.interval):
            self.write()

    def stop(self):
        self.stopping.set()
        self.join()
        self.write(final=True)


@contextlib.contextmanager
def following(spark, path, job, records_expected=None, interval=10.0):
    """Readings in `path` while the block runs, and a final one after it; nothing when path is empty."""
    if not path:
        yield None
        return
    progress = ProgressFile(spark, path, job, records_expected, interval)
    progress.start()
    try:
        yield progress
    finally:
        progress.stop()


def add_progress_options(parser):
    parser.add_argument("--progress-file", default="", help="append a JSON reading of the job's progress here")
    parser.add_argument(
        "--progress-interval", type=float, default=10.0, help="seconds between readings in --progress-file (10)"
    )
