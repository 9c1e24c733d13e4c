"""Module runs from the tests, as a playbook task would run them: `ansible localhost -m kafkaops.cluster.<module>`
on the controller, through one module_runner.py process for the whole session (each run a fork of it), with
the repository's ansible.cfg and the json stdout callback. The integration tests (conftest's `kafka` fixture) and
the scenarios' checks (molecule/shared/tests) both run modules through here."""

import atexit
import json
import os
import select
import subprocess
import sys

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


class ModuleRun:
    """The outcome of one module run through Ansible: its result dict and the raw output."""

    def __init__(self, result, output):
        self.result = result
        self.output = output

    def __getitem__(self, key):
        return self.result[key]

    def __contains__(self, key):
        # Without it, `key in run` would iterate through __getitem__ with 0, 1, ... and fail on KeyError 0.
        return key in self.result

    def get(self, key, default=None):
        return self.result.get(key, default)

    @property
    def failed(self):
        return bool(self.result.get("failed"))

    @property
    def changed(self):
        return bool(self.result.get("changed"))


def adhoc_environment():
    """The environment of the module runs: the repository's ansible.cfg, not Molecule's (that one enables
    callbacks whose lines would mix in), and the json stdout callback, whose document run_module reads."""
    return dict(os.environ, ANSIBLE_CONFIG=os.path.join(REPOSITORY, "ansible.cfg"), ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
                ANSIBLE_STDOUT_CALLBACK="json", ANSIBLE_NOCOLOR="1")


def adhoc_arguments(module, args, check=False, diff=False):
    """The arguments after `ansible` that run kafkaops.cluster.<module> with args on the controller."""
    arguments = ["localhost", "-i", "localhost,", "-c", "local", "-e", "ansible_python_interpreter=%s" % sys.executable,
                 "-m", "kafkaops.cluster.%s" % module, "-a", json.dumps(args)]
    if check:
        arguments.append("--check")
    if diff:
        arguments.append("--diff")
    return arguments


class _AdHocRunner:
    """One module_runner.py process for the whole session: each `ansible localhost -m ...` runs in a fork of
    it, without importing Ansible again (see module_runner.py). Started on first use, and again if it died."""

    def __init__(self):
        self.process = None

    def run(self, arguments):
        if self.process is None or self.process.poll() is not None:
            runner = os.path.join(os.path.dirname(__file__), "module_runner.py")
            self.process = subprocess.Popen([sys.executable, runner], env=adhoc_environment(), text=True,
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.process.stdin.write(json.dumps(arguments) + "\n")
        self.process.stdin.flush()
        # The runner kills a command after 600 s (rc -9 in its answer); past that, the runner itself hangs.
        if not select.select([self.process.stdout], [], [], 660)[0]:
            self.process.kill()
            raise AssertionError("no answer from module_runner.py within 660 s: %s" % arguments)
        answer = self.process.stdout.readline()
        if not answer:
            raise AssertionError("module_runner.py ended with %s" % self.process.wait(timeout=30))
        return json.loads(answer)

    def close(self):
        if self.process is not None:
            self.process.stdin.close()
            self.process.wait(timeout=60)


_RUNNER = _AdHocRunner()


def run_module(module, args, check=False, diff=False):
    """Run kafkaops.cluster.<module> on the controller with Ansible's ad-hoc command, as a playbook task would."""
    answer = _RUNNER.run(adhoc_arguments(module, args, check, diff))
    output = answer["stdout"] + answer["stderr"]
    try:
        document, unused = json.JSONDecoder().raw_decode(answer["stdout"][answer["stdout"].index("{"):])
        result = document["plays"][0]["tasks"][0]["hosts"]["localhost"]
    except (ValueError, KeyError, IndexError):
        raise AssertionError("could not read the result of %s: %s" % (module, output)) from None
    return ModuleRun(result, output)


# Ended with the session that started it, whichever suite that is.
atexit.register(_RUNNER.close)
