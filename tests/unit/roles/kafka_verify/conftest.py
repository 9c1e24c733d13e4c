"""One small local SparkSession for every test of the verifier."""

import os
import sys

import pytest
from pyspark.sql import SparkSession


@pytest.fixture(scope="session")
def spark():
    # The scan engine's Python workers need this interpreter's pyarrow and numpy; PySpark reads
    # the worker's interpreter from the environment only. Nothing here puts the package on the
    # workers' path: they import it from the copy the scan ships (session.ship_package), as on a cluster.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[1]")
        .appName("kafkaops_verify tests")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        # Compiling generated code costs more than it saves on a few rows.
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.driver.memory", "512m")
        # A short-lived JVM: the quick JIT tier and a simple collector spend less CPU than they save.
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
