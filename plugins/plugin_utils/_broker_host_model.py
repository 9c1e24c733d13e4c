# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kafka_broker role's host model: what one host's brokers are, where their files go, how they listen
and log in, and what is wrong with the settings, from the role's variables as plain data.

The role publishes it once per host (preflight.yml) and its tasks and templates read it, so that a path or
a rule is written here only. No I/O: whether a file exists on the controller, and whether a provided
certificate is its key's, are asked through the file_exists and key_problem functions the caller passes
(the filter gives os.path.isfile and plugin_utils/_tls_files.py's certificate_key_problem, the tests
stand-ins).
"""

from __future__ import absolute_import, division, print_function


import re

from ansible_collections.kafkaops.cluster.plugins.module_utils._features import pin_problems
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._kafka_list_values import is_kafka_list_value
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._kafka_node import (
    ANONYMOUS,
    CONTROLLER_LISTENER,
    CONTROLLER_PROTOCOL,
    MODE_SETTINGS,
    TOOL_JVM_OPTIONS,
    broker_principals,
    cluster_id_problem,
    folder_files,
    installed_home,
    installed_version,
    logging,
    logging_entry,
    protocol_map,
    read_metadata_mode,
    tool_command,
    uses_sasl,
    uses_ssl,
    zookeeper_login_entry,
)
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._service_rules import (
    HEAP_SIZE,
    USER_NAME,
    as_int,
    file_entry,
    folder_entry,
    host_tls_paths,
    in_play,
    provided_tls_problems,
    tls_source,
    unique,
)
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._service_rules import text as _text

METADATA_MODES = ("zookeeper", "migration", "kraft")
PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
CLIENT_AUTHS = ("none", "requested", "required")
SASL_MECHANISMS = ("SCRAM-SHA-512", "SCRAM-SHA-256")
TLS_CERTIFICATES = ("generated", "provided")
LOOPBACK = ("127.0.0.1", "localhost", "::1")
# What node_state.yml reads of each server.properties besides the settings that tell its metadata mode: what
# the migration's precheck looks at (never the whole file, which may hold SASL passwords).
NODE_STATE_SETTINGS = ("zookeeper.connect", "inter.broker.protocol.version", "metadata.log.dir")
# PBKDF2 iterations of the SCRAM users' credentials: Kafka's default for kafka-configs (4096 to 16384).
SCRAM_ITERATIONS = 8192
# The installed Kafka: the KRaft setup here (a dynamic quorum, KIP-853) needs 3.9, and ZooKeeper mode was removed
# in 4.0, so the migration runs on 3.9; Kafka 4 logs through log4j 2.
KRAFT_FROM = "3.9"
ZOOKEEPER_BEFORE = "4.0"
# A unit file's classpath: the Kafka a stopped broker ran, whose cluster tool unregisters it.
UNIT_CLASSPATH = re.compile(r" -cp (\S+) ")
CHROOT = re.compile(r"^/[^ ,]*[^/]$")
# Without the replication factors set, Kafka's usual 3, or fewer on a smaller cluster.
DEFAULT_REPLICATION = 3


def _host_of(address):
    """The host part of host:port (ZooKeeper's also /chroot), without the brackets of an IPv6 address."""
    host = re.sub(r":[0-9]+(/.*)?$", "", address)
    return re.sub(r"^\[(.*)\]$", r"\1", host)


def broker_id_limit(instance, host_properties):
    """A sentence when reserved.broker.max.id, set by hand, is below the instance's broker id; else ''."""
    properties = dict(host_properties or {}, **(instance.get("properties") or {}))
    limit = properties.get("reserved.broker.max.id")
    if limit in (None, ""):
        return ""
    try:
        limit = int(limit)
    except (TypeError, ValueError):
        return "broker %s: reserved.broker.max.id %r is not a number" % (instance["broker_id"], limit)
    if limit < instance["broker_id"]:
        return "broker %s: reserved.broker.max.id is %d" % (instance["broker_id"], limit)
    return ""


def host_model(inputs, settings, cluster, file_exists, key_problem):
    """The host model of the kafka_broker role for one host.

    inputs: the role's typed inputs (lookup role_inputs). settings: its text settings, each under its
    variable's name. cluster: host (this host's inventory name), instances (this host's, as the filter
    kafka_broker_instances completes them), play_hosts, controller_hosts (the kafka_controller group),
    host_addresses and host_instances (by host of kafka_broker_hosts, what it noted in this play: its
    INTERNAL address and its instances; a host that noted nothing yet is not there).
    file_exists(path): whether a file is there on the controller. key_problem(certificate variable, path, key
    variable, path): why a provided certificate is not its key's, or None; asked only once every provided
    TLS file is there.
    """
    text = {name: _text(value) for name, value in settings.items()}
    mode = text["kafka_broker_metadata_mode"]
    combined = bool(inputs.get("kafka_broker_combined"))
    kraft = mode == "kraft"
    migration = mode == "migration"
    config_dir = text["kafka_broker_config_dir"]
    tls_dir = text["kafka_broker_tls_dir"]
    host = cluster["host"]
    hosts = list(inputs.get("kafka_broker_hosts") or [])
    # What the hosts of kafka_broker_hosts noted in this play, by name.
    addresses = cluster.get("host_addresses") or {}
    host_instances = cluster.get("host_instances") or {}
    members = in_play(hosts, cluster.get("play_hosts"))
    problems = []

    if combined:
        known = [name for name in hosts if addresses.get(name)]
        quorum_servers = ["%s:%s" % (addresses[name], inputs["kafka_broker_controller_port"]) for name in known]
        problems.extend("kafka_broker_internal_host of %s: not known to this play, so the combined quorum "
                        "cannot list it (run the role on every host of kafka_broker_hosts)" % name
                        for name in hosts if name not in known)
    else:
        quorum_servers = list(inputs.get("kafka_broker_controller_quorum_servers") or [])

    listeners = [
        {"name": "INTERNAL", "protocol": text["kafka_broker_internal_security_protocol"],
         "client_auth": text["kafka_broker_internal_ssl_client_auth"]},
        {"name": "EXTERNAL", "protocol": text["kafka_broker_external_security_protocol"],
         "client_auth": text["kafka_broker_external_ssl_client_auth"]},
    ]
    protocols = [listener["protocol"] for listener in listeners]
    jmx_tls = bool(inputs.get("kafka_broker_jmx_tls"))
    tls = _tls_paths(text, host, config_dir, tls_dir)
    # For the names and addresses brokers and clients reach this host by; the admin client gets a
    # certificate of its own when the EXTERNAL listener asks for one.
    tls["subject_names"] = unique([host, text["kafka_broker_internal_host"], text["kafka_broker_external_host"]])
    external = text["kafka_broker_external_security_protocol"]
    tls["clients"] = ([text["kafka_broker_admin_user"]]
                      if uses_ssl(external) and text["kafka_broker_external_ssl_client_auth"] != "none" else [])
    # The certificates the role deploys or logs in with, by what they are, for the expiry warning (lookup
    # certificate_expiry; the admin client's only where it was issued or provided).
    tls["expiry_files"] = {"CA certificate": tls["source"]["ca"], "host certificate": tls["source"]["cert"],
                           "admin client certificate": tls["source"]["admin_cert"]}
    shared = folder_files(config_dir)
    paths = {
        # The brokers' ZooKeeper login (JAAS Client section), named in their units.
        "zookeeper_jaas": shared["zookeeper_jaas"],
        "jmx_password": config_dir + "/jmx.password",
        "jmx_access": config_dir + "/jmx.access",
        "jmx_tls_config": config_dir + "/jmx-tls.properties",
        # The Prometheus exporter's rules, one file for the host's brokers.
        "prometheus_rules": shared["prometheus_rules"],
    }
    instances = list(cluster.get("instances") or [])
    cluster_instances = [instance for name in members for instance in (host_instances.get(name) or [])]
    replication = _replication(inputs, text, len(cluster_instances))

    scram_users = _scram_users(text)
    model = {
        "host": host,
        # The brokers of the cluster (kafka_broker_hosts), those of them in this play, and the dedicated controllers.
        "hosts": unique(hosts),
        "members": members,
        "controller_hosts": list(cluster.get("controller_hosts") or []),
        "mode_settings": list(MODE_SETTINGS),
        "metadata_mode": mode,
        "kraft": kraft,
        "migration": migration,
        "combined": combined,
        "instances": instances,
        "quorum_servers": quorum_servers,
        # ZooKeeper mode: the servers (as the SCRAM users' module takes them) and zookeeper.connect.
        "zookeeper_servers": [server.strip() for server in text["kafka_broker_zookeeper_connect"].strip().split(",")
                              if server.strip()],
        "zookeeper_connect": text["kafka_broker_zookeeper_connect"].strip() + text["kafka_broker_zookeeper_chroot"],
        "peer_addresses": _peer_addresses(text, kraft, migration, combined, quorum_servers, members, addresses),
        "listeners": listeners,
        "protocol_map": protocol_map([(listener["name"], listener["protocol"]) for listener in listeners]
                                     + ([(CONTROLLER_LISTENER, CONTROLLER_PROTOCOL)] if kraft or migration else [])),
        "uses_tls": any(uses_ssl(protocol) for protocol in protocols) or jmx_tls,
        "uses_sasl": any(uses_sasl(protocol) for protocol in protocols),
        "zookeeper_sasl": len(text["kafka_broker_zookeeper_sasl_user"]) > 0,
        "tls": tls,
        "paths": paths,
        "admin_connection": _admin_connection(text, tls),
        "client_addresses": ["%s:%s" % (text["kafka_broker_external_host"], instance["port"])
                             for instance in instances],
        "super_users": _super_users(inputs, text, kraft and combined, hosts),
        "jmx_local": text["kafka_broker_jmx_bind_address"] in LOOPBACK,
        "jmx_options": _jmx_options(text, jmx_tls, paths),
        "scram_users": scram_users,
        # Published for role kafka_controller, whose new KRaft cluster starts with them (ZooKeeper mode: none).
        "metadata_scram_users": scram_users if kraft else [],
        "scram_iterations": SCRAM_ITERATIONS,
        "sasl_mechanism": text["kafka_broker_sasl_mechanism"],
        # KRaft: the cluster id set, the metadata version a new combined cluster starts with (empty: the installed
        # Kafka's) and this host's controller listener in combined mode.
        "cluster_id": text["kafka_broker_cluster_id"],
        "release_version": text.get("kafka_broker_release_version", ""),
        "controller_address": ("%s:%s" % (text["kafka_broker_internal_host"],
                                          inputs.get("kafka_broker_controller_port")) if combined else ""),
        "java": text.get("kafka_broker_java_executable", ""),
        # What the files the role writes need (broker_files).
        "account": {"user": text.get("kafka_broker_user", "kafka"), "group": text.get("kafka_broker_group", "kafka")},
        "folders": {"config": config_dir, "data": text.get("kafka_broker_data_dir", ""),
                    "log": text.get("kafka_broker_log_dir", "")},
        "jmx_password_set": len(text["kafka_broker_jmx_password"]) > 0,
        "jmx_tls": jmx_tls,
        "prometheus_enabled": bool(inputs.get("kafka_broker_prometheus_enabled")),
        "broker_ids": [instance["broker_id"] for instance in cluster_instances],
        "broker_count": len(cluster_instances),
        # The typed inputs themselves, for the tasks and templates after preflight: the role's lazy
        # __kafka_broker_inputs templates every input again each time it is read (a template reads it a dozen times).
        "inputs": dict(inputs),
    }
    model.update(replication)
    model["host_state"] = _host_state(instances, kraft, paths, model["peer_addresses"])
    model["node_state"] = _node_state(instances)
    model["migration_peer"] = _migration_peer(text, tls)
    model["decommission"] = _decommission(inputs, instances)
    problems.extend(_problems(inputs, text, model, cluster, file_exists, key_problem))
    model["problems"] = problems
    return model


def broker_files(model, templates, log4j2):
    """The folders and files the role writes on the host, in the shape module config_files takes, and per broker
    (by unit) the paths whose change needs its restart.

    templates: service_common's shared templates (service_common_templates); log4j2: whether the installed Kafka
    logs through log4j 2 (Kafka 4) rather than log4j 1. Both are known only once Kafka is installed, after the
    model was published. KRaft: the restart is decided on the restart view (server.properties without the
    quorum's bootstrap addresses, which a running broker no longer reads), so a controller joining the quorum
    restarts no broker.
    """
    account = model["account"]
    paths = model["paths"]
    tls = model["tls"]
    secret = uses_sasl(model["listeners"][0]["protocol"])

    def entry(dest, template, **more):
        return file_entry(dest, template, account["group"], **more)

    files = []
    restart_paths = {}
    host_paths = [tls["truststore"], tls["keystore"], paths["zookeeper_jaas"], paths["jmx_password"],
                  paths["jmx_tls_config"]]
    for instance in model["instances"]:
        logging_settings = logging(instance["folder"], log4j2)
        files += [
            entry(instance["config_file"], "server.properties.j2", mode="0640", sensitive=secret,
                  template_vars={"instance": instance}),
            logging_entry(logging_settings, instance["log_file"], templates, account["group"]),
            dict(entry(instance["unit_file"], "kafka-broker.service.j2",
                       template_vars={"instance": instance, "logging_option": logging_settings["option"]}),
                 group="root"),
        ]
        if model["kraft"]:
            files.append(entry(instance["restart_view"], "server.properties.j2", mode="0640", sensitive=secret,
                               template_vars={"instance": instance, "restart_view": True}))
        restart_paths[instance["unit"]] = [instance["restart_view"] if model["kraft"] else instance["config_file"],
                                           logging_settings["file"], instance["unit_file"]] + host_paths
    # Host-level files: the TLS key store and CA, the ZooKeeper login, the JMX password, the Prometheus
    # exporter's rules (not part of the restart decision: the agent re-reads them when they change).
    if model["uses_tls"]:
        files += [entry(tls["truststore"], "ca.crt.j2"),
                  entry(tls["keystore"], "broker-keystore.pem.j2", mode="0640", sensitive=True)]
    if model["zookeeper_sasl"]:
        files.append(zookeeper_login_entry(paths["zookeeper_jaas"], templates, account["group"], "kafka_broker"))
    if model["jmx_password_set"]:
        files += [entry(paths["jmx_password"], "jmx.password.j2", owner=account["user"], mode="0400", sensitive=True),
                  entry(paths["jmx_access"], "jmx.access.j2")]
    if model["jmx_tls"]:
        files.append(entry(paths["jmx_tls_config"], "jmx-tls.properties.j2", owner=account["user"], mode="0400",
                           sensitive=True))
    if model["prometheus_enabled"]:
        files.append(entry(paths["prometheus_rules"], templates["kafka_prometheus"]))

    def folder(path, owner, mode):
        return folder_entry(path, owner, account["group"], mode)

    folders = model["folders"]
    instances = model["instances"]
    directories = ([folder(path, "root", "0755") for path in [folders["config"]] + [i["folder"] for i in instances]]
                   + [folder(path, account["user"], "0750") for path in
                      [folders["data"], folders["log"]] + [path for i in instances for path in i["log_dirs"]]
                      + [i["log_folder"] for i in instances]])
    if model["uses_tls"]:
        directories.append(folder(tls["host_dir"], "root", "0750"))
    return {"directories": directories, "files": files, "restart_paths": restart_paths}


def _host_state(instances, kraft, paths, peer_addresses):
    """What preflight reads on the host (module host_state_info): which brokers were set up before, restarts an
    earlier run left pending, in KRaft mode whether the storage is formatted and the units' state, and whether the
    host resolves the peer addresses. Of each server.properties only the settings that tell the metadata mode (it
    may hold SASL passwords); the ZooKeeper login file is only looked for."""
    files = [instance["unit_file"] for instance in instances] + [instance["restart_marker"] for instance in instances]
    if kraft:
        files += [instance["meta_file"] for instance in instances]
    settings = {instance["config_file"]: list(MODE_SETTINGS) for instance in instances}
    settings[paths["zookeeper_jaas"]] = []
    units = [instance["unit"] for instance in instances] if kraft else []
    return {"names": list(peer_addresses), "files": files, "settings": settings, "units": units}


def _node_state(instances):
    """What node_state.yml reads (module host_state_info): each broker's unit and restart marker, its unit's state
    and the settings of its server.properties that tell the metadata mode and what the migration's precheck
    looks at."""
    return {
        "files": [instance["unit_file"] for instance in instances]
        + [instance["restart_marker"] for instance in instances],
        "settings": {instance["config_file"]: list(MODE_SETTINGS) + list(NODE_STATE_SETTINGS)
                     for instance in instances},
        "units": [instance["unit"] for instance in instances],
        "unit_files": [instance["unit_file"] for instance in instances],
    }


def _migration_peer(text, tls):
    """How the KRaft controllers of a migration reach these brokers and ZooKeeper as the brokers do (role
    kafka_controller reads it from the first broker, fact kafka_broker_migration_peer): INTERNAL's protocol and
    login, the CA that signed the brokers' certificates (a file on the Ansible controller, when INTERNAL uses TLS)
    and the brokers' ZooKeeper login."""
    internal = text["kafka_broker_internal_security_protocol"]
    return {
        "internal_protocol": internal,
        "internal_client_auth": text["kafka_broker_internal_ssl_client_auth"],
        "sasl_mechanism": text["kafka_broker_sasl_mechanism"],
        "inter_broker_user": text["kafka_broker_inter_broker_user"],
        "inter_broker_password": text["kafka_broker_inter_broker_password"],
        "ca_file": tls["source"]["ca"] if uses_ssl(internal) else "",
        "zookeeper_sasl_user": text["kafka_broker_zookeeper_sasl_user"],
        "zookeeper_sasl_password": text["kafka_broker_zookeeper_sasl_password"],
    }


def _decommission(inputs, instances):
    """The last step of playbooks/decommission.yml on this host (entry point decommission): the brokers of this host
    it names (kafka_broker_decommission_ids), their unit files and log folders, and those of them the controllers
    still have registered (kafka_broker_decommission_registered). Nothing outside that entry point sets them."""
    named = inputs.get("kafka_broker_decommission_ids") or []
    registered = inputs.get("kafka_broker_decommission_registered") or []
    leaving = [instance for instance in instances if instance["broker_id"] in named]
    return {
        "brokers": leaving,
        "unit_files": [instance["unit_file"] for instance in leaving],
        "log_dirs": [path for instance in leaving for path in instance["log_dirs"]],
        "registered": [instance for instance in leaving if instance["broker_id"] in registered],
    }


def _tls_paths(text, host, config_dir, tls_dir):
    """The TLS files on the controller (generated ones where service_common's certificates task writes them)
    and on the host: the CA the brokers trust and one PEM key store (private key, then certificate)."""
    admin = text["kafka_broker_admin_user"]
    source = tls_source(text["kafka_broker_tls_certificates"] == "provided",
                        (text["kafka_broker_tls_ca_file"], text["kafka_broker_tls_cert_file"],
                         text["kafka_broker_tls_key_file"]), tls_dir, "hosts", host)
    source.update(admin_cert="%s/clients/%s.crt" % (tls_dir, admin), admin_key="%s/clients/%s.key" % (tls_dir, admin))
    paths = dict(host_tls_paths(config_dir, "broker.pem"), source=source)
    # TLS on JMX: the PKCS12 key store, made on the controller, and its copy on the host.
    paths.update(jmx_keystore_dir=tls_dir + "/jmx", jmx_keystore_source="%s/jmx/%s.p12" % (tls_dir, host),
                 jmx_keystore=paths["host_dir"] + "/jmx.p12")
    return paths


def _peer_addresses(text, kraft, migration, combined, quorum_servers, members, addresses):
    """Address -> the variable that gives it: what this host's configuration makes the brokers connect to."""
    owners = {}
    if not kraft:
        for server in text["kafka_broker_zookeeper_connect"].strip().split(","):
            if server.strip():
                owners[_host_of(server.strip())] = "kafka_broker_zookeeper_connect"
    if (kraft or migration) and not combined:
        for server in quorum_servers:
            owners[_host_of(server)] = "kafka_broker_controller_quorum_servers"
    for name in members:
        if addresses.get(name):
            owners[addresses[name]] = "kafka_broker_internal_host of " + name
    return owners


def _admin_connection(text, tls):
    """How the collection's own clients reach the EXTERNAL listener as the admin user: exactly the admin
    modules' connection options (doc fragment kafka_connection), only those that apply."""
    protocol = text["kafka_broker_external_security_protocol"]
    connection = {"security_protocol": protocol}
    if uses_sasl(protocol):
        connection.update(sasl_mechanism=text["kafka_broker_sasl_mechanism"],
                          sasl_username=text["kafka_broker_admin_user"],
                          sasl_password=text["kafka_broker_admin_password"])
    if uses_ssl(protocol):
        connection["ssl_cafile"] = tls["source"]["ca"]
        if text["kafka_broker_external_ssl_client_auth"] != "none":
            connection.update(ssl_certfile=tls["source"]["admin_cert"], ssl_keyfile=tls["source"]["admin_key"])
    return connection


def _super_users(inputs, text, combined_kraft, hosts):
    """Principals that pass every ACL check: the brokers themselves and the collection's admin user.

    With mutual TLS and no SASL on a listener, Kafka names the principal after the certificate's subject,
    which for generated certificates is CN=<inventory name> (hosts) and CN=<user> (clients). A combined
    node is also a controller, reached on the unauthenticated controller listener as User:ANONYMOUS (as
    dedicated controllers are, see kafka_controller_super_users): it must pass there, or no broker registers.
    """
    users = broker_principals(text["kafka_broker_inter_broker_user"], text["kafka_broker_admin_user"])
    if combined_kraft:
        users.append(ANONYMOUS)
    if text["kafka_broker_internal_security_protocol"] == "SSL":
        users.extend("User:CN=" + name for name in hosts)
    if (text["kafka_broker_external_security_protocol"] == "SSL"
            and text["kafka_broker_external_ssl_client_auth"] != "none"):
        users.append("User:CN=" + text["kafka_broker_admin_user"])
    return unique(users + list(inputs.get("kafka_broker_super_users") or []))


def _jmx_options(text, jmx_tls, paths):
    """Remote JMX: on loopback without a password (reach it through an SSH tunnel or a local agent), or on
    another address only with the password file (read-only access), so it is never open to the network."""
    bind = text["kafka_broker_jmx_bind_address"]
    options = ["-Dcom.sun.management.jmxremote",
               "-Dcom.sun.management.jmxremote.host=" + bind,
               "-Djava.rmi.server.hostname=" + (bind if bind in LOOPBACK else text["kafka_broker_external_host"]),
               "-Dcom.sun.management.jmxremote.ssl=" + str(jmx_tls).lower()]
    if jmx_tls:
        options += ["-Dcom.sun.management.jmxremote.registry.ssl=true",
                    "-Dcom.sun.management.jmxremote.ssl.config.file=" + paths["jmx_tls_config"]]
    if not text["kafka_broker_jmx_password"]:
        return options + ["-Dcom.sun.management.jmxremote.authenticate=false"]
    return options + ["-Dcom.sun.management.jmxremote.authenticate=true",
                      "-Dcom.sun.management.jmxremote.password.file=" + paths["jmx_password"],
                      "-Dcom.sun.management.jmxremote.access.file=" + paths["jmx_access"]]


def _scram_users(text):
    """The users a ZooKeeper-mode cluster gets in ZooKeeper and a new KRaft cluster starts with: the
    inter-broker user when INTERNAL uses SASL, the admin user when EXTERNAL does."""
    users = []
    if uses_sasl(text["kafka_broker_internal_security_protocol"]):
        users.append({"name": text["kafka_broker_inter_broker_user"],
                      "password": text["kafka_broker_inter_broker_password"]})
    if uses_sasl(text["kafka_broker_external_security_protocol"]):
        users.append({"name": text["kafka_broker_admin_user"], "password": text["kafka_broker_admin_password"]})
    return users


def _replication(inputs, text, broker_count):
    """The replication factors, min(3, number of brokers) where the inventory leaves them empty."""
    def factor(name):
        given = inputs.get(name, text.get(name))
        return min(DEFAULT_REPLICATION, broker_count) if given in ("", None) else as_int(given)
    return {"default_replication_factor": factor("kafka_broker_default_replication_factor"),
            "internal_topics_replication_factor": factor("kafka_broker_internal_topics_replication_factor")}


def _problems(inputs, text, model, cluster, file_exists, key_problem):
    """What preflight refuses, each a sentence naming the variable and the reason (in the words its asserts
    used before they were one), before anything changes."""
    found = []
    found.extend(_cluster_problems(inputs, model))
    found.extend(_owned_setting_problems(inputs, model))
    # Pinned feature levels that are no feature name or level at all (the kafka_features module's own rules;
    # what the brokers support it checks when playbooks/upgrade.yml finalizes them, after the roll).
    found.extend(pin_problems(inputs.get("kafka_broker_features"), "kafka_broker_features"))
    found.extend(_mode_problems(inputs, text, model, cluster))
    found.extend(_size_problems(inputs, text))
    found.extend(_security_problems(inputs, text, model, file_exists, key_problem))
    return found


# Settings the role writes from a variable of its own, the durability ones also held cluster-wide (tasks/main.yml):
# given again in kafka_broker_properties they would sit twice in server.properties, and the cluster-wide value
# would not follow the one the broker reads.
OWN_VARIABLES = {
    "num.partitions": "kafka_broker_num_partitions",
    "default.replication.factor": "kafka_broker_default_replication_factor",
    "min.insync.replicas": "kafka_broker_min_insync_replicas",
    "auto.create.topics.enable": "kafka_broker_auto_create_topics_enable",
    "unclean.leader.election.enable": "kafka_broker_unclean_leader_election_enable",
}


def _owned_setting_problems(inputs, model):
    given = [("kafka_broker_properties", inputs.get("kafka_broker_properties") or {})]
    given.extend(("kafka_broker_instances[%d].properties" % index, instance.get("properties") or {})
                 for index, instance in enumerate(model["instances"]))
    return ["%s: %s is set by %s; set it there instead" % (where, key, OWN_VARIABLES[key])
            for where, properties in given for key in sorted(properties) if key in OWN_VARIABLES]


def _cluster_problems(inputs, model):
    found = []
    repeated = [broker_id for broker_id in unique(model["broker_ids"]) if model["broker_ids"].count(broker_id) > 1]
    if repeated:
        found.append("kafka_broker_id / kafka_broker_instances: broker ids must be unique across the cluster, "
                     "these are used more than once: %s" % repeated)
    count = model["broker_count"]
    default_factor = model["default_replication_factor"]
    internal_factor = model["internal_topics_replication_factor"]
    min_insync = inputs["kafka_broker_min_insync_replicas"]
    if not (1 <= default_factor <= count and 1 <= internal_factor <= count and 1 <= min_insync <= default_factor):
        found.append("kafka_broker_default_replication_factor (%s) and kafka_broker_internal_topics_replication_factor"
                     " (%s) must be within 1 and the number of brokers (%s), and kafka_broker_min_insync_replicas (%s)"
                     " within 1 and the default replication factor"
                     % (default_factor, internal_factor, count, min_insync))
    return found


def _mode_problems(inputs, text, model, cluster):
    found = []
    mode = model["metadata_mode"]
    combined = model["combined"]
    if mode not in METADATA_MODES:
        found.append("kafka_broker_metadata_mode: expected zookeeper, migration or kraft, got '%s'" % mode)
    if combined and mode != "kraft":
        found.append("kafka_broker_combined: combined mode is a KRaft mode, but kafka_broker_metadata_mode is " + mode)
    if combined and cluster.get("controller_hosts"):
        found.append("kafka_broker_combined: the inventory has a kafka_controller group (dedicated controllers); "
                     "use one or the other")
    if combined and len(model["instances"]) > 1:
        found.append("kafka_broker_combined: one broker per host in combined mode (the host is a controller too), "
                     "%s lists %d in kafka_broker_instances" % (model["host"], len(model["instances"])))
    if (model["kraft"] or model["migration"]) and not model["quorum_servers"]:
        found.append("kafka_broker_controller_quorum_servers: KRaft mode needs the controllers: put hosts in the "
                     "kafka_controller group, list their addresses here, or set kafka_broker_combined")
    bad_cluster_id = cluster_id_problem("kafka_broker_cluster_id", text["kafka_broker_cluster_id"])
    if bad_cluster_id:
        found.append(bad_cluster_id)
    if model["kraft"]:
        if text["kafka_broker_zookeeper_sasl_user"]:
            found.append("kafka_broker_zookeeper_sasl_user ('%s'): a broker in KRaft mode has no ZooKeeper to log in "
                         "to; leave it empty" % text["kafka_broker_zookeeper_sasl_user"])
        return found
    connect = text["kafka_broker_zookeeper_connect"].strip()
    chroot = text["kafka_broker_zookeeper_chroot"]
    if not connect or not (chroot == "" or CHROOT.match(chroot)):
        found.append("kafka_broker_zookeeper_connect ('%s') must name at least one ZooKeeper server (or put hosts in "
                     "the zookeeper group), and kafka_broker_zookeeper_chroot ('%s') must be empty or an absolute "
                     "path without a trailing slash" % (connect, chroot))
    # The role raises reserved.broker.max.id for ids above 1000 itself; a value set by hand below a
    # broker's id would make that broker exit at start.
    low_limits = [limit for limit in (broker_id_limit(instance, inputs.get("kafka_broker_properties"))
                                      for instance in model["instances"]) if limit]
    if low_limits:
        found.append("kafka_broker_properties / kafka_broker_instances[].properties: reserved.broker.max.id must be at"
                     " least the broker's id, or left out (the role then raises it for ids above 1000); got "
                     + ", ".join(low_limits))
    return found


def _size_problems(inputs, text):
    heap = text["kafka_broker_heap_size"]
    partitions = inputs["kafka_broker_num_partitions"]
    if (HEAP_SIZE.match(heap) and text["kafka_broker_internal_host"] and text["kafka_broker_external_host"]
            and partitions >= 1):
        return []
    return ["kafka_broker_heap_size ('%s') must be a JVM size such as 512m, kafka_broker_internal_host / "
            "kafka_broker_external_host must not be empty and kafka_broker_num_partitions (%s) must be at least 1"
            % (heap, partitions)]


def _security_problems(inputs, text, model, file_exists, key_problem):
    found = []
    listeners = model["listeners"]
    if (any(listener["protocol"] not in PROTOCOLS for listener in listeners)
            or any(listener["client_auth"] not in CLIENT_AUTHS for listener in listeners)
            or text["kafka_broker_sasl_mechanism"] not in SASL_MECHANISMS
            or text["kafka_broker_tls_certificates"] not in TLS_CERTIFICATES):
        found.append(
            "kafka_broker_internal_security_protocol ('{internal}') and kafka_broker_external_security_protocol "
            "('{external}') must each be PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL; "
            "kafka_broker_internal_ssl_client_auth / kafka_broker_external_ssl_client_auth "
            "('{internal_auth}' / '{external_auth}') none, requested or "
            "required; kafka_broker_sasl_mechanism ('{mechanism}') SCRAM-SHA-512 or SCRAM-SHA-256; "
            "kafka_broker_tls_certificates ('{certificates}') generated or provided".format(
                internal=listeners[0]["protocol"], external=listeners[1]["protocol"],
                internal_auth=listeners[0]["client_auth"], external_auth=listeners[1]["client_auth"],
                mechanism=text["kafka_broker_sasl_mechanism"], certificates=text["kafka_broker_tls_certificates"]))
    found.extend(_password_problems(text))
    jmx_tls = bool(inputs.get("kafka_broker_jmx_tls"))
    inter_broker = text["kafka_broker_inter_broker_user"]
    admin = text["kafka_broker_admin_user"]
    jmx_password = text["kafka_broker_jmx_password"]
    if (not USER_NAME.match(inter_broker) or not USER_NAME.match(admin) or inter_broker == admin
            or (not jmx_password and not model["jmx_local"])
            or (jmx_tls and (not jmx_password or not text["kafka_broker_jmx_tls_keystore_password"]))):
        found.append(
            "kafka_broker_inter_broker_user ('%s') and kafka_broker_admin_user ('%s') must be different names of "
            "letters, digits, '.', '_' or '-'; kafka_broker_jmx_bind_address ('%s') other than loopback needs "
            "kafka_broker_jmx_password, so that JMX is never open to the network without one; kafka_broker_jmx_tls "
            "(%s) needs kafka_broker_jmx_password and kafka_broker_jmx_tls_keystore_password"
            % (inter_broker, admin, text["kafka_broker_jmx_bind_address"], jmx_tls))
    if model["uses_tls"] and text["kafka_broker_tls_certificates"] == "provided":
        missing = _tls_file_problems(text, file_exists, key_problem)
        if missing:
            found.append("An SSL listener (or kafka_broker_jmx_tls) needs a CA, a certificate and a key: "
                         + "; ".join(missing))
    # With the authorizer on, a listener whose clients are not identified (PLAINTEXT, or SSL without a
    # required client certificate) has them all as User:ANONYMOUS, which ACLs then deny: brokers could
    # not replicate and the collection could not manage the cluster.
    anonymous = [listener["name"] for listener in listeners
                 if not uses_sasl(listener["protocol"]) and listener["client_auth"] != "required"]
    if (inputs.get("kafka_broker_authorizer_enabled") and anonymous
            and ANONYMOUS not in (inputs.get("kafka_broker_super_users") or [])):
        found.append("kafka_broker_authorizer_enabled: the %s listener(s) do not identify clients (use SASL_SSL, "
                     "SASL_PLAINTEXT or SSL with ssl_client_auth required), so brokers or the collection's admin "
                     "client would be denied; or add User:ANONYMOUS to kafka_broker_super_users knowingly"
                     % " and ".join(anonymous))
    return found


def _tls_file_problems(text, file_exists, key_problem):
    """The provided TLS files as the filter tls_file_problems sees them: first those not set or not there; when
    all are, whether the certificate is its key's (a certificate of another key would only fail at the brokers'
    first handshake, after the files were written)."""
    paths = {name: text[name] for name in (
        "kafka_broker_tls_ca_file", "kafka_broker_tls_cert_file", "kafka_broker_tls_key_file")}
    return provided_tls_problems(paths, "kafka_broker_tls_cert_file", "kafka_broker_tls_key_file", file_exists,
                                 key_problem)


def _password_problems(text):
    """A password goes into a JAAS line ("...") and Kafka's [key=value,...] config syntax, where whitespace and
    " , = [ ] \\ would end it early: first the passwords a SASL setting needs and lacks, then the bad ones."""
    checks = [
        ("kafka_broker_inter_broker_password", uses_sasl(text["kafka_broker_internal_security_protocol"])),
        ("kafka_broker_admin_password", uses_sasl(text["kafka_broker_external_security_protocol"])),
        ("kafka_broker_zookeeper_sasl_password", len(text["kafka_broker_zookeeper_sasl_user"]) > 0),
        ("kafka_broker_jmx_password", False),
        ("kafka_broker_jmx_tls_keystore_password", False),
    ]
    lacking = [name + ": required by the SASL setting named beside it" for name, needed in checks
               if needed and text[name] == ""]
    unusable = [name + ': must not contain spaces or any of " , = [ ] \\ (Kafka reads it from a JAAS line and a'
                ' [key=value,...] list)' for name, _needed in checks
                if text[name] and not is_kafka_list_value(text[name])]
    return lacking + unusable


def mode_change(instance, settings, wanted):
    """A sentence when broker instance runs another metadata mode than wanted, else ''.

    settings: host_state_info's settings result, which holds the instance's config_file."""
    current = read_metadata_mode((settings or {}).get(instance["config_file"]))
    if not current or current == wanted:
        return ""
    return "broker %s runs in %s mode, the run asks for %s" % (instance["broker_id"], current, wanted)


def host_state(model, state):
    """What preflight's read of the host (host_state_info, as model["host_state"] asks it) says: mode_change, the
    brokers that run another metadata mode than the one asked for ('' when none; only migrate_to_kraft.yml moves a
    broker between modes), and in KRaft mode storage_nodes, each broker's storage and state as the filter
    kafka_storage_plan takes them."""
    settings = state.get("settings") or {}
    changes = [mode_change(instance, settings, model["metadata_mode"]) for instance in model["instances"]]
    nodes = []
    if model["kraft"]:
        files = state.get("files") or {}
        units = state.get("units") or {}
        nodes = [{"host": model["host"], "node_id": instance["broker_id"],
                  "meta": (files.get(instance["meta_file"]) or {}).get("content") or "",
                  "active": (units.get(instance["unit"]) or {}).get("active_state") == "active",
                  "controller_address": model["controller_address"]}
                 for instance in model["instances"]]
    return {"mode_change": "; ".join(change for change in changes if change), "storage_nodes": nodes}


def restart_decisions(model, state, restart_paths, changed_paths, keystore_changed):
    """Which of this host's brokers need a restart, after configure.yml wrote their files.

    state: preflight's read of the host; restart_paths: by unit, the paths whose change needs the broker's restart
    (broker_files); changed_paths: those the write changed; keystore_changed: whether the JMX key store was copied
    anew. A broker needs one when an earlier run left its marker, or when it was set up before (its unit file was
    there) and a file of its changed or it moves to another metadata mode (a migration's step: in KRaft mode the
    decision reads the restart view, which a KRaft period before a rollback may have left as it is now).
    Returns decisions, per broker in the shape kafka_broker_restart_order takes, and new_markers, the markers to
    write for those that need one and have none yet (a run that stops before the restart leaves them).
    """
    files = state.get("files") or {}
    settings = state.get("settings") or {}
    changed = set(changed_paths or [])
    decisions = []
    for instance in model["instances"]:
        marker_found = bool((files.get(instance["restart_marker"]) or {}).get("exists"))
        unit_found = bool((files.get(instance["unit_file"]) or {}).get("exists"))
        mode_before = read_metadata_mode(settings.get(instance["config_file"]))
        wrote = (bool(changed.intersection(restart_paths.get(instance["unit"]) or [])) or bool(keystore_changed)
                 or mode_before not in ("", model["metadata_mode"]))
        decisions.append({"instance": instance, "marker": instance["restart_marker"], "marker_found": marker_found,
                          "stat": {"exists": marker_found or (unit_found and wrote)}})
    return {"decisions": decisions, "new_markers": [item["marker"] for item in decisions
                                                    if item["stat"]["exists"] and not item["marker_found"]]}


def version_problem(model, version, compare):
    """Why the installed Kafka cannot run the metadata mode asked for, '' when it can. compare(version, other,
    operator) compares two Kafka versions as Ansible's version test does."""
    known = bool(version)
    from_kraft = known and compare(version, KRAFT_FROM, ">=")
    source = "kafka_distribution_archive_src / kafka_distribution_archive_url: "
    if model["migration"]:
        if from_kraft and compare(version, ZOOKEEPER_BEFORE, "<"):
            return ""
        return (source + "the migration to KRaft runs on Kafka 3.9 (the last release with ZooKeeper mode and the "
                "migration), this archive holds Kafka " + (version or "of unknown version"))
    if model["kraft"]:
        if from_kraft:
            return ""
        return (source + "Kafka " + (version or "of unknown version") + " cannot run KRaft mode as kafka_broker sets "
                "it up (a dynamic quorum): use Kafka 3.9 or later")
    if not known or compare(version, ZOOKEEPER_BEFORE, "<"):
        return ""
    return (source + "Kafka " + version + " has no ZooKeeper mode (removed in 4.0), and kafka_broker_metadata_mode is "
            "zookeeper: use a 3.9.x archive, or KRaft mode (a kafka_controller group, or kafka_broker_combined)")


def installed(model, version, classpath, compare):
    """What depends on the installed Kafka (role kafka_distribution's version and classpath), known only once it is
    installed, after the model was published: version_problem, why it cannot run the metadata mode asked for ('' when
    it can); classpath; release_version, the metadata version a new combined cluster starts with (the one set, else
    the installed Kafka's major.minor); and, once the version is known (a check-mode run before the first install
    has none), log4j2, whether it logs through log4j 2 (Kafka 4), and feature_tool, Kafka's feature tool asked of
    the quorum (in combined mode the brokers' controller listeners), logging as the first broker does."""
    version = _text(version)
    result = {
        "version_problem": version_problem(model, version, compare),
        "classpath": _text(classpath),
        "release_version": model["release_version"] or re.sub(r"^(\d+\.\d+).*$", r"\1", version),
    }
    if version:
        result["log4j2"] = compare(version, ZOOKEEPER_BEFORE, ">=")
    if version and model["instances"]:
        result["feature_tool"] = (_tool(model, model["instances"][0], result)
                                  + ["org.apache.kafka.tools.FeatureCommand", "--bootstrap-controller",
                                     ",".join(model["quorum_servers"])])
    return result


def _tool(model, instance, installed_kafka):
    """How the role starts Kafka's KRaft tools (storage, features) for a broker: a small JVM logging as the broker
    does, into its log folder."""
    option = logging(instance["folder"], installed_kafka["log4j2"])["option"]
    return tool_command(model["java"], option, instance["log_folder"], installed_kafka["classpath"])


def storage_format(model, installed_kafka, storage, scram_arguments):
    """KRaft: how this host's brokers whose storage the plan formats (filter kafka_storage_plan's format) are
    formatted, and the folders the brokers' user then gets back (the tool ran as root, logging as the broker).

    Combined mode, a new cluster: every broker is formatted with the same initial voters (KIP-853) and the SCRAM
    users its listeners log in as, scram_arguments(users, mechanism, iterations) giving kafka-storage's
    --add-scram arguments; otherwise a broker starts with no initial voters and finds the quorum through
    controller.quorum.bootstrap.servers. The metadata version is pinned. The cluster id goes as --cluster-id=<id>: an
    id may start with '-' (a ZooKeeper cluster's, migrated), which the tool's parser would take for an option.
    secret: whether the command lines hold passwords (the task is then no_log).
    """
    wanted = (storage.get("format") or {}).get(model["host"]) or []
    formatted = [instance for instance in model["instances"] if instance["broker_id"] in wanted]
    new_quorum = model["combined"] and storage.get("new_quorum")
    voters = []
    if new_quorum and formatted:
        voters = (["--initial-controllers", storage.get("initial_controllers")]
                  + scram_arguments(model["scram_users"], model["sasl_mechanism"], model["scram_iterations"]))
    brokers = [{"broker_id": instance["broker_id"],
                "argv": _tool(model, instance, installed_kafka)
                + ["kafka.tools.StorageTool", "format", "--config", instance["config_file"],
                   "--cluster-id=" + _text(storage.get("cluster_id")), "--release-version",
                   installed_kafka["release_version"]]
                + (voters if new_quorum else ["--no-initial-controllers"])}
               for instance in formatted]
    return {"brokers": brokers,
            "folders": [path for instance in formatted for path in instance["log_dirs"]]
            + [instance["log_folder"] for instance in formatted],
            "secret": model["combined"] and len(model["scram_users"]) > 0}


def node_state(model, read, installed_read):
    """Each broker's state for playbooks/migrate_to_kraft.yml and upgrade.yml (fact kafka_broker_node_state), from
    node_state.yml's read (model["node_state"]) and the read of the version markers of the Kafkas the units run."""
    files = read.get("files") or {}
    settings = read.get("settings") or {}
    units = read.get("units") or {}
    markers = (installed_read or {}).get("files")
    states = []
    for instance in model["instances"]:
        properties = settings.get(instance["config_file"]) or {}
        unit_state = (units.get(instance["unit"]) or {}).get("active_state")
        states.append({
            "host": model["host"],
            "broker_id": instance["broker_id"],
            "mode": read_metadata_mode(properties),
            "properties": properties.get("values"),
            "active": unit_state == "active",
            "unit_state": unit_state,
            "restart_pending": (files.get(instance["restart_marker"]) or {}).get("exists"),
            "version": installed_version(installed_home((files.get(instance["unit_file"]) or {}).get("content")),
                                         markers),
            "log_dirs": instance["log_dirs"],
        })
    return states


def unregister_commands(model, read):
    """Kafka's cluster tool command (KIP-919) that unregisters each stopped broker the controllers still have
    registered, against the controllers, with the Java of kafka_broker_java_executable and the Kafka the brokers'
    units ran (the classpath of the first unit file read: read is host_state_info's result for
    model["decommission"]["unit_files"])."""
    texts = [entry.get("content") for entry in (read.get("files") or {}).values()]
    unit_text = next((item for item in texts if isinstance(item, str)), "")
    found = UNIT_CLASSPATH.search(unit_text)
    command = ([model["java"]] + list(TOOL_JVM_OPTIONS)
               + ["-cp", found.group(1) if found else "", "org.apache.kafka.tools.ClusterTool", "unregister",
                  "--bootstrap-controller", ",".join(model["quorum_servers"])])
    return [{"broker_id": instance["broker_id"], "argv": command + ["--id", str(instance["broker_id"])]}
            for instance in model["decommission"]["registered"]]


def restart_waits(order, client_addresses, wait_timeouts):
    """The restart order (kafka_broker_restart_order) with what the waits around each restart need: the broker's
    client address (of its host's client_addresses, the one with its port) and the host's restart wait timeout.

    client_addresses and wait_timeouts: by host."""
    return [dict(item, bootstrap_servers=[address for address in client_addresses[item["host"]]
                                          if re.search(":%s$" % item["instance"]["port"], address)],
                 timeout=wait_timeouts[item["host"]])
            for item in order]
