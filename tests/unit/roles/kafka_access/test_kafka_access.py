"""The kafka_access role, run by ansible-playbook on the controller against an address where no broker listens.

What can be proven without a cluster: the role logs in as the kafka_broker role's admin connection says,
a failure of the users' task (no_log) still shows kafka_user's own message, the preflight names the
variable at fault, and no password shows in any of Ansible's output, even at -vvv.
"""

import json
import os
import subprocess
import sys

import pytest
from ansible_collections.kafkaops.cluster.tests.unit.roles.playbook_runs import (REPOSITORY, playbook_command,
                                                                                 playbook_environment)

HERE = os.path.dirname(os.path.abspath(__file__))
ADMIN_PASSWORD = "admin-Password-4d1f"
USER_PASSWORD = "orders-Password-9c2e"


def _start(tmp_path, variables):
    inventory = tmp_path / "inventory.ini"
    inventory.write_text("[kafka_broker]\nbroker-1\nbroker-2\n[all:vars]\nansible_connection=local\n"
                         "ansible_python_interpreter=%s\n" % sys.executable)
    extra = dict(variables, admin_password=ADMIN_PASSWORD)
    command = playbook_command("-vvv", "-i", str(inventory), os.path.join(HERE, "access_playbook.yml"), "-e",
                               json.dumps(extra), unbuffered=True)
    return subprocess.Popen(command, env=playbook_environment(), cwd=REPOSITORY, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT,
                            text=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Both runs at the same time; each fails, for its own reason."""
    started = {
        "unreachable": _start(tmp_path_factory.mktemp("unreachable"), {
            "kafka_access_users": [{"name": "orders", "password": USER_PASSWORD}]}),
        "refused": _start(tmp_path_factory.mktemp("refused"), {
            "kafka_access_users": [{"name": "orders", "password": USER_PASSWORD}, {"name": "reports"}],
            "kafka_access_acls": [{"principal": "User:orders", "operation": "read", "resource_type": "topic",
                                   "resource_name": "orders"}]}),
    }
    outputs = {}
    for name, process in started.items():
        outputs[name] = process.communicate(timeout=600)[0]
        assert process.returncode != 0, outputs[name]
    return outputs


def test_the_users_failure_shows_the_module_message_and_the_connection_of_the_brokers(runs):
    output = runs["unreachable"]
    # Every broker's client address, and the protocol of the admin connection.
    assert ("kafka_access_users: could not connect to any of 127.0.0.1:1, 127.0.0.1:2 within 1 s (SASL_PLAINTEXT)"
            in output)


def test_the_preflight_names_the_variable_and_the_user_without_a_password(runs):
    output = runs["refused"]
    assert ("kafka_access_users: a password is needed for every user whose state is present; these have none: "
            "reports") in output
    assert "Apply the declared" not in output


@pytest.mark.parametrize("password", [ADMIN_PASSWORD, USER_PASSWORD])
def test_no_password_shows(runs, password):
    for name, output in runs.items():
        assert password not in output, name
