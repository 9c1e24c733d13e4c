"""Every role entry point the collection calls with tasks_from is declared in that role's meta/argument_specs.yml.

Playbooks and roles run a role's task file with include_role or import_role and `tasks_from: X`. An entry point
declared in the role's argument_specs is documented (ansible-doc -t role) and, when Ansible finds it under the
exact name given to tasks_from, checked against its options before the file runs. The call sites are read from
playbooks/*.yml and roles/*/tasks/*.yml as YAML (plays, blocks, rescue and always sections, at any depth);
`node_state.yml` and `node_state` name the same entry point, node_state. Each declared entry point must have its
task file, roles/<role>/tasks/<entry point>.yml.
"""

import glob
import os
import shlex

import yaml

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
COLLECTION = "kafkaops.cluster."
ROLE_ACTIONS = frozenset(
    prefix + action
    for prefix in ("", "ansible.builtin.", "ansible.legacy.")
    for action in ("include_role", "import_role")
)


def _load(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _relative(path):
    return os.path.relpath(path, REPOSITORY)


def _arguments(value):
    """include_role's arguments as a mapping, from the mapping form or the free form (name=x tasks_from=y)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        return dict(part.split("=", 1) for part in shlex.split(value) if "=" in part)
    return {}


def _role_calls(node):
    """(role as written, tasks_from) of every include_role/import_role with a tasks_from below node."""
    if isinstance(node, list):
        for item in node:
            yield from _role_calls(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key in ROLE_ACTIONS:
                arguments = _arguments(value)
                if "tasks_from" in arguments:
                    yield str(arguments.get("name", "")), str(arguments["tasks_from"])
            else:
                yield from _role_calls(value)


def _entry_point(tasks_from):
    for suffix in (".yml", ".yaml"):
        if tasks_from.endswith(suffix):
            return tasks_from[: -len(suffix)]
    return tasks_from


def _call_sites():
    """{(role, entry point): [files that call it]}, for the roles of this collection."""
    files = sorted(glob.glob(os.path.join(REPOSITORY, "playbooks", "*.yml"))
                   + glob.glob(os.path.join(REPOSITORY, "roles", "*", "tasks", "*.yml")))
    sites = {}
    for path in files:
        for name, tasks_from in _role_calls(_load(path)):
            assert "{{" not in name + tasks_from, (
                "%s: include_role/import_role of %r with tasks_from %r is templated; this test cannot tell which "
                "entry point it is" % (_relative(path), name, tasks_from))
            role = name[len(COLLECTION):] if name.startswith(COLLECTION) else name
            if "." in role:
                continue  # a role of another collection
            sites.setdefault((role, _entry_point(tasks_from)), []).append(_relative(path))
    return sites


def _declared(role):
    path = os.path.join(REPOSITORY, "roles", role, "meta", "argument_specs.yml")
    if not os.path.exists(path):
        return {}
    return (_load(path) or {}).get("argument_specs") or {}


def test_the_scan_finds_the_call_sites():
    sites = _call_sites()
    # Known calls from a playbook (site.yml), from a role's tasks (zookeeper's configure.yml) and inside a rescue
    # section (migrate_to_kraft.yml), so that a scan that misses a level cannot pass by finding nothing.
    assert "playbooks/site.yml" in sites.get(("kafka_broker", "preflight"), []), sites
    assert "roles/zookeeper/tasks/configure.yml" in sites.get(("service_common", "templates"), []), sites
    assert "playbooks/migrate_to_kraft.yml" in sites.get(("kafka_controller", "migration_faults"), []), sites


def test_every_entry_point_called_with_tasks_from_is_declared():
    missing = [
        "%s: entry point %s (called by %s)" % (role, entry_point, ", ".join(sorted(set(callers))))
        for (role, entry_point), callers in sorted(_call_sites().items())
        if entry_point not in _declared(role)
    ]
    assert not missing, "Not declared in roles/<role>/meta/argument_specs.yml:\n" + "\n".join(missing)


def test_every_declared_entry_point_has_its_tasks_file():
    missing = []
    for path in sorted(glob.glob(os.path.join(REPOSITORY, "roles", "*", "meta", "argument_specs.yml"))):
        role = os.path.basename(os.path.dirname(os.path.dirname(path)))
        for entry_point in _declared(role):
            if not os.path.isfile(os.path.join(REPOSITORY, "roles", role, "tasks", entry_point + ".yml")):
                missing.append("%s: entry point %s has no tasks/%s.yml" % (role, entry_point, entry_point))
    assert not missing, "\n".join(missing)


def test_every_declared_entry_point_is_described():
    problems = []
    for path in sorted(glob.glob(os.path.join(REPOSITORY, "roles", "*", "meta", "argument_specs.yml"))):
        role = os.path.basename(os.path.dirname(os.path.dirname(path)))
        for entry_point, spec in _declared(role).items():
            for key in ("short_description", "description", "options"):
                if key not in (spec or {}):
                    problems.append("%s: entry point %s has no %s" % (role, entry_point, key))
            for option, option_spec in ((spec or {}).get("options") or {}).items():
                if not (option_spec or {}).get("description"):
                    problems.append("%s: entry point %s, option %s has no description" % (role, entry_point, option))
    assert not problems, "\n".join(problems)
