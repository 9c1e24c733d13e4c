"""KRaft filters: Kafka ids, controller addresses, the initial voters and the storage plan."""

import base64

import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.filter.kraft import (
    java_properties,
    kafka_controller_address,
    kafka_initial_controllers,
    kafka_scram_format_arguments,
    kafka_storage_plan,
    kafka_uuid,
)
from hypothesis import given
from hypothesis import strategies as st

CLUSTER = "h3IvqfQxStKr47oJ359WqA"


def _controller(host, node_id, meta="", active=False):
    return {"host": host, "node_id": node_id, "meta": meta, "active": active, "controller_address": host + ":9093"}


def _broker(host, node_id, meta="", active=False):
    return {"host": host, "node_id": node_id, "meta": meta, "active": active, "controller_address": ""}


def _meta(cluster_id, node_id):
    return ("#\n#Tue Nov 24 20:19:45 UTC 2026\nnode.id=%d\ndirectory.id=abc\nversion=1\ncluster.id=%s\n"
            % (node_id, cluster_id))


@given(st.text(min_size=1))
def test_an_id_is_16_bytes_of_url_safe_base64_the_same_for_the_same_seed(seed):
    uuid = kafka_uuid(seed)
    assert len(uuid) == 22 and not uuid.startswith("-")
    assert len(base64.urlsafe_b64decode(uuid + "==")) == 16
    assert uuid not in ("AAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAQ")
    assert kafka_uuid(seed) == uuid


@pytest.mark.parametrize("seed", ["", None, 7])
def test_an_id_needs_a_seed(seed):
    with pytest.raises(AnsibleFilterError, match="kafka_uuid: expected a non-empty string"):
        kafka_uuid(seed)


def test_properties_are_read_as_java_reads_them():
    assert java_properties("# c\n! c\n\nnode.id=1\ncluster.id = abc\nkey:value\nflag\n") == {
        "node.id": "1", "cluster.id": "abc", "key": "value", "flag": ""}
    assert java_properties(None) == {}
    with pytest.raises(AnsibleFilterError, match="java_properties"):
        java_properties(["node.id=1"])


@pytest.mark.parametrize("variables, expected", [
    ({}, "ctl-a:9093"),
    ({"ansible_host": "10.0.0.5"}, "10.0.0.5:9093"),
    ({"ansible_host": "10.0.0.5", "kafka_controller_host": "ctl-a.example.net", "kafka_controller_port": 9193},
     "ctl-a.example.net:9193"),
], ids=["name", "ansible_host", "own-settings"])
def test_a_controller_address_follows_the_role_rules(variables, expected):
    assert kafka_controller_address([variables, "ctl-a"]) == expected


def test_initial_controllers_list_each_once_with_a_directory_id_from_cluster_and_node():
    value = kafka_initial_controllers([{"node_id": 9001, "address": "a:9093"}, [9002, "b:9093"]], CLUSTER)
    first, second = value.split(",")
    assert first.startswith("9001@a:9093:") and second.startswith("9002@b:9093:")
    assert first.rsplit(":", 1)[1] == kafka_uuid("%s/9001" % CLUSTER)
    # Another cluster, other directory ids.
    assert kafka_initial_controllers([[9001, "a:9093"]], "another") != first
    with pytest.raises(AnsibleFilterError, match="node id 9001 is given twice"):
        kafka_initial_controllers([[9001, "a:9093"], [9001, "b:9093"]], CLUSTER)
    with pytest.raises(AnsibleFilterError, match="each controller needs node_id and address"):
        kafka_initial_controllers([{"node_id": 9001}], CLUSTER)


def test_a_new_cluster_gets_one_new_id_and_every_controller_the_same_initial_voters():
    plan = kafka_storage_plan([_controller("a", 9001), _controller("b", 9002), _controller("c", 9003)], seed="random")
    assert plan["problems"] == []
    assert plan["cluster_id"] == kafka_uuid("random")
    assert plan["new_quorum"] is True
    assert plan["format"] == {"a": [9001], "b": [9002], "c": [9003]}
    assert [entry.split("@")[0] for entry in plan["initial_controllers"].split(",")] == ["9001", "9002", "9003"]


def test_formatted_controllers_are_left_alone_and_a_new_one_joins_a_running_quorum():
    plan = kafka_storage_plan([_controller("a", 9001, _meta(CLUSTER, 9001), active=True),
                               _controller("d", 9004)], seed="random")
    assert plan["problems"] == []
    assert plan["cluster_id"] == CLUSTER
    assert plan["new_quorum"] is False
    assert plan["format"] == {"d": [9004]}


def test_a_bootstrap_cut_short_resumes_with_the_same_voters():
    """Formatted but never started: the rest are formatted with the initial voters the first ones got."""
    fresh = kafka_storage_plan([_controller("a", 9001), _controller("b", 9002)], cluster_id=CLUSTER)
    resumed = kafka_storage_plan([_controller("a", 9001, _meta(CLUSTER, 9001)), _controller("b", 9002)])
    assert resumed["problems"] == [] and resumed["new_quorum"] is True
    assert resumed["format"] == {"b": [9002]}
    assert resumed["initial_controllers"] == fresh["initial_controllers"]


def test_storage_of_another_cluster_is_refused_never_reformatted():
    plan = kafka_storage_plan([_controller("a", 9001, _meta(CLUSTER, 9001), active=True)],
                              cluster_id="AAAAAAAAAAAAAAAAAAAAAg", field="kafka_controller_cluster_id")
    assert plan["problems"] == [
        "kafka_controller_cluster_id: storage formatted for another cluster than AAAAAAAAAAAAAAAAAAAAAg: "
        "a (node 9001: %s); it is never formatted again: fix the inventory or clear that node's storage" % CLUSTER]


def test_storage_of_another_node_is_refused():
    plan = kafka_storage_plan([_broker("b", 2, _meta(CLUSTER, 1))], inherited_ids=[CLUSTER])
    assert plan["problems"] == ["b: node 2's storage is formatted for node 1; storage is never formatted again"]


def test_brokers_take_the_controllers_id_and_never_make_one():
    plan = kafka_storage_plan([_broker("b", 1), _broker("c", 2)], inherited_ids=["", CLUSTER, CLUSTER])
    assert plan["problems"] == [] and plan["cluster_id"] == CLUSTER
    assert plan["initial_controllers"] == ""
    unknown = kafka_storage_plan([_broker("b", 1)], field="kafka_broker_cluster_id")
    assert unknown["problems"] == ["kafka_broker_cluster_id: not known; run the kafka_controller role in the same run "
                                   "(site.yml does), or set it to the id the controllers were formatted with"]
    clash = kafka_storage_plan([_broker("b", 1)], cluster_id="AAAAAAAAAAAAAAAAAAAAAg", inherited_ids=[CLUSTER],
                               field="kafka_broker_cluster_id")
    assert clash["problems"] == [
        "kafka_broker_cluster_id: set to AAAAAAAAAAAAAAAAAAAAAg, but the controllers hold %s" % CLUSTER]


def test_scram_users_become_two_format_arguments_each():
    users = [{"name": "broker", "password": "Inter-Broker-5x7Q"},
             {"name": "admin", "password": "Adm1n!#$%&'()*+-./:;<>?@^_`{|}~"}]
    assert kafka_scram_format_arguments(users, mechanism="SCRAM-SHA-256", iterations=4096) == [
        "--add-scram", "SCRAM-SHA-256=[name=broker,password=Inter-Broker-5x7Q,iterations=4096]",
        "--add-scram", "SCRAM-SHA-256=[name=admin,password=Adm1n!#$%&'()*+-./:;<>?@^_`{|}~,iterations=4096]"]
    assert kafka_scram_format_arguments([]) == []
    assert kafka_scram_format_arguments(users[:1])[1] == (
        "SCRAM-SHA-512=[name=broker,password=Inter-Broker-5x7Q,iterations=8192]")


@pytest.mark.parametrize("users, message", [
    ([{"name": "admin", "password": "a,b"}], "the password of user admin holds"),
    ([{"name": "admin", "password": "a]b"}], "the password of user admin holds"),
    ([{"name": "admin", "password": "two words"}], "the password of user admin holds"),
    ([{"name": "ad=min", "password": "secret"}], "the name of user 0 holds"),
    ([{"name": "admin"}], "user 0 needs a name and a password"),
    ([{"name": "admin", "password": ""}], "user 0 needs a name and a password"),
    ("admin", "expected a list of {name, password}"),
], ids=["comma", "bracket", "space", "equals-in-name", "no-password", "empty-password", "not-a-list"])
def test_a_user_the_storage_tool_would_misread_is_refused_without_its_password(users, message):
    with pytest.raises(AnsibleFilterError) as refused:
        kafka_scram_format_arguments(users)
    assert message in str(refused.value)
    assert all(str(user.get("password")) not in str(refused.value) for user in users if isinstance(user, dict)
               and user.get("password"))


def test_an_unknown_mechanism_is_refused():
    with pytest.raises(AnsibleFilterError, match="mechanism must be one of SCRAM-SHA-256, SCRAM-SHA-512"):
        kafka_scram_format_arguments([{"name": "admin", "password": "secret"}], mechanism="PLAIN")
