"""The session ships the package to Spark's executors, takes the user's Spark settings and tells where it ran."""

import json
import os
import re
import time

import pytest
from kafkaops_verify.archive import ARCHIVE_NAME
from kafkaops_verify.bulk_produce import argument_parser as bulk_parser
from kafkaops_verify.progress import following, stage_totals
from kafkaops_verify.session import executor_addresses, ship_package, spark_settings
from kafkaops_verify.verify import argument_parser as verify_parser


def test_the_session_ships_the_archive_once_and_workers_import_from_it(spark):
    ship_package(spark)
    ship_package(spark)
    shipped = [path for path in spark.sparkContext.listFiles if path.endswith("/" + ARCHIVE_NAME)]
    assert len(shipped) == 1
    where = spark.sparkContext.parallelize([0], 1).map(lambda _: __import__("kafkaops_verify").__file__).collect()
    assert (os.sep + ARCHIVE_NAME + os.sep) in where[0]


def test_spark_settings_are_name_value_pairs_of_spark_names():
    assert spark_settings(["spark.driver.host=10.0.0.1", "spark.executor.memory=1g"]) == {
        "spark.driver.host": "10.0.0.1",
        "spark.executor.memory": "1g",
    }
    assert spark_settings([]) == {}


@pytest.mark.parametrize(
    "pair, message",
    [
        ("driver.host=10.0.0.1", "--spark-setting driver.host: Spark settings start with 'spark.'"),
        ("spark.driver.host", "--spark-setting must be NAME=VALUE, not 'spark.driver.host'"),
    ],
)
def test_a_bad_spark_setting_is_refused_naming_it(pair, message):
    with pytest.raises(SystemExit, match=re.escape(message)):
        spark_settings([pair])


def test_both_jobs_take_spark_settings():
    verify_args = verify_parser().parse_args(
        ["--bootstrap-servers", "b:9092", "--report", "r", "--spark-setting", "spark.cores.max=2"]
    )
    bulk_args = bulk_parser().parse_args(
        ["--bootstrap-servers", "b:9092", "--topic", "t", "--records", "1", "--manifest", "m",
         "--spark-setting", "spark.cores.max=2"]
    )
    assert verify_args.spark_setting == bulk_args.spark_setting == ["spark.cores.max=2"]


def test_a_local_session_has_no_executor_of_its_own(spark):
    # On a local master the driver runs the tasks: nothing else registered.
    assert executor_addresses(spark) == []


def test_a_running_job_appends_readings_and_a_final_one(spark, tmp_path):
    path = tmp_path / "progress.jsonl"
    with following(spark, str(path), "verify", records_expected=0, interval=0.2):
        spark.sparkContext.parallelize(range(4), 4).map(lambda number: time.sleep(0.5) or number).collect()
    readings = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(readings) >= 2 and readings[-1]["final"] and not any(entry["final"] for entry in readings[:-1])
    assert readings[-1]["tasks_done"] == readings[-1]["tasks"] >= 4
    assert readings[-1]["job"] == "verify" and readings[-1]["records_expected"] == 0


def test_without_a_file_nothing_is_followed(spark):
    with following(spark, "", "verify") as progress:
        assert progress is None


def test_stage_totals_leave_out_skipped_stages_and_count_records_once():
    stages = [
        dict(status="COMPLETE", numTasks=12, numCompleteTasks=12, inputRecords=3000),
        dict(status="ACTIVE", numTasks=4, numCompleteTasks=1, inputRecords=0),
        dict(status="SKIPPED", numTasks=12, numCompleteTasks=0, inputRecords=3000),
    ]
    assert stage_totals(stages) == (13, 16, 3000)
