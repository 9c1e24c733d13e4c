"""kafka_features against a live KRaft cluster (the kraft scenario lists it: Kafka 4.4, four brokers, four
controllers; make integration-kraft runs it against JVMs on loopback).

The tests change no level: the cluster is shared with the other tests, and raising a feature cannot be taken
back in general. metadata.version, which every KRaft cluster finalizes, is asked for at the level it has, in the
four passes (check mode, real, check mode again, real again: none changes anything); one level beyond what the
brokers support and one below the finalized level are refused naming the feature, with the levels unchanged.
The change itself and the downgrades are covered by the unit tests, and playbooks/upgrade.yml's finalizing by
the combined scenario. ZooKeeper mode has no metadata.version, so the cluster scenario does not list this file.
"""

import pytest

FEATURE = "metadata.version"


def _finalized(cluster):
    """{feature: finalized level} read in the test process (kafka-python's describe_features), to compare runs."""
    return dict((name, described["finalized"][1]) for name, described in cluster.admin.describe_features().items()
                if "finalized" in described)


@pytest.fixture(scope="module")
def described(kafka):
    run = kafka("kafka_features")
    assert not run.failed and not run.changed and run["changes"] == [], run.output
    return run["features"]


def test_every_feature_is_described_with_what_every_broker_supports(described, cluster):
    finalized = _finalized(cluster)
    assert FEATURE in described and FEATURE in finalized
    for name, feature in described.items():
        assert feature["finalized"] == finalized.get(name, 0), (name, feature, finalized)
        assert feature["supported"]["min"] <= feature["supported"]["max"], (name, feature)
    assert described[FEATURE]["supported"]["max"] >= described[FEATURE]["finalized"] > 0


def test_a_level_already_finalized_changes_nothing_in_four_passes(kafka, cluster, described):
    before = _finalized(cluster)
    asked = dict(features={FEATURE: described[FEATURE]["finalized"]})
    for check in (True, False, True, False):
        run = kafka("kafka_features", check=check, diff=True, **asked)
        assert not run.failed and not run.changed and run["changes"] == [], run.output
        assert run["diff"]["before"] == run["diff"]["after"]
    assert _finalized(cluster) == before


@pytest.mark.parametrize("level, words", [
    (lambda feature: feature["supported"]["max"] + 1, "is beyond what the brokers can run"),
    (lambda feature: feature["finalized"] - 1, "would be a downgrade, done only with allow_downgrade"),
])
def test_a_level_the_brokers_cannot_run_or_a_downgrade_is_refused_with_nothing_changed(
        kafka, cluster, described, level, words):
    before = _finalized(cluster)
    field = "features." + FEATURE
    for check in (True, False):
        refused = kafka("kafka_features", check=check, features={FEATURE: level(described[FEATURE])})
        assert refused.failed and refused["field"] == field, refused.output
        assert refused["msg"].startswith(field + ": ") and words in refused["msg"], refused["msg"]
    assert _finalized(cluster) == before
