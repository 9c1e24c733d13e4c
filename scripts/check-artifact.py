"""Build the collection artifact and check it as a user gets it, apart from this repository.

Everything else (lint, unit tests, Molecule) runs against the repository itself, reached through a
link; a file that build_ignore drops, a cache that slips into the tarball or a playbook name that
is not a valid FQCN would pass there and fail only for a user. So this script:

1. builds the tarball with ansible-galaxy;
2. fails, listing them, when the tarball holds files or folders git does not track (caches left by
   tests or tools would otherwise ship);
3. installs the tarball with --no-deps into an empty collections path (the dependencies come from
   the `ansible` package's bundled collections, on Python's path, as Galaxy cannot be reached);
4. from a folder outside the repository, with only that path and a configuration of its own,
   checks that the dependencies resolve at versions galaxy.yml accepts, that the collection
   resolves to the installed copy, runs `ansible-playbook --syntax-check` on every playbook by
   FQCN and `ansible-doc` on every module, filter and role.

The installed collection stays in .cache/installed, for a Molecule scenario to run it for real.

Usage: python scripts/check-artifact.py
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD_DIR = os.path.join(ROOT, ".cache", "build")
INSTALL_DIR = os.path.join(ROOT, ".cache", "installed")
# ansible-galaxy writes these into the tarball; they are not in the repository.
GENERATED = {"MANIFEST.json", "FILES.json"}


class CheckFailed(Exception):
    pass


def tool(name):
    """The tool beside this Python (the venv's), else the one on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), name)
    return beside if os.access(beside, os.X_OK) else (shutil.which(name) or name)


def run(argv, cwd, env=None, what=None):
    completed = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise CheckFailed("%s failed (exit %d):\n%s%s" % (what or " ".join(argv), completed.returncode,
                                                          completed.stdout, completed.stderr))
    return completed.stdout


def build(galaxy):
    run([tool("ansible-galaxy"), "collection", "build", "--force", "--output-path", BUILD_DIR], cwd=ROOT,
        what="ansible-galaxy collection build")
    tarball = os.path.join(BUILD_DIR, "%s-%s-%s.tar.gz" % (galaxy["namespace"], galaxy["name"], galaxy["version"]))
    if not os.path.isfile(tarball):
        raise CheckFailed("ansible-galaxy collection build did not write %s" % tarball)
    return tarball


def check_tracked(tarball):
    tracked = set(run(["git", "ls-files", "-z"], cwd=ROOT).split("\0")) - {""}
    tracked_dirs = set()
    for path in tracked:
        parent = os.path.dirname(path)
        while parent and parent not in tracked_dirs:
            tracked_dirs.add(parent)
            parent = os.path.dirname(parent)
    untracked = []
    files = 0
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            name = os.path.normpath(member.name)
            if name in GENERATED or name == ".":
                continue
            if member.isdir():
                # A folder holding no tracked file is a cache (Spark's artifacts/, say), even when empty.
                if name not in tracked_dirs:
                    untracked.append(name + "/")
            else:
                files += 1
                if name not in tracked:
                    untracked.append(name)
    if untracked:
        raise CheckFailed("the artifact holds what git does not track (add it to build_ignore in galaxy.yml, "
                          "or to git):\n  " + "\n  ".join(sorted(untracked)))
    return files


def isolated_environment(work_dir):
    """The environment of a user who installed only the artifact: no ANSIBLE_* setting of ours."""
    config = os.path.join(work_dir, "ansible.cfg")
    with open(config, "w") as handle:
        handle.write("[defaults]\ncollections_path = %s\n" % INSTALL_DIR)
    env = {key: value for key, value in os.environ.items() if not key.startswith("ANSIBLE_")}
    env["ANSIBLE_CONFIG"] = config
    env["ANSIBLE_COLLECTIONS_PATH"] = INSTALL_DIR
    env["ANSIBLE_NOCOLOR"] = "1"
    return env


def install(tarball, env, work_dir):
    shutil.rmtree(INSTALL_DIR, ignore_errors=True)
    os.makedirs(INSTALL_DIR)
    run([tool("ansible-galaxy"), "collection", "install", "--no-deps", "-p", INSTALL_DIR, tarball], cwd=work_dir,
        env=env, what="ansible-galaxy collection install --no-deps")


def check_resolution(galaxy, env, work_dir):
    """Where each collection resolves from; the dependencies' versions against galaxy.yml's ranges."""
    listing = json.loads(run([tool("ansible-galaxy"), "collection", "list", "--format", "json"], cwd=work_dir,
                             env=env, what="ansible-galaxy collection list"))
    found = {}
    for path, collections in listing.items():
        for fqcn, details in collections.items():
            found.setdefault(fqcn, []).append((path, details.get("version")))
    own = "%s.%s" % (galaxy["namespace"], galaxy["name"])
    own_paths = [path for path, _version in found.get(own, [])]
    expected = os.path.join(INSTALL_DIR, "ansible_collections")
    if own_paths != [expected]:
        raise CheckFailed("%s resolves from %s, expected only %s" % (own, own_paths or "nowhere", expected))
    lines = ["%s %s from %s" % (own, galaxy["version"], expected)]
    for dependency, requirement in sorted((galaxy.get("dependencies") or {}).items()):
        if dependency not in found:
            raise CheckFailed("dependency %s (%s) is not installed where ansible looks" % (dependency, requirement))
        path, version = found[dependency][0]
        accepted = requirement in ("*", "") or Version(version) in SpecifierSet(requirement.replace(" ", ""))
        if not accepted:
            raise CheckFailed("dependency %s resolves to %s at %s, outside galaxy.yml's %s"
                              % (dependency, version, path, requirement))
        lines.append("%s %s (galaxy.yml: %s) from %s" % (dependency, version, requirement, path))
    return lines


def playbook_names():
    folder = os.path.join(ROOT, "playbooks")
    return sorted(os.path.splitext(entry)[0] for entry in os.listdir(folder)
                  if entry.endswith((".yml", ".yaml")) and os.path.isfile(os.path.join(folder, entry)))


def module_names():
    folder = os.path.join(ROOT, "plugins", "modules")
    return sorted(entry[:-3] for entry in os.listdir(folder) if entry.endswith(".py") and entry != "__init__.py")


def filter_names():
    """The names each filter file's FilterModule returns, so a filter without docs is caught too. The files
    are loaded from the installed copy, where their imports of the collection's own code resolve."""
    folder = os.path.join(INSTALL_DIR, "ansible_collections", "kafkaops", "cluster", "plugins", "filter")
    names = []
    sys.path.insert(0, INSTALL_DIR)
    try:
        for entry in sorted(os.listdir(folder)):
            if not entry.endswith(".py") or entry == "__init__.py":
                continue
            spec = importlib.util.spec_from_file_location("kafkaops_filter_" + entry[:-3], os.path.join(folder, entry))
            loaded = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(loaded)
            names.extend(loaded.FilterModule().filters())
    finally:
        sys.path.remove(INSTALL_DIR)
    return sorted(names)


def role_names():
    folder = os.path.join(ROOT, "roles")
    return sorted(entry for entry in os.listdir(folder) if os.path.isdir(os.path.join(folder, entry)))


def check_playbooks(galaxy, env, work_dir):
    names = playbook_names()
    for name in names:
        fqcn = "%s.%s.%s" % (galaxy["namespace"], galaxy["name"], name)
        run([tool("ansible-playbook"), "--syntax-check", "-i", "localhost,", fqcn], cwd=work_dir, env=env,
            what="ansible-playbook --syntax-check %s" % fqcn)
    return names


def check_docs(galaxy, env, work_dir, plugin_type, names):
    own_folder = os.path.join(INSTALL_DIR, "ansible_collections", galaxy["namespace"], galaxy["name"])
    for name in names:
        fqcn = "%s.%s.%s" % (galaxy["namespace"], galaxy["name"], name)
        what = "ansible-doc -t %s %s" % (plugin_type, fqcn)
        output = run([tool("ansible-doc"), "-t", plugin_type, fqcn], cwd=work_dir, env=env, what=what)
        # ansible-doc can exit 0 with only a warning when it finds nothing; its first line names the file read.
        first_line = output.splitlines()[0] if output else ""
        if fqcn not in first_line or own_folder not in first_line:
            raise CheckFailed("%s did not render the installed documentation:\n%s" % (what, output[:2000]))
    return names


def main():
    with open(os.path.join(ROOT, "galaxy.yml")) as handle:
        galaxy = yaml.safe_load(handle)
    work_dir = tempfile.mkdtemp(prefix="kafkaops-artifact-")
    try:
        tarball = build(galaxy)
        print("built %s" % os.path.relpath(tarball, ROOT))
        files = check_tracked(tarball)
        print("all %d files in it are tracked by git" % files)
        env = isolated_environment(work_dir)
        install(tarball, env, work_dir)
        print("installed with --no-deps into %s (the only collections path from here on)"
              % os.path.relpath(INSTALL_DIR, ROOT))
        for line in check_resolution(galaxy, env, work_dir):
            print("resolves: %s" % line)
        print("syntax-checked by FQCN from %s: %s" % (work_dir, ", ".join(check_playbooks(galaxy, env, work_dir))))
        print("ansible-doc modules: %s" % ", ".join(check_docs(galaxy, env, work_dir, "module", module_names())))
        print("ansible-doc filters: %s" % ", ".join(check_docs(galaxy, env, work_dir, "filter", filter_names())))
        print("ansible-doc roles: %s" % ", ".join(check_docs(galaxy, env, work_dir, "role", role_names())))
    except CheckFailed as failure:
        sys.exit("make artifact: %s" % failure)
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
    print("make artifact: the installed artifact checks out")


if __name__ == "__main__":
    main()
