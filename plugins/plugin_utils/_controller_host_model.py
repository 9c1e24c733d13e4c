# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kafka_controller role's host model: what one host's KRaft controller is, where its files go, how it reaches
the quorum (and, in a migration, the ZooKeeper-mode brokers and ZooKeeper), what the other controllers' files are
called, and what is wrong with the settings, from the role's variables as plain data.

The role publishes it once per host (preflight.yml; rolling_restart.yml, which runs without the checks, too) and
its tasks and templates read it, so that a path or a rule is written here only; the entry points the playbooks call
on their own work it out afresh. It holds no secret. No I/O: what the other hosts' variables say comes in as plain
data (the filter kafka_controller_host_model reads hostvars), what the host holds as the results of
host_state_info.
"""

from __future__ import absolute_import, division, print_function


import re

from ansible_collections.kafkaops.cluster.plugins.module_utils._java_properties import parse_java_properties
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._kafka_list_values import is_kafka_list_value
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._service_rules import (
    as_int,
    file_entry,
    folder_entry,
    in_play,
    text,
    unique,
)
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._kafka_node import (
    ANONYMOUS,
    CONTROLLER_LISTENER,
    CONTROLLER_PROTOCOL,
    broker_principals,
    cluster_id_problem,
    folder_files,
    installed_home,
    installed_version,
    logging,
    logging_entry,
    node_paths,
    protocol_map,
    tool_command,
    uses_sasl,
    uses_ssl,
    zookeeper_login_entry,
)

DEFAULT_PORT = 9093
# The node's name on its host: its folder <config_dir>/controller, its unit kafka-controller, its logs in
# <log_dir>/controller.
NAME = "controller"
RELEASE_VERSION = re.compile(r"^[0-9]+\.[0-9]+(-IV[0-9]+)?$")
MIGRATION_SETTING = "zookeeper.metadata.migration.enable"
# The brokers' INTERNAL listener, on which the controllers of a migration reach the ZooKeeper-mode brokers.
BROKER_LISTENER = "INTERNAL"
# What the controllers take from the first broker's host variables by default (role defaults are not visible
# there: each name falls back to role kafka_broker's default), and from what its node_state.yml noted for a
# migration (kafka_broker_migration_peer).
BROKER_VARIABLES = ("kafka_broker_authorizer_enabled", "kafka_broker_inter_broker_user", "kafka_broker_admin_user",
                    "kafka_broker_super_users", "kafka_broker_metadata_scram_users",
                    "kafka_broker_metadata_scram_mechanism", "kafka_broker_migration_peer")
MIGRATION_PEER_DEFAULTS = (
    ("kafka_controller_migration_broker_protocol", "internal_protocol", "PLAINTEXT"),
    ("kafka_controller_migration_broker_ca_file", "ca_file", ""),
    ("kafka_controller_migration_sasl_mechanism", "sasl_mechanism", "SCRAM-SHA-512"),
    ("kafka_controller_migration_sasl_user", "inter_broker_user", "broker"),
    ("kafka_controller_migration_sasl_password", "inter_broker_password", ""),
    ("kafka_controller_zookeeper_sasl_user", "zookeeper_sasl_user", ""),
    ("kafka_controller_zookeeper_sasl_password", "zookeeper_sasl_password", ""),
)
# What the model reads of another controller's host variables (role defaults are not visible there: a name it
# lacks falls back to this host's setting, or to the address rule of controller_address).
MEMBER_VARIABLES = ("kafka_controller_host", "ansible_host", "kafka_controller_port", "kafka_controller_node_id",
                    "kafka_controller_config_dir", "kafka_controller_log_dir", "kafka_controller_java_executable")


def controller_address(variables, name):
    """'address:port' of a controller's listener from its host variables (as hostvars shows them) and its name.

    The node's kafka_controller_host, else ansible_host, else its name; its kafka_controller_port, else 9093: the
    role's defaults, which hostvars of another host does not show.
    """
    port = variables.get("kafka_controller_port") or DEFAULT_PORT
    return "%s:%s" % (variables.get("kafka_controller_host") or variables.get("ansible_host") or name, port)


def inventory_defaults(first_broker, zookeeper_connect):
    """The defaults of the role's variables that come from the rest of the inventory, by variable name.

    first_broker: the host variables of the kafka_broker group's first host, as hostvars shows them (only those of
    BROKER_VARIABLES it defines), or None without a kafka_broker group. zookeeper_connect: the zookeeper group's
    client addresses, joined. Besides the ensemble, the brokers' authorizer, super users (beside User:ANONYMOUS,
    as which brokers and controllers reach the unauthenticated controller listener) and the SCRAM users and
    mechanism a new cluster starts with (which role kafka_broker's settings check publishes), and what the
    brokers' node_state.yml noted for a migration's controllers.
    """
    broker = first_broker or {}
    brokers_users = [] if first_broker is None else (
        broker_principals(broker.get("kafka_broker_inter_broker_user", "broker"),
                          broker.get("kafka_broker_admin_user", "admin"))
        + list(broker.get("kafka_broker_super_users", [])))
    peer = broker.get("kafka_broker_migration_peer") or {}
    defaults = {
        "kafka_controller_authorizer_enabled": broker.get("kafka_broker_authorizer_enabled", False),
        "kafka_controller_super_users": unique([ANONYMOUS] + brokers_users),
        "kafka_controller_scram_users": broker.get("kafka_broker_metadata_scram_users", []),
        "kafka_controller_sasl_mechanism": broker.get("kafka_broker_metadata_scram_mechanism", "SCRAM-SHA-512"),
        "kafka_controller_zookeeper_connect": zookeeper_connect,
    }
    defaults.update((variable, peer.get(key, default)) for variable, key, default in MIGRATION_PEER_DEFAULTS)
    return defaults


def host_model(inputs, settings, cluster):
    """The host model of the kafka_controller role for one host.

    inputs: the role's typed inputs (lookup role_inputs). settings: its text settings, each under its variable's
    name, and kafka_controller_scram_users (a secret, so not among the inputs; only checked here). cluster: host
    (this host's inventory name), play_hosts, groups (the inventory's), members (by host of
    kafka_controller_hosts, its host variables of MEMBER_VARIABLES as hostvars shows them).
    """
    values = {name: text(value) for name, value in settings.items() if name != "kafka_controller_scram_users"}
    hosts = unique(inputs.get("kafka_controller_hosts") or [])
    members = cluster.get("members") or {}
    play_hosts = cluster.get("play_hosts") or []
    migration = bool(inputs.get("kafka_controller_zookeeper_migration"))
    broker_protocol = values["kafka_controller_migration_broker_protocol"]
    paths = _paths(values)
    quorum_servers = [controller_address(members.get(name) or {}, name) for name in hosts]
    model = {
        "host": cluster["host"],
        "node_id": inputs.get("kafka_controller_node_id"),
        "port": inputs.get("kafka_controller_port"),
        "address": "%s:%s" % (values["kafka_controller_host"], inputs.get("kafka_controller_port")),
        "quorum_servers": quorum_servers,
        "quorum_bootstrap": ",".join(quorum_servers),
        # The controllers of the play, in the order of kafka_controller_hosts.
        "members": in_play(hosts, play_hosts),
        "controllers": [_controller(name, members.get(name) or {}, values) for name in hosts],
        "migration": migration,
        "migration_step": bool(inputs.get("kafka_controller_migration_step")),
        # In migration mode: TLS to the brokers (the CA of their certificates), their inter-broker login, and the
        # brokers' ZooKeeper login.
        "migration_tls": migration and uses_ssl(broker_protocol),
        "migration_sasl": migration and uses_sasl(broker_protocol),
        "zookeeper_sasl": migration and len(values["kafka_controller_zookeeper_sasl_user"]) > 0,
        "migration_ca_file": values["kafka_controller_migration_broker_ca_file"],
        "zookeeper_connect": values["kafka_controller_zookeeper_connect"].strip(),
        "zookeeper_group": bool((cluster.get("groups") or {}).get("zookeeper")),
        "protocol_map": protocol_map([(CONTROLLER_LISTENER, CONTROLLER_PROTOCOL)]
                                     + ([(BROKER_LISTENER, broker_protocol)] if migration else [])),
        "authorizer": bool(inputs.get("kafka_controller_authorizer_enabled")),
        "super_users": list(inputs.get("kafka_controller_super_users") or []),
        "release_version": values["kafka_controller_release_version"],
        "cluster_id": values["kafka_controller_cluster_id"],
        "paths": paths,
        "folders": {"config": values["kafka_controller_config_dir"], "data": values["kafka_controller_data_dir"],
                    "metadata": values["kafka_controller_metadata_dir"], "log": values["kafka_controller_log_dir"]},
        "account": {"user": values["kafka_controller_user"], "group": values["kafka_controller_group"]},
        "java": values["kafka_controller_java_executable"],
        "prometheus_enabled": bool(inputs.get("kafka_controller_prometheus_enabled")),
        # What preflight reads on the host (module host_state_info): the restart marker, the unit and the storage's
        # meta.properties; of server.properties only the migration setting (it may hold SASL passwords); the
        # migration's logins are only looked for (none of their text leaves the host).
        "host_state": {"files": [paths["restart_marker"], paths["unit_file"], paths["meta_file"]],
                       "settings": {paths["config_file"]: [MIGRATION_SETTING], paths["zookeeper_jaas"]: [],
                                    paths["truststore"]: []},
                       "units": [paths["unit"]]},
        # What node_state.yml reads: the storage, the soak's start, the unit and the marker; two settings.
        "node_state": {"files": [paths["meta_file"], paths["soak_marker"], paths["unit_file"], paths["restart_marker"]],
                       "settings": {paths["config_file"]: [MIGRATION_SETTING, "zookeeper.connect"]},
                       "units": [paths["unit"]]},
        # Out of migration mode, the migration's logins are removed (the file, or the folder it is in).
        "migration_logins": [{"found": paths["zookeeper_jaas"], "removed": paths["zookeeper_jaas"]},
                             {"found": paths["truststore"], "removed": paths["tls_dir"]}],
        # The typed inputs themselves, for the tasks and templates after preflight: the role's lazy
        # __kafka_controller_inputs templates every input again each time it is read. Not the SCRAM users, whose
        # passwords they hold: the model is shown.
        "inputs": dict((name, value) for name, value in inputs.items() if name != "kafka_controller_scram_users"),
    }
    model["problems"] = _problems(inputs, values, settings.get("kafka_controller_scram_users"), model, members)
    return model


def _paths(values):
    """The node's paths; in its folder also the Prometheus exporter's rules (which the agent re-reads by itself when
    they change) and migration mode's files, the brokers' ZooKeeper login and the CA of their certificates."""
    paths = node_paths(NAME, values["kafka_controller_config_dir"], values["kafka_controller_log_dir"])
    paths.update(folder_files(paths["folder"]))
    # Written by kafka-storage format: cluster id, node id, directory id.
    paths["meta_file"] = values["kafka_controller_metadata_dir"] + "/meta.properties"
    # When the brokers of a ZooKeeper-to-KRaft migration all ran in KRaft mode (seconds since the epoch), written
    # by migrate_to_kraft.yml: the soak before finalizing counts from it.
    paths["soak_marker"] = paths["folder"] + "/.migration-brokers-kraft-since"
    return paths


def _controller(name, variables, values):
    """What the role reads of another controller (this one included) when it restarts it or reads its log: its
    node id (published by its preflight), unit, restart marker, log file and Java, its own host variables where
    they set them, else this host's settings."""
    paths = node_paths(NAME, variables.get("kafka_controller_config_dir", values["kafka_controller_config_dir"]),
                       variables.get("kafka_controller_log_dir", values["kafka_controller_log_dir"]))
    return {"host": name, "node_id": variables.get("kafka_controller_node_id"), "unit": paths["unit"],
            "restart_marker": paths["restart_marker"], "log_file": paths["log_file"],
            "java": variables.get("kafka_controller_java_executable", values["kafka_controller_java_executable"])}


def _problems(inputs, values, scram_users, model, members):
    """What preflight refuses, each a sentence naming the variable and the reason (in the words its asserts used
    before they were one), before anything changes."""
    found = []
    node_id = inputs.get("kafka_controller_node_id")
    port = inputs.get("kafka_controller_port")
    if node_id is not None and node_id < 0:
        found.append("kafka_controller_node_id: expected a whole number of 0 or more, got %s" % node_id)
    if not 1 <= port <= 65535:
        found.append("kafka_controller_port: expected a port from 1 to 65535, got %s" % port)
    bad_cluster_id = cluster_id_problem("kafka_controller_cluster_id", values["kafka_controller_cluster_id"])
    if bad_cluster_id:
        found.append(bad_cluster_id)
    release = values["kafka_controller_release_version"]
    if release and not RELEASE_VERSION.match(release):
        found.append("kafka_controller_release_version: expected a Kafka release such as 4.3 or 3.9-IV0, got "
                     + release)
    if inputs.get("kafka_controller_max_lag") < 0:
        found.append("kafka_controller_max_lag: expected a whole number of 0 or more, got %s"
                     % inputs.get("kafka_controller_max_lag"))
    found.extend(_migration_login_problems(values, model))
    # Published by each controller's preflight before the model is worked out: the play's controllers' ids.
    ids = [as_int((members.get(name) or {}).get("kafka_controller_node_id")) for name in model["members"]]
    repeated = [node for node in unique(ids) if ids.count(node) > 1]
    if repeated:
        found.append("kafka_controller_node_id: node ids must be unique across the controllers, these are used more "
                     "than once: %s" % repeated)
    found.extend(_scram_user_problems(scram_users))
    return found


def _migration_login_problems(values, model):
    """The controllers of a migration log in to the brokers and to ZooKeeper as the brokers do: what that needs."""
    found = []
    protocol = values["kafka_controller_migration_broker_protocol"]
    if model["migration_sasl"] and not values["kafka_controller_migration_sasl_password"]:
        found.append("kafka_controller_migration_sasl_password: empty, while the brokers' INTERNAL listener is %s and "
                     "the controllers log in to it as %s" % (protocol, values["kafka_controller_migration_sasl_user"]))
    if model["migration_tls"] and not values["kafka_controller_migration_broker_ca_file"]:
        found.append("kafka_controller_migration_broker_ca_file: empty, while the brokers' INTERNAL listener is %s: "
                     "the controllers need the CA of the brokers' certificates" % protocol)
    if model["zookeeper_sasl"] and not values["kafka_controller_zookeeper_sasl_password"]:
        found.append("kafka_controller_zookeeper_sasl_password: empty, while the controllers log in to ZooKeeper as "
                     + values["kafka_controller_zookeeper_sasl_user"])
    return found


def _scram_user_problems(users):
    """The storage tool reads each user as [name=...,password=...]: an empty value, or one holding what the test
    kafka_list_value refuses, would be cut short there (role kafka_broker checks the passwords it publishes with
    the same rule). Names the users, never a password."""
    users = list(users or [])
    bad = unique([user.get("name") for user in users if not is_kafka_list_value(user.get("name"))]
                 + [user.get("name") for user in users if not is_kafka_list_value(user.get("password"))])
    if not bad:
        return []
    names = ", ".join(text(name) for name in bad)
    return ["kafka_controller_scram_users: the name or password of %s is empty or holds a space or one of "
            "\" , = [ ] \\ (the storage tool reads them from a [key=value,...] list)" % names]


def host_state(model, state):
    """What preflight's read of the host (host_state_info, as model["host_state"] asks it) says: mode_change, why
    this run may not take the controller into or out of the ZooKeeper migration ('' when it may), and
    storage_node, the controller's storage and state as the filter kafka_storage_plan takes them."""
    paths = model["paths"]
    current = (state.get("settings") or {}).get(paths["config_file"]) or {}
    configured = bool(current.get("exists"))
    running_migration = (current.get("values") or {}).get(MIGRATION_SETTING, "false") == "true"
    return {
        "mode_change": _mode_change(model, configured, running_migration),
        "storage_node": {
            "host": model["host"], "node_id": model["node_id"],
            "meta": ((state.get("files") or {}).get(paths["meta_file"]) or {}).get("content") or "",
            "active": ((state.get("units") or {}).get(paths["unit"]) or {}).get("active_state") == "active",
            "controller_address": model["address"],
        },
    }


def _mode_change(model, configured, running_migration):
    """Entering or leaving the ZooKeeper-to-KRaft migration is a step of a phased procedure (precheck, the brokers'
    rolls, the soak before finalizing): a plain run must not take it by accident, e.g. because the inventory
    gained a kafka_controller group or lost a variable."""
    if (model["migration_step"] or (configured and running_migration == model["migration"])
            or (not configured and not model["zookeeper_group"] and not model["migration"])):
        return ""
    if configured:
        return ("kafka_controller_zookeeper_migration: %s runs %s ZooKeeper migration mode; taking it %s that mode is "
                "a step of the migration: run playbooks/migrate_to_kraft.yml (it says which phase the cluster is in)"
                % (model["host"], "in" if running_migration else "out of", "out of" if running_migration else "into"))
    return ("kafka_controller: the inventory has a zookeeper group, so these controllers would join a ZooKeeper-mode "
            "cluster: that is the migration to KRaft, run playbooks/migrate_to_kraft.yml; once it is finalized and "
            "ZooKeeper decommissioned, take the zookeeper group out of the inventory")


def installed(model, log4j2, version, classpath):
    """What depends on the installed Kafka (role kafka_distribution's version and classpath), known only once it
    is installed: its logging settings (log4j 2 from Kafka 4, log4j 1 before), how Kafka's tools start (the
    storage, quorum and feature tools), and the metadata version a new cluster starts with (the one set, else the
    installed Kafka's major.minor)."""
    paths = model["paths"]
    settings = logging(paths["folder"], log4j2)
    tool = tool_command(model["java"], settings["option"], paths["log_folder"], classpath)
    return {
        "log4j2": bool(log4j2),
        "logging": settings,
        "tool": tool,
        "feature_tool": tool + ["org.apache.kafka.tools.FeatureCommand", "--bootstrap-controller",
                                model["quorum_bootstrap"]],
        # KIP-853: Kafka's tool reads the new controller's id, directory id and endpoint from its configuration.
        "add_controller": tool + ["org.apache.kafka.tools.MetadataQuorumCommand", "--bootstrap-controller",
                                  model["quorum_bootstrap"], "--command-config", paths["config_file"],
                                  "add-controller"],
        "release_version": model["release_version"] or re.sub(r"^(\d+\.\d+).*$", r"\1", text(version)),
    }


def controller_files(model, templates, log4j2):
    """The folders and files the role writes on the host, in the shape module config_files takes, and the paths
    whose change needs the controller's restart.

    templates: service_common's shared templates (service_common_templates); log4j2: whether the installed Kafka
    logs through log4j 2. In migration mode with TLS, the role's template ca.crt.j2 copies the CA of the brokers'
    certificates.
    The restart is decided on the restart view (server.properties without the quorum's bootstrap addresses, which
    a running node no longer reads: it knows the voters from the metadata log), so a controller joining the quorum
    restarts no running one. The Prometheus exporter's rules are not part of it: the agent re-reads them.
    """
    paths = model["paths"]
    folders = model["folders"]
    user = model["account"]["user"]
    group = model["account"]["group"]
    settings = logging(paths["folder"], log4j2)
    # server.properties holds the brokers' inter-broker password in migration mode with SASL.
    secret = model["migration_sasl"]
    files = [
        file_entry(paths["config_file"], "server.properties.j2", group, mode="0640", sensitive=secret),
        logging_entry(settings, paths["log_file"], templates, group),
        file_entry(paths["restart_view"], "server.properties.j2", group, mode="0640", sensitive=secret,
                   template_vars={"restart_view": True}),
        file_entry(paths["unit_file"], "kafka-controller.service.j2", "root"),
    ]
    if model["migration_tls"]:
        files.append(file_entry(paths["truststore"], "ca.crt.j2", group))
    if model["zookeeper_sasl"]:
        files.append(zookeeper_login_entry(paths["zookeeper_jaas"], templates, group, "kafka_controller"))
    if model["prometheus_enabled"]:
        files.append(file_entry(paths["prometheus_rules"], templates["kafka_prometheus"], group))
    directories = ([folder_entry(path, "root", group, "0755") for path in (folders["config"], paths["folder"])]
                   + [folder_entry(path, user, group, "0750")
                      for path in (folders["data"], folders["metadata"], folders["log"], paths["log_folder"])])
    if model["migration_tls"]:
        directories.append(folder_entry(paths["tls_dir"], "root", group, "0755"))
    return {"directories": directories, "files": files,
            "restart_paths": [paths["restart_view"], settings["file"], paths["unit_file"], paths["truststore"],
                              paths["zookeeper_jaas"]]}


def restart_order(controllers, play_hosts, leader_ids, pending, restart_all=False):
    """The controllers to restart, one at a time, followers before the leader, so that the quorum elects a new
    leader once at most.

    controllers: the model's. leader_ids: the leader_id each controller of the play last saw (kafka_quorum_info),
    None where it saw none: the first number is the leader. pending: by host, whether its restart is owed (every
    controller of the play with restart_all, a rolling restart).
    """
    members = [controller for controller in controllers if controller["host"] in play_hosts]
    leader = next((item for item in leader_ids if isinstance(item, int) and not isinstance(item, bool)), -1)
    leaders = [item for item in members if as_int(item["node_id"]) == leader]
    ordered = [item for item in members if item not in leaders] + leaders
    return [item for item in ordered if restart_all or pending.get(item["host"])]


def node_state(model, read, installed_read):
    """The controller's state for the playbooks that act on the whole cluster (kafka_controller_node_state), from
    node_state.yml's read (model["node_state"]) and the read of the version marker of the Kafka its unit runs."""
    paths = model["paths"]
    files = read.get("files") or {}
    properties = (read.get("settings") or {}).get(paths["config_file"]) or {}
    settings = properties.get("values") or {}
    meta = (files.get(paths["meta_file"]) or {}).get("content") or ""
    return {
        "host": model["host"],
        "node_id": model["node_id"],
        "configured": properties.get("exists"),
        "migration": settings.get(MIGRATION_SETTING, "false") == "true",
        "zookeeper_connect": settings.get("zookeeper.connect", ""),
        "active": ((read.get("units") or {}).get(paths["unit"]) or {}).get("active_state") == "active",
        "restart_pending": (files.get(paths["restart_marker"]) or {}).get("exists"),
        "cluster_id": parse_java_properties(meta).get("cluster.id", ""),
        "brokers_kraft_since": ((files.get(paths["soak_marker"]) or {}).get("content") or "").strip(),
        "version": installed_version(installed_home((files.get(paths["unit_file"]) or {}).get("content")),
                                     (installed_read or {}).get("files")),
    }


def migration_failure(faults, step, failure, failed_phase, phase, inventory_sources):
    """Why a step of migrate_to_kraft.yml with the brokers failed, with what the controllers logged.

    In migration mode the controllers send the ZooKeeper-mode brokers their leadership and read and write
    ZooKeeper; what stops them (a refused login, a trust store that does not load, a NoAuth from ZooKeeper) they
    only log, as a "zk migration fault", while the broker waits for ISRs that never come. faults: (host, the last
    fault lines it logged, '' for none) per controller. failed_phase: the phase the step belongs to (None: not
    known); phase: the one the playbook was run with (None: its default); inventory_sources: the run's
    inventories, for the commands that go on or back.
    """
    logged = [(host, lines.replace("\n", " | ")) for host, lines in faults if lines]
    inventories = " ".join("-i " + source for source in inventory_sources)
    return ("%s failed: %s. %s\nThe migration stopped in its phase %s; the phases before it are done. To go on once "
            "the cause is mended, run the same command again, which resumes there: ansible-playbook %s "
            "kafkaops.cluster.migrate_to_kraft -e phase=%s. To go back to ZooKeeper mode instead: ansible-playbook "
            "%s kafkaops.cluster.migrate_to_kraft -e phase=rollback."
            % (step, failure,
               "The controllers logged: " + "; ".join("%s: %s" % item for item in logged) if logged
               else "No controller logged a migration fault.",
               "(unknown)" if failed_phase is None else failed_phase, inventories,
               "brokers_kraft" if phase is None else phase, inventories))
