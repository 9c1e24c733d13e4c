"""kafka_acl's run against a fake cluster that keeps ACLs, and the batched requests it sends."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._acl_changes import AclBinding
from ansible_collections.kafkaops.cluster.plugins.module_utils._acls import binding_of, delete_acls, kafka_acl
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import KafkaAdminError
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_acl as kafka_acl_module
from kafka.errors import ClusterAuthorizationFailedError, InvalidRequestError, NoError, UnknownError

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}
RESULT_KEYS = ("changed", "acls", "created", "deleted", "diff")


def _binding(principal="User:alice", operation="read", resource_type="topic", resource_name="orders",
             host="*", permission="allow", pattern_type="literal"):
    return AclBinding(principal, host, operation, permission, resource_type, resource_name, pattern_type)


def _acl(principal="User:alice", operation="read", resource_type="topic", resource_name="orders", **more):
    return dict(dict(principal=principal, operation=operation, resource_type=resource_type,
                     resource_name=resource_name), **more)


def _held(cluster):
    return sorted(binding_of(acl) for acl in cluster.acls)


@pytest.fixture
def cluster(fake_acl_cluster):
    """alice reads orders and describes the cluster; bob writes orders and reads the billing group."""
    return fake_acl_cluster(acls=[kafka_acl(binding) for binding in (
        _binding(), _binding(operation="describe", resource_type="cluster", resource_name="kafka-cluster"),
        _binding("User:bob", "write"), _binding("User:bob", "read", "group", "billing"))])


def _run(run_module, cluster, check_mode=False, diff=True, **args):
    return run_module(kafka_acl_module.main, dict(SERVERS, **args), cluster, check_mode=check_mode, diff=diff)


def test_kafkas_objects_and_ours_convert_both_ways():
    for binding in (_binding(), _binding("User:x", "idempotent_write", "cluster", "kafka-cluster", "10.0.0.1", "deny"),
                    _binding(operation="all", resource_type="transactional_id", pattern_type="prefixed")):
        assert binding_of(kafka_acl(binding)) == binding


def test_a_declaration_the_cluster_holds_changes_nothing_and_writes_nothing(run_module, cluster):
    result = _run(run_module, cluster, acls=[_acl(operation="READ"), _acl("User:bob", "Write")])
    assert not result.get("failed") and not result["changed"], result
    assert result["created"] == [] and result["deleted"] == []
    assert result["acls"][0] == dict(principal="User:alice", host="*", operation="read", permission="allow",
                                     resource_type="topic", resource_name="orders", pattern_type="literal")
    assert result["diff"]["before"] == result["diff"]["after"]
    assert cluster.writes() == []
    # One read per declared principal, however many ACLs each has.
    assert [arguments["acl_filter"].principal for arguments in cluster.requests("describe_acls")] == [
        "User:alice", "User:bob"]
    assert all(client.closed for client in cluster.clients)


CHANGES = [
    (dict(acls=[_acl(), _acl(operation="write"), _acl(operation="describe"),
                _acl("User:carol", "write", "transactional_id", "tx-", pattern_type="prefixed")]),
     [_binding(operation="describe"), _binding(operation="write"),
      _binding("User:carol", "write", "transactional_id", "tx-", pattern_type="prefixed")], [],
     "User:alice * DESCRIBE ALLOW cluster:kafka-cluster (literal)\nUser:alice * READ ALLOW topic:orders (literal)\n",
     "User:alice * DESCRIBE ALLOW cluster:kafka-cluster (literal)\n"
     "User:alice * DESCRIBE ALLOW topic:orders (literal)\n"
     "User:alice * READ ALLOW topic:orders (literal)\n"
     "User:alice * WRITE ALLOW topic:orders (literal)\n"
     "User:carol * WRITE ALLOW transactional_id:tx- (prefixed)\n"),
    (dict(acls=[_acl(), _acl("User:bob", "read", "group", "billing"), _acl("User:bob", "delete")], state="absent"),
     [], [_binding(), _binding("User:bob", "read", "group", "billing")],
     "User:alice * DESCRIBE ALLOW cluster:kafka-cluster (literal)\nUser:alice * READ ALLOW topic:orders (literal)\n"
     "User:bob * READ ALLOW group:billing (literal)\nUser:bob * WRITE ALLOW topic:orders (literal)\n",
     "User:alice * DESCRIBE ALLOW cluster:kafka-cluster (literal)\nUser:bob * WRITE ALLOW topic:orders (literal)\n"),
    (dict(acls=[_acl(operation="write")], exclusive=True),
     [_binding(operation="write")],
     [_binding(operation="describe", resource_type="cluster", resource_name="kafka-cluster"), _binding()],
     "User:alice * DESCRIBE ALLOW cluster:kafka-cluster (literal)\nUser:alice * READ ALLOW topic:orders (literal)\n",
     "User:alice * WRITE ALLOW topic:orders (literal)\n"),
    (dict(acls=[_acl(operation="write")], exclusive=True, exclusive_scope="resource"),
     [_binding(operation="write")], [_binding(), _binding("User:bob", "write")],
     "User:alice * READ ALLOW topic:orders (literal)\nUser:bob * WRITE ALLOW topic:orders (literal)\n",
     "User:alice * WRITE ALLOW topic:orders (literal)\n"),
]


@pytest.mark.parametrize("args, created, deleted, before, after", CHANGES,
                         ids=["create", "delete", "exclusive-principal", "exclusive-resource"])
def test_check_mode_predicts_the_change_and_a_second_run_changes_nothing(run_module, cluster, args, created,
                                                                         deleted, before, after):
    untouched = [binding for binding in _held(cluster) if binding not in deleted]
    predicted = _run(run_module, cluster, check_mode=True, **args)
    assert not predicted.get("failed"), predicted
    assert cluster.writes() == []
    applied = _run(run_module, cluster, **args)
    assert not applied.get("failed"), applied
    for result in (predicted, applied):
        assert dict((key, result[key]) for key in RESULT_KEYS) == dict(
            changed=True, acls=predicted["acls"], created=[binding._asdict() for binding in created],
            deleted=[binding._asdict() for binding in deleted], diff=dict(before=before, after=after))
    assert _held(cluster) == sorted(set(untouched) | set(created))
    # At most one CreateAcls and one DeleteAcls, however many ACLs change.
    writes = cluster.writes()
    assert [name for name, unused in writes] == (["create_acls"] if created else []) + (
        ["delete_acls"] if deleted else [])
    again = _run(run_module, cluster, **args)
    assert not again["changed"] and again["diff"]["before"] == again["diff"]["after"]
    assert len(cluster.writes()) == len(writes)


@pytest.mark.parametrize("args, field", [
    (dict(acls=[_acl(), _acl(operation="cluster_action")]), "acls[1].operation"),
    (dict(acls=[_acl(), _acl(operation="fly")]), "acls[1].operation"),
    (dict(acls=[_acl(principal="alice")]), "acls[0].principal"),
    (dict(acls=[_acl(), _acl(permission="perhaps")]), "acls[1].permission"),
    (dict(acls=[_acl(resource_type="queue")]), "acls[0].resource_type"),
    (dict(acls=[_acl(pattern_type="regex")]), "acls[0].pattern_type"),
    (dict(acls=[_acl(resource_name="")]), "acls[0].resource_name"),
    (dict(acls=[_acl(), _acl(operation="Read")]), "acls[1]"),
    (dict(acls=[], exclusive=True), "exclusive"),
    (dict(acls=[_acl()], exclusive=True, state="absent"), "exclusive"),
], ids=["operation-not-for-topic", "unknown-operation", "principal-form", "unknown-permission",
        "unknown-resource-type", "unknown-pattern-type", "empty-resource-name", "duplicate", "exclusive-empty",
        "exclusive-absent"])
def test_bad_input_is_refused_before_connecting(run_module, args, field):
    for check_mode in (True, False):
        refused = _run(run_module, None, check_mode=check_mode, **args)
        assert refused["failed"] and refused["field"] == field and refused["msg"].startswith(field + ": ")
        assert not refused["changed"] and refused["created"] == [] and refused["deleted"] == []


def test_a_cluster_without_authorizer_is_named_with_the_setting_to_add(run_module, fake_acl_cluster):
    cluster = fake_acl_cluster(authorizer=False)
    for check_mode in (True, False):
        refused = _run(run_module, cluster, check_mode=check_mode, acls=[_acl()])
        assert refused["failed"] and not refused["changed"]
        assert "no authorizer" in refused["msg"] and "authorizer.class.name" in refused["msg"]
        assert "SECURITY_DISABLED" in refused["msg"]
    assert cluster.writes() == [] and all(client.closed for client in cluster.clients)


def test_acls_the_broker_refuses_are_named_and_those_created_reported(run_module, cluster):
    refused_binding = _binding(operation="write", resource_name="audit")
    cluster.refuse = {kafka_acl(refused_binding): InvalidRequestError}
    failed = _run(run_module, cluster, acls=[_acl(operation="write", resource_name="audit"),
                                             _acl(operation="write")])
    assert failed["failed"]
    assert failed["msg"] == ("creating 1 ACL(s) failed: User:alice * WRITE ALLOW topic:audit (literal): "
                             "InvalidRequestError")
    assert failed["changed"] and failed["created"] == [_binding(operation="write")._asdict()]
    assert _binding(operation="write") in _held(cluster) and refused_binding not in _held(cluster)


def test_a_principal_without_the_right_to_change_acls_is_told_what_it_needs(run_module, cluster):
    cluster.refuse = {kafka_acl(_binding(operation="write")): ClusterAuthorizationFailedError}
    failed = _run(run_module, cluster, acls=[_acl(operation="write")])
    assert failed["failed"] and not failed["changed"]
    assert "may not change ACLs" in failed["msg"] and "ALTER on the cluster resource" in failed["msg"]


def test_new_acls_are_created_before_old_ones_are_deleted(run_module, cluster):
    _run(run_module, cluster, acls=[_acl(operation="write")], exclusive=True)
    names = [name for name, unused in cluster.calls if name in ("create_acls", "delete_acls")]
    assert names == ["create_acls", "delete_acls"]
    deleted = cluster.requests("delete_acls")[0]["acl_filters"]
    # Each delete filter is exact, so it can only match the ACL it names.
    assert all(acl_filter.principal == "User:alice" and acl_filter.host == "*" for acl_filter in deleted)
    assert len(deleted) == 2


def test_without_diff_mode_no_diff_is_returned(run_module, cluster):
    result = _run(run_module, cluster, diff=False, acls=[_acl(operation="write")])
    assert result["changed"] and "diff" not in result


def test_acls_a_delete_could_not_remove_are_named():
    class Client:
        def delete_acls(self, filters):
            return [(filters[0], [], NoError), (filters[1], [], UnknownError)]

    with pytest.raises(KafkaAdminError) as failed:
        delete_acls(Client(), [_binding(), _binding(operation="write")])
    assert str(failed.value) == ("deleting 1 ACL(s) failed: User:alice * WRITE ALLOW topic:orders (literal): "
                                 "UnknownError")
