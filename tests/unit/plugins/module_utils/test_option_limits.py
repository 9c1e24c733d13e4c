"""Numeric module options out of range are refused, naming the option, before a module connects or changes anything."""

import json

import pytest
from ansible.module_utils.testing import patch_module_args
from ansible_collections.kafkaops.cluster.plugins.module_utils import _admin_module
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import check_admin_options
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import (
    PORT,
    NumberLimit,
    OptionValueError,
    check_limits,
)
from ansible_collections.kafkaops.cluster.plugins.modules import (
    config_files,
    host_state_info,
    kafka_cluster_info,
    kafka_reassignment,
    kafka_reassignment_plan,
    kafka_topic,
    zookeeper_info,
)

PLAN = {"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [1, 2]}]}


@pytest.mark.parametrize("limit, value, problem", [
    (NumberLimit(minimum=1), 1, None),
    (NumberLimit(minimum=1), 0, "must be at least 1, got 0"),
    (NumberLimit(minimum=1), -1, "must be at least 1, got -1"),
    (NumberLimit(minimum=0), 0, None),
    (NumberLimit(minimum=0, exclusive_minimum=True), 0.001, None),
    (NumberLimit(minimum=0, exclusive_minimum=True), 0.0, "must be more than 0, got 0.0"),
    (NumberLimit(minimum=0, maximum=10, exclusive_minimum=True), 11, "must be more than 0 and at most 10, got 11"),
    (NumberLimit(maximum=10), 11, "must be at most 10, got 11"),
    (PORT, 1, None),
    (PORT, 65535, None),
    (PORT, 0, "must be from 1 to 65535, got 0"),
    (PORT, 65536, "must be from 1 to 65535, got 65536"),
], ids=["minimum", "below-minimum", "negative", "zero-allowed", "just-above-exclusive", "exclusive-minimum",
        "exclusive-with-maximum", "above-maximum", "lowest-port", "highest-port", "port-zero", "port-too-high"])
def test_limit_problem(limit, value, problem):
    assert limit.problem(value) == problem


def test_the_first_option_out_of_range_is_named_and_unset_options_are_skipped():
    limits = dict(timeout=NumberLimit(minimum=1), poll_interval=NumberLimit(minimum=0, exclusive_minimum=True))
    check_limits(dict(timeout=None, poll_interval=1.5), limits)
    with pytest.raises(OptionValueError) as caught:
        check_limits(dict(timeout=-1, poll_interval=0), limits)
    assert caught.value.field == "timeout"
    assert str(caught.value) == "timeout: must be at least 1, got -1"


def test_admin_options_include_the_connection_timeout():
    with pytest.raises(OptionValueError) as caught:
        check_admin_options(dict(request_timeout=0, timeout=5), dict(timeout=NumberLimit(minimum=1)))
    assert caught.value.field == "request_timeout"
    check_admin_options(dict(request_timeout=1))


# (module, arguments that are valid except for the one option named, that option)
REFUSED = [
    (kafka_reassignment, dict(plan=PLAN, timeout=-1), "timeout"),
    (kafka_reassignment, dict(plan=PLAN, timeout=0), "timeout"),
    (kafka_reassignment, dict(plan=PLAN, poll_interval=0), "poll_interval"),
    (kafka_reassignment, dict(plan=PLAN, poll_interval=-0.5), "poll_interval"),
    (kafka_reassignment, dict(plan=PLAN, throttle=-1), "throttle"),
    (kafka_reassignment, dict(plan=PLAN, max_moves_per_broker=0), "max_moves_per_broker"),
    (kafka_reassignment, dict(plan=PLAN, max_disk_fill=0), "max_disk_fill"),
    (kafka_reassignment, dict(plan=PLAN, max_disk_fill=1.5), "max_disk_fill"),
    (kafka_reassignment, dict(plan=PLAN, request_timeout=0), "request_timeout"),
    (kafka_reassignment, dict(plan=PLAN, state="absent", timeout=-1), "timeout"),
    (kafka_topic, dict(name="orders", partitions=0), "partitions"),
    (kafka_topic, dict(name="orders", replication_factor=-1), "replication_factor"),
    (kafka_topic, dict(topics=[{"name": "orders"}], partitions=-3), "partitions"),
    (kafka_topic, dict(topics=[{"name": "orders"}, {"name": "audit", "partitions": 0}]), "topics[1].partitions"),
    (kafka_topic, dict(topics=[{"name": "orders", "replication_factor": 0}]), "topics[0].replication_factor"),
    (kafka_topic, dict(name="orders", request_timeout=-5), "request_timeout"),
    (kafka_reassignment_plan, dict(broker_list="1,2", replication_factor=0), "replication_factor"),
    (kafka_reassignment_plan, dict(broker_list="1,2", request_timeout=0), "request_timeout"),
    (kafka_cluster_info, dict(request_timeout=0), "request_timeout"),
]


@pytest.mark.parametrize("module, args, field", REFUSED, ids=[
    "move-timeout-negative", "move-timeout-zero", "poll-interval-zero", "poll-interval-negative", "throttle-negative",
    "max-moves-zero", "disk-fill-zero", "disk-fill-above-one", "move-request-timeout", "cancel-timeout",
    "topic-partitions", "topic-replication-factor",
    "topics-default-partitions", "topics-item-partitions", "topics-item-replication-factor", "topic-request-timeout",
    "plan-replication-factor", "plan-request-timeout", "info-request-timeout"])
def test_admin_modules_refuse_before_connecting(monkeypatch, capsys, module, args, field):
    def connect(params):
        raise AssertionError("connected despite %s" % field)

    # The admin modules connect through KafkaAdminModule, which opens its clients with admin_client.
    monkeypatch.setattr(_admin_module, "admin_client", connect)
    result = _run(module, dict(dict(bootstrap_servers=["kafka1:9092"]), **args), capsys)
    assert result["failed"] and result["field"] == field, result
    assert result["msg"].startswith(field + ": "), result["msg"]


@pytest.mark.parametrize("module, args, field", [
    (zookeeper_info, dict(port=70000), "port"),
    (zookeeper_info, dict(wait=True, timeout=-1), "timeout"),
    (host_state_info, dict(max_size=-1), "max_size"),
], ids=["zookeeper-port", "zookeeper-timeout", "max-size"])
def test_host_modules_refuse_before_they_look(capsys, module, args, field):
    result = _run(module, args, capsys)
    assert result["failed"] and result["field"] == field and result["msg"].startswith(field + ": "), result


def test_a_bad_mode_in_the_last_file_is_refused_before_the_first_folder_is_made(tmp_path, capsys):
    folder = tmp_path / "broker-1"
    result = _run(config_files, dict(directories=[dict(path=str(folder), mode="0750")],
                                     files=[dict(dest=str(tmp_path / "a.properties"), content="a=1\n", mode="0644"),
                                            dict(dest=str(tmp_path / "b.properties"), content="b=1\n", mode="0999")]),
                  capsys)
    assert result["failed"] and result["msg"].startswith("files[1].mode: "), result
    assert list(tmp_path.iterdir()) == []


def _run(module, args, capsys):
    with patch_module_args(args), pytest.raises(SystemExit):
        module.main()
    return json.loads(capsys.readouterr().out)
