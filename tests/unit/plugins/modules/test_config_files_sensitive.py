"""config_files: a file marked sensitive never shows its content, the other files still show their diffs."""

import json

import pytest
from ansible.module_utils.testing import patch_module_args
from ansible_collections.kafkaops.cluster.plugins.modules import config_files

SECRET = "ssl.keystore.password=s3cr3t-kafkaops\n"
OLD_SECRET = "ssl.keystore.password=older-s3cr3t\n"


def _run(args, capsys):
    with patch_module_args(args), pytest.raises(SystemExit):
        config_files.main()
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("check_mode", [True, False])
def test_a_sensitive_file_shows_neither_the_new_nor_the_old_content(tmp_path, capsys, check_mode):
    secret = tmp_path / "keystore.properties"
    secret.write_text(OLD_SECRET)
    plain = tmp_path / "server.properties"
    result = _run({"files": [{"dest": str(secret), "content": SECRET, "sensitive": True},
                             {"dest": str(plain), "content": "broker.id=1\n"}],
                   "_ansible_check_mode": check_mode, "_ansible_diff": True}, capsys)
    output = json.dumps(result)
    assert "s3cr3t" not in output
    assert result["changed_paths"] == [str(secret), str(plain)]
    assert result["diff"][0]["before"] == config_files.HIDDEN_CONTENT
    assert result["diff"][0]["after"] == config_files.CHANGED_HIDDEN_CONTENT
    assert result["diff"][1]["after"] == "broker.id=1\n"
    assert secret.read_text() == (OLD_SECRET if check_mode else SECRET)


def test_a_new_sensitive_file_and_a_mode_change_show_no_content(tmp_path, capsys):
    secret = tmp_path / "jaas.conf"
    result = _run({"files": [{"dest": str(secret), "content": SECRET, "sensitive": True, "mode": "0600"}],
                   "_ansible_diff": True}, capsys)
    assert result["diff"][0]["before"] == "" and result["diff"][0]["after"] == config_files.HIDDEN_CONTENT
    secret.chmod(0o640)
    result = _run({"files": [{"dest": str(secret), "content": SECRET, "sensitive": True, "mode": "0600"}],
                   "_ansible_diff": True}, capsys)
    assert result["diff"][0] == {"before_header": str(secret), "after_header": str(secret),
                                 "before": "mode: 0640\n", "after": "mode: 0600\n"}
    assert "s3cr3t" not in json.dumps(result)


def test_an_unrendered_template_is_refused(tmp_path, capsys):
    result = _run({"files": [{"dest": str(tmp_path / "zoo.cfg"), "template": "zoo.cfg.j2"}]}, capsys)
    assert result["failed"] and result["msg"].startswith("files[0].template: "), result
    assert list(tmp_path.iterdir()) == []


def test_content_or_template_is_required(tmp_path, capsys):
    result = _run({"files": [{"dest": str(tmp_path / "zoo.cfg")}]}, capsys)
    assert result["failed"] and "content" in result["msg"] and "template" in result["msg"], result
