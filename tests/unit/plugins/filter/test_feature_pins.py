"""The inventory's feature pins checked before a run changes anything (filter plugins/filter/features.py)."""

import pytest

from ansible_collections.kafkaops.cluster.plugins.filter.features import kafka_feature_pin_problems


@pytest.mark.parametrize("pins", [{}, None, {"transaction.version": 2, "metadata.version": "27", "group.version": 0}])
def test_good_pins_have_no_problem(pins):
    assert kafka_feature_pin_problems(pins) == ""


def test_each_bad_pin_is_named_with_why():
    problems = kafka_feature_pin_problems({"metadata.version": "4.4-IV0", "Group Version": 1, "share.version": True,
                                           "transaction.version": -2})
    assert problems.split("; ") == [
        "kafka_broker_features.Group Version: is not a feature's name (such as transaction.version)",
        "kafka_broker_features.metadata.version: must be a level number, not the release name '4.4-IV0': Kafka's "
        "feature tool prints the level of a release (kafka-features.sh version-mapping --release-version 4.4)",
        "kafka_broker_features.share.version: must be a level (a whole number), not True",
        "kafka_broker_features.transaction.version: must be a level from 0 to 32767, not -2",
    ]


def test_pins_that_are_not_a_mapping_are_refused_naming_the_variable():
    assert kafka_feature_pin_problems(["transaction.version"], variable="pins").startswith("pins: expected a mapping")
