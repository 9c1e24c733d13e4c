# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Declared SCRAM users against the cluster's credentials: what to set and what to delete.

Pure (plain data in, plain data out) and unit-tested: the users a kafka_user call declares,
normalised and checked, and their difference from the credentials the cluster holds, which
_users.py reads and then changes.

A password is declared but can never be read back: the cluster keeps a salted hash only. So the
difference is made of what can be read (which mechanisms a user has credentials for, and their
iteration counts) and a password is sent only when update_password says so. Nothing this file
returns for display (field names, messages, the diff) holds a password; only the writes do.
"""

from __future__ import absolute_import, division, print_function


from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError, field_name
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import NumberLimit

MECHANISMS = ("SCRAM-SHA-512", "SCRAM-SHA-256")
DEFAULT_MECHANISM = "SCRAM-SHA-512"
# Kafka's own bounds (ScramMechanism's minIterations and maxIterations): the brokers refuse others.
ITERATIONS = NumberLimit(minimum=4096, maximum=16384)
DEFAULT_ITERATIONS = 4096
STATES = ("present", "absent")
# The keys an item of the users option takes that, left out, come from the module-level option.
# Not the password: one password shared by a list of users is not something to make easy.
INHERITED_KEYS = ("mechanism", "iterations", "state")
USER_KEYS = ("name", "password") + INHERITED_KEYS


class UserSpecError(InputError):
    """A declared user cannot be applied; field names the input, such as users[2].iterations."""


def declared_users(params):
    """The users to manage, each with the module-level options filling what it leaves out.

    Returns them with the option they came from: name (one user) or users.
    """
    if params["name"] is not None:
        return [dict((key, params[key]) for key in USER_KEYS)], "name"
    items = []
    for item in params["users"]:
        if not isinstance(item, dict):
            items.append(item)
            continue
        merged = dict((key, params[key]) for key in INHERITED_KEYS)
        merged.update((key, value) for key, value in item.items() if value is not None)
        items.append(merged)
    return items, "users"


def _check_iterations(value, field):
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserSpecError(field, "must be a whole number, not %r" % (value,))
    problem = ITERATIONS.problem(value)
    if problem:
        raise UserSpecError(field, problem)
    return value


def _claimed_mechanisms(item):
    """The mechanisms an item decides about: one, or all of them for a user to remove entirely."""
    if item["mechanism"] is None:
        return set(MECHANISMS)
    return set([item["mechanism"]])


def normalize_users(items, field_prefix="users"):
    """Declared users as [{name, password, mechanism, iterations, state, field}], checked.

    mechanism is None only for a user to remove entirely (state absent without a mechanism).
    Raises UserSpecError for a bad entry, naming it (users[1].name). Messages never quote a password.
    """
    normalized = []
    claimed = {}
    for index, item in enumerate(items):
        # With a single user (field_prefix None) the fields are the module options themselves.
        where = "%s[%d]" % (field_prefix, index) if field_prefix else ""
        if not isinstance(item, dict):
            raise UserSpecError(where or "name", "each user is a mapping with at least a name")
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            raise UserSpecError(field_name(where, "name"), "a user name is required")
        state = item.get("state") or "present"
        if state not in STATES:
            raise UserSpecError(field_name(where, "state"), "must be present or absent, not %r" % (state,))
        mechanism = item.get("mechanism")
        if mechanism is not None and mechanism not in MECHANISMS:
            raise UserSpecError(field_name(where, "mechanism"), "must be %s, not %r" % (
                " or ".join(MECHANISMS), mechanism))
        if mechanism is None and state == "present":
            mechanism = DEFAULT_MECHANISM
        iterations = item.get("iterations")
        iterations = DEFAULT_ITERATIONS if iterations is None else _check_iterations(
            iterations, field_name(where, "iterations"))
        password = item.get("password")
        if state == "present" and (not isinstance(password, str) or not password):
            raise UserSpecError(field_name(where, "password"), "a password is required for user %r with state "
                                                               "present" % name)
        entry = dict(name=name, password=password if state == "present" else None, mechanism=mechanism,
                     iterations=iterations, state=state, field=where)
        for earlier_index, earlier in claimed.get(name, []):
            if _claimed_mechanisms(earlier) & _claimed_mechanisms(entry):
                raise UserSpecError(field_name(where, "name"), "user %r is declared twice for the same mechanism "
                                                               "(also %s[%d])" % (name, field_prefix, earlier_index))
        claimed.setdefault(name, []).append((index, entry))
        normalized.append(entry)
    return normalized


def user_view(credentials):
    """What diff mode shows of one user: {mechanism: {iterations}}, or None for a user without credentials."""
    if not credentials:
        return None
    return dict((mechanism, dict(iterations=iterations)) for mechanism, iterations in sorted(credentials.items()))


def _add_once(names, name):
    if name not in names:
        names.append(name)


def plan_user_changes(desired, actual, update_password="on_create"):
    """The difference between declared users and the cluster's SCRAM credentials.

    desired: normalize_users() output. actual: {name: {mechanism: iterations}} for the users with
    credentials. update_password: on_create sets a password only for a mechanism the user has no
    credential for; always sets it on every run (a credential cannot be read back to compare).
    Returns {upsert: [{name, mechanism, iterations, password}], delete: [(name, mechanism)], users,
    created, updated, deleted, changed, before, after, notes}. upsert holds the passwords, to be
    sent and never shown; notes are warnings for the user (without passwords).
    """
    upsert, delete, notes = [], [], []
    created, updated, deleted, changed_names = [], [], [], []
    current = dict((name, dict(credentials)) for name, credentials in actual.items())
    before = {}
    for user in desired:
        name, mechanism = user["name"], user["mechanism"]
        held = current.setdefault(name, {})
        view_before = user_view(held)
        if user["state"] == "absent":
            to_delete = [mechanism] if mechanism is not None else sorted(held)
            to_delete = [one for one in to_delete if one in held]
            for one in to_delete:
                delete.append((name, one))
                del held[one]
            if to_delete:
                _add_once(deleted, name)
        else:
            if mechanism not in held:
                _add_once(created, name)
            elif update_password == "always":
                _add_once(updated, name)
            else:
                if held[mechanism] != user["iterations"]:
                    notes.append("%s: user %r has a %s credential of %d iterations, not the %d declared; it is "
                                 "left alone, as update_password=on_create says: update_password=always sets it "
                                 "again" % (field_name(user["field"], "iterations"), name, mechanism,
                                            held[mechanism], user["iterations"]))
                continue
            upsert.append(dict(name=name, mechanism=mechanism, iterations=user["iterations"],
                               password=user["password"]))
            held[mechanism] = user["iterations"]
        if name in created or name in updated or name in deleted:
            before.setdefault(name, view_before)
            _add_once(changed_names, name)
    after = dict((name, user_view(current[name])) for name in changed_names)
    return dict(upsert=upsert, delete=delete, users=changed_names, created=created, updated=updated,
                deleted=deleted, changed=bool(changed_names), before=before, after=after, notes=notes)
