# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a run of playbooks/migrate_to_kraft.yml works out around the migration's state and plan (the filters
kafka_migration_state and kafka_migration_plan): the nodes it read and the ZooKeeper ensemble the cluster uses, the
session to ZooKeeper, the run's inputs typed, what it shows of where the migration stands, and the soak before
finalizing.

Plain data in, plain data out: what the hosts hold comes as a mapping of their variables per host, such as hostvars;
the time as a number of seconds.
"""

from __future__ import absolute_import, division, print_function


import math
import time
from collections.abc import Mapping

from ansible_collections.kafkaops.cluster.plugins.plugin_utils._node_states import node_states
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._role_inputs import convert
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._service_rules import as_int
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._zookeeper_host_model import client_address

# Seconds between two reads of /migration while the controllers copy the metadata.
WAIT_DELAY = 5


def zookeeper_connect(controllers, zookeeper_hosts, host_variables, chroot):
    """The ensemble as the running cluster uses it: a controller's zookeeper.connect (set in migration mode), else
    the inventory's, as the kafka_broker role builds it (the zookeeper group's client addresses, then the chroot of
    the first kafka_broker host)."""
    for controller in controllers:
        if controller.get("zookeeper_connect"):
            return controller["zookeeper_connect"]
    return ",".join(client_address(host_variables[host], host) for host in zookeeper_hosts) + chroot


def connect_parts(connect):
    """{connect, ensemble (the servers, comma-separated, as the brokers' zookeeper.connect takes them: the
    kafka_broker role adds its chroot itself), servers (a list), chroot ('' for none)}."""
    ensemble, slash, path = connect.partition("/")
    return {"connect": connect, "ensemble": ensemble, "servers": ensemble.split(","),
            "chroot": "/" + path if slash else ""}


def finalized(brokers, controllers):
    """Whether the controllers have left migration mode: every broker runs in KRaft mode and no controller is set up
    for migration. ZooKeeper may be gone then."""
    return (all(broker.get("mode") == "kraft" for broker in brokers)
            and not any(controller.get("configured") and controller.get("migration") for controller in controllers))


def migration_nodes(groups, play_hosts, host_variables):
    """What the run read of the nodes and where ZooKeeper is: {brokers, controllers (as node_states gives them),
    broker_hosts, controller_hosts (the inventory's groups), zookeeper (connect_parts), finalized}.

    groups: the inventory's groups (kafka_broker, kafka_controller and zookeeper are read).
    """
    broker_hosts = list(groups.get("kafka_broker") or [])
    controller_hosts = list(groups.get("kafka_controller") or [])
    states = node_states(broker_hosts, controller_hosts, play_hosts, host_variables)
    chroot = (host_variables[broker_hosts[0]].get("kafka_broker_zookeeper_chroot", "") if broker_hosts else "")
    connect = zookeeper_connect(states["controllers"], groups.get("zookeeper") or [], host_variables, chroot)
    return dict(states, broker_hosts=broker_hosts, controller_hosts=controller_hosts,
                zookeeper=connect_parts(connect), finalized=finalized(states["brokers"], states["controllers"]))


def zookeeper_session(servers, peer):
    """The zookeeper_znode options every read and write of the migration's znodes takes: servers, and the brokers'
    ZooKeeper login when they have one (peer: kafka_broker_migration_peer, which node_state.yml notes on a broker
    host; ZooKeeper may refuse sessions without it). Without a login its options are left out (anonymous)."""
    session = {"servers": servers}
    for option in ("sasl_user", "sasl_password"):
        value = (peer or {}).get("zookeeper_" + option)
        if value:
            session[option] = value
    return session


def run_inputs(phase, wait_timeout, soak_minutes):
    """The run's inputs typed: {phase (as given), rollback, wait_timeout and soak_minutes (ints), wait_delay and
    wait_retries (the seconds between two reads of /migration while the wait lasts, and how many more reads it
    takes after the first)}. Raises InputTypeError naming the variable."""
    wait_timeout = convert("migration_wait_timeout", wait_timeout, {"type": "int"})
    return {"phase": phase, "rollback": phase == "rollback", "wait_timeout": wait_timeout, "wait_delay": WAIT_DELAY,
            "wait_retries": int(math.ceil(wait_timeout / float(WAIT_DELAY))),
            "soak_minutes": convert("migration_soak_minutes", soak_minutes, {"type": "int"})}


def cluster_id(znodes, chroot):
    """The cluster's id from ZooKeeper's /cluster/id (under the chroot) as zookeeper_znode read it; '' without one."""
    value = (znodes.get(chroot + "/cluster/id") or {}).get("value")
    return value.get("id", "") if isinstance(value, Mapping) else ""


def standing_lines(state, steps):
    """What the run shows before it changes anything: the last phase done, one found half done, the brokers by
    mode and the steps this run takes."""
    return ["Last phase done: %s" % (state.get("completed") or "none, the cluster runs on ZooKeeper"),
            "Found half done: %s" % (state.get("in_progress") or "nothing"),
            "Brokers by mode: %s" % (state.get("brokers_by_mode"),),
            "This run: %s" % (", ".join(steps) or "nothing to do")]


def soak(controllers, soak_minutes, now):
    """{over, message}: whether the brokers have run in KRaft mode for soak_minutes, counted from the first time a
    controller noted (brokers_kraft_since, seconds since the epoch; now when none did), and the refusal that says
    since when, how long ago and how to go on."""
    now = int(now)
    noted = [controller["brokers_kraft_since"] for controller in controllers if controller.get("brokers_kraft_since")]
    since = as_int(noted[0]) if noted else now
    message = ("migration_soak_minutes: the brokers run in KRaft mode since %s, %s minutes ago; finalizing (no way "
               "back to ZooKeeper afterwards) waits %s minutes of soak. Check the cluster, then run -e phase=finalize "
               "again, or -e phase=rollback to go back to ZooKeeper; -e migration_soak_minutes=0 finalizes now."
               % (time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(since)), round((now - since) / 60.0, 1),
                  soak_minutes))
    return {"over": now - since >= soak_minutes * 60, "message": message}
