"""How the role tests start ansible-playbook on the repository's own collection (local connection, no containers).

Imported as ansible_collections.kafkaops.cluster.tests.unit.roles.playbook_runs (tests/unit/conftest.py says why).
"""

import os
import sys

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def playbook_environment():
    """The environment of a test's ansible-playbook run: the repository's ansible.cfg and collection, no colour.

    PYTHONUNBUFFERED (which some shells and images set) is left out: under it each module's Python reads the
    payload Ansible pipes to it one byte per system call. A test that reads the output while the run goes on
    starts ansible-playbook alone unbuffered (playbook_command(unbuffered=True)), so that its output and its
    warnings keep their order in the one pipe.
    """
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(REPOSITORY, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_COLLECTIONS_PATH=os.path.join(REPOSITORY, ".cache", "collections"))
    env.pop("PYTHONUNBUFFERED", None)
    return env


def playbook_command(*arguments, unbuffered=False):
    """The venv's ansible-playbook with the arguments; unbuffered: through `python -u`."""
    playbook = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    return ([sys.executable, "-u", playbook] if unbuffered else [playbook]) + list(arguments)
