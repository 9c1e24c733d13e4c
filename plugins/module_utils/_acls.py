# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The module kafka_acl's run: read the ACLs of the declared scope, then create and delete the difference.

The difference itself is computed without the network (_acl_changes.py). Here it is read with one
DescribeAcls per declared principal (or resource pattern) and written with at most one CreateAcls
holding every missing ACL and one DeleteAcls holding an exact filter per ACL to remove.
"""

from __future__ import absolute_import, division, print_function


try:
    from kafka.admin import (
        ACL,
        ACLFilter,
        ACLOperation,
        ACLPermissionType,
        ACLResourcePatternType,
        ResourcePattern,
        ResourcePatternFilter,
        ResourceType,
    )
    from kafka.errors import ClusterAuthorizationFailedError, SecurityDisabledError
except ImportError:
    ACL = ACLFilter = ACLOperation = ACLPermissionType = ACLResourcePatternType = None
    ResourcePattern = ResourcePatternFilter = ResourceType = None
    ClusterAuthorizationFailedError = SecurityDisabledError = None

from ansible_collections.kafkaops.cluster.plugins.module_utils._acl_changes import (
    AclBinding,
    binding_dict,
    binding_line,
    check_acl_options,
    normalize_acls,
    plan_acl_changes,
    read_filters,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import KafkaAdminError, describe_error

NO_AUTHORIZER = ("the cluster has no authorizer, so it keeps no ACLs (SECURITY_DISABLED): set authorizer.class.name "
                 "on every broker (kafka.security.authorizer.AclAuthorizer with ZooKeeper, "
                 "org.apache.kafka.metadata.authorizer.StandardAuthorizer with KRaft) and restart them")
NOT_ALLOWED = ("the principal this module connects as may not %s ACLs (CLUSTER_AUTHORIZATION_FAILED): it needs "
               "%s on the cluster resource, or to be one of the brokers' super.users")


def _enum_name(word):
    return word.upper()


def _acl_fields(binding):
    """What an ACL and the filter matching exactly it share: (keyword fields, resource pattern fields)."""
    fields = dict(principal=binding.principal, host=binding.host,
                  operation=ACLOperation[_enum_name(binding.operation)],
                  permission_type=ACLPermissionType[_enum_name(binding.permission)])
    pattern = (ResourceType[_enum_name(binding.resource_type)], binding.resource_name,
               ACLResourcePatternType[_enum_name(binding.pattern_type)])
    return fields, pattern


def kafka_acl(binding):
    """kafka-python's ACL for an AclBinding."""
    fields, pattern = _acl_fields(binding)
    return ACL(resource_pattern=ResourcePattern(*pattern), **fields)


def exact_filter(binding):
    """A filter that matches this one ACL and no other, for DeleteAcls."""
    fields, pattern = _acl_fields(binding)
    return ACLFilter(resource_pattern=ResourcePatternFilter(*pattern), **fields)


def scope_filter(description):
    """kafka-python's filter for one of read_filters()' reads: the keys it leaves out match anything."""
    if "principal" in description:
        pattern = ResourcePatternFilter(ResourceType.ANY, None, ACLResourcePatternType.ANY)
        principal = description["principal"]
    else:
        pattern = ResourcePatternFilter(ResourceType[_enum_name(description["resource_type"])],
                                        description["resource_name"],
                                        ACLResourcePatternType[_enum_name(description["pattern_type"])])
        principal = None
    return ACLFilter(principal=principal, host=None, operation=ACLOperation.ANY,
                     permission_type=ACLPermissionType.ANY, resource_pattern=pattern)


def binding_of(acl):
    """The AclBinding of one of kafka-python's ACLs; any kind the cluster holds, not only those the module declares."""
    pattern = acl.resource_pattern
    return AclBinding(acl.principal, acl.host, acl.operation.name.lower(), acl.permission_type.name.lower(),
                      pattern.resource_type.name.lower(), pattern.resource_name, pattern.pattern_type.name.lower())


def _error_class(error):
    """kafka-python reports an error as a class or as an instance; the class, or None for no error given."""
    if error is None or isinstance(error, type):
        return error
    return error.__class__


def _refusal(error_class, action, needed):
    """Our message for the refusals a user can mend on the brokers, or None for any other error."""
    if error_class is None:
        return None
    if SecurityDisabledError is not None and issubclass(error_class, SecurityDisabledError):
        return NO_AUTHORIZER
    if ClusterAuthorizationFailedError is not None and issubclass(error_class, ClusterAuthorizationFailedError):
        return NOT_ALLOWED % (action, needed)
    return None


def read_acls(client, filters):
    """The ACLs matching any of read_filters()' reads, as a set of AclBinding: one DescribeAcls per read."""
    held = set()
    for description in filters:
        try:
            found, unused = client.describe_acls(scope_filter(description))
        except Exception as error:  # pylint: disable=broad-except
            message = _refusal(error.__class__, "describe", "DESCRIBE")
            if message is None:
                raise KafkaAdminError("reading ACLs failed: %s" % describe_error(error)) from None
            raise KafkaAdminError(message) from None
        held.update(binding_of(acl) for acl in found)
    return held


def _failure_message(verb, failures):
    """One message for the ACLs a request could not create or delete: [(binding, error or None)]."""
    for message in (_refusal(_error_class(error), "change", "ALTER") for unused, error in failures):
        if message is not None:
            return message
    return "%s %d ACL(s) failed: %s" % (verb, len(failures), "; ".join(
        "%s: %s" % (binding_line(binding), _error_class(error).__name__ if error is not None else "refused")
        for binding, error in failures))


def create_acls(client, bindings):
    """One CreateAcls with every binding; returns those created, raises KafkaAdminError naming those refused.

    The error carries created, so the module can report what did change.
    """
    requested = [(binding, kafka_acl(binding)) for binding in bindings]
    try:
        outcome = client.create_acls([acl for unused, acl in requested])
    except Exception as error:  # pylint: disable=broad-except
        message = _refusal(error.__class__, "change", "ALTER")
        raise KafkaAdminError(message or "creating ACLs failed: %s" % describe_error(error)) from None
    succeeded = outcome.get("succeeded", [])
    created = [binding for binding, acl in requested if acl in succeeded]
    # kafka-python lists the errors of the refused ACLs in request order, without the ACLs themselves.
    refused = [binding for binding, acl in requested if acl not in succeeded]
    if refused:
        errors = list(outcome.get("failed", []))
        errors += [None] * (len(refused) - len(errors))
        failure = KafkaAdminError(_failure_message("creating", [(binding, errors[index])
                                                                for index, binding in enumerate(refused)]))
        failure.created = created
        raise failure
    return created


def delete_acls(client, bindings):
    """One DeleteAcls with an exact filter per binding; raises KafkaAdminError naming those it could not delete."""
    try:
        outcome = client.delete_acls([exact_filter(binding) for binding in bindings])
    except Exception as error:  # pylint: disable=broad-except
        message = _refusal(error.__class__, "change", "ALTER")
        raise KafkaAdminError(message or "deleting ACLs failed: %s" % describe_error(error)) from None
    # One (filter, ACLs matched, error class) per filter, in request order.
    failures = [(bindings[index], error) for index, (unused, unused_matched, error) in enumerate(outcome)
                if getattr(error, "errno", 0)]
    if failures:
        raise KafkaAdminError(_failure_message("deleting", failures))


# ---- the module's run ------------------------------------------------------------------------


def unchanged_acl_result():
    """What kafka_acl returns when nothing changes (a failure returns it too)."""
    return dict(changed=False, acls=[], created=[], deleted=[])


def check_acl_inputs(module):
    """The declared ACLs, normalised and checked before connecting (AclSpecError names the field)."""
    params = module.params
    desired = normalize_acls(params["acls"])
    check_acl_options(desired, params["state"], params["exclusive"])
    return desired


def run_acl(module, client, desired):
    """kafka_acl: read the scope's ACLs, compute the difference, write it unless in check mode."""
    params = module.params
    scope = params["exclusive_scope"]
    module.result["acls"] = [binding_dict(binding) for binding in desired]
    current = read_acls(client, read_filters(desired, scope))
    changes = plan_acl_changes(desired, current, params["state"], params["exclusive"], scope)
    if not module.check_mode:
        # New ACLs first: a principal whose ACLs are replaced never goes without either set.
        if changes["create"]:
            try:
                create_acls(client, changes["create"])
            except KafkaAdminError as error:
                created = getattr(error, "created", [])
                module.result.update(changed=bool(created), created=[binding_dict(item) for item in created])
                raise
        if changes["delete"]:
            module.result.update(changed=bool(changes["create"]),
                                 created=[binding_dict(item) for item in changes["create"]])
            delete_acls(client, changes["delete"])
    module.result.update(
        changed=changes["changed"],
        created=[binding_dict(binding) for binding in changes["create"]],
        deleted=[binding_dict(binding) for binding in changes["delete"]],
    )
    if module.diff:
        module.result["diff"] = dict(before=changes["before"], after=changes["after"])
