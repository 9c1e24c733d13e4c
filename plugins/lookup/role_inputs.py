# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
name: role_inputs
short_description: A role's numeric, boolean, list and dict inputs, converted once by its argument spec's types
version_added: 0.1.0
description:
  - Reads the argument spec (C(meta/argument_specs.yml)) of one of this collection's roles and returns its inputs
    of type int, bool, float, list and dict, each converted to that type, as one dictionary keyed by the variable's
    name. A value given as a string, as every C(-e key=value) is, becomes what its type says (C("2") the int 2,
    C("false") and C("no") the bool false, C("4,5") the list C([4, 5]) with int elements).
  - Ansible's own validation of a role's arguments checks such strings but leaves them strings, so a comparison or
    a condition on the raw variable fails or, worse, reads C("false") as true. The collection's roles read their
    typed inputs from this lookup instead (each role's C(vars/main.yml) names it C(__<role>_inputs)).
  - Values come from the variables in scope (with the role's defaults when run inside the role), templated; an
    input that is not set takes its spec's default; one without either is left out.
  - A value that cannot be converted stops the task with an error naming the variable, the value and the type
    expected. Inputs of type str, path and raw, and secrets (C(no_log) in the spec, or a name that says password,
    secret, token or key), are not returned, so that the dictionary can be shown without exposing a secret; a
    secret's value is never put in an error either.
options:
  _terms:
    description:
      - The role's name within the collection (C(kafka_broker)), optionally followed by an entry point.
      - With an entry point, its options and main's (the roles' other entry points read the role's usual settings
        as main does); without, the options of every entry point of the role, as a role's C(vars/main.yml) needs,
        which serves whichever entry point runs (an option of another entry point is usually unset, so left out).
    required: true
    type: list
    elements: str
"""

EXAMPLES = r"""
- name: Refuse a minimum ISR above the replication factor (kafka_broker_min_insync_replicas may come from -e)
  ansible.builtin.assert:
    that: __inputs.kafka_broker_min_insync_replicas <= 3
  vars:
    __inputs: "{{ lookup('kafkaops.cluster.role_inputs', 'kafka_broker') }}"

- name: The options of the decommission entry point as well
  ansible.builtin.debug:
    var: lookup('kafkaops.cluster.role_inputs', 'kafka_broker', 'decommission').kafka_broker_decommission_ids
"""

RETURN = r"""
_raw:
  description: One dictionary, {variable name - typed value}.
  type: list
  elements: dict
"""

import os

import yaml
from ansible.errors import AnsibleError, AnsibleLookupError
from ansible.plugins.lookup import LookupBase
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._role_inputs import (
    InputTypeError,
    convert_inputs,
    converted_options,
    entry_point_options,
)

ROLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "roles")

# Parsed specs by path and modification time: one task may read its role's inputs several times.
_SPECS = {}


def _argument_specs(role):
    if not role or os.sep in role or role.startswith("."):
        raise AnsibleLookupError("role_inputs: %r is not a role name" % (role,))
    path = os.path.join(ROLES, role, "meta", "argument_specs.yml")
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        raise AnsibleLookupError("role_inputs: the collection has no role %r with an argument spec" % (role,)) from None
    cached = _SPECS.get(path)
    if cached is None or cached[0] != stamp:
        with open(path, encoding="utf-8") as handle:
            loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
            cached = (stamp, (yaml.load(handle, Loader=loader) or {}).get("argument_specs") or {})
        _SPECS[path] = cached
    return cached[1]


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        if not terms or len(terms) > 2:
            raise AnsibleLookupError("role_inputs takes a role's name and optionally an entry point")
        role = str(terms[0])
        entry_point = str(terms[1]) if len(terms) > 1 else None
        try:
            options = converted_options(entry_point_options(_argument_specs(role), entry_point))
        except KeyError as error:
            raise AnsibleLookupError("role_inputs: role %s: %s" % (role, error.args[0])) from None
        variables = variables or {}
        values = {}
        for name, option in options.items():
            if name in variables:
                try:
                    values[name] = self._templar.template(variables[name])
                except AnsibleError:
                    # What the variable itself gives where it cannot be worked out (a default that reads facts
                    # not gathered yet, or a host outside the list its id is counted in): nothing. A use site
                    # that needs it then fails on it by name, as it would have on the variable.
                    continue
            elif "default" in option:
                values[name] = option["default"]
        try:
            return [convert_inputs(options, values)]
        except InputTypeError as error:
            raise AnsibleLookupError("%s (role %s, meta/argument_specs.yml)" % (error, role)) from None
