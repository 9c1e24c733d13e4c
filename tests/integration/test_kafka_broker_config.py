"""kafka_broker_config against a live cluster.

Every change runs check mode, real, check mode again, real again: check mode predicts the real result and
the second pass changes nothing. What a run did is read back independently: each broker's own view of the
setting (DescribeConfigs of the broker with its synonyms), which names where the value comes from. Refused
input names the field and leaves the settings as they were, in check mode too (the brokers validate it).

The setting changed is the log cleaner's back-off, which nothing in the tests depends on; every test puts
it back.
"""

import pytest
from kafka.admin import ConfigResource, ConfigResourceType

SETTING = "log.cleaner.backoff.ms"
RESULT_KEYS = ("broker", "changes", "diff")


def _seen(cluster, broker_id):
    """(value, source) of SETTING as broker broker_id applies it."""
    described = cluster.admin.describe_configs([ConfigResource(ConfigResourceType.BROKER, str(broker_id))],
                                               config_filter="all")
    entry = described["broker"][str(broker_id)][SETTING]
    return entry["value"], entry["config_source"]


def _four_passes(kafka, **args):
    predicted = kafka("kafka_broker_config", check=True, diff=True, **args)
    assert not predicted.failed and predicted.changed, predicted.output
    applied = kafka("kafka_broker_config", diff=True, **args)
    assert not applied.failed and applied.changed, applied.output
    for key in RESULT_KEYS:
        assert predicted[key] == applied[key], key
    for check in (True, False):
        again = kafka("kafka_broker_config", check=check, diff=True, **args)
        assert not again.failed and not again.changed and again["changes"] == {}, again.output
    return applied


@pytest.fixture()
def brokers(cluster):
    ids = cluster.broker_ids()
    before = {broker_id: _seen(cluster, broker_id) for broker_id in ids}
    yield ids
    assert {broker_id: _seen(cluster, broker_id) for broker_id in ids} == before


def test_a_cluster_wide_setting_reaches_every_broker_and_is_removed_again(kafka, cluster, brokers):
    applied = _four_passes(kafka, config={SETTING: 16001})
    assert applied["broker"] == "default" and applied["changes"] == {SETTING: "16001"}
    assert applied["diff"]["after"] == {SETTING: "16001"}
    for broker_id in brokers:
        assert _seen(cluster, broker_id) == ("16001", "DYNAMIC_DEFAULT_BROKER_CONFIG")
    removed = _four_passes(kafka, config={SETTING: None})
    assert removed["changes"] == {SETTING: None} and removed["diff"]["before"] == {SETTING: "16001"}


def test_one_brokers_own_setting_wins_over_the_cluster_wide_one(kafka, cluster, brokers):
    first, others = brokers[0], brokers[1:]
    _four_passes(kafka, config={SETTING: 16002})
    _four_passes(kafka, broker=str(first), config={SETTING: 16003})
    assert _seen(cluster, first) == ("16003", "DYNAMIC_BROKER_CONFIG")
    for broker_id in others:
        assert _seen(cluster, broker_id) == ("16002", "DYNAMIC_DEFAULT_BROKER_CONFIG")
    _four_passes(kafka, broker=str(first), config={SETTING: None})
    _four_passes(kafka, config={SETTING: None})


@pytest.mark.parametrize("args, field, words", [
    ({"broker": "leader", "config": {SETTING: 1}}, "broker", "neither 'default'"),
    ({"config": {}}, "config", "give at least one setting"),
    ({"config": {SETTING: [1]}}, "config." + SETTING, "a list is not a setting's value"),
    # Refused by the brokers, in check mode as well: a value of the wrong type, a setting not dynamic.
    ({"config": {SETTING: "soon"}}, "config." + SETTING, "the brokers refused the change"),
    ({"config": {"broker.id": 7}}, "config.broker.id", "the brokers refused the change"),
], ids=["bad-broker", "no-setting", "list-value", "bad-value", "not-dynamic"])
def test_refused_input_names_the_field_and_changes_nothing(kafka, brokers, args, field, words):
    for check in (True, False):
        refused = kafka("kafka_broker_config", check=check, **args)
        assert refused.failed, refused.output
        assert refused["field"] == field
        assert refused["msg"].startswith(field + ":") and words in refused["msg"], refused["msg"]
        assert not refused.changed
