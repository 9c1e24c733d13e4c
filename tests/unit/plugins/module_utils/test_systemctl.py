"""Asking systemctl for a unit's properties and reading its KEY=value answer."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._systemctl import parse_show, show_command


def test_the_command_names_the_properties_and_keeps_the_unit_a_name():
    assert show_command("/usr/bin/systemctl", "-odd-unit", ("LoadState", "ActiveState")) == [
        "/usr/bin/systemctl", "show", "--property=LoadState,ActiveState", "--", "-odd-unit"]


@pytest.mark.parametrize("text, expected", [
    ("LoadState=loaded\nActiveState=active\n", {"LoadState": "loaded", "ActiveState": "active"}),
    # A property systemd has no value for is printed empty; a value may hold '=' itself.
    ("UnitFileState=\nExecStart=java -Dkafka.logs.dir=/var/log/kafka\n",
     {"UnitFileState": "", "ExecStart": "java -Dkafka.logs.dir=/var/log/kafka"}),
    (" NRestarts = 3 \r\nnot a property\n\n", {"NRestarts": "3"}),
    ("", {}),
], ids=["plain", "empty-and-equals-in-value", "spaces-and-stray-lines", "nothing"])
def test_the_answer_is_read_as_properties(text, expected):
    assert parse_show(text) == expected
