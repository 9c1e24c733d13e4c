"""kafka_features: the levels asked for checked before connecting, the plan (pure), and the module against
fake brokers that answer ApiVersions each for itself and a controller that answers UpdateFeatures as built
for the wire, checking every node as Kafka's controller does."""

from types import SimpleNamespace

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._features import (
    FeatureInputError,
    cluster_view,
    parse_level,
    plan_feature_changes,
)
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_features
from kafka.protocol.admin import UpdateFeaturesRequest
from kafka.protocol.metadata import ApiVersionsRequest

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}
INVALID_UPDATE_VERSION = 95

# What a Kafka 4.4 broker supports, and the same broker one release older (metadata.version up to 27).
NEW = {"metadata.version": (7, 29), "kraft.version": (0, 1), "transaction.version": (0, 2), "group.version": (0, 1),
       "eligible.leader.replicas.version": (0, 1), "share.version": (0, 1)}
OLD = dict(NEW, **{"metadata.version": (7, 27)})
FINALIZED = {"metadata.version": 27, "kraft.version": 1, "transaction.version": 0, "group.version": 1,
             "eligible.leader.replicas.version": 1}


class FakeFeatureCluster:
    """Brokers {id: {feature: (min, max)}} that each answer ApiVersions for themselves, controllers likewise
    (never asked directly: only the controller's UpdateFeatures checks them), and the finalized levels.

    A change is checked as Kafka's controller checks it: every broker and controller must support the
    level, a lower level needs a downgrade type; a refusal changes nothing. updates records each
    UpdateFeatures as ({feature: (upgrade type, level)}, validate_only).
    """

    def __init__(self, brokers, finalized, controllers=None, fenced=()):
        self.brokers = dict((broker, dict(supported)) for broker, supported in brokers.items())
        self.controllers = dict((node, dict(supported)) for node, supported in (controllers or {}).items())
        self.finalized = dict(finalized)
        self.epoch = 40
        self.fenced = set(fenced)
        self.updates = []
        self.asked = []

    def connect(self):
        return self

    def close(self):
        pass

    def writes(self):
        return [changes for changes, validate_only in self.updates if not validate_only]

    def describe_cluster(self):
        return dict(cluster_id="fake", controller_id=-1, brokers=[
            dict(broker_id=broker, host="kafka%d" % broker, port=9092, rack=None, is_fenced=broker in self.fenced)
            for broker in sorted(self.brokers)])

    @property
    def _manager(self):
        return SimpleNamespace(run=lambda function, *arguments: function(*arguments), send=self._send)

    def _send(self, request, node_id=None):
        assert isinstance(request, ApiVersionsRequest) and node_id in self.brokers
        self.asked.append(node_id)
        return SimpleNamespace(
            error_code=0, finalized_features_epoch=self.epoch,
            supported_features=[SimpleNamespace(name=name, min_version=low, max_version=high)
                                for name, (low, high) in sorted(self.brokers[node_id].items())],
            finalized_features=[SimpleNamespace(name=name, max_version_level=level, min_version_level=level)
                                for name, level in sorted(self.finalized.items()) if level > 0])

    def _send_request_to_controller(self, request, get_errors_fn=None, raise_errors=True):
        assert isinstance(request, UpdateFeaturesRequest) and not raise_errors
        changes = dict((item.feature, (item.upgrade_type, item.max_version_level)) for item in request.feature_updates)
        self.updates.append((changes, request.validate_only))
        nodes = [("Broker", node, supported) for node, supported in self.brokers.items()]
        nodes += [("Controller", node, supported) for node, supported in self.controllers.items()]
        for name, (upgrade_type, level) in sorted(changes.items()):
            if level < self.finalized.get(name, 0) and upgrade_type == 1:
                return self._refused("Can't downgrade the version of this feature without setting the upgrade "
                                     "type to either safe or unsafe downgrade.")
            for kind, node, supported in sorted(nodes):
                low, high = supported.get(name, (0, 0))
                if level and not low <= level <= high:
                    return self._refused("Invalid update version %d for feature %s. %s %d does not support this "
                                         "feature." % (level, name, kind, node))
        if not request.validate_only:
            self.finalized.update((name, level) for name, (unused, level) in changes.items())
            self.epoch += 1
        return SimpleNamespace(error_code=0, error_message=None, results=[])

    @staticmethod
    def _refused(message):
        return SimpleNamespace(error_code=INVALID_UPDATE_VERSION, error_message=message, results=[])


def cluster(old_broker=False, **settings):
    """Three 4.4 brokers; broker 3 still on the older release when old_broker."""
    brokers = {1: NEW, 2: NEW, 3: OLD if old_broker else NEW}
    return FakeFeatureCluster(brokers, settings.pop("finalized", FINALIZED), **settings)


# ---- pure parts ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("value, level", [(2, 2), ("2", 2), (" 29 ", 29), (0, 0)])
def test_levels_are_whole_numbers_given_as_numbers_or_digits(value, level):
    assert parse_level(value, "features.x") == level


@pytest.mark.parametrize("value, words", [
    (True, "not True"), (-1, "from 0 to 32767"), (40000, "from 0 to 32767"), ("two", "not 'two'"), (2.5, "not 2.5"),
    ("4.4-IV0", "kafka-features.sh version-mapping --release-version 4.4"),
    ("3.9", "not the release name '3.9'"),
])
def test_a_level_that_is_not_a_number_is_refused_naming_the_field(value, words):
    with pytest.raises(FeatureInputError) as refused:
        parse_level(value, "features.metadata.version")
    assert refused.value.field == "features.metadata.version" and words in str(refused.value)


def _view(old_broker=False):
    built = cluster(old_broker)
    return cluster_view(dict((broker, _node(built, broker)) for broker in built.brokers))


def _node(built, broker):
    from ansible_collections.kafkaops.cluster.plugins.module_utils._features import node_features

    return node_features(built._send(ApiVersionsRequest(client_software_name="t", client_software_version="1"),
                                     broker))


def test_the_view_takes_the_lowest_maximum_and_names_the_broker_that_limits_it():
    view = _view(old_broker=True)
    assert view["metadata.version"]["supported"] == (7, 27) and view["metadata.version"]["limited_by"] == [3]
    assert view["transaction.version"] == dict(finalized=0, supported=(0, 2), limited_by=[], known=True,
                                               by_broker={1: (0, 2), 2: (0, 2), 3: (0, 2)})


def test_a_broker_that_does_not_know_a_feature_supports_only_level_0_of_it():
    nodes = {1: dict(supported={"a.version": (0, 3)}, finalized={}, epoch=1),
             2: dict(supported={}, finalized={}, epoch=1)}
    assert cluster_view(nodes)["a.version"]["supported"] == (0, 0)
    assert cluster_view(nodes)["a.version"]["limited_by"] == [2]


def test_finalized_levels_come_from_the_newest_answer():
    nodes = {1: dict(supported={"a.version": (0, 3)}, finalized={"a.version": 1}, epoch=5),
             2: dict(supported={"a.version": (0, 3)}, finalized={"a.version": 2}, epoch=6)}
    assert cluster_view(nodes)["a.version"]["finalized"] == 2


@pytest.mark.parametrize("wanted, settings, changes", [
    ({"transaction.version": 2}, {}, {"transaction.version": (1, 2)}),
    ({"group.version": 1}, {}, {}),
    ({"share.version": 0}, {}, {}),
    ({}, dict(upgrade_to_latest=True),
     {"metadata.version": (1, 29), "transaction.version": (1, 2), "share.version": (1, 1)}),
    ({"transaction.version": 1}, dict(upgrade_to_latest=True, keep=["share.version"]),
     {"metadata.version": (1, 29), "transaction.version": (1, 1)}),
    ({"group.version": 0}, dict(allow_downgrade="safe"), {"group.version": (2, 0)}),
    ({"metadata.version": 26}, dict(allow_downgrade="unsafe"), {"metadata.version": (3, 26)}),
])
def test_the_plan_holds_only_what_differs(wanted, settings, changes):
    assert plan_feature_changes(_view(), wanted, **settings) == changes


def test_upgrade_to_latest_stops_at_the_oldest_broker_and_never_lowers():
    view = _view(old_broker=True)
    assert plan_feature_changes(view, {}, upgrade_to_latest=True) == {"transaction.version": (1, 2),
                                                                      "share.version": (1, 1)}
    view["group.version"]["supported"] = (0, 0)
    assert "group.version" not in plan_feature_changes(view, {}, upgrade_to_latest=True)


@pytest.mark.parametrize("wanted, settings, field, words", [
    ({"metadata.version": 29}, {}, "features.metadata.version",
     "level 29 is beyond what the brokers can run: broker 3 supports metadata.version only up to 27; "
     "the highest level every broker supports is 27"),
    ({"transaction.version": 3}, {}, "features.transaction.version",
     "brokers 1, 2, 3 support transaction.version only up to 2"),
    ({"metadata.version": 5}, dict(allow_downgrade="unsafe"), "features.metadata.version",
     "level 5 is below what the brokers can run: brokers 1, 2, 3 support metadata.version only from 7"),
    ({"no.such.version": 1}, {}, "features.no.such.version", "no broker knows the feature no.such.version"),
    ({"group.version": 0}, {}, "features.group.version",
     "is finalized at level 1; 0 would be a downgrade, done only with allow_downgrade"),
])
def test_a_level_that_cannot_be_run_is_refused_naming_the_feature_and_why(wanted, settings, field, words):
    with pytest.raises(FeatureInputError) as refused:
        plan_feature_changes(_view(old_broker=True), wanted, **settings)
    assert refused.value.field == field and words in refused.value.message


# ---- the module -----------------------------------------------------------------------------------------


def test_describing_reads_every_broker_and_changes_nothing(run_module):
    fake = cluster(old_broker=True)
    described = run_module(kafka_features.main, dict(SERVERS), fake)
    assert not described["changed"] and described["changes"] == [] and fake.updates == []
    assert sorted(set(fake.asked)) == [1, 2, 3]
    expected = dict(finalized=27, supported=dict(min=7, max=27), limited_by=[3])
    assert described["features"]["metadata.version"] == expected


def test_check_mode_validates_and_predicts_then_the_change_then_nothing_is_left(run_module):
    fake = cluster()
    args = dict(SERVERS, features={"transaction.version": "2"})
    predicted = run_module(kafka_features.main, args, fake, check_mode=True, diff=True)
    assert predicted["changed"] and fake.writes() == []
    assert fake.updates == [({"transaction.version": (1, 2)}, True)]
    assert predicted["changes"] == [dict(feature="transaction.version", before=0, after=2, type="upgrade")]
    assert predicted["diff"]["before"]["transaction.version"] == 0
    assert predicted["diff"]["after"] == dict(predicted["diff"]["before"], **{"transaction.version": 2})
    changed = run_module(kafka_features.main, args, fake, diff=True)
    assert fake.writes() == [{"transaction.version": (1, 2)}] and fake.finalized["transaction.version"] == 2
    assert dict((key, changed[key]) for key in ("changed", "changes", "diff", "features")) == \
        dict((key, predicted[key]) for key in ("changed", "changes", "diff", "features"))
    for check_mode in (True, False):
        again = run_module(kafka_features.main, args, fake, check_mode=check_mode)
        assert not again["changed"] and again["changes"] == [] and len(fake.writes()) == 1
        assert again["features"]["transaction.version"]["finalized"] == 2


def test_upgrade_to_latest_raises_every_feature_but_those_kept_in_one_request(run_module):
    fake = cluster()
    args = dict(SERVERS, upgrade_to_latest=True, keep=["share.version", "metadata.version"],
                features={"metadata.version": 28})
    raised = run_module(kafka_features.main, args, fake)
    # A level asked for applies to a kept feature too (upgrade.yml keeps metadata.version and passes the pins).
    assert fake.writes() == [{"metadata.version": (1, 28), "transaction.version": (1, 2)}]
    assert raised["changed"] and fake.finalized["metadata.version"] == 28 and "share.version" not in fake.finalized
    assert not run_module(kafka_features.main, args, fake)["changed"]


@pytest.mark.parametrize("args, field, words", [
    (dict(features={"metadata.version": 29}), "features.metadata.version", "broker 3 supports metadata.version"),
    (dict(features={"group.version": 0}), "features.group.version", "would be a downgrade"),
    (dict(features={"nope.version": 1}), "features.nope.version", "no broker knows"),
    (dict(features={"metadata.version": "4.4-IV0"}), "features.metadata.version", "version-mapping"),
    (dict(features={"Metadata Version": 1}), "features.Metadata Version", "not a feature's name"),
    (dict(keep=["share version"]), "keep[0]", "not a feature's name"),
])
def test_bad_input_is_refused_before_any_change_naming_the_field(run_module, args, field, words):
    fake = cluster(old_broker=True)
    for check_mode in (True, False):
        refused = run_module(kafka_features.main, dict(SERVERS, **args), fake, check_mode=check_mode)
        assert refused["failed"] and refused["field"] == field and words in refused["msg"], refused
    assert fake.updates == [] and fake.finalized == FINALIZED


def test_a_level_a_controller_cannot_run_is_refused_by_the_validation_with_nothing_changed(run_module):
    fake = cluster(controllers={3000: OLD})
    # Kafka answers one message for the request; the feature it names is the field.
    asked = {"metadata.version": 29, "transaction.version": 2}
    for check_mode in (True, False):
        refused = run_module(kafka_features.main, dict(SERVERS, features=asked), fake, check_mode=check_mode)
        assert refused["failed"] and not refused["changed"] and refused["field"] == "features.metadata.version"
        assert "Controller 3000 does not support" in refused["msg"] and "nothing was changed" in refused["msg"]
        assert refused["features"]["metadata.version"]["finalized"] == 27
    assert fake.writes() == [] and fake.finalized == FINALIZED


def test_a_downgrade_asked_for_is_sent_as_one_and_warned_about(run_module):
    fake = cluster()
    lowered = run_module(kafka_features.main, dict(SERVERS, features={"group.version": 0}, allow_downgrade="safe"),
                         fake)
    assert lowered["changed"] and fake.writes() == [{"group.version": (2, 0)}] and fake.finalized["group.version"] == 0
    assert "downgrading group.version from 1 to 0" in lowered["warnings"][0]


def test_a_fenced_broker_stops_the_run_before_any_request(run_module):
    fake = cluster(fenced=[3])
    refused = run_module(kafka_features.main, dict(SERVERS, features={"transaction.version": 2}), fake)
    assert refused["failed"] and "broker 3 is registered but not running" in refused["msg"] and fake.updates == []


def test_a_refused_level_is_returned_beside_the_levels_the_cluster_has(run_module):
    refused = run_module(kafka_features.main, dict(SERVERS, features={"group.version": 0}), cluster())
    assert refused["failed"] and not refused["changed"] and refused["changes"] == []
    assert refused["features"]["group.version"] == dict(finalized=1, supported=dict(min=0, max=1), limited_by=[])
