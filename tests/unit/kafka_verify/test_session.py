"""The package travels to Spark's executors as a zip built at run time."""

import os
import subprocess
import sys
import zipfile

import kafkaops_verify
from kafkaops_verify.session import ARCHIVE_NAME, package_archive, ship_package

PACKAGE_FOLDER = os.path.dirname(kafkaops_verify.__file__)


def package_sources():
    sources = set()
    for folder, _subfolders, files in os.walk(PACKAGE_FOLDER):
        relative = os.path.relpath(folder, os.path.dirname(PACKAGE_FOLDER))
        sources.update(os.path.join(relative, name) for name in files if name.endswith(".py"))
    return sources


def test_the_archive_holds_every_module_and_no_bytecode(tmp_path):
    path = package_archive(str(tmp_path))
    assert os.path.basename(path) == ARCHIVE_NAME
    names = set(zipfile.ZipFile(path).namelist())
    assert names == package_sources()
    assert {"kafkaops_verify/__init__.py", "kafkaops_verify/engines/partition_scan.py"} <= names


def test_the_archive_depends_on_the_sources_alone(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    with open(package_archive(str(first)), "rb") as one, open(package_archive(str(second)), "rb") as other:
        assert one.read() == other.read()


def test_a_python_with_only_the_archive_imports_the_workers_side(tmp_path):
    path = package_archive(str(tmp_path))
    # -S and an empty folder: no site-packages, no repository; only the archive can provide the package.
    code = "import kafkaops_verify.engines.partition_scan as module; print(module.__file__)"
    completed = subprocess.run([sys.executable, "-S", "-c", code], cwd=tmp_path, env={"PYTHONPATH": path},
                               capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == os.path.join(path, "kafkaops_verify", "engines", "partition_scan.py")


def test_the_session_ships_the_archive_once_and_workers_import_from_it(spark):
    ship_package(spark)
    ship_package(spark)
    shipped = [path for path in spark.sparkContext.listFiles if path.endswith("/" + ARCHIVE_NAME)]
    assert len(shipped) == 1
    where = spark.sparkContext.parallelize([0], 1).map(lambda _: __import__("kafkaops_verify").__file__).collect()
    assert (os.sep + ARCHIVE_NAME + os.sep) in where[0]
