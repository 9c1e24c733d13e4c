"""Prometheus metrics: the JMX exporter's /metrics on every node whose role turns it on, read from the controller
over the scenario's network as Prometheus would, with the series an operator alerts on and sane values.

Which nodes serve metrics, and on which port, comes from the inventory (the roles' *_prometheus_* variables and
their defaults): brokers on their client port - 2000 unless given, ZooKeeper on 7070, KRaft controllers on 7071.
A scenario turns the exporter on in its molecule.yml and adds its name to the marker below.
"""

import math
import os
import re
import urllib.request

import pytest
import testinfra.utils.ansible_runner
from live_cluster import broker_instances, host_address, settled

pytestmark = pytest.mark.scenarios("multi-broker", "combined")

RUNNER = testinfra.utils.ansible_runner.AnsibleRunner(os.environ["MOLECULE_INVENTORY_FILE"])
SAMPLE = re.compile(r'^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>.*)\})?\s+(?P<value>\S+)(?:\s+\d+)?$')
UNDER_REPLICATED = "kafka_server_replicamanager_underreplicatedpartitions"
REQUESTS = "kafka_network_requestmetrics_requestspersec_total"
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text):
    """Prometheus' text format -> {name: [(labels, value)]}; comments and HELP/TYPE lines left out."""
    series = {}
    for line in text.splitlines():
        match = SAMPLE.match(line.strip())
        if not match or line.startswith("#"):
            continue
        labels = dict(LABEL.findall(match.group("labels") or ""))
        series.setdefault(match.group("name"), []).append((labels, float(match.group("value"))))
    return series


def scrape(endpoint):
    with urllib.request.urlopen("http://%s/metrics" % endpoint, timeout=30) as response:
        assert response.status == 200
        return parse(response.read().decode())


def values(series, name, **labels):
    """The values of a metric's samples whose labels include the given ones."""
    return [value for sample_labels, value in series.get(name, [])
            if all(sample_labels.get(key) == wanted for key, wanted in labels.items())]


def one_value(series, name, endpoint, **labels):
    found = values(series, name, **labels)
    assert len(found) == 1, "%s: expected one %s%s, found %s" % (endpoint, name, labels or "", found)
    assert not math.isnan(found[0]), "%s: %s is NaN" % (endpoint, name)
    return found[0]


def enabled(name, variable):
    return str(RUNNER.get_variables(name).get(variable, False)).lower() in ("true", "yes", "1")


def broker_endpoints():
    """host:port of every broker instance's exporter, with the broker's id."""
    hosts = RUNNER.get_hosts("kafka_broker")
    endpoints = []
    for name in hosts:
        if not enabled(name, "kafka_broker_prometheus_enabled"):
            continue
        variables = RUNNER.get_variables(name)
        given = {int(item["broker_id"]): item.get("prometheus_port")
                 for item in variables.get("kafka_broker_instances") or []}
        instances = broker_instances(RUNNER, name, hosts)
        host_port = variables.get("kafka_broker_prometheus_port") if len(instances) == 1 else None
        for broker_id, port in instances:
            prometheus_port = given.get(broker_id) or host_port
            endpoints.append(("%s:%d" % (host_address(name), int(prometheus_port or port - 2000)), broker_id))
    return endpoints


def role_endpoints(group, variable, default_port):
    return ["%s:%d" % (host_address(name), int(RUNNER.get_variables(name).get(variable + "_port") or default_port))
            for name in RUNNER.get_hosts(group) if enabled(name, variable + "_enabled")]


def kraft():
    names = RUNNER.get_hosts("kafka_broker")
    return bool(RUNNER.get_hosts("kafka_controller")) or any(
        enabled(name, "kafka_broker_combined") for name in names)


def controller_endpoints():
    """The exporters of the KRaft quorum's nodes: dedicated controllers, or combined brokers."""
    if RUNNER.get_hosts("kafka_controller"):
        return role_endpoints("kafka_controller", "kafka_controller_prometheus", 7071)
    return [endpoint for endpoint, unused in broker_endpoints()]


def test_the_scenario_turns_the_exporter_on():
    assert broker_endpoints(), "no broker has kafka_broker_prometheus_enabled"
    if not kraft():
        assert role_endpoints("zookeeper", "zookeeper_prometheus", 7070), \
            "no ZooKeeper node has zookeeper_prometheus_enabled"


def test_each_broker_serves_its_replication_traffic_and_request_series():
    for endpoint, broker_id in broker_endpoints():
        series = settled(lambda endpoint=endpoint: scrape(endpoint),
                         lambda series: values(series, UNDER_REPLICATED) == [0.0])
        assert one_value(series, UNDER_REPLICATED, endpoint) == 0, \
            "%s (broker %d): under-replicated partitions" % (endpoint, broker_id)
        assert one_value(series, "kafka_server_replicamanager_offlinereplicacount", endpoint) == 0
        assert one_value(series, "kafka_server_replicamanager_partitioncount", endpoint) >= 0
        for counter in ("kafka_server_replicamanager_isrshrinkspersec_total",
                        "kafka_server_replicamanager_isrexpandspersec_total",
                        "kafka_server_brokertopicmetrics_bytesinpersec_total",
                        "kafka_server_brokertopicmetrics_bytesoutpersec_total",
                        "kafka_server_brokertopicmetrics_messagesinpersec_total"):
            assert one_value(series, counter, endpoint) >= 0
        # The role's own waits asked every broker for metadata (a request type's rate appears with its first
        # request; its latency histogram exists from the start).
        assert sum(values(series, REQUESTS, request="Metadata")) >= 1, endpoint
        for request in ("Metadata", "Produce", "FetchConsumer"):
            quantiles = {labels["quantile"]: value
                         for labels, value in series.get("kafka_network_requestmetrics_totaltimems", [])
                         if labels.get("request") == request}
            assert set(quantiles) >= {"0.50", "0.99", "0.999"}, \
                "%s: %s latency quantiles %s" % (endpoint, request, quantiles)
            assert all(value >= 0 for value in quantiles.values()), quantiles
        assert values(series, "kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent"), endpoint
        # The agent's own JVM series.
        assert values(series, "jvm_memory_used_bytes", area="heap"), endpoint
        # What was seen, for a run with -rA (PYTEST_ADDOPTS) to show.
        print("broker %d at %s: under-replicated %s, offline replicas %s, ISR shrinks %s, expands %s, bytes in %s,"
              " out %s, Metadata requests %s, Metadata p99 %s ms, series %d" % (
                  broker_id, endpoint, values(series, UNDER_REPLICATED),
                  values(series, "kafka_server_replicamanager_offlinereplicacount"),
                  values(series, "kafka_server_replicamanager_isrshrinkspersec_total"),
                  values(series, "kafka_server_replicamanager_isrexpandspersec_total"),
                  values(series, "kafka_server_brokertopicmetrics_bytesinpersec_total"),
                  values(series, "kafka_server_brokertopicmetrics_bytesoutpersec_total"),
                  sum(values(series, REQUESTS, request="Metadata")),
                  values(series, "kafka_network_requestmetrics_totaltimems", request="Metadata", quantile="0.99"),
                  sum(len(samples) for samples in series.values())))
        # Kept focused: nothing per topic or partition.
        assert not [name for name, samples in series.items() for labels, unused in samples if "topic" in labels]


def test_exactly_one_active_controller_and_no_offline_partitions():
    endpoints = controller_endpoints() if kraft() else [endpoint for endpoint, unused in broker_endpoints()]
    assert endpoints

    def read():
        return {endpoint: scrape(endpoint) for endpoint in endpoints}

    def active(readings):
        return sum(sum(values(series, "kafka_controller_kafkacontroller_activecontrollercount"))
                   for series in readings.values())

    readings = settled(read, lambda readings: active(readings) == 1)
    for endpoint, series in readings.items():
        assert len(values(series, "kafka_controller_kafkacontroller_activecontrollercount")) == 1, endpoint
    assert active(readings) == 1, {endpoint: values(series, "kafka_controller_kafkacontroller_activecontrollercount")
                                   for endpoint, series in readings.items()}
    assert sum(sum(values(series, "kafka_controller_kafkacontroller_offlinepartitionscount"))
               for series in readings.values()) == 0
    print("active controller count per node: %s; offline partitions: %s" % (
        {endpoint: values(series, "kafka_controller_kafkacontroller_activecontrollercount")
         for endpoint, series in readings.items()},
        {endpoint: values(series, "kafka_controller_kafkacontroller_offlinepartitionscount")
         for endpoint, series in readings.items()}))


@pytest.mark.scenarios("combined")
def test_the_kraft_quorum_has_one_leader_that_every_node_names():
    endpoints = controller_endpoints()

    def read():
        return {endpoint: scrape(endpoint) for endpoint in endpoints}

    def states(readings):
        return {endpoint: [labels["state"] for labels, value
                           in series.get("kafka_server_raft_metrics_current_state", []) if value == 1]
                for endpoint, series in readings.items()}

    readings = settled(read, lambda readings: sum(found == ["leader"] for found in states(readings).values()) == 1)
    assert sum(found == ["leader"] for found in states(readings).values()) == 1, states(readings)
    assert all(len(found) == 1 for found in states(readings).values()), states(readings)
    leaders = {one_value(series, "kafka_server_raft_metrics_current_leader", endpoint)
               for endpoint, series in readings.items()}
    assert len(leaders) == 1 and leaders.pop() >= 0
    for endpoint, series in readings.items():
        assert one_value(series, "kafka_server_raft_metrics_high_watermark", endpoint) > 0
        assert one_value(series, "kafka_server_raft_metrics_current_epoch", endpoint) >= 1
        assert one_value(series, "kafka_controller_kafkacontroller_activebrokercount", endpoint) >= 1
        assert one_value(series, "kafka_controller_kafkacontroller_fencedbrokercount", endpoint) == 0
        print("%s: raft state %s, leader %s, epoch %s, high watermark %s, active brokers %s, fenced %s" % (
            endpoint, states(readings)[endpoint], values(series, "kafka_server_raft_metrics_current_leader"),
            values(series, "kafka_server_raft_metrics_current_epoch"),
            values(series, "kafka_server_raft_metrics_high_watermark"),
            values(series, "kafka_controller_kafkacontroller_activebrokercount"),
            values(series, "kafka_controller_kafkacontroller_fencedbrokercount")))


@pytest.mark.scenarios("multi-broker")
def test_zookeeper_reports_its_quorum_and_load():
    endpoints = role_endpoints("zookeeper", "zookeeper_prometheus", 7070)
    readings = {endpoint: scrape(endpoint) for endpoint in endpoints}
    states = {endpoint: [labels["state"] for labels, value in series.get("zookeeper_peer_state", []) if value == 1]
              for endpoint, series in readings.items()}
    assert all(len(found) == 1 for found in states.values()), states
    if len(endpoints) == 1:
        assert list(states.values()) == [["standalone"]]
    else:
        assert sorted(found[0] for found in states.values()) == ["following"] * (len(endpoints) - 1) + ["leading"]
        for endpoint, series in readings.items():
            assert one_value(series, "zookeeper_quorum_size", endpoint) == len(endpoints)
    for endpoint, series in readings.items():
        assert one_value(series, "zookeeper_outstandingrequests", endpoint) >= 0
        assert one_value(series, "zookeeper_avgrequestlatency", endpoint) >= 0
        assert one_value(series, "zookeeper_nodecount", endpoint) > 0
        print("%s: state %s, quorum size %s, outstanding requests %s, average latency %s ms, znodes %s,"
              " connections %s" % (endpoint, states[endpoint], values(series, "zookeeper_quorum_size"),
                                   values(series, "zookeeper_outstandingrequests"),
                                   values(series, "zookeeper_avgrequestlatency"), values(series, "zookeeper_nodecount"),
                                   values(series, "zookeeper_numaliveconnections")))
    # The brokers hold sessions with the ensemble.
    assert sum(one_value(series, "zookeeper_numaliveconnections", endpoint)
               for endpoint, series in readings.items()) >= 1
