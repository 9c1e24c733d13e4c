"""kafka_controller's migration_faults.yml, run by ansible-playbook as migrate_to_kraft.yml's rescue runs it.

When a broker step of a migration fails, the cause is often on the controllers, which only log it (a "zk
migration fault") while the brokers wait for ISRs that never come. The task file fails with the step's own
failure and each controller's last fault; here the controllers' logs are files written by the test, the
"hosts" local ones.
"""

import os
import subprocess
import sys
from ansible_collections.kafkaops.cluster.tests.unit.roles.playbook_runs import (REPOSITORY, playbook_command,
                                                                                 playbook_environment)

HERE = os.path.dirname(os.path.abspath(__file__))

FAULT = """[2026-11-27 09:57:03,861] ERROR Encountered zk migration fault: Unhandled error in SendRPCsToBrokersEvent (x)
org.apache.kafka.common.KafkaException: org.apache.kafka.common.errors.InvalidConfigurationException: Failed
\tat org.apache.kafka.common.network.SaslChannelBuilder.configure(SaslChannelBuilder.java:187)
Caused by: org.apache.kafka.common.errors.InvalidConfigurationException: No matching CERTIFICATE entries in PEM file
"""


def _run(tmp_path, logs):
    """logs: {controller host: its server.log text, or None for no log at all}."""
    lines = ["[kafka_broker]", "b1", "[kafka_controller]"]
    for host, text in logs.items():
        folder = tmp_path / host
        (folder / "controller").mkdir(parents=True)
        if text is not None:
            (folder / "controller" / "server.log").write_text(text)
        lines.append("%s kafka_controller_log_dir=%s" % (host, folder))
    lines += ["[all:vars]", "ansible_connection=local", "ansible_python_interpreter=%s" % sys.executable]
    inventory = tmp_path / "inventory.ini"
    inventory.write_text("\n".join(lines) + "\n")
    command = playbook_command("-i", str(inventory), os.path.join(HERE, "faults_playbook.yml"))
    completed = subprocess.run(command, env=playbook_environment(), cwd=REPOSITORY, capture_output=True, text=True,
                               timeout=300,
                               check=False)
    return completed.returncode, completed.stdout + completed.stderr


def test_the_failure_names_the_step_its_cause_and_each_controllers_last_fault(tmp_path):
    code, output = _run(tmp_path, {"c1": "INFO started\n" + FAULT, "c2": "INFO nothing wrong here\n", "c3": None})
    assert code != 0
    failure = [line for line in output.splitlines() if "The roll into migration mode failed" in line]
    assert failure, output
    message = failure[0]
    assert "broker 1 is not back in the ISRs of mig-orders-0 within 600 s" in message
    assert ("The controllers logged: c1: [2026-11-27 09:57:03,861] ERROR Encountered zk migration fault: Unhandled "
            "error in SendRPCsToBrokersEvent (x) | Caused by: org.apache.kafka.common.errors."
            "InvalidConfigurationException: No matching CERTIFICATE entries in PEM file") in message
    # A controller without a fault, or without a log, adds nothing.
    assert "c2:" not in message and "c3:" not in message


def test_without_a_fault_the_failure_says_so(tmp_path):
    code, output = _run(tmp_path, {"c1": "INFO all well\n"})
    assert code != 0
    assert "No controller logged a migration fault." in output, output
    assert "broker 1 is not back in the ISRs" in output


def test_the_failure_names_the_phase_and_the_commands_to_go_on_or_back(tmp_path):
    code, output = _run(tmp_path, {"c1": "INFO all well\n"})
    assert code != 0
    message = " ".join(output.split())
    inventory = "-i %s" % (tmp_path / "inventory.ini")
    assert "The migration stopped in its phase brokers_migration; the phases before it are done." in message, message
    assert ("run the same command again, which resumes there: ansible-playbook %s kafkaops.cluster.migrate_to_kraft "
            "-e phase=brokers_kraft." % inventory) in message, message
    assert ("To go back to ZooKeeper mode instead: ansible-playbook %s kafkaops.cluster.migrate_to_kraft "
            "-e phase=rollback." % inventory) in message, message
