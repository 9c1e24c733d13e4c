"""The package as one zip: what the role copies and what Spark ships to executors."""

import os
import shutil
import subprocess
import sys
import zipfile

import kafkaops_verify
from kafkaops_verify.archive import ARCHIVE_NAME, loaded_archive, package_archive

PACKAGE_FOLDER = os.path.dirname(kafkaops_verify.__file__)


def package_sources():
    sources = set()
    for folder, _subfolders, files in os.walk(PACKAGE_FOLDER):
        relative = os.path.relpath(folder, os.path.dirname(PACKAGE_FOLDER))
        sources.update(os.path.join(relative, name) for name in files if name.endswith(".py"))
    return sources


def bare_python(code, archive, folder):
    """Runs code in an interpreter without site-packages, in an empty folder, with only the archive on its path."""
    return subprocess.run([sys.executable, "-S", "-c", code], cwd=folder, env={"PYTHONPATH": archive},
                          capture_output=True, text=True, check=False)


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


def test_a_python_with_only_the_archive_imports_the_workers_side_and_knows_its_archive(tmp_path):
    path = package_archive(str(tmp_path))
    code = ("import kafkaops_verify.engines.partition_scan as module, kafkaops_verify.archive as archive;"
            " print(module.__file__); print(archive.loaded_archive())")
    completed = bare_python(code, path, tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == [os.path.join(path, "kafkaops_verify", "engines", "partition_scan.py"), path]
    assert loaded_archive() is None


def test_the_command_line_writes_the_archive_and_prints_its_path(tmp_path):
    completed = subprocess.run([sys.executable, "-m", "kafkaops_verify.archive", str(tmp_path)],
                               cwd=os.path.dirname(PACKAGE_FOLDER), capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == str(tmp_path / ARCHIVE_NAME)
    assert set(zipfile.ZipFile(completed.stdout.strip()).namelist()) == package_sources()


def test_the_command_line_without_a_folder_writes_into_a_new_temporary_one():
    completed = subprocess.run([sys.executable, "-m", "kafkaops_verify.archive"],
                               cwd=os.path.dirname(PACKAGE_FOLDER), capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
    path = completed.stdout.strip()
    try:
        assert os.path.basename(path) == ARCHIVE_NAME
        assert os.path.basename(os.path.dirname(path)).startswith("kafkaops-verify-archive.")
        assert set(zipfile.ZipFile(path).namelist()) == package_sources()
    finally:
        shutil.rmtree(os.path.dirname(path))
