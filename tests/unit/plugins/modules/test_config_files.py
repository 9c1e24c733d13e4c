"""The file logic of the config_files module, on a temporary folder."""

import os
import stat

import pytest
from ansible_collections.kafkaops.cluster.plugins.modules import config_files

OWNER = (os.getuid(), os.getgid())


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("check_mode", [True, False])
def test_new_file_is_created_unless_check_mode(tmp_path, check_mode):
    dest = str(tmp_path / "server.properties")
    created, existing, changes = config_files.ensure_file(dest, b"a=1\n", OWNER + (0o640,), check_mode)
    assert (created, existing, changes) == (True, None, [])
    assert os.path.exists(dest) is not check_mode
    if not check_mode:
        assert _mode(dest) == 0o640
        assert open(dest, "rb").read() == b"a=1\n"


def test_same_content_and_attributes_change_nothing(tmp_path):
    dest = tmp_path / "zoo.cfg"
    dest.write_bytes(b"tickTime=2000\n")
    os.chmod(dest, 0o640)
    before = os.stat(dest).st_ino
    result = config_files.ensure_file(str(dest), b"tickTime=2000\n", OWNER + (0o640,), False)
    assert result == (False, b"tickTime=2000\n", [])
    assert os.stat(dest).st_ino == before


def test_drifted_content_is_replaced_and_keeps_the_mode(tmp_path):
    dest = tmp_path / "zoo.cfg"
    dest.write_bytes(b"tickTime=1\n")
    os.chmod(dest, 0o600)
    created, existing, changes = config_files.ensure_file(str(dest), b"tickTime=2000\n", (None, None, None), False)
    assert (created, existing, changes) == (False, b"tickTime=1\n", [])
    assert dest.read_bytes() == b"tickTime=2000\n"
    assert _mode(dest) == 0o600
    assert os.listdir(tmp_path) == ["zoo.cfg"]


def test_mode_drift_is_reported_and_fixed_only_outside_check_mode(tmp_path):
    dest = tmp_path / "log4j.properties"
    dest.write_bytes(b"x\n")
    os.chmod(dest, 0o600)
    assert config_files.ensure_file(str(dest), b"x\n", (None, None, 0o644), True)[2] == [("mode", "0600", "0644")]
    assert _mode(dest) == 0o600
    config_files.ensure_file(str(dest), b"x\n", (None, None, 0o644), False)
    assert _mode(dest) == 0o644


def test_directories_are_created_with_parents(tmp_path):
    path = str(tmp_path / "var" / "lib" / "kafka")
    assert config_files.ensure_directory(path, (None, None, 0o750), True) == (True, [])
    assert not os.path.exists(path)
    assert config_files.ensure_directory(path, (None, None, 0o750), False) == (True, [])
    assert _mode(path) == 0o750
    assert config_files.ensure_directory(path, (None, None, 0o750), False) == (False, [])


def test_a_file_where_a_folder_belongs_is_refused(tmp_path):
    (tmp_path / "taken").write_text("")
    with pytest.raises(config_files.ConfigFilesError, match="not a folder"):
        config_files.ensure_directory(str(tmp_path / "taken"), (None, None, None), False)


@pytest.mark.parametrize("value, expected", [("0640", 0o640), ("644", 0o644), (0o750, 0o750), (None, None)])
def test_modes(value, expected):
    assert config_files._mode(value, "files[0].mode") == expected


@pytest.mark.parametrize("value", ["u=rw", "9999", "77777"])
def test_bad_modes_name_the_field(value):
    with pytest.raises(config_files.ConfigFilesError, match=r"^files\[0\]\.mode: "):
        config_files._mode(value, "files[0].mode")


def test_unknown_owner_names_the_field():
    with pytest.raises(config_files.ConfigFilesError, match=r"^files\[2\]\.owner: no user named"):
        config_files._user_id("no-such-user-kafkaops", "files[2].owner")
