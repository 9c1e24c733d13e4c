# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a ZooKeeper-to-KRaft migration stands, read from the cluster, and what a run must do next."""

from __future__ import absolute_import, division, print_function

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.filter.kraft import java_properties
from ansible_collections.kafkaops.cluster.plugins.plugin_utils import _migration_run as run
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._node_states import (
    NodeStateError,
    node_states,
    upgrade_inventory,
    zookeeper_mode,
)
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._broker_host_model import mode_change
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._kafka_node import metadata_mode, read_metadata_mode
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._role_inputs import InputTypeError, convert

# The steps of the migration, in the order Kafka's procedure (KIP-866) takes them. Each is also a phase
# name the operator gives (-e phase=...): the run goes up to and including it.
STEPS = ("controllers", "brokers_migration", "metadata_migrated", "brokers_kraft", "finalize", "zookeeper_decommission")
# Steps after which the play stops unless asked by name: finalizing ends the way back to ZooKeeper,
# and ZooKeeper's decommission is separate.
EXPLICIT_STEPS = ("finalize", "zookeeper_decommission")
BROKER_MODES = ("zookeeper", "migration", "kraft")


def kafka_metadata_mode(server_properties):
    """The metadata mode a broker's server.properties sets: kraft, migration (ZooKeeper mode with the
    migration settings), zookeeper, or an empty string for no file.

    server_properties: the file's text (None or empty for none), or what host_state_info's `settings`
    read of it ({exists, values} with process.roles and zookeeper.metadata.migration.enable wanted).
    """
    if isinstance(server_properties, Mapping):
        return read_metadata_mode(server_properties)
    if not server_properties:
        return ""
    return metadata_mode(java_properties(server_properties))


def kafka_broker_mode_change(instance, settings, wanted):
    """A sentence when broker `instance` (of kafka_broker_instances) runs another metadata mode than `wanted`,
    else an empty string.

    settings: host_state_info's settings result, which holds the instance's config_file.
    """
    return mode_change(instance, settings, wanted)


def _broker_modes(brokers):
    modes = set()
    for broker in brokers:
        if broker.get("mode") not in BROKER_MODES:
            raise AnsibleFilterError("kafka_migration_state: broker %s has mode %r, expected one of %s"
                                     % (broker.get("broker_id"), broker.get("mode"), ", ".join(BROKER_MODES)))
        modes.add(broker["mode"])
    return modes


def _migrated(znode):
    """The KRaft controller wrote the metadata's offset into /migration once it had copied it (-1 before)."""
    value = (znode or {}).get("value") or {}
    try:
        return int(value.get("kraft_metadata_offset", -1)) >= 0
    except (TypeError, ValueError):
        return False


def kafka_migration_state(brokers, controllers, migration_znode=None, zookeeper_cluster_id="",
                          zookeeper_running=True):
    """What the cluster shows: the last step fully done (`completed`, None when none), a step found half
    done (`in_progress`, None when none) and problems that block any step.

    brokers: one dict per broker: host, broker_id, mode (zookeeper, migration: ZooKeeper mode with the
    migration settings, kraft), active. controllers: one dict per controller: host, node_id, configured
    (its server.properties exists), migration (zookeeper.metadata.migration.enable is on), active,
    cluster_id (from its meta.properties, empty when not formatted). migration_znode: /migration as
    zookeeper_znode returns it. zookeeper_running: whether any ZooKeeper node still runs.
    """
    problems = []
    modes = _broker_modes(brokers)
    configured = [c for c in controllers if c.get("configured")]
    deployed = [c for c in configured if c.get("active") and c.get("migration")]
    finalized = [c for c in configured if c.get("active") and not c.get("migration")]
    for controller in configured:
        if zookeeper_cluster_id and controller.get("cluster_id") and controller["cluster_id"] != zookeeper_cluster_id:
            problems.append("%s: the controller's storage is formatted for cluster %s, ZooKeeper holds cluster %s"
                            % (controller["host"], controller["cluster_id"], zookeeper_cluster_id))
    all_deployed = bool(controllers) and len(deployed) == len(controllers)
    all_finalized = bool(controllers) and len(finalized) == len(controllers)

    completed, in_progress = None, None
    if modes == {"kraft"}:
        if all_finalized:
            completed = "zookeeper_decommission" if not zookeeper_running else "finalize"
        elif finalized:
            completed, in_progress = "brokers_kraft", "finalize"
        else:
            completed = "brokers_kraft"
    elif "kraft" in modes:
        completed, in_progress = "metadata_migrated", "brokers_kraft"
    elif modes == {"migration"}:
        completed = "metadata_migrated" if _migrated(migration_znode) else "brokers_migration"
    elif "migration" in modes:
        completed, in_progress = "controllers", "brokers_migration"
    elif all_deployed:
        completed = "controllers"
    elif configured:
        in_progress = "controllers"
    # A node whose configuration was written but which was not restarted yet (a run cut short between the
    # two; its restart marker is still there) does not run what its file says: that step is not done.
    pending_brokers = set(b["mode"] for b in brokers if b.get("restart_pending"))
    pending_controllers = [c for c in configured if c.get("restart_pending")]
    for step, mode in (("brokers_kraft", "kraft"), ("brokers_migration", "migration")):
        if mode in pending_brokers and (completed is None or STEPS.index(completed) >= STEPS.index(step)):
            completed, in_progress = STEPS[STEPS.index(step) - 1], step
    if pending_controllers and completed in ("finalize", "zookeeper_decommission"):
        completed, in_progress = "brokers_kraft", "finalize"
    elif pending_controllers and completed == "controllers":
        completed, in_progress = None, "controllers"
    if "kraft" in modes or "migration" in modes:
        if not configured:
            problems.append("brokers run with the migration settings or in KRaft mode, but no controller of the "
                            "kafka_controller group is set up: is the inventory the one the migration started with?")
    return dict(completed=completed, in_progress=in_progress, problems=problems,
                brokers_by_mode=dict((mode, sorted(b["broker_id"] for b in brokers if b["mode"] == mode))
                                     for mode in BROKER_MODES))


def kafka_migration_plan(state, phase, rollback=False):
    """The steps a run takes from `state` (kafka_migration_state) towards `phase`, or back to ZooKeeper.

    Returns {steps: [...], refusal: text or empty}. A step found half done is taken again (each step is
    idempotent). Steps already done are not taken: a phase run twice does nothing the second time.
    """
    completed, in_progress = state.get("completed"), state.get("in_progress")
    done = STEPS.index(completed) + 1 if completed else 0
    if rollback:
        if done >= STEPS.index("finalize") + 1 or in_progress == "finalize":
            return dict(steps=[], refusal="the migration is finalized (controllers out of migration mode): Kafka "
                                          "has no way back to ZooKeeper from here")
        steps = []
        if completed == "brokers_kraft" or in_progress == "brokers_kraft":
            # Brokers in KRaft mode go back to ZooKeeper mode with the migration settings first.
            steps.append("rollback_brokers_to_migration")
        if done or in_progress:
            steps.append("rollback_controllers")
        if done > STEPS.index("brokers_migration") or in_progress in ("brokers_migration", "brokers_kraft"):
            steps.append("rollback_brokers_to_zookeeper")
        return dict(steps=steps, refusal="")
    if phase not in STEPS:
        raise AnsibleFilterError("phase: %r is not a phase of the migration; expected one of %s"
                                 % (phase, ", ".join(STEPS)))
    target = STEPS.index(phase) + 1
    if state.get("problems"):
        return dict(steps=[], refusal="; ".join(state["problems"]))
    steps = list(STEPS[done:target])
    if in_progress and in_progress not in steps and STEPS.index(in_progress) < target:
        steps.insert(0, in_progress)
    return dict(steps=steps, refusal="")


# Settings the roles write themselves during the migration, or that break a KRaft broker (Kafka rejects
# or ignores them there): set by hand, they would survive into a configuration where they do harm.
MANAGED_OR_ZOOKEEPER_ONLY = ("authorizer.class.name", "control.plane.listener.name", "broker.id.generation.enable",
                             "inter.broker.protocol.version", "log.message.format.version", "process.roles",
                             "node.id",
                             "broker.id", "controller.listener.names", "controller.quorum.voters",
                             "controller.quorum.bootstrap.servers")


def _hand_set(settings):
    return sorted(key for key in settings or {} if key in MANAGED_OR_ZOOKEEPER_ONLY or key.startswith("zookeeper."))


# What role kafka_broker notes for the controllers of a migration (node_state.yml), the settings named.
_PEER_SETTINGS = (("internal_protocol", "kafka_broker_internal_security_protocol"),
                  ("sasl_mechanism", "kafka_broker_sasl_mechanism"),
                  ("inter_broker_user", "kafka_broker_inter_broker_user"),
                  ("zookeeper_sasl_user", "kafka_broker_zookeeper_sasl_user"))


def _migration_peer(variables):
    """How the controllers reach this broker host, as node_state.yml noted it (the role's defaults applied)."""
    noted = variables.get("kafka_broker_migration_peer") or {}
    return dict((key, str(noted.get(key) or "")) for key in ("internal_client_auth",) + tuple(
        key for key, variable in _PEER_SETTINGS))


def kafka_migration_precheck(brokers, controllers, broker_hosts, controller_hosts, cluster_id, steps):
    """Why the migration must not start or go on, as sentences naming the host and the setting.

    brokers, controllers: as for kafka_migration_state (brokers also carry version, properties: their
    server.properties as read, log_dirs). broker_hosts, controller_hosts: (hostvars, inventory name)
    pairs of the inventory's brokers and controllers. cluster_id: what ZooKeeper's /cluster/id holds.
    steps: the steps of this run (kafka_migration_plan). A rollback only needs the cluster reachable.
    """
    problems = []
    if not any(not step.startswith("rollback_") for step in steps):
        return problems
    if not controller_hosts:
        problems.append("kafka_controller: the inventory has no kafka_controller group; add the hosts that become the "
                        "KRaft controllers (three for a production cluster)")
    if "controllers" in steps and not cluster_id:
        problems.append("ZooKeeper holds no cluster id (/cluster/id): is kafka_broker_zookeeper_connect (and its "
                        "chroot) the cluster's ensemble?")
    for broker in brokers:
        name = "%s (broker %s)" % (broker["host"], broker["broker_id"])
        if not broker.get("active"):
            state = broker.get("unit_state")
            problems.append("%s: its unit does not run%s; every broker must run before the brokers are rolled"
                            % (name, " (systemd: %s)" % state if state else ""))
        if broker["mode"] != "kraft":
            version = broker.get("version") or ""
            if not version.startswith("3.9."):
                problems.append("%s: runs Kafka %s; the migration runs on Kafka 3.9 (upgrade the cluster to 3.9 first)"
                                % (name, version or "of unknown version (no kafkaops.cluster install found)"))
            protocol = (broker.get("properties") or {}).get("inter.broker.protocol.version", "")
            if protocol and not protocol.startswith("3.9"):
                problems.append("%s: inter.broker.protocol.version is %s; it must be 3.9 on every broker before the "
                                "migration (roll the brokers with it removed first)" % (name, protocol))
        if len(broker.get("log_dirs") or []) > 1:
            problems.append("%s: several log directories (JBOD: %s); Kafka does not support JBOD during the migration"
                            % (name, ", ".join(broker["log_dirs"])))
    clash = sorted(set(int(c["node_id"]) for c in controllers) & set(int(b["broker_id"]) for b in brokers))
    if clash:
        problems.append("kafka_controller_node_id: node ids %s are broker ids too; in KRaft brokers and controllers "
                        "share one id space" % ", ".join(str(i) for i in clash))
    broker_authorizer = False
    peers = []
    for variables, host in broker_hosts:
        settings = dict(variables.get("kafka_broker_properties") or {})
        for instance in variables.get("kafka_broker_instances") or []:
            settings.update(instance.get("properties") or {})
        for key in _hand_set(settings):
            problems.append("%s: kafka_broker_properties sets %s, which the migration sets itself or which a KRaft "
                            "broker does not take; remove it" % (host, key))
        if _flag(variables, "kafka_broker_combined"):
            problems.append("%s: kafka_broker_combined; the migration needs dedicated controllers" % host)
        peer = _migration_peer(variables)
        if "SSL" in peer["internal_protocol"] and peer["internal_client_auth"] not in ("", "none"):
            problems.append("%s: kafka_broker_internal_ssl_client_auth is %s; the controllers reach the migrating "
                            "brokers on INTERNAL without a certificate of their own in this version (let SASL or "
                            "nothing authenticate the brokers there: none)" % (host, peer["internal_client_auth"]))
        peers.append((host, peer))
        broker_authorizer = broker_authorizer or _flag(variables, "kafka_broker_authorizer_enabled")
    # The controllers log in to every broker and to ZooKeeper with one setting each.
    for key, variable in _PEER_SETTINGS:
        found = sorted(set(str(peer[key]) for host, peer in peers))
        if len(found) > 1:
            problems.append("%s: differs between the brokers (%s); the controllers of the migration reach every broker "
                            "and ZooKeeper with one value" % (variable, "; ".join(
                                "%s: %s" % (host, peer[key] or "(none)") for host, peer in peers)))
    for variables, host in controller_hosts:
        for key in _hand_set(variables.get("kafka_controller_properties") or {}):
            problems.append("%s: kafka_controller_properties sets %s, which the migration sets itself; remove it"
                            % (host, key))
        if (broker_authorizer and variables.get("kafka_controller_authorizer_enabled") is not None
                and not _flag(variables, "kafka_controller_authorizer_enabled")):
            problems.append("%s: kafka_controller_authorizer_enabled is false while the brokers enforce ACLs; the "
                            "controllers would accept ACL changes unchecked" % host)
    return problems


def _flag(variables, name):
    """A host's bool setting as the roles read it (lookup role_inputs): "false" from -e is false; unset is false."""
    try:
        return convert(name, variables.get(name) or False, {"type": "bool"})
    except InputTypeError as error:
        raise AnsibleFilterError(str(error)) from None


def _release(version):
    """(major, minor, patch) of a Kafka version such as 3.9.2 or 4.4.0-ce; None when it is not one."""
    parts = []
    for part in str(version or "").split("-", 1)[0].split("."):
        if not part.isdigit():
            return None
        parts.append(int(part))
    return tuple((parts + [0, 0, 0])[:3]) if parts else None


def kafka_upgrade_check(brokers, controllers, targets, pinned_protocol=""):
    """Why a rolling upgrade to the archive of this run must not go ahead, naming host and version.

    brokers, controllers: as the roles' node_state.yml reads them (version: the Kafka each runs now).
    targets: {host: the version of the archive this run installed there}. pinned_protocol: the
    brokers' inter.broker.protocol.version in the inventory (ZooKeeper mode).
    """
    problems = []
    modes = set(broker["mode"] for broker in brokers)
    if "migration" in modes or any(c.get("migration") for c in controllers) or ("kraft" in modes and len(modes) > 1):
        problems.append("a ZooKeeper-to-KRaft migration is under way (brokers by mode: %s); Kafka forbids changing "
                        "versions during it: finalize it or roll it back first (migrate_to_kraft.yml)"
                        % ", ".join(sorted(modes)))
        return problems
    found = sorted(set(targets.values()))
    if len(found) != 1 or _release(found[0]) is None:
        problems.append("kafka_distribution_archive_src / kafka_distribution_archive_url: the hosts would get "
                        "different or unknown Kafka versions (%s); one archive for the whole cluster"
                        % ", ".join("%s: %s" % (host, targets[host]) for host in sorted(targets)))
        return problems
    target = _release(found[0])
    for node in list(controllers) + list(brokers):
        name = "%s (%s %s)" % (node["host"], "broker" if "broker_id" in node else "controller",
                               node.get("broker_id", node.get("node_id")))
        current = _release(node.get("version"))
        if current is None:
            problems.append("%s: cannot tell which Kafka it runs (no kafkaops.cluster install found)" % name)
        elif target < current:
            problems.append("%s: runs Kafka %s; %s would be a downgrade, which Kafka does not support once the "
                            "metadata version or protocol moved on" % (name, node["version"], found[0]))
    if modes == {"zookeeper"}:
        if target >= (4, 0, 0):
            problems.append("Kafka %s has no ZooKeeper mode: migrate the cluster to KRaft on Kafka 3.9 first "
                            "(migrate_to_kraft.yml), then upgrade" % found[0])
        running = sorted(set(_release(b.get("version"))[:2] for b in brokers if _release(b.get("version"))))
        if running and running[0] < target[:2] and not pinned_protocol:
            problems.append("kafka_broker_properties: set inter.broker.protocol.version to %d.%d (what the brokers "
                            "speak now) before rolling them to %s, so that upgraded and not yet upgraded brokers "
                            "understand each other; raise it once every broker runs %s"
                            % (running[0][0], running[0][1], found[0], found[0]))
        pinned = _release(pinned_protocol.split("-")[0]) if pinned_protocol else None
        if pinned and running and pinned[:2] > running[0]:
            problems.append("kafka_broker_properties: inter.broker.protocol.version %s is newer than what broker(s) "
                            "running Kafka %d.%d speak; raise it only once every broker runs the new Kafka"
                            % (pinned_protocol, running[0][0], running[0][1]))
    elif target >= (4, 0, 0) and any(_release(n.get("version")) and _release(n.get("version")) < (3, 3, 0)
                                     for n in list(controllers) + list(brokers)):
        problems.append("Kafka 4 upgrades only from Kafka 3.3 or later: upgrade to 3.9 first")
    return problems


def kafka_nodes_behind(hosts, hostvars, version):
    """The hosts, each once, whose brokers or controller do not run Kafka version, as node_state.yml read them.

    hosts: the kafka_broker and kafka_controller groups' hosts. Each host's kafka_broker_node_state (a list, one
    item per broker) and kafka_controller_node_state (one item) are read; a host that holds neither was not read
    in this run and is not counted. upgrade.yml finalizes the metadata version and the feature levels only when
    this is empty: a node left on the older Kafka (a --limit run, a roll cut short) could not run them.
    """
    behind = []
    for host in hosts or []:
        variables = hostvars[host]
        states = list(variables.get("kafka_broker_node_state") or [])
        if variables.get("kafka_controller_node_state"):
            states.append(variables.get("kafka_controller_node_state"))
        for state in states:
            if state.get("version") != version and state.get("host") not in behind:
                behind.append(state.get("host"))
    return behind


def kafka_migration_wait_failure(result, migration_path, ids_path, rolled_ids, timeout):
    """What the wait for the metadata copy saw last, as a sentence, when it ended without the copy.

    result: the failed wait's result (ansible_failed_result). When it read no znodes (a read that failed), its
    message ('failed' without one). Else from its znodes ({path: {exists, value, children}}); rolled_ids: the
    broker ids this run rolled into migration mode (the inventory's). The controllers copy the metadata
    only once every broker registered in ZooKeeper runs in migration mode, so the brokers registered and
    not rolled are named: they are what the controllers wait for.
    """
    if not isinstance(result, Mapping):
        raise AnsibleFilterError("kafka_migration_wait_failure: expected the failed wait's result, got %s"
                                 % type(result).__name__)
    if "znodes" not in result:
        return result["msg"] if "msg" in result else "failed"
    seen = result["znodes"]
    migration = (seen or {}).get(migration_path) or {}
    offset = (migration.get("value") or {}).get("kraft_metadata_offset") if migration.get("exists") else None
    registered = sorted(int(child) for child in ((seen or {}).get(ids_path) or {}).get("children") or [])
    rolled = sorted(set(int(broker) for broker in rolled_ids or []))
    waiting = [broker for broker in registered if broker not in rolled]
    sentence = ("after %s s, %s still held kraft_metadata_offset %s (the controllers write the offset they copied up "
                "to once every broker registered in ZooKeeper runs in migration mode). Registered in ZooKeeper: "
                "brokers %s; rolled into migration mode by this run: %s"
                % (timeout, migration_path, "(no znode)" if offset is None else offset,
                   ", ".join(str(broker) for broker in registered) or "none",
                   ", ".join(str(broker) for broker in rolled) or "none"))
    if waiting:
        sentence += (". The controllers are waiting for broker(s) %s, which the inventory lacks: add their hosts to "
                     "kafka_broker and run this phase again, or stop them and let their registration expire"
                     % ", ".join(str(broker) for broker in waiting))
    return sentence


def _hosts(filter_name, what, value):
    if not isinstance(value, (list, tuple)):
        raise AnsibleFilterError("%s: %s: expected a list of host names, got %s"
                                 % (filter_name, what, type(value).__name__))
    return list(value)


def _groups(filter_name, groups):
    if not isinstance(groups, Mapping):
        raise AnsibleFilterError("%s: expected the inventory's groups (a mapping), got %s"
                                 % (filter_name, type(groups).__name__))
    return groups


def kafka_migration_nodes(groups, hostvars, play_hosts):
    """What migrate_to_kraft.yml read of the nodes of its play and where ZooKeeper is (migration_nodes in
    plugin_utils/_migration_run.py): brokers, controllers, broker_hosts, controller_hosts, zookeeper (connect,
    ensemble, servers, chroot) and finalized."""
    try:
        return run.migration_nodes(_groups("kafka_migration_nodes", groups),
                                   _hosts("kafka_migration_nodes", "play_hosts", play_hosts), hostvars)
    except NodeStateError as error:
        raise AnsibleFilterError("kafka_migration_nodes: %s" % error) from None


def kafka_migration_zookeeper_session(servers, first_broker):
    """zookeeper_znode's servers and the brokers' ZooKeeper login (first_broker: the first kafka_broker host's
    variables, which hold the kafka_broker_migration_peer node_state.yml noted; {} when it has none)."""
    peer = (first_broker or {}).get("kafka_broker_migration_peer")
    return run.zookeeper_session(_hosts("kafka_migration_zookeeper_session", "servers", servers), peer)


def kafka_migration_run(znodes_result, nodes, hostvars, phase, wait_timeout, soak_minutes):
    """Where the migration stands and what this run does, from the read of ZooKeeper's /cluster/id and /migration
    (znodes_result, the zookeeper_znode result: failed when ZooKeeper no longer runs) and the nodes
    (kafka_migration_nodes).

    Returns the plan (kafka_migration_plan: steps, refusal) with state (kafka_migration_state), cluster_id,
    precheck (kafka_migration_precheck's problems for these steps), summary (the lines that show where the
    migration stands and what the run does) and the inputs typed: phase, rollback, wait_timeout, wait_delay,
    wait_retries, soak_minutes.
    """
    for name, value in (("znodes_result", znodes_result), ("nodes", nodes)):
        if not isinstance(value, Mapping):
            raise AnsibleFilterError("kafka_migration_run: %s must be a mapping, got %s" % (name, type(value).__name__))
    try:
        inputs = run.run_inputs(phase, wait_timeout, soak_minutes)
    except InputTypeError as error:
        raise AnsibleFilterError(str(error)) from None
    chroot = nodes["zookeeper"]["chroot"]
    znodes = znodes_result.get("znodes", {})
    found_id = run.cluster_id(znodes, chroot)
    state = kafka_migration_state(nodes["brokers"], nodes["controllers"], znodes.get(chroot + "/migration", {}),
                                  found_id, zookeeper_running=not znodes_result.get("failed", False))
    plan = kafka_migration_plan(state, inputs["phase"], rollback=inputs["rollback"])
    precheck = kafka_migration_precheck(
        nodes["brokers"], nodes["controllers"], [(hostvars[host], host) for host in nodes["broker_hosts"]],
        [(hostvars[host], host) for host in nodes["controller_hosts"]], found_id, plan["steps"])
    result = dict(plan)
    result.update(inputs)
    result.update(state=state, cluster_id=found_id, precheck=precheck, summary=run.standing_lines(state, plan["steps"]))
    return result


def kafka_migration_soak(controllers, soak_minutes, now):
    """Whether the soak before finalizing is over ({over, message}: soak in plugin_utils/_migration_run.py), from
    the controllers' states (brokers_kraft_since), the minutes asked (an int) and the time now (seconds)."""
    if not isinstance(soak_minutes, int) or isinstance(soak_minutes, bool):
        raise AnsibleFilterError("kafka_migration_soak: soak_minutes: expected an int, got %r" % (soak_minutes,))
    return run.soak(controllers or [], soak_minutes, now)


def kafka_upgrade_cluster(groups, hostvars, play_hosts):
    """What upgrade.yml finds before any service changes, from the node states and the archives its play read:
    {problems (kafka_upgrade_check's, the brokers' pinned inter.broker.protocol.version read from the first
    kafka_broker host's kafka_broker_properties), zookeeper_mode (every broker runs in ZooKeeper mode)}."""
    groups = _groups("kafka_upgrade_cluster", groups)
    play_hosts = _hosts("kafka_upgrade_cluster", "play_hosts", play_hosts)
    broker_hosts = list(groups.get("kafka_broker") or [])
    try:
        states = node_states(broker_hosts, groups.get("kafka_controller") or [], play_hosts, hostvars)
        inventory = upgrade_inventory(broker_hosts, play_hosts, hostvars)
    except NodeStateError as error:
        raise AnsibleFilterError("kafka_upgrade_cluster: %s" % error) from None
    return {"problems": kafka_upgrade_check(states["brokers"], states["controllers"], inventory["targets"],
                                            inventory["pinned_protocol"]),
            "zookeeper_mode": zookeeper_mode(states["brokers"])}


class FilterModule(object):
    def filters(self):
        return {
            "kafka_metadata_mode": kafka_metadata_mode,
            "kafka_broker_mode_change": kafka_broker_mode_change,
            "kafka_migration_state": kafka_migration_state,
            "kafka_migration_plan": kafka_migration_plan,
            "kafka_migration_precheck": kafka_migration_precheck,
            "kafka_upgrade_check": kafka_upgrade_check,
            "kafka_nodes_behind": kafka_nodes_behind,
            "kafka_migration_wait_failure": kafka_migration_wait_failure,
            "kafka_migration_nodes": kafka_migration_nodes,
            "kafka_migration_zookeeper_session": kafka_migration_zookeeper_session,
            "kafka_migration_run": kafka_migration_run,
            "kafka_migration_soak": kafka_migration_soak,
            "kafka_upgrade_cluster": kafka_upgrade_cluster,
        }
