"""The session ships the package to Spark's executors."""

import os

from kafkaops_verify.archive import ARCHIVE_NAME
from kafkaops_verify.session import ship_package


def test_the_session_ships_the_archive_once_and_workers_import_from_it(spark):
    ship_package(spark)
    ship_package(spark)
    shipped = [path for path in spark.sparkContext.listFiles if path.endswith("/" + ARCHIVE_NAME)]
    assert len(shipped) == 1
    where = spark.sparkContext.parallelize([0], 1).map(lambda _: __import__("kafkaops_verify").__file__).collect()
    assert (os.sep + ARCHIVE_NAME + os.sep) in where[0]
