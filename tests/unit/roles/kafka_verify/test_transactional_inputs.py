"""The transactional producer's role inputs: declared for steady_start with types and documentation, converted
from command-line text, and checked before anything starts."""

import os

import pytest
import yaml
from ansible.errors import AnsibleLookupError
from ansible_collections.kafkaops.cluster.plugins.lookup import role_inputs

ROLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "roles", "kafka_verify")
NAMES = ("kafka_verify_transactional", "kafka_verify_transactional_topic", "kafka_verify_transactional_manifest",
         "kafka_verify_transactional_rate", "kafka_verify_transactional_records",
         "kafka_verify_transactional_abort_every")


def _load(*parts):
    with open(os.path.join(ROLE, *parts), encoding="utf-8") as stream:
        return yaml.safe_load(stream)


class _Templar(object):
    def template(self, value):
        return value


def _inputs(**variables):
    lookup = role_inputs.LookupModule()
    lookup._templar = _Templar()
    return lookup.run(["kafka_verify", "steady_start"], variables=variables)[0]


def test_each_input_is_declared_documented_and_defaulted_as_the_role_defaults():
    options = _load("meta", "argument_specs.yml")["argument_specs"]["steady_start"]["options"]
    defaults = _load("defaults", "main.yml")
    for name in NAMES:
        assert options[name].get("description"), name
        assert options[name]["default"] == defaults[name], name
    assert defaults["kafka_verify_transactional"] is False


def test_command_line_text_becomes_the_declared_types():
    typed = _inputs(kafka_verify_transactional="yes", kafka_verify_transactional_rate="12.5",
                    kafka_verify_transactional_records="20", kafka_verify_transactional_abort_every="0")
    assert typed["kafka_verify_transactional"] is True
    assert (typed["kafka_verify_transactional_rate"], typed["kafka_verify_transactional_records"],
            typed["kafka_verify_transactional_abort_every"]) == (12.5, 20, 0)
    assert _inputs(kafka_verify_transactional="false")["kafka_verify_transactional"] is False


def test_a_value_that_is_not_a_number_is_refused_by_name():
    with pytest.raises(AnsibleLookupError, match="kafka_verify_transactional_records"):
        _inputs(kafka_verify_transactional_records="ten")


def test_steady_start_checks_the_transactional_inputs_before_it_starts_anything():
    tasks = _load("tasks", "steady_start.yml")
    names = [task["name"] for task in tasks]
    check = tasks[names.index("Transactional producer inputs are sound")]
    assert names.index("Transactional producer inputs are sound") < names.index("Start the producers")
    assert check["when"] == "__kafka_verify_inputs.kafka_verify_transactional"
    checked = " ".join(check["ansible.builtin.assert"]["that"])
    for name in NAMES[1:]:
        assert name in checked and name in check["ansible.builtin.assert"]["fail_msg"], name
