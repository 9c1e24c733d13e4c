# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the host models of the Kafka service roles share (kafka_broker's and kafka_controller's): where a Kafka
node's files are, how it logs, how its listeners are named and secured, how its tools start their JVM, and the
entries of the files both roles write. The rules every service role shares (ZooKeeper's too: numbers and text, TLS
file places, the entries module config_files takes) are in _service_rules.py; this module builds on them.

Plain data in, plain data out, like the host models that use it.
"""

from __future__ import absolute_import, division, print_function


import json
import re

from ansible_collections.kafkaops.cluster.plugins.plugin_utils._service_rules import (
    file_entry,
    host_tls_paths,
    unique,
)

# A cluster id as kafka-storage random-uuid prints it: 16 bytes in URL-safe base64 without padding.
CLUSTER_ID = re.compile(r"^[A-Za-z0-9_-]{22}$")
# The listener KRaft controllers are reached on, and its protocol: this collection's controller listener is
# unauthenticated (the brokers and controllers reach it as User:ANONYMOUS).
CONTROLLER_LISTENER = "CONTROLLER"
CONTROLLER_PROTOCOL = "PLAINTEXT"
ANONYMOUS = "User:ANONYMOUS"
# How every Kafka tool the roles run starts its JVM: a small heap, and, as tools live seconds, the client
# compiler alone and the serial collector (about half the CPU of the JVM's defaults, docs/benchmarks.md).
TOOL_JVM_OPTIONS = ("-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
# Kafka 4 logs through log4j 2, Kafka 3 through log4j 1: the file in the node's folder, service_common's template
# of it (by its key in service_common_templates) and the JVM option that names the file.
LOGGING = {
    True: {"name": "log4j2.properties", "template": "kafka_log4j2", "option": "-Dlog4j2.configurationFile="},
    False: {"name": "log4j.properties", "template": "kafka_log4j", "option": "-Dlog4j.configuration=file:"},
}
# The settings of a server.properties that tell a node's metadata mode (metadata_mode).
MODE_SETTINGS = ("process.roles", "zookeeper.metadata.migration.enable")
# The marker role kafka_distribution leaves in an installed Kafka's folder, naming its version, and how a unit
# file names that folder (its classpath: Apache's libs/ or Confluent's share/java/kafka/).
INSTALLED_MARKER = ".kafkaops-installed"
UNIT_CLASSPATH = re.compile(r" -cp (\S+?)/(libs|share/java/kafka)/\*")


def uses_sasl(protocol):
    return protocol.startswith("SASL_")


def uses_ssl(protocol):
    return "SSL" in protocol


def metadata_mode(settings):
    """The metadata mode a node's server.properties settings (key -> value) set: kraft, migration (ZooKeeper mode
    with the migration's settings) or zookeeper."""
    if settings.get("process.roles"):
        return "kraft"
    if settings.get("zookeeper.metadata.migration.enable", "false").strip().lower() == "true":
        return "migration"
    return "zookeeper"


def read_metadata_mode(found):
    """The metadata mode of a server.properties as host_state_info's settings result shows it ({exists, values}),
    '' when there is no such file."""
    if not (found or {}).get("exists"):
        return ""
    return metadata_mode(found.get("values") or {})


def broker_principals(inter_broker_user, admin_user):
    """The principals the brokers and the collection's own clients log in as, which every ACL check passes: on the
    brokers, and on the controllers, which authorize the requests the brokers forward."""
    return ["User:%s" % inter_broker_user, "User:%s" % admin_user]


def cluster_id_problem(variable, cluster_id):
    """A sentence when a cluster id set by hand is not one Kafka's storage tool takes, else ''."""
    if cluster_id and not CLUSTER_ID.match(cluster_id):
        return ("%s: expected 22 characters of URL-safe base64 (as kafka-storage random-uuid prints), got %s"
                % (variable, cluster_id))
    return ""


def protocol_map(listeners):
    """listener.security.protocol.map of [(listener name, protocol), ...]."""
    return ",".join("%s:%s" % (name, protocol) for name, protocol in listeners)


def node_paths(name, config_dir, log_dir):
    """Where one Kafka node's files are and what its unit is called: the one place the roles spell them.

    name: the node's name on the host (broker-<id>, controller). unit, the systemd unit (kafka-<name>); unit_file,
    its file; folder, the node's own configuration folder (<config_dir>/<name>); config_file, its server.properties;
    restart_view, the copy of the settings whose change needs a restart (KRaft mode: server.properties less the
    quorum's bootstrap list, which a running node reads only at start and a quorum change rewrites);
    restart_marker, the file that says a restart is still owed after a run stopped before doing it; log_folder and
    log_file, where the node logs (<log_dir>/<name>/server.log).
    """
    folder = "%s/%s" % (config_dir.rstrip("/"), name)
    log_folder = "%s/%s" % (log_dir.rstrip("/"), name)
    unit = "kafka-" + name
    return {
        "unit": unit,
        "unit_file": "/etc/systemd/system/%s.service" % unit,
        "folder": folder,
        "config_file": folder + "/server.properties",
        "restart_view": folder + "/.server.properties.restart-view",
        "restart_marker": folder + "/.restart-pending",
        "log_folder": log_folder,
        "log_file": log_folder + "/server.log",
    }


def folder_files(folder):
    """The files both roles keep in a node's configuration folder under the same names: zookeeper_jaas, the
    ZooKeeper login (JAAS Client section); prometheus_rules, the Prometheus exporter's rules; tls_dir, the folder of
    the TLS files, and truststore, the CA certificate in it."""
    tls = host_tls_paths(folder)
    return {"zookeeper_jaas": folder + "/zookeeper-client.jaas", "prometheus_rules": folder + "/prometheus.yml",
            "tls_dir": tls["host_dir"], "truststore": tls["truststore"]}


def logging(folder, log4j2):
    """A node's logging settings: file (in its folder), template (service_common's key) and JVM option."""
    chosen = LOGGING[bool(log4j2)]
    path = "%s/%s" % (folder, chosen["name"])
    return {"file": path, "template": chosen["template"], "option": chosen["option"] + path}


def tool_command(java, logging_option, log_folder, classpath):
    """How a role starts Kafka's tools: a small JVM, logging as the node does into its log folder."""
    return [java] + list(TOOL_JVM_OPTIONS) + [logging_option, "-Dkafka.logs.dir=" + log_folder, "-cp", classpath]


def logging_entry(logging_settings, log_file, templates, group):
    """A node's logging settings file, service_common's template writing to log_file."""
    return file_entry(logging_settings["file"], templates[logging_settings["template"]], group,
                      template_vars={"log_file": log_file})


def zookeeper_login_entry(dest, templates, group, prefix):
    """The JAAS file a node logs in to ZooKeeper with, from the variables <prefix>_zookeeper_sasl_user and
    <prefix>_zookeeper_sasl_password (service_common's template reads them by name)."""
    return file_entry(dest, templates["zookeeper_client_jaas"], group, mode="0640", sensitive=True,
                      template_vars={"user_variable": prefix + "_zookeeper_sasl_user",
                                     "password_variable": prefix + "_zookeeper_sasl_password"})


def installed_home(unit_text):
    """The folder of the installed Kafka a unit file runs, from its classpath; '' when it names none."""
    found = UNIT_CLASSPATH.search(unit_text or "")
    return found.group(1) if found else ""


def installed_markers(files, unit_files):
    """The version markers of the installed Kafkas these unit files run, from host_state_info's files result
    (which holds the units' text): the paths to read next, each once."""
    homes = unique(installed_home(((files or {}).get(path) or {}).get("content")) for path in unit_files)
    return [home + "/" + INSTALLED_MARKER for home in homes if home]


def installed_version(home, files):
    """The version kafka_distribution's marker in home names, from host_state_info's files result; ''."""
    content = ((files or {}).get(home + "/" + INSTALLED_MARKER) or {}).get("content") or "{}"
    return json.loads(content).get("version", "")
