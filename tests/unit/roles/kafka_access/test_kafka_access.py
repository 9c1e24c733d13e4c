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

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
ADMIN_PASSWORD = "admin-Password-4d1f"
USER_PASSWORD = "orders-Password-9c2e"


def _start(tmp_path, variables):
    inventory = tmp_path / "inventory.ini"
    inventory.write_text("[kafka_broker]\nbroker-1\nbroker-2\n[all:vars]\nansible_connection=local\n"
                         "ansible_python_interpreter=%s\n" % sys.executable)
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(REPOSITORY, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_COLLECTIONS_PATH=os.path.join(REPOSITORY, ".cache", "collections"))
    # Under PYTHONUNBUFFERED (which some shells and images set) each module's Python would read the payload
    # Ansible pipes to it one byte per system call. Left out here; ansible-playbook alone runs unbuffered
    # (python -u), so that its output and its warnings keep their order in the one pipe the test reads.
    env.pop("PYTHONUNBUFFERED", None)
    extra = dict(variables, admin_password=ADMIN_PASSWORD)
    command = [sys.executable, "-u", os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-vvv",
               "-i", str(inventory), os.path.join(HERE, "access_playbook.yml"), "-e", json.dumps(extra)]
    return subprocess.Popen(command, env=env, cwd=REPOSITORY, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
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
