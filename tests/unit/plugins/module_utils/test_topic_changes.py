"""kafka_topic's pure half: checking declared topics and computing their difference from the cluster."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._topic_changes import (
    TopicSpecError,
    config_value,
    declared_topics,
    normalize_topics,
    plan_topic_changes,
    topics_needing_configs,
)


def _actual(partitions=3, replication_factor=3, overrides=None, defaults=None):
    configs = dict(defaults or {"retention.ms": "604800000", "cleanup.policy": "delete"})
    configs.update(overrides or {})
    return dict(partitions=partitions, replication_factor=replication_factor, configs=configs,
                overrides=dict(overrides or {}))


def _plan(items, actual, brokers=3, mode="merge", state="present"):
    return plan_topic_changes(normalize_topics(items, state), actual, brokers, mode)


@pytest.mark.parametrize("value, expected", [
    (True, "true"), (False, "false"), (86400000, "86400000"), ("compact", "compact"),
    (["compact", "delete"], "compact,delete"), (0.5, "0.5"),
])
def test_config_values_become_the_strings_kafka_uses(value, expected):
    assert config_value(value) == expected


@pytest.mark.parametrize("item, field, reason", [
    ({"name": ""}, "topics[0].name", "name is required"),
    ({"name": ".."}, "topics[0].name", "not a legal topic name"),
    ({"name": "a b"}, "topics[0].name", "not a legal topic name"),
    ({"name": "x" * 250}, "topics[0].name", "249"),
    ({"name": "t", "partitions": 0}, "topics[0].partitions", "at least 1"),
    ({"name": "t", "partitions": "three"}, "topics[0].partitions", "whole number"),
    ({"name": "t", "partitions": True}, "topics[0].partitions", "whole number"),
    ({"name": "t", "replication_factor": -1}, "topics[0].replication_factor", "at least 1"),
    ({"name": "t", "config": ["retention.ms"]}, "topics[0].config", "mapping"),
    ({"name": "t", "config": {"retention.ms": None}}, "topics[0].config.retention.ms", "no value"),
    ({"name": "t", "state": "gone"}, "topics[0].state", "present or absent"),
    ({"name": "t", "partition": 3}, "topics[0]", "unknown key"),
])
def test_bad_declarations_name_the_field(item, field, reason):
    with pytest.raises(TopicSpecError) as caught:
        normalize_topics([item])
    assert caught.value.field == field
    assert reason in str(caught.value)


def test_a_topic_declared_twice_is_refused():
    with pytest.raises(TopicSpecError) as caught:
        normalize_topics([{"name": "a"}, {"name": "b"}, {"name": "a"}])
    assert caught.value.field == "topics[2].name" and "topics[0]" in str(caught.value)


def test_single_topic_fields_are_the_module_options():
    with pytest.raises(TopicSpecError) as caught:
        normalize_topics([{"name": "t", "partitions": 0}], field_prefix=None)
    assert caught.value.field == "partitions"


def test_missing_topics_are_created_with_their_settings():
    changes = _plan([{"name": "new", "partitions": 6, "replication_factor": 2, "config": {"retention.ms": 1000}}], {})
    assert changes["changed"] and changes["topics"] == ["new"]
    assert changes["create"] == [{"name": "new", "partitions": 6, "replication_factor": 2,
                                  "config": {"retention.ms": "1000"}}]
    assert changes["before"] == {"new": None}
    assert changes["after"]["new"]["partitions"] == 6


def test_an_identical_declaration_changes_nothing():
    actual = {"t": _actual(overrides={"retention.ms": "1000"})}
    changes = _plan([{"name": "t", "partitions": 3, "replication_factor": 3, "config": {"retention.ms": 1000}}], actual)
    assert not changes["changed"]
    assert changes["create"] == [] and changes["add_partitions"] == {} and changes["alter_configs"] == {}
    assert changes["before"] == changes["after"] == {}


def test_a_value_equal_to_the_default_is_no_change():
    changes = _plan([{"name": "t", "config": {"cleanup.policy": "delete"}}], {"t": _actual()})
    assert not changes["changed"]


def test_partitions_are_raised_never_lowered():
    changes = _plan([{"name": "t", "partitions": 5}], {"t": _actual(partitions=3)})
    assert changes["add_partitions"] == {"t": 5}
    assert changes["before"]["t"]["partitions"] == 3 and changes["after"]["t"]["partitions"] == 5
    with pytest.raises(TopicSpecError) as caught:
        _plan([{"name": "t", "partitions": 2}], {"t": _actual(partitions=3)})
    assert caught.value.field == "topics[0].partitions" and "cannot reduce" in str(caught.value)


def test_replication_factor_above_live_brokers_is_refused():
    with pytest.raises(TopicSpecError) as caught:
        _plan([{"name": "t", "replication_factor": 4}], {}, brokers=3)
    assert caught.value.field == "topics[0].replication_factor" and "3 live broker" in str(caught.value)


def test_replication_factor_change_points_to_the_reassignment():
    with pytest.raises(TopicSpecError) as caught:
        _plan([{"name": "t", "replication_factor": 2}], {"t": _actual(replication_factor=3)})
    assert "kafkaops.cluster.prepare_reassignment" in str(caught.value)


def test_merge_sets_only_the_keys_given():
    actual = {"t": _actual(overrides={"retention.ms": "1000", "segment.ms": "5000"})}
    changes = _plan([{"name": "t", "config": {"retention.ms": 2000}}], actual)
    assert changes["alter_configs"] == {"t": {"retention.ms": ("SET", "2000")}}
    assert changes["after"]["t"]["config"] == {"retention.ms": "2000", "segment.ms": "5000"}


def test_replace_also_removes_unlisted_overrides_but_not_throttles():
    actual = {"t": _actual(overrides={"retention.ms": "1000", "segment.ms": "5000",
                                      "leader.replication.throttled.replicas": "0:1"})}
    changes = _plan([{"name": "t", "config": {"retention.ms": 1000}}], actual, mode="replace")
    assert changes["alter_configs"] == {"t": {"segment.ms": ("DELETE", None)}}
    assert changes["after"]["t"]["config"] == {"retention.ms": "1000", "leader.replication.throttled.replicas": "0:1"}


def test_absent_deletes_existing_topics_and_ignores_missing_ones():
    changes = _plan([{"name": "t"}, {"name": "gone"}], {"t": _actual()}, state="absent")
    assert changes["delete"] == ["t"] and changes["topics"] == ["t"]
    assert changes["after"] == {"t": None}
    assert not _plan([{"name": "gone"}], {}, state="absent")["changed"]


def test_a_thousand_topics_are_planned_in_one_create_list():
    items = [{"name": "topic-%04d" % index, "partitions": 3, "replication_factor": 3} for index in range(1000)]
    changes = _plan(items, {})
    assert len(changes["create"]) == 1000 and len(changes["topics"]) == 1000


@pytest.mark.parametrize("items, mode, expected", [
    ([{"name": "a"}, {"name": "b", "config": {"retention.ms": 1}}], "merge", ["b"]),
    ([{"name": "a"}, {"name": "b", "config": {"retention.ms": 1}}], "replace", ["a", "b"]),
    ([{"name": "a", "state": "absent", "config": {"retention.ms": 1}}], "replace", []),
])
def test_configs_are_read_only_where_the_difference_needs_them(items, mode, expected):
    assert topics_needing_configs(normalize_topics(items), mode) == expected


@pytest.mark.parametrize("params, expected", [
    (dict(name="one", topics=None, partitions=3, replication_factor=None, config={}, state="present"),
     ([dict(name="one", partitions=3, replication_factor=None, config={})], "name")),
    # A topic's own settings win; those it leaves out (or leaves null) come from the module-level options.
    (dict(name=None, topics=[{"name": "a"}, {"name": "b", "partitions": 6, "replication_factor": None}],
          partitions=3, replication_factor=2, config={"retention.ms": 1}, state="absent"),
     ([dict(name="a", partitions=3, replication_factor=2, config={"retention.ms": 1}, state="absent"),
       dict(name="b", partitions=6, replication_factor=2, config={"retention.ms": 1}, state="absent")], "topics")),
], ids=["one-topic", "many-topics"])
def test_declared_topics_take_the_module_level_options_as_defaults(params, expected):
    assert declared_topics(params) == expected
