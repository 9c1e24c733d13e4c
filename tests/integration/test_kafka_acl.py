"""kafka_acl against a live cluster with an authorizer.

The cluster runs an authorizer over PLAINTEXT, so these tests connect as User:ANONYMOUS. The
cluster scenario makes that principal a super user; on a cluster that instead sets
allow.everyone.if.no.acl.found=true, it may do anything only on a resource without ACLs. Every test
therefore declares ACLs only for principals and on topics, groups and transactional ids of its own
(a uuid in each name) and never on the cluster resource or on *: an ACL there could take the test
client's own access away.

Every change is run in the order check mode, real, check mode again, real again: check mode must
predict the real result, and the second pass must report no change. Every refused input must fail
naming the field and leave the ACLs exactly as they were.
"""

import time
import uuid

import pytest
from kafka.errors import SecurityDisabledError


def _unique():
    """A principal and a resource name no other test uses."""
    tag = "it-acl-%s" % uuid.uuid4().hex[:8]
    return "User:" + tag, tag


def _acl(principal, operation, resource_type, resource_name, **more):
    return dict(dict(principal=principal, operation=operation, resource_type=resource_type,
                     resource_name=resource_name), **more)


def _four_passes(kafka, **args):
    """check, real, check, real; returns the real run's result after asserting the pattern."""
    predicted = kafka("kafka_acl", check=True, diff=True, **args)
    assert not predicted.failed, predicted.output
    assert predicted.changed
    applied = kafka("kafka_acl", diff=True, **args)
    assert not applied.failed, applied.output
    assert applied.changed
    for key in ("acls", "created", "deleted", "diff"):
        assert predicted[key] == applied[key], key
    again_check = kafka("kafka_acl", check=True, diff=True, **args)
    assert not again_check.failed and not again_check.changed, again_check.output
    assert again_check["diff"]["before"] == again_check["diff"]["after"] == applied["diff"]["after"]
    again = kafka("kafka_acl", **args)
    assert not again.failed and not again.changed, again.output
    return applied


@pytest.fixture(scope="module", autouse=True)
def authorizer(cluster):
    """Fail every test at once, saying why, when the brokers keep no ACLs."""
    try:
        cluster.acls("User:it-acl-probe")
    except SecurityDisabledError:
        pytest.fail("these tests need brokers with authorizer.class.name=kafka.security.authorizer.AclAuthorizer "
                    "and allow.everyone.if.no.acl.found=true")


def _settled(cluster, principal, expected, timeout=15):
    """The principal's ACLs once they are as expected, or as they are after timeout seconds.

    With ZooKeeper each broker learns of a change through a ZooKeeper notification, and the reads go
    to any broker: one that has not heard yet would answer with the ACLs from before.
    """
    deadline = time.monotonic() + timeout
    while True:
        found = cluster.acls(principal)
        if found == sorted(expected) or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def _remove_all(cluster, principal):
    """Leave no ACL of a test's principal behind, whatever the test did."""
    cluster.admin.delete_acls([cluster.principal_filter(principal)])


@pytest.fixture
def principals(cluster):
    """unique(): a new principal and resource name; their ACLs are removed after the test."""
    made = []

    def unique():
        principal, name = _unique()
        made.append(principal)
        return principal, name

    yield unique
    for principal in made:
        _remove_all(cluster, principal)


def test_create_exclusive_by_principal_and_resource_then_delete_in_four_passes(kafka, cluster, principals):
    alice, name = principals()
    bob, unused = principals()
    declared = [
        _acl(alice, "read", "topic", name),
        _acl(alice, "Write", "topic", name + "-out.", pattern_type="prefixed"),
        _acl(alice, "read", "group", name),
        _acl(alice, "describe", "transactional_id", name, permission="deny", host="10.1.2.3"),
    ]
    created = _four_passes(kafka, acls=declared)
    assert len(created["created"]) == 4 and created["deleted"] == []
    assert created["acls"][1]["operation"] == "write" and created["acls"][1]["host"] == "*"
    expected = sorted([
        "%s * READ ALLOW topic:%s (literal)" % (alice, name),
        "%s * WRITE ALLOW topic:%s-out. (prefixed)" % (alice, name),
        "%s * READ ALLOW group:%s (literal)" % (alice, name),
        "%s 10.1.2.3 DESCRIBE DENY transactional_id:%s (literal)" % (alice, name),
    ])
    assert _settled(cluster, alice, expected) == expected
    assert sorted(created["diff"]["after"].splitlines()) == expected

    # Another principal on the same topic: outside alice's scope, inside the topic's.
    kept = kafka("kafka_acl", acls=[_acl(bob, "read", "topic", name)])
    assert kept.changed and not kept.failed, kept.output
    bob_acls = ["%s * READ ALLOW topic:%s (literal)" % (bob, name)]
    assert _settled(cluster, bob, bob_acls) == bob_acls

    exclusive = _four_passes(kafka, exclusive=True, acls=[declared[0], _acl(alice, "describe", "topic", name)])
    assert [item["operation"] for item in exclusive["created"]] == ["describe"]
    assert len(exclusive["deleted"]) == 3
    expected = sorted(["%s * READ ALLOW topic:%s (literal)" % (alice, name),
                       "%s * DESCRIBE ALLOW topic:%s (literal)" % (alice, name)])
    assert _settled(cluster, alice, expected) == expected
    assert cluster.acls(bob) == bob_acls

    by_resource = _four_passes(kafka, exclusive=True, exclusive_scope="resource",
                               acls=[_acl(alice, "read", "topic", name), _acl(alice, "describe", "topic", name)])
    assert by_resource["created"] == [] and [item["principal"] for item in by_resource["deleted"]] == [bob]
    assert _settled(cluster, bob, []) == []
    assert cluster.acls(alice) == expected

    deleted = _four_passes(kafka, state="absent", acls=[_acl(alice, "read", "topic", name),
                                                        _acl(alice, "describe", "topic", name),
                                                        _acl(alice, "alter", "topic", name)])
    assert len(deleted["deleted"]) == 2 and deleted["created"] == []
    assert _settled(cluster, alice, []) == []
    assert deleted["diff"]["after"] == ""


# One principal with one ACL for the module: the refused inputs must leave it exactly as it is.
@pytest.fixture(scope="module")
def existing_acl(kafka, cluster):
    principal, name = _unique()
    declared = _acl(principal, "read", "topic", name)
    made = kafka("kafka_acl", acls=[declared])
    assert made.changed, made.output
    assert len(_settled(cluster, principal, ["%s * READ ALLOW topic:%s (literal)" % (principal, name)])) == 1
    yield declared
    _remove_all(cluster, principal)


REFUSED = [
    # (module args built from the existing ACL, field, words in the message)
    (lambda acl: {"acls": [dict(acl, operation="write"), dict(acl, operation="cluster_action")]},
     "acls[1].operation", "cluster_action does not apply to a topic"),
    (lambda acl: {"acls": [dict(acl, operation="write"), dict(acl, operation="idempotent_write")]},
     "acls[1].operation", "idempotent_write does not apply to a topic"),
    (lambda acl: {"acls": [dict(acl, operation="write"), dict(acl, operation="publish")]},
     "acls[1].operation", "unknown operation 'publish'"),
    (lambda acl: {"acls": [dict(acl, operation="write"), dict(acl, principal="alice")]},
     "acls[1].principal", "not of the form Type:name"),
    (lambda acl: {"acls": [dict(acl, operation="write"), dict(acl, permission="grant")]},
     "acls[1].permission", "unknown permission 'grant'"),
    (lambda acl: {"acls": [dict(acl, operation="write"), dict(acl, resource_type="queue")]},
     "acls[1].resource_type", "unknown resource type 'queue'"),
    (lambda acl: {"acls": [dict(acl, operation="write"), dict(acl, pattern_type="match")]},
     "acls[1].pattern_type", "unknown pattern type 'match'"),
    (lambda acl: {"acls": [dict(acl, operation="write"), dict(acl, resource_name="")]},
     "acls[1].resource_name", "needs the name of its topic"),
    (lambda acl: {"acls": [dict(acl, operation="write"),
                           dict(acl, operation="describe", resource_type="cluster", resource_name="other")]},
     "acls[1].resource_name", "always named kafka-cluster"),
    (lambda acl: {"acls": [dict(acl, operation="write"), dict(acl, operation="WRITE")]},
     "acls[1]", "the same ACL as acls[0]"),
    (lambda acl: {"acls": [], "exclusive": True}, "exclusive", "acls is empty"),
    (lambda acl: {"acls": [acl], "exclusive": True, "state": "absent"}, "exclusive",
     "applies only with state=present"),
]


@pytest.mark.parametrize("build, field, words", REFUSED, ids=[
    "cluster-action-on-topic", "idempotent-write-on-topic", "unknown-operation", "principal-form",
    "unknown-permission", "unknown-resource-type", "unknown-pattern-type", "empty-resource-name",
    "other-cluster-name", "duplicate", "exclusive-without-acls", "exclusive-with-absent"])
def test_refused_input_names_the_field_and_changes_nothing(kafka, cluster, existing_acl, build, field, words):
    principal = existing_acl["principal"]
    before = cluster.acls(principal)
    assert len(before) == 1
    for check in (True, False):
        refused = kafka("kafka_acl", check=check, **build(existing_acl))
        assert refused.failed, refused.output
        assert refused["field"] == field
        assert refused["msg"].startswith(field + ":") and words in refused["msg"], refused["msg"]
        assert not refused.changed
    assert cluster.acls(principal) == before
