# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A role's inputs converted once by the types of its meta/argument_specs.yml (issue 34, "inputs typed once").

Every `-e key=value` reaches a role as a string, and ansible-core's own validation of a role's arguments checks
that "2" could be an int but hands the role the string: a comparison such as `>= 2` then fails, and a `when:` on
a bool given as "false" is refused as a broken conditional. The lookup kafkaops.cluster.role_inputs hands the
role a copy of its inputs converted here, by the spec's types, with Ansible's own conversion rules (the ones
module arguments follow), so that "2", "true", "yes" and "0.5" mean what they say wherever they come from.

Plain data in, plain data out: the lookup finds the spec and templates the values, this module converts them.
"""

from __future__ import absolute_import, division, print_function


import json
from collections.abc import Mapping

from ansible.module_utils.common.validation import (
    check_type_bool,
    check_type_dict,
    check_type_float,
    check_type_int,
    check_type_list,
    check_type_str,
)

# The types whose value differs from its text: only these get a typed copy. A str, path or raw input is used as
# given (a path is not expanded either: it names a file on the managed host, not on the controller).
CONVERTED_TYPES = ("int", "bool", "float", "list", "dict")

# How a refusal names the type expected.
TYPE_WORDS = {
    "int": "an int",
    "bool": "a bool (true/false, yes/no, on/off, 1/0)",
    "float": "a float",
    "list": "a list",
    "dict": "a dict",
    "str": "a str",
    "path": "a path",
}

# Names that hold a secret even where the spec forgot no_log.
SECRET_WORDS = ("password", "passphrase", "secret", "token", "key")
# ...but these name a key file or key names, not a secret.
NOT_SECRET_SUFFIXES = ("_key_file", "_keys", "_keystore", "_key_names")

SHOWN_LENGTH = 120


class InputTypeError(ValueError):
    """An input whose value cannot be converted to its spec's type; the message names the input."""


def is_secret(name, option):
    """Whether an input's value must never be shown: no_log in its spec, a name that says it is a secret, or
    suboptions (a list of users, say) of which one is."""
    if isinstance(option, Mapping):
        if option.get("no_log"):
            return True
        suboptions = option.get("options")
        if isinstance(suboptions, Mapping) and any(is_secret(key, value) for key, value in suboptions.items()):
            return True
    lowered = name.lower()
    if lowered.endswith(NOT_SECRET_SUFFIXES):
        return False
    return any(word in lowered.split("_") for word in SECRET_WORDS)


def entry_point_options(argument_specs, entry_point=None):
    """{input name: its spec} an entry point reads: main's inputs, then the entry point's own; with no entry point,
    the inputs of them all.

    The roles' other entry points read the role's usual settings as main does (their specs list only what the
    calling playbook passes in besides), so main's inputs come with every entry point. Every entry point at once
    serves a role's vars/main.yml, which cannot tell which entry point runs; an input of another entry point is
    usually unset and then simply left out.
    """
    if entry_point is not None and entry_point not in argument_specs:
        raise KeyError("no entry point %r; the role has %s" % (entry_point, ", ".join(sorted(argument_specs))))
    options = dict((argument_specs.get("main") or {}).get("options") or {})
    for name in [entry_point] if entry_point is not None else list(argument_specs):
        options.update((argument_specs[name] or {}).get("options") or {})
    return options


def converted_options(options):
    """{name: spec} of the inputs that get a typed copy: a converted type and no secret in them."""
    return dict(
        (name, option) for name, option in options.items()
        if (option or {}).get("type", "str") in CONVERTED_TYPES and not is_secret(name, option)
    )


def _shown(value):
    """A value as a refusal quotes it: strings in quotes, anything else as JSON would write it, cut short."""
    if isinstance(value, str):
        text = "'%s'" % value
    else:
        try:
            text = json.dumps(value, sort_keys=True, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= SHOWN_LENGTH else text[:SHOWN_LENGTH - 3] + "..."


def _refusal(name, value, type_name, secret, item=None):
    expected = TYPE_WORDS.get(type_name, "a " + type_name)
    if secret:
        return InputTypeError("%s: the value given (not shown, a secret) is not %s" % (name, expected))
    if item is None:
        return InputTypeError("%s: %s is not %s" % (name, _shown(value), expected))
    position, element = item
    return InputTypeError("%s: item %d, %s, of %s is not %s" % (name, position, _shown(element), _shown(value),
                                                                expected))


def _scalar(value, type_name):
    """value as type_name by Ansible's rules, or TypeError/ValueError."""
    if type_name in ("int", "float") and isinstance(value, bool):
        # True is an int to Python, but a port or a count of True is a mistake, not a number.
        raise TypeError("a bool is not a number")
    if type_name == "int":
        return check_type_int(value.strip() if isinstance(value, str) else value)
    if type_name == "float":
        return check_type_float(value)
    if type_name == "bool":
        if isinstance(value, str):
            value = value.strip()
        return check_type_bool(value)
    if type_name == "dict":
        if isinstance(value, str) and not value.strip():
            return {}
        return check_type_dict(value)
    if type_name in ("str", "path"):
        # strict as Ansible's validation is: a number or a bool where text belongs is a mistake, not text.
        return check_type_str(value, allow_conversion=False)
    return value  # raw, or a type Ansible added after this was written: as given


def _as_list(value):
    """A list from a list, a JSON list (-e 'ids=[4, 5]') or comma-separated text (-e ids=4,5)."""
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return []
        if text.startswith("["):
            try:
                loaded = json.loads(text)
            except ValueError:
                loaded = None
            if isinstance(loaded, list):
                return loaded
        return [part.strip() for part in check_type_list(text)]
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    return check_type_list(value)


def convert(name, value, option):
    """value converted to the type of option (an argument spec entry), or InputTypeError naming name.

    A secret's value is never put in the message.
    """
    option = option or {}
    type_name = option.get("type", "str")
    secret = is_secret(name, option)
    if type_name == "list":
        try:
            items = _as_list(value)
        except (TypeError, ValueError):
            raise _refusal(name, value, "list", secret) from None
        elements = option.get("elements")
        if not elements or elements == "raw":
            return items
        converted = []
        for position, element in enumerate(items, 1):
            try:
                converted.append(_scalar(element, elements))
            except (TypeError, ValueError):
                raise _refusal(name, value, elements, secret, item=None if secret else (position, element)) from None
        return converted
    try:
        return _scalar(value, type_name)
    except (TypeError, ValueError):
        raise _refusal(name, value, type_name, secret) from None


def convert_inputs(options, values):
    """{name: typed value} for every input of options (name: spec) that values (name: value) holds.

    An input values does not hold (unset, and no default) is left out, so that the caller sees it as undefined,
    as it would the variable. The first value that cannot be converted raises InputTypeError.
    """
    return dict((name, convert(name, values[name], option)) for name, option in options.items() if name in values)
