"""The kafka_verify role keeps secrets off the jobs' command lines and out of task output.

The password and the extra client settings (which may hold secrets) reach the jobs only through the
connection file, written by one task with no_log and a mode only the jobs' user can read.
"""

import os
import re

import yaml

ROLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "roles", "kafka_verify")
# Variables that carry a secret, or a mapping that may.
SECRET_VARIABLES = ("kafka_verify_sasl_password", "kafka_verify_kafka_options", "kafka_verify_client_options",
                    "__kafka_verify_connection", "kafkaops_connection")
RUNS = ("ansible.builtin.command", "ansible.builtin.shell", "ansible.builtin.script", "kafkaops.cluster.spark_job")


def names_a_secret(task, variables=SECRET_VARIABLES):
    text = yaml.safe_dump(task)
    return [variable for variable in variables if re.search(r"\b%s\b" % variable, text)]


def role_tasks():
    """(file, task) for every task of the role; a block's tasks rather than the block."""
    folder = os.path.join(ROLE, "tasks")
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name)) as stream:
            pending = list(yaml.safe_load(stream) or [])
        while pending:
            task = pending.pop(0)
            sections = [task[section] for section in ("block", "rescue", "always") if section in task]
            for section in sections:
                pending.extend(section)
            if not sections:
                yield name, task


def test_no_command_a_job_runs_with_names_a_secret():
    commands = [(name, task) for name, task in role_tasks() if any(run in task for run in RUNS)]
    assert {name for name, _task in commands} >= {"bulk_produce.yml", "main.yml", "steady_start.yml"}
    for name, task in commands:
        assert not names_a_secret(task), (name, task["name"])
        assert "environment" not in task or "password" not in str(task["environment"]), (name, task["name"])


def test_only_the_connection_file_task_handles_the_secrets_and_it_hides_them():
    # The asserts of the preflight only test that a password is given; their messages never show it.
    handling = [(name, task) for name, task in role_tasks()
                if names_a_secret(task, SECRET_VARIABLES[:4]) and "ansible.builtin.assert" not in task]
    assert [task["name"] for _name, task in handling] == ["Write the connection file"]
    (_name, task), = handling
    assert task["no_log"] is True
    assert task["ansible.builtin.copy"]["mode"] == "0600"


def test_the_jobs_are_handed_the_connection_file():
    # The foreground jobs' options, from which the filter kafka_verify_job_argv makes their command lines.
    jobs = [task for _name, task in role_tasks()
            if "kafka_verify_job_argv" in str(task.get("kafkaops.cluster.spark_job"))]
    assert len(jobs) == 2
    for task in jobs:
        options = [value for name, value in task["vars"].items() if name.endswith("_options")]
        assert len(options) == 1 and options[0]["--connection-file"] == "{{ __kafka_verify_connection_file }}"
        assert not names_a_secret(options[0])
    # The producers' command lines come from the filter kafka_verify_producer_starts, which puts the connection
    # file given here on each (tests/unit/plugins/filter/test_kafka_verify.py).
    chosen = [task for _name, task in role_tasks() if task["name"] == "Choose the producers to start"]
    settings = chosen[0]["vars"]["__kafka_verify_producer_settings"]
    assert settings["connection_file"] == "{{ __kafka_verify_connection_file }}"
    assert not names_a_secret(settings)
