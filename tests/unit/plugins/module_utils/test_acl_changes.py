"""kafka_acl's pure half: checking declared ACLs and computing their difference from the cluster."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._acl_changes import (
    OPERATIONS,
    OPERATIONS_BY_RESOURCE_TYPE,
    AclBinding,
    AclSpecError,
    binding_dict,
    binding_line,
    canonical_word,
    check_acl_options,
    normalize_acls,
    plan_acl_changes,
    read_filters,
)
from hypothesis import assume, given
from hypothesis import strategies as st


def _acl(principal="User:alice", operation="read", resource_type="topic", resource_name="orders", **more):
    return dict(dict(principal=principal, operation=operation, resource_type=resource_type,
                     resource_name=resource_name), **more)


def _binding(principal="User:alice", operation="read", resource_type="topic", resource_name="orders",
             host="*", permission="allow", pattern_type="literal"):
    return AclBinding(principal, host, operation, permission, resource_type, resource_name, pattern_type)


# ---- checking the declaration -------------------------------------------------------------------


def test_defaults_fill_host_permission_pattern_and_the_cluster_name():
    assert normalize_acls([_acl(), dict(principal="User:bob", operation="IdempotentWrite",
                                        resource_type="Cluster")]) == [
        _binding(), _binding("User:bob", "idempotent_write", "cluster", "kafka-cluster")]


@pytest.mark.parametrize("spelling, word", [
    ("READ", "read"), ("Read", "read"), ("IdempotentWrite", "idempotent_write"),
    ("IDEMPOTENT_WRITE", "idempotent_write"), ("describe-configs", "describe_configs"),
    ("TransactionalId", "transactional_id"), (" allow ", "allow"), (3, None),
])
def test_names_are_taken_as_kafkas_tools_spell_them(spelling, word):
    assert canonical_word(spelling) == word


@pytest.mark.parametrize("item, field, words", [
    ("User:alice", "acls[0]", "is a mapping"),
    (_acl(colour="red"), "acls[0]", "unknown key(s) colour"),
    (_acl(principal=None), "acls[0].principal", "is required"),
    (_acl(principal="alice"), "acls[0].principal", "Type:name"),
    (_acl(principal=":alice"), "acls[0].principal", "Type:name"),
    (_acl(principal="User:"), "acls[0].principal", "Type:name"),
    (_acl(principal="User: alice"), "acls[0].principal", "Type:name"),
    (_acl(host=""), "acls[0].host", "neither * nor a client address"),
    (_acl(host="10.0.0.1 10.0.0.2"), "acls[0].host", "neither * nor a client address"),
    (_acl(operation=None), "acls[0].operation", "is required"),
    (_acl(operation="publish"), "acls[0].operation", "unknown operation 'publish'"),
    (_acl(operation="any"), "acls[0].operation", "unknown operation 'any'"),
    (_acl(permission="maybe"), "acls[0].permission", "unknown permission 'maybe'; one of allow, deny"),
    (_acl(resource_type="queue"), "acls[0].resource_type", "unknown resource type 'queue'"),
    (_acl(resource_type=None), "acls[0].resource_type", "is required"),
    (_acl(pattern_type="match"), "acls[0].pattern_type", "unknown pattern type 'match'; one of literal, prefixed"),
    (_acl(resource_name=None), "acls[0].resource_name", "needs the name of its topic"),
    (_acl(resource_name=""), "acls[0].resource_name", "needs the name of its topic"),
    (_acl(resource_type="group", resource_name="  "), "acls[0].resource_name", "needs the name of its group"),
    (_acl(operation="describe", resource_type="cluster", resource_name="my-cluster"), "acls[0].resource_name",
     "always named kafka-cluster"),
    (_acl(operation="describe", resource_type="cluster", resource_name=None, pattern_type="prefixed"),
     "acls[0].pattern_type", "only literal"),
    (_acl(operation="cluster_action"), "acls[0].operation", "cluster_action does not apply to a topic"),
    (_acl(operation="idempotent_write", resource_type="group"), "acls[0].operation",
     "idempotent_write does not apply to a group; a group takes all, read, delete, describe"),
    (_acl(operation="read", resource_type="transactional_id"), "acls[0].operation", "does not apply"),
    (_acl(operation="read", resource_type="cluster", resource_name=None), "acls[0].operation", "does not apply"),
    (_acl(operation="write", resource_type="delegation_token"), "acls[0].operation", "does not apply"),
], ids=["not-a-mapping", "unknown-key", "no-principal", "principal-without-type", "principal-empty-type",
        "principal-empty-name", "principal-spaced-name", "empty-host", "spaced-host", "no-operation",
        "unknown-operation", "filter-only-operation", "unknown-permission", "unknown-resource-type",
        "no-resource-type", "unknown-pattern-type", "no-resource-name", "empty-resource-name",
        "blank-group-name", "other-cluster-name", "prefixed-cluster", "cluster-action-on-topic",
        "idempotent-write-on-group", "read-on-transactional-id", "read-on-cluster", "write-on-token"])
def test_a_bad_entry_is_refused_naming_its_field(item, field, words):
    with pytest.raises(AclSpecError) as refused:
        normalize_acls([item])
    assert refused.value.field == field
    assert str(refused.value).startswith(field + ": ") and words in str(refused.value), str(refused.value)


def test_the_field_names_the_index_of_the_bad_entry():
    with pytest.raises(AclSpecError) as refused:
        normalize_acls([_acl(), _acl(operation="write"), _acl(operation="fly")])
    assert refused.value.field == "acls[2].operation"


def test_the_same_acl_twice_is_refused_whatever_its_spelling():
    with pytest.raises(AclSpecError) as refused:
        normalize_acls([_acl(), _acl(operation="write"), _acl(operation="READ", host="*", permission="Allow")])
    assert refused.value.field == "acls[2]"
    assert "the same ACL as acls[0] (User:alice * READ ALLOW topic:orders (literal))" in str(refused.value)


@pytest.mark.parametrize("resource_type", sorted(OPERATIONS_BY_RESOURCE_TYPE))
def test_every_operation_of_kafkas_table_and_all_are_accepted_and_no_other(resource_type):
    name = None if resource_type == "cluster" else "x"
    for operation in OPERATIONS:
        item = _acl(operation=operation, resource_type=resource_type, resource_name=name)
        if operation == "all" or operation in OPERATIONS_BY_RESOURCE_TYPE[resource_type]:
            assert normalize_acls([item])[0].operation == operation
        else:
            with pytest.raises(AclSpecError):
                normalize_acls([item])


@pytest.mark.parametrize("desired, state, exclusive, words", [
    ([_binding()], "absent", True, "applies only with state=present"),
    ([], "present", True, "acls is empty"),
])
def test_exclusive_needs_state_present_and_a_scope(desired, state, exclusive, words):
    with pytest.raises(AclSpecError) as refused:
        check_acl_options(desired, state, exclusive)
    assert refused.value.field == "exclusive" and words in str(refused.value)


@pytest.mark.parametrize("desired, state", [([], "present"), ([], "absent"), ([_binding()], "absent")])
def test_without_exclusive_any_declaration_is_accepted(desired, state):
    check_acl_options(desired, state, False)


# ---- the reads and the difference ---------------------------------------------------------------


def test_one_read_per_principal_or_per_resource_pattern():
    desired = [_binding(), _binding(operation="write"), _binding("User:bob"),
               _binding("User:bob", resource_name="orders", pattern_type="prefixed"),
               _binding("User:carol", "read", "group", "billing")]
    assert read_filters(desired, "principal") == [
        dict(principal="User:alice"), dict(principal="User:bob"), dict(principal="User:carol")]
    assert read_filters(desired, "resource") == [
        dict(resource_type="group", resource_name="billing", pattern_type="literal"),
        dict(resource_type="topic", resource_name="orders", pattern_type="literal"),
        dict(resource_type="topic", resource_name="orders", pattern_type="prefixed")]


def test_a_declaration_the_cluster_holds_changes_nothing():
    desired = [_binding(), _binding(operation="write")]
    changes = plan_acl_changes(desired, set(desired) | {_binding(operation="describe")})
    assert not changes["changed"] and changes["create"] == [] and changes["delete"] == []
    assert changes["before"] == changes["after"]


def test_missing_acls_are_created_and_others_left_alone():
    other = _binding(operation="describe")
    changes = plan_acl_changes([_binding(), _binding(operation="write")], {_binding(), other})
    assert changes["changed"] and changes["create"] == [_binding(operation="write")] and changes["delete"] == []
    assert changes["before"] == ("User:alice * DESCRIBE ALLOW topic:orders (literal)\n"
                                 "User:alice * READ ALLOW topic:orders (literal)\n")
    assert changes["after"] == ("User:alice * DESCRIBE ALLOW topic:orders (literal)\n"
                                "User:alice * READ ALLOW topic:orders (literal)\n"
                                "User:alice * WRITE ALLOW topic:orders (literal)\n")


def test_absent_deletes_exactly_the_declared_acls_that_exist():
    held = {_binding(), _binding(operation="write"), _binding(operation="describe")}
    changes = plan_acl_changes([_binding(), _binding(operation="create")], held, state="absent")
    assert changes["create"] == [] and changes["delete"] == [_binding()]
    assert "READ" in changes["before"] and "READ" not in changes["after"] and "WRITE" in changes["after"]


def test_exclusive_by_principal_removes_the_principals_other_acls_only():
    held = {_binding(), _binding(operation="write"), _binding(resource_type="group", resource_name="g"),
            _binding("User:bob", operation="write")}
    changes = plan_acl_changes([_binding(), _binding("User:alice", "read", "topic", "audit")], held,
                               exclusive=True, scope="principal")
    assert changes["create"] == [_binding(resource_name="audit")]
    assert changes["delete"] == [_binding(resource_type="group", resource_name="g"), _binding(operation="write")]
    assert "User:bob" not in changes["before"] + changes["after"]


def test_exclusive_by_resource_removes_other_principals_on_the_same_pattern_only():
    held = {_binding(), _binding("User:bob"), _binding("User:bob", pattern_type="prefixed"),
            _binding("User:bob", resource_name="audit")}
    changes = plan_acl_changes([_binding()], held, exclusive=True, scope="resource")
    assert changes["create"] == [] and changes["delete"] == [_binding("User:bob")]
    assert changes["after"] == "User:alice * READ ALLOW topic:orders (literal)\n"


def test_without_exclusive_nothing_undeclared_is_removed():
    changes = plan_acl_changes([_binding()], {_binding(operation="write")}, exclusive=False)
    assert changes["delete"] == [] and changes["create"] == [_binding()]


def test_the_one_line_form_and_the_result_form():
    binding = _binding("User:CN=svc,O=Example", "describe_configs", "topic", "orders.", "10.0.0.7", "deny",
                       "prefixed")
    assert binding_line(binding) == "User:CN=svc,O=Example 10.0.0.7 DESCRIBE_CONFIGS DENY topic:orders. (prefixed)"
    assert binding_dict(binding) == dict(principal="User:CN=svc,O=Example", host="10.0.0.7",
                                         operation="describe_configs", permission="deny", resource_type="topic",
                                         resource_name="orders.", pattern_type="prefixed")


BINDINGS = st.builds(_binding, principal=st.sampled_from(["User:a", "User:b", "User:c"]),
                     operation=st.sampled_from(["read", "write", "describe"]),
                     resource_name=st.sampled_from(["t1", "t2"]), permission=st.sampled_from(["allow", "deny"]),
                     pattern_type=st.sampled_from(["literal", "prefixed"]))


@given(desired=st.sets(BINDINGS, max_size=6), held=st.sets(BINDINGS, max_size=10),
       scope=st.sampled_from(["principal", "resource"]), state=st.sampled_from(["present", "absent"]),
       exclusive=st.booleans())
def test_applying_the_plan_reaches_the_declaration_and_a_second_plan_is_empty(desired, held, scope, state, exclusive):
    desired = sorted(desired)
    # The module refuses these before planning (test_exclusive_needs_state_present_and_a_scope).
    assume(not (exclusive and (state == "absent" or not desired)))
    changes = plan_acl_changes(desired, held, state, exclusive, scope)
    after = (set(held) | set(changes["create"])) - set(changes["delete"])
    again = plan_acl_changes(desired, after, state, exclusive, scope)
    assert not again["changed"]
    assert changes["changed"] == (changes["before"] != changes["after"])
    if state == "present":
        assert set(desired) <= after
    else:
        assert not set(desired) & after
    # Nothing outside the scope is ever touched.
    scoped = set(binding for binding in held if (binding.principal in {item.principal for item in desired}
                                                 if scope == "principal" else
                                                 (binding.resource_type, binding.resource_name, binding.pattern_type)
                                                 in {(item.resource_type, item.resource_name, item.pattern_type)
                                                     for item in desired}))
    assert set(changes["delete"]) <= scoped
    if exclusive:
        assert set(binding for binding in after if binding in scoped or binding in desired) == set(desired)
