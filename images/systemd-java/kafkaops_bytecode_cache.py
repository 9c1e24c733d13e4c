"""Keeps the bytecode of the Python that Ansible sends with every task, for test machines.

Each task runs its module from a zip (the module and the module_utils it imports) that Python, which
writes no bytecode for zip imports, compiles from source every time, and twice per file (zipimport
compiles once for the file name and once for the code): on the small machines the tests run on, that
is about a third of each task's CPU. Loaded at start-up by a .pth file, this keeps
each file compiled from such a zip, under the digest of its source, in a folder only this user can
write, and loads it on the next run. The same source always gives the same code, so what runs does
not change. Only the project's test image and test venv install it; nothing the collection ships
depends on it.
"""

import marshal
import os
import stat
import sys
import zipimport

FOLDER = "/var/tmp/kafkaops-bytecode-%d" % os.getuid()


# Whether FOLDER may be used, found out once per process, at the first zip Ansible sends.
_CHECKED = {}


def _private_folder():
    """The cache folder, made if missing; None unless it is this user's alone."""
    if FOLDER not in _CHECKED:
        try:
            os.makedirs(FOLDER, mode=0o700, exist_ok=True)
            status = os.lstat(FOLDER)
            private = (stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid()
                       and not status.st_mode & 0o077)
        except OSError:
            private = False
        _CHECKED[FOLDER] = FOLDER if private else None
    return _CHECKED[FOLDER]


def _named(code, filename):
    """The code with its file name (and its functions' and classes') set to where it was loaded from."""
    constants = tuple(_named(constant, filename) if isinstance(constant, type(code)) else constant
                      for constant in code.co_consts)
    return code.replace(co_filename=filename, co_consts=constants)


def install(compile_source=zipimport._compile_source):  # pylint: disable=protected-access
    """Wraps zipimport's compile step for the zips Ansible sends (their names end in _payload.zip)."""

    def compile_or_load(pathname, source):
        folder = _private_folder() if "_payload.zip" in pathname else None
        if folder is None:
            return compile_source(pathname, source)
        # Imported here, so that the Python processes that import no zip do not pay for it.
        import hashlib  # pylint: disable=import-outside-toplevel

        kept = os.path.join(folder, "%s.%s" % (hashlib.sha256(source).hexdigest(), sys.implementation.cache_tag))
        try:
            with open(kept, "rb") as handle:
                return _named(marshal.load(handle), pathname)
        except (OSError, ValueError, EOFError, TypeError):
            pass
        code = compile_source(pathname, source)
        partial = "%s.%d" % (kept, os.getpid())
        try:
            with open(partial, "wb") as handle:
                marshal.dump(code, handle)
            os.replace(partial, kept)
        except OSError:
            pass
        return code

    zipimport._compile_source = compile_or_load  # pylint: disable=protected-access


install()
