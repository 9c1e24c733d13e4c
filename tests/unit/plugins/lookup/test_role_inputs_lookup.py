"""The lookup role_inputs on the collection's own roles: every spec's types agree with its defaults."""

import glob
import os

import pytest
import yaml
from ansible.errors import AnsibleLookupError
from ansible_collections.kafkaops.cluster.plugins.lookup import role_inputs
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._role_inputs import converted_options

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
SPECS = sorted(glob.glob(os.path.join(REPOSITORY, "roles", "*", "meta", "argument_specs.yml")))


class _Templar(object):
    """Values as given: the variables here are plain data already."""

    def template(self, value):
        return value


def _lookup(*terms, **variables):
    lookup = role_inputs.LookupModule()
    lookup._templar = _Templar()
    return lookup.run(list(terms), variables=variables)[0]


def _entry_points():
    for path in SPECS:
        role = path.split(os.sep)[-3]
        with open(path, encoding="utf-8") as handle:
            for entry_point, spec in yaml.safe_load(handle)["argument_specs"].items():
                yield role, entry_point, (spec or {}).get("options") or {}


def _as_extra_var(value):
    """What a value's text is on a command line: -e key=value, as its YAML spelling (false, not False)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


SCALARS = [
    pytest.param(role, entry_point, name, option, id="%s.%s.%s" % (role, entry_point, name))
    for role, entry_point, options in _entry_points()
    for name, option in options.items()
    if option.get("type") in ("int", "bool", "float") and "default" in option
]


@pytest.mark.parametrize("role, entry_point, name, option", SCALARS)
def test_each_numeric_and_bool_default_given_as_text_is_the_default(role, entry_point, name, option):
    typed = _lookup(role, entry_point, **{name: _as_extra_var(option["default"])})
    # A float's default may be written as a whole number (10): the same value.
    # bool is a subclass of int: an int must not be a bool.
    of_type = {"int": lambda value: isinstance(value, int) and not isinstance(value, bool),
               "bool": lambda value: isinstance(value, bool),
               "float": lambda value: isinstance(value, float)}[option["type"]]
    assert typed[name] == option["default"] and of_type(typed[name]), (
        "%s's spec type %s and default %r disagree" % (name, option["type"], option["default"]))


def test_every_role_spec_has_numeric_or_bool_defaults_to_try():
    assert len(SCALARS) > 50 and {parameter.values[0] for parameter in SCALARS} >= {
        "zookeeper", "kafka_controller", "kafka_broker", "kafka_topics", "kafka_access", "kafka_verify"}


# Roles with defaults of their own (service_common has none: its callers pass every value).
WITH_DEFAULTS = [path for path in SPECS
                 if os.path.exists(os.path.join(REPOSITORY, "roles", path.split(os.sep)[-3], "defaults", "main.yml"))]


@pytest.mark.parametrize("path", WITH_DEFAULTS, ids=lambda path: path.split(os.sep)[-3])
def test_role_defaults_agree_with_the_spec_types(path):
    """A plain (untemplated) value in defaults/main.yml converts to itself: its spec type is the one it has."""
    role = path.split(os.sep)[-3]
    defaults_path = os.path.join(REPOSITORY, "roles", role, "defaults", "main.yml")
    with open(defaults_path, encoding="utf-8") as handle:
        defaults = yaml.safe_load(handle) or {}
    plain = dict((name, value) for name, value in defaults.items() if "{{" not in str(value))
    typed = _lookup(role, **plain)
    assert {name: value for name, value in typed.items() if name in plain} == {
        name: plain[name] for name in typed if name in plain}


def test_the_issues_command_line():
    typed = _lookup("kafka_broker", kafka_broker_min_insync_replicas="2", kafka_broker_jmx_tls="false")
    assert typed["kafka_broker_min_insync_replicas"] == 2 and typed["kafka_broker_jmx_tls"] is False
    with pytest.raises(AnsibleLookupError) as refused:
        _lookup("kafka_broker", kafka_broker_min_insync_replicas="two")
    assert str(refused.value).startswith("kafka_broker_min_insync_replicas: 'two' is not an int")


def test_unset_inputs_take_the_spec_default_or_are_left_out():
    typed = _lookup("kafka_broker")
    assert typed["kafka_broker_wait_timeout"] == 180 and "kafka_broker_id" not in typed
    assert "kafka_broker_decommission_ids" not in typed


def test_without_an_entry_point_every_entry_points_inputs():
    typed = _lookup("kafka_verify", kafka_verify_produce_records="20", kafka_verify_steady_rate="2.5")
    assert typed["kafka_verify_produce_records"] == 20 and typed["kafka_verify_steady_rate"] == 2.5
    assert typed["kafka_verify_examples"] == 5


@pytest.mark.parametrize("path", SPECS, ids=lambda path: path.split(os.sep)[-3])
def test_an_input_has_one_type_in_every_entry_point(path):
    """One name, one type: the lookup gives every entry point's inputs at once."""
    with open(path, encoding="utf-8") as handle:
        specs = yaml.safe_load(handle)["argument_specs"]
    seen = {}
    for entry_point, spec in specs.items():
        for name, option in ((spec or {}).get("options") or {}).items():
            kind = (option.get("type", "str"), option.get("elements"))
            assert seen.setdefault(name, (kind, entry_point))[0] == kind, (name, entry_point, seen[name][1])


@pytest.mark.parametrize("path", SPECS, ids=lambda path: path.split(os.sep)[-3])
def test_no_converted_input_defaults_to_the_typed_copy(path):
    """The lookup templates each input's value: one that read __<role>_inputs would call the lookup again."""
    role = path.split(os.sep)[-3]
    with open(path, encoding="utf-8") as handle:
        specs = yaml.safe_load(handle)["argument_specs"]
    options = {}
    for spec in specs.values():
        options.update(converted_options((spec or {}).get("options") or {}))
    defaults_path = os.path.join(REPOSITORY, "roles", role, "defaults", "main.yml")
    defaults = {}
    if os.path.exists(defaults_path):
        with open(defaults_path, encoding="utf-8") as handle:
            defaults = yaml.safe_load(handle) or {}
    assert [name for name in options if "_inputs" in str(defaults.get(name, ""))] == []


def test_an_entry_point_adds_its_own_inputs():
    typed = _lookup("kafka_broker", "decommission", kafka_broker_decommission_ids="4,5",
                    kafka_broker_decommission_kraft="yes")
    assert typed["kafka_broker_decommission_ids"] == [4, 5] and typed["kafka_broker_decommission_kraft"] is True
    assert typed["kafka_broker_port"] == 9092


def test_no_secret_is_returned():
    for role, entry_point, options in _entry_points():
        secrets = set(options) - set(converted_options(options))
        assert not secrets & set(_lookup(role, entry_point, **dict.fromkeys(secrets, "s3cret")))


@pytest.mark.parametrize("terms, message", [
    (("nothing",), "the collection has no role 'nothing'"),
    (("../roles",), "is not a role name"),
    (("kafka_broker", "nothing"), "no entry point 'nothing'"),
])
def test_unknown_roles_and_entry_points_are_refused(terms, message):
    with pytest.raises(AnsibleLookupError, match=message):
        _lookup(*terms)
