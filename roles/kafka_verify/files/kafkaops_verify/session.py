"""The Spark session the jobs start, and the package shipped with it to Spark's executors.

Spark's Python workers import the functions a job hands them by module name (the scan engine's
worker side, engines.partition_scan). With a local master they run on this host and may find the
package in the folder the job started from; on a cluster (spark://, yarn, k8s://) they run on hosts
that hold no copy of it. So the package goes with the session: zipped at run time from the modules
this process runs, added with SparkContext.addPyFile, which copies it to every executor and puts it
on its Python workers' path.
"""

import atexit
import os
import shutil
import sys
import tempfile
import zipfile

PACKAGE = __name__.rpartition(".")[0]
ARCHIVE_NAME = PACKAGE + ".zip"
# A fixed date makes the archive's bytes depend on the sources alone.
_ARCHIVE_DATE = (1980, 1, 1, 0, 0, 0)


def package_archive(directory):
    """Writes the package's Python sources (no bytecode) to <directory>/kafkaops_verify.zip, with paths
    from the package's parent folder, as zipimport needs; returns the archive's path."""
    package_folder = os.path.dirname(os.path.abspath(__file__))
    parent = os.path.dirname(package_folder)
    path = os.path.join(directory, ARCHIVE_NAME)
    with zipfile.ZipFile(path, "w") as archive:
        for folder, subfolders, files in os.walk(package_folder):
            subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
            for name in sorted(files):
                if not name.endswith(".py"):
                    continue
                source = os.path.join(folder, name)
                entry = zipfile.ZipInfo(os.path.relpath(source, parent), _ARCHIVE_DATE)
                entry.compress_type = zipfile.ZIP_DEFLATED
                entry.external_attr = 0o644 << 16
                with open(source, "rb") as stream:
                    archive.writestr(entry, stream.read())
    return path


def ship_package(spark):
    """Puts the package on the Python path of every executor of the session; once per SparkContext."""
    context = spark.sparkContext
    if any(path.endswith("/" + ARCHIVE_NAME) for path in context.listFiles):
        return
    # Spark serves the file from where it was added for the whole session, so it stays until exit.
    directory = tempfile.mkdtemp(prefix="kafkaops-verify-")
    atexit.register(shutil.rmtree, directory, True)
    context.addPyFile(package_archive(directory))


def build_session(master, app_name, jars="", settings=None, driver_memory=""):
    """A SparkSession with the connector jars and the package on every executor.

    jars: comma-separated paths for spark.jars; settings: further Spark settings, {name: value}.
    """
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName(app_name).config("spark.ui.showConsoleProgress", "true")
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
