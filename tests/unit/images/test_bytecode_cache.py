"""The test image's bytecode cache for the modules Ansible sends (images/systemd-java/kafkaops_bytecode_cache.py).

Each check runs in a Python process of its own, so that the zipimport it changes is that process's only:
a zip named as Ansible names its payloads is imported twice, the second time from the cache.
"""

import os
import subprocess
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE_MODULE = os.path.abspath(os.path.join(HERE, "..", "..", "..", "images", "systemd-java"))

# Imports the cache module with its folder pointed at argv[1], counts the compiles, imports `payload` from the
# zip at argv[2] and prints what a test reads back.
PROBE = """
import sys, zipimport
sys.path.insert(0, %r)
import kafkaops_bytecode_cache as cache
cache.FOLDER = sys.argv[1]
compiles = []
def counting(pathname, source):
    compiles.append(pathname)
    return compile(source, pathname, "exec", dont_inherit=True)
cache.install(counting)
sys.path.insert(0, sys.argv[2])
import payload
print(payload.answer(), len(compiles), payload.answer.__code__.co_filename)
""" % CACHE_MODULE


def _zip(folder, name, source):
    path = os.path.join(str(folder), name)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("payload.py", source)
    return path


def _probe(cache_folder, archive):
    completed = subprocess.run([sys.executable, "-c", PROBE, str(cache_folder), archive], capture_output=True,
                               text=True, check=True)
    answer, compiles, filename = completed.stdout.split()
    return int(answer), int(compiles), filename


def test_the_second_import_loads_the_kept_code_under_its_own_file_name(tmp_path):
    cache = tmp_path / "cache"
    source = "def answer():\n    return 42\n"
    first = _zip(tmp_path, "ansible_stat_payload.zip", source)
    assert _probe(cache, first) == (42, 1, first + "/payload.py")
    assert len(os.listdir(cache)) == 1
    (tmp_path / "other").mkdir()
    second = _zip(tmp_path / "other", "ansible_stat_payload.zip", source)
    assert _probe(cache, second) == (42, 0, second + "/payload.py")


def test_changed_source_is_compiled_again(tmp_path):
    cache = tmp_path / "cache"
    _probe(cache, _zip(tmp_path, "ansible_a_payload.zip", "def answer():\n    return 1\n"))
    (tmp_path / "b").mkdir()
    assert _probe(cache, _zip(tmp_path / "b", "ansible_a_payload.zip", "def answer():\n    return 2\n"))[:2] == (2, 1)
    assert len(os.listdir(cache)) == 2


def test_other_zips_and_a_folder_others_can_write_are_left_alone(tmp_path):
    cache = tmp_path / "cache"
    # Python's zipimport compiles a module twice per import (for its file name, then for its code): without the
    # cache both compiles happen.
    assert _probe(cache, _zip(tmp_path, "library.zip", "def answer():\n    return 3\n"))[:2] == (3, 2)
    assert not cache.exists()
    cache.mkdir(mode=0o777)
    os.chmod(cache, 0o777)
    for attempt in range(2):
        folder = tmp_path / ("run%d" % attempt)
        folder.mkdir()
        assert _probe(cache, _zip(folder, "ansible_x_payload.zip", "def answer():\n    return 4\n"))[:2] == (4, 2)
    assert os.listdir(cache) == []
