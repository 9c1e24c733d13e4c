"""The kafka_broker_wait action: its options, the client it builds, and the module runs it sends the broker's host."""

from types import SimpleNamespace
from unittest.mock import MagicMock

import pytest
from ansible.errors import AnsibleActionFail, AnsibleConnectionFailure
from ansible_collections.kafkaops.cluster.plugins.action import kafka_broker_wait as action
from ansible_collections.kafkaops.cluster.plugins.module_utils import _broker_wait
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import KafkaAdminError
from ansible_collections.kafkaops.cluster.tests.unit.plugins.service_samples import (
    AUTO_RESTART,
    BAD_HEAP_JOURNAL,
    RUNNING,
    FakeClock,
    FakeNode,
    show,
)

SASL_SSL = dict(security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512", sasl_username="admin",
                sasl_password="secret")


class Client:
    """An admin client of a cluster whose brokers are given; records that it was closed."""

    def __init__(self, brokers):
        self.brokers = brokers
        self.closed = False

    def describe_cluster(self):
        return dict(cluster_id="fake", controller_id=min(self.brokers) if self.brokers else -1,
                    brokers=[dict(broker_id=broker, host="kafka%d" % broker, port=9092) for broker in self.brokers])

    def close(self):
        self.closed = True


@pytest.fixture
def run_action(monkeypatch):
    """run(args, brokers=..., node=..., down=False): the action's result; the clients' settings and the module runs
    are kept on the returned function."""
    clock = FakeClock()
    monkeypatch.setattr(_broker_wait, "time", clock)

    def run(args, brokers=(1, 2, 3), node=None, down=False):
        run.connections = []
        run.module_runs = []

        def admin_client(params, connect_timeout=None):
            run.connections.append((dict(params), connect_timeout))
            if down:
                clock.sleep(connect_timeout)
                raise KafkaAdminError("could not connect to any of %s within %g s" % (
                    ",".join(params["bootstrap_servers"]), connect_timeout), "bootstrap_servers")
            return Client(list(brokers))

        def execute_module(self, module_name=None, module_args=None, task_vars=None, **unused):
            run.module_runs.append((module_name, dict(module_args)))
            return node(module_args)

        monkeypatch.setattr(action, "admin_client", admin_client)
        monkeypatch.setattr(action.ActionModule, "_execute_module", execute_module)
        task = SimpleNamespace(args=dict(args), async_val=0, check_mode=False,
                               action="kafkaops.cluster.kafka_broker_wait")
        plugin = action.ActionModule(task=task, connection=MagicMock(), play_context=None, loader=None, templar=None)
        plugin._load_name = "kafkaops.cluster.kafka_broker_wait"
        return plugin.run(task_vars={})

    run.clock = clock
    return run


def test_a_ready_broker_is_read_with_the_admin_connection_and_no_module_run(run_action):
    result = run_action(dict(bootstrap_servers=["kafka1:9092"], broker_id=1, timeout=10, service="kafka-broker-1",
                             **SASL_SSL), node=FakeNode([RUNNING]))
    assert result == dict(changed=False, broker_ids=[1, 2, 3], controller_id=1, under_replicated_partitions=[],
                          offline_partitions=[], elapsed=0.0)
    (params, connect_timeout), = run_action.connections
    assert params["sasl_username"] == "admin" and params["security_protocol"] == "SASL_SSL"
    # No request may outlast the wait; the first attempt to connect lasts 3 s.
    assert params["request_timeout"] == 10 and connect_timeout == 3.0
    assert run_action.module_runs == []


def test_a_crashing_broker_is_followed_through_service_info_on_its_host(run_action, tmp_path):
    log = tmp_path / "server.log"
    log.write_text("")
    node = FakeNode([RUNNING, AUTO_RESTART, show("activating", "auto-restart", restarts=1, code=1, status=1, pid=0)],
                    journal=(0, BAD_HEAP_JOURNAL, ""), clock=run_action.clock)
    result = run_action(dict(bootstrap_servers=["kafka1:9092"], broker_id=1, service="kafka-broker-1",
                             log_file=str(log)), node=node, down=True)
    assert result["failed"] and result["changed"] is False
    assert result["msg"].startswith("broker 1 at kafka1:9092 (unit kafka-broker-1) is not coming up: the unit is "
                                    "activating (auto-restart) and restarted once during the wait")
    assert result["log_source"] == "journal" and result["log_excerpt"][0] == "Invalid maximum heap size: -Xmx5x"
    assert {name for name, unused in run_action.module_runs} == {"kafkaops.cluster.service_info"}
    assert run_action.module_runs[0][1] == dict(service="kafka-broker-1", log_file=str(log), causes=False)
    assert run_action.module_runs[-1][1]["causes"] is True


def test_an_unreachable_host_does_not_end_the_wait_early(run_action):
    def unreachable(arguments):
        raise AnsibleConnectionFailure("ssh: connect to host kafka1 port 22: Connection refused")

    node = MagicMock(side_effect=unreachable)
    result = run_action(dict(bootstrap_servers=["kafka1:9092"], broker_id=1, timeout=8, service="kafka-broker-1"),
                        node=node, down=True)
    assert result["failed"] and "not ready within 8 s: could not connect to any of kafka1:9092" in result["msg"]
    assert "could not be read (service_info failed: ssh: connect to host kafka1 port 22" in result["msg"]
    assert node.call_count >= 3


@pytest.mark.parametrize("args, field", [
    (dict(broker_id=-1), "broker_id"),
    (dict(broker_id=1, timeout=0), "timeout"),
    (dict(broker_id=1, request_timeout=0), "request_timeout"),
    (dict(broker_id=1, bootstrap_servers=["kafka1"]), "bootstrap_servers"),
    (dict(broker_id=1, security_protocol="SASL_SSL"), "sasl_username"),
], ids=["broker-id", "timeout", "request-timeout", "no-port", "sasl-without-user"])
def test_bad_options_are_refused_naming_the_field_before_connecting(run_action, args, field):
    result = run_action(dict(dict(bootstrap_servers=["kafka1:9092"]), **args))
    assert result["failed"] and result["field"] == field and run_action.connections == []


@pytest.mark.parametrize("args", [dict(host="127.0.0.1", port=9092),
                                  dict(port=9092, bootstrap_servers=["kafka1:9092"])])
def test_the_options_of_the_module_that_ran_on_the_host_are_refused_saying_what_replaced_them(run_action, args):
    with pytest.raises(AnsibleActionFail, match=r"^(host and )?port: replaced by bootstrap_servers, the broker's"):
        run_action(dict(args, broker_id=1))


def test_unknown_options_are_refused_by_name(run_action):
    with pytest.raises(AnsibleActionFail, match=r"Unsupported parameters .*in_sinc"):
        run_action(dict(bootstrap_servers=["kafka1:9092"], broker_id=1, in_sinc=True))


def test_a_log_file_needs_a_service(run_action):
    with pytest.raises(AnsibleActionFail, match="log_file"):
        run_action(dict(bootstrap_servers=["kafka1:9092"], broker_id=1, log_file="/var/log/kafka/server.log"))


def test_without_kafka_python_on_the_controller_the_action_says_so(run_action, monkeypatch):
    monkeypatch.setattr(action, "HAS_KAFKA", False)
    with pytest.raises(AnsibleActionFail, match="kafka-python.*on the controller"):
        run_action(dict(bootstrap_servers=["kafka1:9092"], broker_id=1))
