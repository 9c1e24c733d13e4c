"""The package as one zip: what the role copies to the spark_client host and what Spark ships to executors.

    python -m kafkaops_verify.archive [DIRECTORY]

writes DIRECTORY/kafkaops_verify.zip (by default in a new temporary folder) and prints its path.
Run from such an archive (the archive on PYTHONPATH), the jobs ship that same file to Spark's
executors; run from a folder, they zip it first.
"""

import os
import sys
import tempfile
import zipfile

_PACKAGE_FOLDER = os.path.dirname(os.path.abspath(__file__))
# From the folder, not __name__: run with python -m, this module is __main__.
PACKAGE = os.path.basename(_PACKAGE_FOLDER)
ARCHIVE_NAME = PACKAGE + ".zip"
# A fixed date makes the archive's bytes depend on the sources alone.
_ARCHIVE_DATE = (1980, 1, 1, 0, 0, 0)


def loaded_archive():
    """The zip this package was imported from, or None when it was imported from a folder."""
    parent = os.path.dirname(_PACKAGE_FOLDER)
    return parent if os.path.isfile(parent) and zipfile.is_zipfile(parent) else None


def package_archive(directory):
    """Writes the package's Python sources (no bytecode) to <directory>/kafkaops_verify.zip, with paths
    from the package's parent folder, as zipimport needs; returns the archive's path."""
    if loaded_archive():
        raise ValueError("%s was imported from %s: use that archive" % (PACKAGE, loaded_archive()))
    parent = os.path.dirname(_PACKAGE_FOLDER)
    path = os.path.join(directory, ARCHIVE_NAME)
    with zipfile.ZipFile(path, "w") as archive:
        for folder, subfolders, files in os.walk(_PACKAGE_FOLDER):
            subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
            for name in sorted(files):
                if not name.endswith(".py"):
                    continue
                source = os.path.join(folder, name)
                entry = zipfile.ZipInfo(os.path.relpath(source, parent), _ARCHIVE_DATE)
                entry.compress_type = zipfile.ZIP_DEFLATED
                entry.external_attr = 0o644 << 16
                with open(source, "rb") as stream:
                    archive.writestr(entry, stream.read())
    return path


def main(argv=None):
    arguments = sys.argv[1:] if argv is None else argv
    if len(arguments) > 1 or (arguments and not os.path.isdir(arguments[0])):
        print("usage: python -m %s.archive [DIRECTORY (an existing folder)]" % PACKAGE, file=sys.stderr)
        return 2
    directory = arguments[0] if arguments else tempfile.mkdtemp(prefix="kafkaops-verify-archive.")
    print(package_archive(directory))
    return 0


if __name__ == "__main__":
    sys.exit(main())
