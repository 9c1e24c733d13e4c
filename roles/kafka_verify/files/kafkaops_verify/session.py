"""The Spark session the jobs start, and the package shipped with it to Spark's executors.

Spark's Python workers import the functions a job hands them by module name (the scan engine's
worker side, engines.partition_scan). With a local master they run on this host and may find the
package in the folder the job started from; on a cluster (spark://, yarn, k8s://) they run on hosts
that hold no copy of it. So the package goes with the session as a zip (archive.py), added with
SparkContext.addPyFile, which copies it to every executor and puts it on its Python workers' path.
A job run from the archive itself (as the role runs them) ships that very file.
"""

import atexit
import os
import shutil
import sys
import tempfile

from kafkaops_verify.archive import ARCHIVE_NAME, loaded_archive, package_archive
from kafkaops_verify.options import add_pairs_option, parse_options

SPARK_SETTING_HELP = (
    "a Spark setting for the job's session, e.g. spark.executor.memory=1g; on a cluster master the"
    " executors must reach this host: spark.driver.host=<its address on their network>"
)


def add_spark_setting_option(parser):
    """Declares --spark-setting NAME=VALUE (repeatable); read it with spark_settings."""
    add_pairs_option(parser, "--spark-setting", SPARK_SETTING_HELP)


def spark_settings(pairs):
    """The --spark-setting pairs as {name: value}; a name that is not a Spark setting is refused."""
    settings = parse_options(pairs, "--spark-setting")
    for name in settings:
        if not name.startswith("spark."):
            raise SystemExit("--spark-setting %s: Spark settings start with 'spark.'" % name)
    return settings


def executor_addresses(spark):
    """host:port of every executor registered with the session, the driver left out: empty on a local
    master, where the driver runs the tasks itself. Recorded in the reports, so that a run on a cluster
    shows where it ran."""
    context = spark.sparkContext._jsc.sc()
    driver = context.env().blockManager().blockManagerId().hostPort()
    registered = context.getExecutorMemoryStatus().keys().mkString(",").split(",")
    return sorted(address for address in registered if address and address != driver)


def ship_package(spark):
    """Puts the package on the Python path of every executor of the session; once per SparkContext."""
    context = spark.sparkContext
    archive = loaded_archive()
    name = os.path.basename(archive) if archive else ARCHIVE_NAME
    if any(path.endswith("/" + name) for path in context.listFiles):
        return
    if archive is None:
        # Spark serves the file from where it was added for the whole session, so it stays until exit.
        directory = tempfile.mkdtemp(prefix="kafkaops-verify-")
        atexit.register(shutil.rmtree, directory, True)
        archive = package_archive(directory)
    context.addPyFile(archive)


# Spark hides the values of settings and data source options whose name or value matches this, in
# its logs, UI and event logs. Its default covers secret|password|token|access key; the Kafka login
# (kafka.sasl.jaas.config, which holds the password) and a client's PEM key (kafka.ssl.keystore.key)
# match neither, so they are added.
REDACTION_REGEX = r"(?i)secret|password|token|access[.]?key|jaas|keystore[.]key"


def build_session(master, app_name, jars="", settings=None, driver_memory=""):
    """A SparkSession with the connector jars, the package on every executor and Kafka's secrets redacted.

    jars: comma-separated paths for spark.jars; settings: further Spark settings, {name: value}.
    """
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.showConsoleProgress", "true")
        .config("spark.redaction.regex", REDACTION_REGEX)
    )
    for name, value in (settings or {}).items():
        builder = builder.config(name, value)
    if jars:
        builder = builder.config("spark.jars", jars)
    if master.startswith("local"):
        # Local workers run on this host: the interpreter running the job has pyarrow and numpy,
        # whatever python3 is first on PATH. PySpark reads the workers' interpreter from the
        # environment only.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if driver_memory:
        # Only takes effect when this process starts the JVM (python -m, not spark-submit).
        builder = builder.config("spark.driver.memory", driver_memory)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    ship_package(spark)
    return spark
