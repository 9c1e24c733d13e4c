"""kafka_broker_config's logic: the declaration checked before connecting, the difference, and the run
against a fake broker that answers DescribeConfigs and IncrementalAlterConfigs as built for the wire."""

from types import SimpleNamespace

import pytest

from ansible_collections.kafkaops.cluster.plugins.module_utils._broker_configs import (
    DELETE,
    SET,
    BrokerConfigSpecError,
    broker_config_changes,
    check_broker_config_inputs,
    run_broker_config,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import KafkaAdminError

# DescribeConfigs' config_source numbers.
DYNAMIC_BROKER, DYNAMIC_DEFAULT, STATIC = 2, 3, 4


class FakeBrokers:
    """Dynamic settings per level ("" the cluster-wide default, "1" broker 1's own) and the requests sent."""

    def __init__(self, default=None, broker_one=None, refuse=None):
        self.levels = {"": dict(default or {}), "1": dict(broker_one or {})}
        self.static = {"min.insync.replicas": "2", "num.io.threads": "8"}
        self.refuse = refuse or {}
        self.requests = []

    @property
    def _manager(self):
        return SimpleNamespace(run=lambda function, *arguments: function(*arguments), send=self._send)

    def _send(self, request, node_id=None):
        name = type(request).__name__
        self.requests.append(request)
        # As Kafka answers: a broker's own settings only from that broker.
        [(unused, resource_name, unused)] = request.resources
        assert node_id == (int(resource_name) if resource_name else None)
        if name.startswith("DescribeConfigs"):
            [(resource_type, resource_name, unused)] = request.resources
            assert resource_type == 4
            if resource_name == "":
                configs = [dict(name=key, value=value, config_source=DYNAMIC_DEFAULT, is_sensitive=False)
                           for key, value in self.levels[""].items()]
            else:
                own = self.levels[resource_name]
                configs = [dict(name=key, value=own.get(key, value),
                                config_source=DYNAMIC_BROKER if key in own else STATIC, is_sensitive=False)
                           for key, value in dict(self.static, **own).items()]
            return SimpleNamespace(results=[SimpleNamespace(error_code=0, error_message=None, configs=configs)])
        [(resource_type, resource_name, entries)] = request.resources
        refused = [key for key, unused, unused in entries if key in self.refuse]
        if refused:
            return SimpleNamespace(responses=[SimpleNamespace(error_code=40, error_message=self.refuse[refused[0]])])
        if not request.validate_only:
            for key, operation, value in entries:
                if operation == DELETE:
                    self.levels[resource_name].pop(key, None)
                else:
                    self.levels[resource_name][key] = value
        return SimpleNamespace(responses=[SimpleNamespace(error_code=0, error_message=None)])

    def alters(self):
        return [request for request in self.requests if type(request).__name__.startswith("IncrementalAlter")]


def _module(check_mode=False, diff=True):
    return SimpleNamespace(check_mode=check_mode, diff=diff, result={})


@pytest.mark.parametrize("params, field, words", [
    ({"broker": "leader", "config": {"a": 1}}, "broker", "neither 'default'"),
    ({"broker": "-1", "config": {"a": 1}}, "broker", "broker id"),
    ({"broker": "default", "config": {}}, "config", "at least one setting"),
    ({"broker": "default", "config": None}, "config", "at least one setting"),
    ({"broker": "default", "config": {"min insync": 2}}, "config", "not a setting's name"),
    ({"broker": "default", "config": {"min.insync.replicas": [2]}}, "config.min.insync.replicas", "a list"),
])
def test_bad_declarations_name_the_field(params, field, words):
    with pytest.raises(BrokerConfigSpecError) as refused:
        check_broker_config_inputs(params)
    assert refused.value.field == field and words in str(refused.value)


def test_values_are_sent_as_kafka_stores_them():
    inputs = check_broker_config_inputs({"broker": None, "config": {"min.insync.replicas": 2,
                                                                    "unclean.leader.election.enable": False,
                                                                    "log.retention.ms": None}})
    assert inputs == dict(level="default", resource_name="", broker="default", config={
        "min.insync.replicas": "2", "unclean.leader.election.enable": "false", "log.retention.ms": None})
    assert check_broker_config_inputs({"broker": " 3 ", "config": {"a": "b"}})["resource_name"] == "3"


@pytest.mark.parametrize("current, wanted, operations", [
    ({}, {"min.insync.replicas": "2"}, {"min.insync.replicas": (SET, "2")}),
    ({"min.insync.replicas": "2"}, {"min.insync.replicas": "2"}, {}),
    ({"min.insync.replicas": "1", "other": "x"}, {"min.insync.replicas": "2"}, {"min.insync.replicas": (SET, "2")}),
    ({"a": "1"}, {"a": None}, {"a": (DELETE, None)}),
    ({}, {"a": None}, {}),
])
def test_changes_touch_only_what_differs(current, wanted, operations):
    changes = broker_config_changes(current, wanted)
    assert changes["operations"] == operations and changes["changed"] == bool(operations)
    assert sorted(changes["before"]) == sorted(operations) == sorted(changes["after"])


def test_check_mode_validates_and_predicts_then_the_run_changes_then_nothing_is_left_to_do():
    brokers = FakeBrokers(default={"min.insync.replicas": "1", "log.cleaner.threads": "2"})
    inputs = check_broker_config_inputs({"broker": "default", "config": {"min.insync.replicas": 2}})
    check = _module(check_mode=True)
    run_broker_config(check, brokers, inputs)
    assert check.result["changed"] and check.result["changes"] == {"min.insync.replicas": "2"}
    assert check.result["diff"] == {"before": {"min.insync.replicas": "1"}, "after": {"min.insync.replicas": "2"}}
    assert [request.validate_only for request in brokers.alters()] == [True]
    assert brokers.levels[""]["min.insync.replicas"] == "1"
    real = _module()
    run_broker_config(real, brokers, inputs)
    assert real.result == check.result
    # Only the declared key was sent; the other cluster-wide setting stays.
    assert brokers.alters()[-1].resources == [(4, "", [("min.insync.replicas", SET, "2")])]
    assert brokers.levels[""] == {"min.insync.replicas": "2", "log.cleaner.threads": "2"}
    again = _module()
    run_broker_config(again, brokers, inputs)
    assert not again.result["changed"] and again.result["changes"] == {} and len(brokers.alters()) == 2


def test_a_broker_level_reads_only_that_brokers_own_dynamic_settings():
    brokers = FakeBrokers(broker_one={"log.cleaner.threads": "3"})
    # min.insync.replicas is static on the broker: not its dynamic setting, so it is set.
    inputs = check_broker_config_inputs(
        {"broker": "1", "config": {"min.insync.replicas": 2, "log.cleaner.threads": None}})
    module = _module()
    run_broker_config(module, brokers, inputs)
    assert module.result["changes"] == {"log.cleaner.threads": None, "min.insync.replicas": "2"}
    assert brokers.levels["1"] == {"min.insync.replicas": "2"}


def test_a_refusal_names_the_setting_and_changes_nothing():
    brokers = FakeBrokers(refuse={"broker.id": "Cannot update these configs dynamically: Set(broker.id)"})
    inputs = check_broker_config_inputs({"broker": "default", "config": {"broker.id": 7}})
    for check_mode in (True, False):
        module = _module(check_mode=check_mode)
        with pytest.raises(KafkaAdminError) as refused:
            run_broker_config(module, brokers, inputs)
        assert not module.result.get("changed")
        assert refused.value.field == "config.broker.id"
        assert "Cannot update these configs dynamically" in str(refused.value)
    assert brokers.levels[""] == {}


@pytest.mark.parametrize("broker, value, where", [
    ("default", True, "the cluster-wide default"), ("1", "true", "broker 1"), ("1", "TRUE", "broker 1"),
    ("default", False, None)])
def test_unclean_leader_election_turned_on_is_warned_of_every_run_it_is_declared(broker, value, where):
    brokers = FakeBrokers()
    inputs = check_broker_config_inputs({"broker": broker, "config": {"unclean.leader.election.enable": value}})
    for _run in range(2):
        warned = []
        module = SimpleNamespace(check_mode=False, diff=False, result={}, warn=warned.append)
        run_broker_config(module, brokers, inputs)
        if where is None:
            assert warned == []
        else:
            assert warned == ["%s: unclean.leader.election.enable=true lets a replica that is out of sync become "
                              "leader when no in-sync one is left, and the records only the in-sync replicas held, "
                              "acknowledged ones included, are then gone for good" % where]
