"""Runs `ansible` ad-hoc commands for the integration tests, many from one process, each in a fresh fork.

`ansible localhost -m ...` spends over a second of CPU importing Ansible before it reads its first
option, and the integration tests run modules hundreds of times. This process imports Ansible's
command line and executor once; each command then runs in a child forked from it, which runs the
`ansible` entry point itself (option parsing, configuration, plugin loading, inventory, the task with
its action plugin and AnsiballZ module, check and diff mode, the stdout callback). A child starts from
the parent's state before any run, as a new `ansible` process would: no run sees another's state.

Requests on standard input, one JSON array of the command's arguments (after `ansible`) per line;
for each, one JSON line on standard output: {"rc": exit code, "stdout": ..., "stderr": ...}, what the
command printed on each. A command that has not ended after `timeout` seconds (the first argument
of this script, 600 by default) is killed and answered with rc -9.
"""

import importlib
import json
import os
import shutil
import sys
import tempfile
import time

# What every run needs, imported once here instead of in every child.
PRELOADED = ("ansible.cli.adhoc", "ansible.executor.task_queue_manager", "ansible.playbook.play",
             "ansible.plugins.action.normal", "ansible.plugins.connection.local", "ansible.plugins.strategy.linear",
             "ansible.vars.manager")


def _run_in_child(arguments, stdout_path, stderr_path):
    """The child's whole life: the `ansible` entry point with these arguments, its output to the two files."""
    code = 1
    try:
        for path, descriptor in ((stdout_path, 1), (stderr_path, 2)):
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(handle, descriptor)
            os.close(handle)
        sys.argv = ["ansible"] + arguments
        from ansible.cli.adhoc import main as adhoc

        try:
            adhoc(sys.argv)
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _wait(pid, timeout):
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            return -9
        time.sleep(0.02)


def main():
    for name in PRELOADED:
        importlib.import_module(name)
    timeout = float(sys.argv[1]) if len(sys.argv) > 1 else 600
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    folder = tempfile.mkdtemp(prefix="kafkaops-module-runner-")
    stdout_path, stderr_path = os.path.join(folder, "stdout"), os.path.join(folder, "stderr")
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            arguments = json.loads(line)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _run_in_child(arguments, stdout_path, stderr_path)
            rc = _wait(pid, timeout)
            with open(stdout_path, errors="replace") as printed, open(stderr_path, errors="replace") as errors:
                answers.write(json.dumps({"rc": rc, "stdout": printed.read(), "stderr": errors.read()}) + "\n")
            answers.flush()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
