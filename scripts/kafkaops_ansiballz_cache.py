"""Keeps the module payloads Ansible builds on this machine from one Ansible process to the next, for tests.

Before it runs a module, Ansible builds its payload: it parses the module and every module_utils file the
module imports, recursively, and zips them. It keeps each payload in a folder of the process's own, so every
`ansible-playbook` and `ansible` run builds every module it uses again; profiled on a one-host re-run of
site.yml, that building was about half of what the forked task workers spent. The test suite starts hundreds
of such processes (each scenario's steps, the migration's phases, each module run of the integration tests).

Loaded at start-up by a .pth file in the test venv (make venv), and active only where
KAFKAOPS_ANSIBALLZ_CACHE names a folder (the Makefile sets it for its own runs): each process's payload folder
becomes a link to a folder under it that is named after what the payloads are built from (Ansible's version,
Python's, and every collection Ansible can find: see _sources_digest), so a changed source, or another copy of
the collection (the installed artifact), gets a folder of its own. Ansible's own locking and write-then-rename keep
processes that build the same payload at once apart, as they do its forked workers. The payloads are the
ones Ansible builds; only the process that built them differs. Nothing the collection ships depends on it.
"""

# Only what every Python start of the venv already loads: importlib.abc alone (for base classes) and hashlib
# cost 55 ms per start, paid by every process, the cache on or off.
import importlib.machinery
import os
import sys

FOLDER_VARIABLE = "KAFKAOPS_ANSIBALLZ_CACHE"
TARGET = "ansible.executor.module_common"


def _collection_roots():
    """Every folder holding ansible_collections that Ansible searches: its configured paths and sys.path."""
    configured = os.environ.get("ANSIBLE_COLLECTIONS_PATH") or os.environ.get("ANSIBLE_COLLECTIONS_PATHS") or ""
    configured = configured or os.pathsep.join((os.path.expanduser("~/.ansible/collections"),
                                                "/usr/share/ansible/collections"))
    return [os.path.abspath(root) for root in configured.split(os.pathsep) if root] + list(sys.path)


def _sources_digest():
    """A digest of what the payloads are built from: the versions of Ansible and Python, and each collection
    Ansible can find: an installed one by its MANIFEST.json (written anew by every install), a source checkout
    (no manifest) by the size and time of every file under its plugins/."""
    import hashlib  # pylint: disable=import-outside-toplevel

    import ansible.release  # pylint: disable=import-outside-toplevel

    digest = hashlib.sha256(("%s|%s\n" % (ansible.release.__version__, sys.version)).encode())
    for root in _collection_roots():
        namespaces = os.path.join(root, "ansible_collections")
        if not os.path.isdir(namespaces):
            continue
        for namespace in sorted(os.listdir(namespaces)):
            if not os.path.isdir(os.path.join(namespaces, namespace)):
                continue
            for name in sorted(os.listdir(os.path.join(namespaces, namespace))):
                collection = os.path.join(namespaces, namespace, name)
                manifest = os.path.join(collection, "MANIFEST.json")
                paths = [manifest] if os.path.exists(manifest) else sorted(
                    os.path.join(folder, file) for folder, unused, files in os.walk(os.path.join(collection, "plugins"))
                    for file in files)
                for path in paths:
                    status = os.stat(path)
                    digest.update(("%s|%d|%d\n" % (path, status.st_size, status.st_mtime_ns)).encode())
    return digest.hexdigest()[:16]


def _patch(module_common):
    """Wraps the payload builder so that the process's payload folder is a link to the shared one."""
    original = module_common._find_module_utils  # pylint: disable=protected-access
    shared = []

    def find_module_utils(*args, **kwargs):
        link = os.path.join(module_common.C.DEFAULT_LOCAL_TMP, "ansiballz_cache")
        if not os.path.lexists(link):
            if not shared:
                shared.append(os.path.join(os.environ[FOLDER_VARIABLE], _sources_digest()))
            os.makedirs(shared[0], mode=0o700, exist_ok=True)
            try:
                os.symlink(shared[0], link)
            except FileExistsError:
                pass
        return original(*args, **kwargs)

    module_common._find_module_utils = find_module_utils  # pylint: disable=protected-access


class _Loader:
    """Runs the real loader, then patches the module it loaded (the two methods of importlib's loader protocol)."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        _patch(module)


class _Finder:
    """Finds ansible.executor.module_common as the path finder does, with the patching loader (a meta path
    finder needs only find_spec)."""

    def find_spec(self, fullname, path, target=None):
        if fullname != TARGET:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


if os.environ.get(FOLDER_VARIABLE) and not any(isinstance(finder, _Finder) for finder in sys.meta_path):
    sys.meta_path.insert(0, _Finder())
