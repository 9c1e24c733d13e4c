"""The filters role service_common reads (the rules are tested in tests/unit/plugins/plugin_utils/
test_service_rules.py): what they take and the checks of their arguments."""

import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.filter import certificates, prometheus


@pytest.mark.parametrize("issuer, common_name, names", [
    ("kafka-a", "", [("hosts", "kafka-a", "kafka-a"), ("clients", "admin", "admin")]),
    ("kafka-b", "broker.example", [("hosts", "kafka-a", "broker.example")]),
    (None, None, [("hosts", "kafka-a", "kafka-a")]),
])
def test_the_host_issues_the_clients_only_where_it_is_the_issuer(issuer, common_name, names):
    found = certificates.tls_certificates(["kafka-a"], "kafka-a", "hosts", common_name, ["admin"], issuer)
    assert [(item["folder"], item["name"], item["common_name"]) for item in found] == names


def test_tls_certificates_wants_a_list_of_names():
    with pytest.raises(AnsibleFilterError, match="tls_certificates: expected a list"):
        certificates.tls_certificates("kafka-a", "kafka-a")


def test_the_prometheus_agent_names_the_callers_variables(tmp_path):
    jar = tmp_path / "jmx_prometheus_javaagent-1.0.1.jar"
    jar.write_text("jar")
    found = prometheus.prometheus_agent(str(jar), "", "", 9092, "0.0.0.0", {"kafka_broker_port": 9092},
                                        "kafka_broker_prometheus")
    assert found["file_name"] == "jmx_prometheus_javaagent-1.0.1.jar"
    assert found["problems"]["port"].startswith("kafka_broker_prometheus_port / kafka_broker_prometheus_bind_address:")
    assert (found["problems"]["sources"], found["problems"]["file"]) == ("", "")


def test_the_prometheus_agent_wants_a_mapping_of_other_ports():
    with pytest.raises(AnsibleFilterError, match="other_ports must be a mapping"):
        prometheus.prometheus_agent("/a.jar", other_ports=[9092])


def test_every_filter_is_registered():
    assert certificates.FilterModule().filters()["tls_certificates"] is certificates.tls_certificates
    assert prometheus.FilterModule().filters() == {"prometheus_agent": prometheus.prometheus_agent}
