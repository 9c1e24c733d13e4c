"""Rules every service role shares, as role service_common applies them: the certificates it issues and the
Prometheus agent's settings."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._service_rules import (
    prometheus_agent,
    subject_alt_names,
    tls_certificates,
)


@pytest.mark.parametrize("names, expected", [
    (["kafka-a", "10.0.0.11"], ["DNS:kafka-a", "IP:10.0.0.11"]),
    (["10.0.0.11", "10.0.0.11", "kafka-a.example"], ["IP:10.0.0.11", "DNS:kafka-a.example"]),
    (["::1", "fe80::1%eth0", "2001:db8::1"], ["IP:::1", "DNS:fe80::1%eth0", "IP:2001:db8::1"]),
    (["1.2.3", "1.2.3.4.5", "999.1.1.1"], ["DNS:1.2.3", "DNS:1.2.3.4.5", "IP:999.1.1.1"]),
    (["IP:kept"], ["IP:kept"]),
    ([], []),
])
def test_subject_alt_names_tell_addresses_from_names(names, expected):
    assert subject_alt_names(names) == expected


@pytest.mark.parametrize("issues_clients, clients, names", [
    (True, ["admin", "ops"], ["kafka-a/hosts", "admin/clients", "ops/clients"]),
    (False, ["admin"], ["kafka-a/hosts"]),
    (True, [], ["kafka-a/hosts"]),
])
def test_the_host_certificate_first_then_the_clients_on_the_issuer(issues_clients, clients, names):
    found = tls_certificates("kafka-a", ["kafka-a", "10.0.0.11"], "hosts", "kafka-a", clients, issues_clients)
    assert ["%s/%s" % (item["name"], item["folder"]) for item in found] == names
    assert found[0] == {"folder": "hosts", "name": "kafka-a", "common_name": "kafka-a",
                        "subject_alt_name": ["DNS:kafka-a", "IP:10.0.0.11"],
                        "extended_key_usage": ["serverAuth", "clientAuth"]}
    for client in found[1:]:
        assert client == {"folder": "clients", "name": client["name"], "common_name": client["name"],
                          "subject_alt_name": [], "extended_key_usage": ["clientAuth"]}


SOURCES = ("zookeeper_prometheus_agent_src / zookeeper_prometheus_agent_url: zookeeper_prometheus_enabled needs the "
           "jmx_prometheus_javaagent jar: give exactly one of a path on the controller (_agent_src; "
           "scripts/fetch-prometheus-agent.sh fetches it with Maven) or a URL the hosts download it from "
           "(_agent_url), got %s")
FILE = ("zookeeper_prometheus_agent_src: %s is not a .jar file on the controller (scripts/fetch-prometheus-agent.sh "
        "puts jmx_prometheus_javaagent-<version>.jar in the cache)")
DOWNLOAD = ("zookeeper_prometheus_agent_url / zookeeper_prometheus_agent_checksum: a URL of a .jar (got '%s') and its "
            "checksum as sha256:<64 hex digits> (got '%s') are needed, so that every host runs the same jar")
PORT = ("zookeeper_prometheus_port / zookeeper_prometheus_bind_address: the port must be within 1-65535 and differ "
        "from %s (%s), and the address an IPv4 address or a host name; got %s and '%s'")
JAR = "/cache/jmx_prometheus_javaagent-1.0.1.jar"
URL = "https://example.org/jmx_prometheus_javaagent-1.0.1.jar"
SHA = "sha256:" + "ab" * 32
OTHERS = {"zookeeper_client_port": 2181, "zookeeper_admin_port": "8080"}


@pytest.mark.parametrize("settings, problems", [
    ({"source": JAR}, {}),
    ({"source": None, "url": URL, "checksum": SHA}, {}),
    ({"source": "", "url": None}, {"sources": SOURCES % "neither"}),
    ({"source": JAR, "url": URL, "checksum": SHA}, {"sources": SOURCES % "both"}),
    ({"source": "/cache/agent.zip"}, {"file": FILE % "/cache/agent.zip"}),
    ({"source": "/elsewhere/agent.jar"}, {"file": FILE % "/elsewhere/agent.jar"}),
    ({"source": "", "url": URL, "checksum": "sha1:abc"}, {"download": DOWNLOAD % (URL, "sha1:abc")}),
    ({"source": "", "url": "https://example.org/agent", "checksum": SHA},
     {"download": DOWNLOAD % ("https://example.org/agent", SHA)}),
    # A value left null shows as nothing, as a message template shows it.
    ({"source": "", "url": URL, "checksum": None}, {"download": DOWNLOAD % (URL, "")}),
    ({"source": JAR, "port": 0, "bind_address": None}, {"port": PORT % ("the other ports", "", 0, "")}),
    ({"source": JAR, "port": 7071, "bind_address": "0.0.0.0", "other_ports": OTHERS}, {}),
    ({"source": JAR, "port": "8080", "bind_address": "0.0.0.0", "other_ports": OTHERS},
     {"port": PORT % ("zookeeper_client_port, zookeeper_admin_port", "2181, 8080", "8080", "0.0.0.0")}),
    ({"source": JAR, "port": 0, "bind_address": "0.0.0.0"}, {"port": PORT % ("the other ports", "", 0, "0.0.0.0")}),
    ({"source": JAR, "port": "lots", "bind_address": "host"}, {"port": PORT % ("the other ports", "", "lots", "host")}),
    ({"source": JAR, "port": 65536, "bind_address": "host"}, {"port": PORT % ("the other ports", "", 65536, "host")}),
    ({"source": JAR, "port": 7071, "bind_address": "::"}, {"port": PORT % ("the other ports", "", 7071, "::")}),
    ({"source": JAR, "port": 7071, "bind_address": "a b"}, {"port": PORT % ("the other ports", "", 7071, "a b")}),
    # Not checked without a port (the kafka_broker role checks each broker's itself).
    ({"source": JAR, "port": None, "bind_address": "::"}, {}),
])
def test_each_prometheus_problem_names_the_variable_and_the_reason(settings, problems):
    settings = dict({"url": "", "checksum": ""}, **settings)
    found = prometheus_agent(variables="zookeeper_prometheus", file_exists=lambda path: path.startswith("/cache/"),
                             **settings)
    assert found["problems"] == dict({"sources": "", "file": "", "download": "", "port": ""}, **problems)


@pytest.mark.parametrize("source, url, file_name", [
    (JAR, "", "jmx_prometheus_javaagent-1.0.1.jar"),
    (None, URL + "?mirror=2#top", "jmx_prometheus_javaagent-1.0.1.jar"),
    ("", "", ""),
])
def test_the_agent_keeps_its_sources_name(source, url, file_name):
    found = prometheus_agent(source, url)
    assert (found["source"], found["url"], found["file_name"]) == (source or "", url, file_name)
