"""Lets the tests import the repository as ansible_collections.kafkaops.cluster, as Ansible does.

Python finds the collection's code only below a folder ansible_collections/kafkaops/cluster, and this
repository is the collection itself, wherever it is cloned. `make collection` makes such a folder for
Ansible: .cache/collections/ansible_collections/kafkaops/cluster, a link back to the repository. The
tests make the same link when it is missing, so that a plain `python -m pytest tests/unit` works in a
fresh clone, and put its root on the import path. The link is relative, so a clone that is moved or
copied keeps a working one.

Test helpers shared by several folders are imported the same way, e.g.
ansible_collections.kafkaops.cluster.tests.unit.plugins.service_samples.
"""

import os
import sys

import pytest

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
COLLECTIONS_PATH = os.path.join(REPOSITORY, ".cache", "collections")
COLLECTION_LINK = os.path.join(COLLECTIONS_PATH, "ansible_collections", "kafkaops", "cluster")

if not os.path.lexists(COLLECTION_LINK):
    os.makedirs(os.path.dirname(COLLECTION_LINK), exist_ok=True)
    try:
        # The same target as the Makefile's: four levels up from the link is the repository.
        os.symlink(os.path.join("..", "..", "..", ".."), COLLECTION_LINK)
    except FileExistsError:
        pass  # another test run made it meanwhile
sys.path.insert(0, COLLECTIONS_PATH)


@pytest.fixture(scope="session", autouse=True)
def shared_module_payloads(tmp_path_factory):
    """Lets the ansible-playbook runs of one test session build each module's payload once between them.

    Before it runs a module, every ansible-playbook process builds the module's payload again (a zip of the module
    and each module_utils file it imports). The test venv's start-up hook scripts/kafkaops_ansiballz_cache.py (make
    venv installs it) shares the payloads between processes when KAFKAOPS_ANSIBALLZ_CACHE names a folder. make test
    names one; a plain pytest run gets one here, for the session. The payloads are the ones Ansible builds: only
    which process built them differs. Without the hook installed, the variable does nothing.
    """
    with pytest.MonkeyPatch.context() as monkeypatch:
        if not os.environ.get("KAFKAOPS_ANSIBALLZ_CACHE"):
            monkeypatch.setenv("KAFKAOPS_ANSIBALLZ_CACHE", str(tmp_path_factory.mktemp("ansiballz")))
        yield
