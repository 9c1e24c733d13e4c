# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Declared ACLs against the cluster's: which to create and which to delete.

Pure (plain values in, plain values out) and unit-tested: the ACLs a module call declares,
normalised and checked, the reads that find the ACLs they are compared with, and the difference
that _acls.py then sends.

An ACL is an AclBinding of lower-case words, the way the module's options spell them; _acls.py
turns it into kafka-python's objects and back.
"""

from __future__ import absolute_import, division, print_function


import re
from collections import namedtuple

from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError, field_name

ACL_KEYS = ("principal", "host", "operation", "permission", "resource_type", "resource_name", "pattern_type")
AclBinding = namedtuple("AclBinding", ACL_KEYS)

PERMISSIONS = ("allow", "deny")
PATTERN_TYPES = ("literal", "prefixed")
# The one name Kafka accepts for the cluster resource; its authorizer never asks about another.
CLUSTER_NAME = "kafka-cluster"
# Kafka's table of the operations each resource type takes (AclEntry.supportedOperations in the
# broker); `all` applies to every type. An ACL outside it is stored but never grants anything.
OPERATIONS_BY_RESOURCE_TYPE = {
    "topic": ("read", "write", "create", "delete", "alter", "describe", "describe_configs", "alter_configs"),
    "group": ("read", "delete", "describe"),
    "cluster": ("create", "alter", "describe", "cluster_action", "describe_configs", "alter_configs",
                "idempotent_write"),
    "transactional_id": ("write", "describe"),
    "delegation_token": ("describe",),
}
RESOURCE_TYPES = ("topic", "group", "cluster", "transactional_id", "delegation_token")
OPERATIONS = ("all", "read", "write", "create", "delete", "alter", "describe", "cluster_action",
              "describe_configs", "alter_configs", "idempotent_write")
# What exclusive removes, and what the module reads and shows: every ACL of the declared principals,
# or every ACL on the declared resource patterns.
SCOPES = ("principal", "resource")


class AclSpecError(InputError):
    """A declared ACL cannot be applied; field names the offending input, such as acls[2].operation."""


def canonical_word(value):
    """A name as the module spells it: READ, Read, IdempotentWrite and idempotent-write all give idempotent_write."""
    if not isinstance(value, str):
        return None
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", value.strip())
    return re.sub(r"[-\s]+", "_", spaced).lower()


def _choice(item, key, field, choices, default=None):
    value = item.get(key)
    if value is None:
        if default is None:
            raise AclSpecError(field, "is required; one of %s" % ", ".join(choices))
        return default
    word = canonical_word(value)
    if word not in choices:
        raise AclSpecError(field, "unknown %s %r; one of %s" % (key.replace("_", " "), value, ", ".join(choices)))
    return word


def _principal(value, field):
    if not isinstance(value, str) or not value:
        raise AclSpecError(field, "is required, as Type:name (User:alice)")
    kind, colon, name = value.partition(":")
    if not colon or not kind or not name or re.search(r"\s", kind) or name != name.strip():
        raise AclSpecError(field, "%r is not of the form Type:name (User:alice, or User:* for every user)" % value)
    return value


def _host(value, field):
    if value is None:
        return "*"
    if not isinstance(value, str) or not value or re.search(r"\s", value):
        raise AclSpecError(field, "%r is neither * nor a client address" % (value,))
    return value


def _resource_name(value, resource_type, field):
    if resource_type == "cluster":
        if value not in (None, CLUSTER_NAME):
            raise AclSpecError(field, "the cluster resource is always named %s, not %r" % (CLUSTER_NAME, value))
        return CLUSTER_NAME
    if value is None or not str(value).strip():
        raise AclSpecError(field, "a %s ACL needs the name of its %s (or * for all)"
                           % (resource_type, resource_type.replace("_", " ")))
    return str(value)


def normalize_acls(items, field_prefix="acls"):
    """Declared ACLs as a list of AclBinding, in the order given, checked.

    Raises AclSpecError for a bad entry, naming it (acls[2].operation) so a user can find it.
    """
    normalized = []
    seen = {}
    for index, item in enumerate(items or []):
        where = "%s[%d]" % (field_prefix, index)
        if not isinstance(item, dict):
            raise AclSpecError(where, "each ACL is a mapping with principal, operation, resource_type and "
                                      "resource_name")
        unknown = sorted(set(item) - set(ACL_KEYS))
        if unknown:
            raise AclSpecError(where, "unknown key(s) %s; an ACL takes %s" % (", ".join(unknown), ", ".join(ACL_KEYS)))
        principal = _principal(item.get("principal"), field_name(where, "principal"))
        host = _host(item.get("host"), field_name(where, "host"))
        resource_type = _choice(item, "resource_type", field_name(where, "resource_type"), RESOURCE_TYPES)
        pattern_type = _choice(item, "pattern_type", field_name(where, "pattern_type"), PATTERN_TYPES, "literal")
        if resource_type == "cluster" and pattern_type != "literal":
            raise AclSpecError(field_name(where, "pattern_type"), "the cluster resource takes only literal")
        resource_name = _resource_name(item.get("resource_name"), resource_type, field_name(where, "resource_name"))
        operation = _choice(item, "operation", field_name(where, "operation"), OPERATIONS)
        applicable = OPERATIONS_BY_RESOURCE_TYPE[resource_type]
        if operation != "all" and operation not in applicable:
            raise AclSpecError(field_name(where, "operation"), "%s does not apply to a %s; a %s takes all, %s"
                               % (operation, resource_type, resource_type, ", ".join(applicable)))
        permission = _choice(item, "permission", field_name(where, "permission"), PERMISSIONS, "allow")
        binding = AclBinding(principal, host, operation, permission, resource_type, resource_name, pattern_type)
        if binding in seen:
            raise AclSpecError(where, "the same ACL as %s[%d] (%s)"
                               % (field_prefix, seen[binding], binding_line(binding)))
        seen[binding] = index
        normalized.append(binding)
    return normalized


def check_acl_options(desired, state, exclusive):
    """Refuse option combinations that cannot say which ACLs to keep (AclSpecError names the option)."""
    if not exclusive:
        return
    if state == "absent":
        raise AclSpecError("exclusive", "applies only with state=present; state=absent removes exactly the "
                                        "listed ACLs")
    if not desired:
        raise AclSpecError("exclusive", "acls is empty, so no principal or resource bounds what exclusive "
                                        "would remove; declare the ACLs to keep, or list those to remove with "
                                        "state=absent")


def resource_of(binding):
    return (binding.resource_type, binding.resource_name, binding.pattern_type)


def read_filters(desired, scope):
    """The reads that find every ACL of the scope, one per declared principal or resource pattern.

    Each is a dict: {principal} or {resource_type, resource_name, pattern_type}; a key left out
    matches anything.
    """
    if scope == "principal":
        return [dict(principal=principal) for principal in sorted(set(binding.principal for binding in desired))]
    return [dict(resource_type=kind, resource_name=name, pattern_type=pattern)
            for kind, name, pattern in sorted(set(resource_of(binding) for binding in desired))]


def in_scope(binding, desired, scope):
    if scope == "principal":
        return binding.principal in set(item.principal for item in desired)
    return resource_of(binding) in set(resource_of(item) for item in desired)


def binding_order(binding):
    """Sorts an ACL by principal, then resource, then what it allows."""
    return (binding.principal, binding.resource_type, binding.resource_name, binding.pattern_type,
            binding.operation, binding.permission, binding.host)


def binding_line(binding):
    """One ACL on one line: User:alice * READ ALLOW topic:orders (literal)."""
    return "%s %s %s %s %s:%s (%s)" % (binding.principal, binding.host, binding.operation.upper(),
                                       binding.permission.upper(), binding.resource_type, binding.resource_name,
                                       binding.pattern_type)


def binding_dict(binding):
    """An ACL as the module returns it, with the keys of an item of the acls option."""
    return dict(binding._asdict())


def diff_text(bindings):
    lines = [binding_line(binding) for binding in sorted(bindings, key=binding_order)]
    return "".join(line + "\n" for line in lines)


def plan_acl_changes(desired, current, state="present", exclusive=False, scope="principal"):
    """Compute what to create and delete so the cluster holds the declaration.

    desired: normalize_acls() output. current: the ACLs the read_filters() reads found (AclBinding);
    those outside the scope are ignored. Returns {create, delete, changed, before, after}: the ACLs
    to create and to delete, sorted, and the scope's ACLs before and after as diff text.
    """
    held = set(binding for binding in current if in_scope(binding, desired, scope))
    wanted = set(desired)
    if state == "absent":
        create, delete = set(), wanted & held
    else:
        create = wanted - held
        delete = held - wanted if exclusive else set()
    after = (held | create) - delete
    return dict(create=sorted(create, key=binding_order), delete=sorted(delete, key=binding_order),
                changed=bool(create or delete), before=diff_text(held), after=diff_text(after))
