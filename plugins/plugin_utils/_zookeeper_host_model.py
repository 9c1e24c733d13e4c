# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The zookeeper role's host model: where a node's files go, how its peers reach it, which TLS files it uses and
what is wrong with the settings, from the role's variables as plain data; and, once every node read its state,
the ensemble's ids, the files to write and the order of restarts.

The role publishes the model once per node (preflight.yml) and its tasks and templates read it, so that a path or
a rule is written here only. No I/O: whether a file exists on the controller, and whether a provided certificate
is its key's, are asked through the file_exists and key_problem functions the caller passes (the filters give
os.path.isfile and plugin_utils/_tls_files.py's certificate_key_problem, the tests stand-ins). What other nodes
hold (their inventory variables, the model and state they published) comes as a mapping per node, such as
hostvars.
"""

from __future__ import absolute_import, division, print_function


import re

from ansible_collections.kafkaops.cluster.plugins.plugin_utils import _service_rules as rules

# The four-letter words the role waits on (module zookeeper_info).
REQUIRED_WORDS = ("ruok", "srvr")
# A DIGEST-MD5 password goes into a user_<name>="<password>" line of the JAAS file.
UNFIT_PASSWORD = re.compile(r'^$|.*[\s"\\]')
ID_RANGE = (1, 255)
PORT_RANGE = (1, 65535)


def peer_address(variables, name):
    """How peers and brokers reach a ZooKeeper node, from its inventory variables (hostvars of the node) and name.

    The node's zookeeper_peer_address when the inventory sets it, else the address Ansible reaches the node by
    (ansible_host), else its inventory name: the same rule as the role's default, which hostvars of another node
    does not show.
    """
    return variables.get("zookeeper_peer_address") or variables.get("ansible_host") or name


def client_address(variables, name):
    """'address:port' of a ZooKeeper node for its clients, from its inventory variables and name."""
    return "%s:%s" % (peer_address(variables, name), variables.get("zookeeper_client_port") or 2181)


def _as_text(value):
    """A value as Ansible's match test reads it."""
    return value if isinstance(value, str) else str(value)


def host_model(inputs, settings, cluster, file_exists, key_problem):
    """The host model of the zookeeper role for one node.

    inputs: the role's typed inputs (lookup role_inputs). settings: its other settings, each under its variable's
    name (text, and zookeeper_sasl_users as given). cluster: host (this node's inventory name), host_variables (by
    host of zookeeper_hosts, its inventory variables, such as hostvars[host]; a host the inventory lacks is left
    out) and facts (this node's ansible_facts, for its default IPv4 address).
    file_exists(path): whether a file is there on the controller. key_problem(certificate variable, path, key
    variable, path): why a provided certificate is not its key's, or None; asked only once every provided TLS file
    is there.
    """
    text_settings = {name: rules.text(value) for name, value in settings.items() if name != "zookeeper_sasl_users"}
    host = cluster["host"]
    hosts = list(inputs.get("zookeeper_hosts") or [])
    config_dir = text_settings["zookeeper_config_dir"]
    log_dir = text_settings["zookeeper_log_dir"]
    service = text_settings["zookeeper_service_name"]
    sasl_users = settings.get("zookeeper_sasl_users") or {}
    quorum_tls = bool(inputs.get("zookeeper_quorum_tls"))
    port_unification = bool(inputs.get("zookeeper_quorum_tls_port_unification"))
    tls = _tls(text_settings, host, cluster.get("facts") or {})
    tls.update(rules.host_tls_paths(config_dir, "zookeeper.pem"))
    # Nodes have TLS stores when they speak TLS to each other, or accept it while the ensemble switches.
    tls.update(stores=quorum_tls or port_unification, quorum=quorum_tls, port_unification=port_unification)
    tls["issue"] = tls["stores"] and text_settings["zookeeper_tls_certificates"] == "generated"
    paths = {
        "config_file": config_dir + "/zoo.cfg",
        "logging": config_dir + "/log4j.properties",
        "myid": text_settings["zookeeper_data_dir"] + "/myid",
        "unit_file": "/etc/systemd/system/%s.service" % service,
        # Left behind when a running node's configuration changed and it is not restarted yet.
        "restart_marker": config_dir + "/.restart-pending",
        # The clients' (brokers') SASL logins, when ZooKeeper takes them.
        "server_jaas": config_dir + "/zookeeper-server.jaas",
        # The Prometheus exporter's rules, which the agent re-reads by itself when they change.
        "prometheus_rules": config_dir + "/prometheus.yml",
        "log_file": log_dir + "/zookeeper.log",
    }
    servers = _servers(inputs, hosts, cluster.get("host_variables") or {})
    model = {
        "host": host,
        "hosts": hosts,
        # This node's place in zookeeper_hosts (1 for the first), its id unless pinned or already on the node.
        "position": hosts.index(host) + 1 if host in hosts else 0,
        "pinned_id": inputs.get("zookeeper_id"),
        # The members' peer addresses and ports as zoo.cfg names them (none for a single node), in the order of
        # zookeeper_hosts.
        "servers": servers,
        # Address -> the variable that gives it: what every node must resolve.
        "peer_addresses": dict((server["address"], "zookeeper_peer_address of " + server["host"])
                               for server in servers),
        "unit": service,
        "paths": paths,
        "account": {"user": text_settings["zookeeper_user"], "group": text_settings["zookeeper_group"]},
        "folders": {"config": config_dir, "data": text_settings["zookeeper_data_dir"], "log": log_dir},
        "sasl": len(sasl_users) > 0,
        "tls": tls,
        "prometheus_enabled": bool(inputs.get("zookeeper_prometheus_enabled")),
        "java_options": "-Xms%s -Xmx%s %s -Dzookeeper.log.dir=%s -Dlog4j.configuration=file:%s" % (
            text_settings["zookeeper_heap_size"], text_settings["zookeeper_heap_size"],
            " ".join(str(option) for option in inputs.get("zookeeper_jvm_options") or []), log_dir,
            paths["logging"]),
        # How the role waits for the node to serve clients (module zookeeper_info).
        "wait": {"port": inputs["zookeeper_client_port"], "timeout": inputs["zookeeper_wait_timeout"],
                 "service": service, "log_file": paths["log_file"]},
        # What preflight reads on the node (module host_state_info): the id it has, whether it was set up
        # before, a restart an earlier run left pending, and whether it resolves its peers' addresses.
        "host_state": {"names": rules.unique(server["address"] for server in servers),
                       "files": [paths["myid"], paths["unit_file"], paths["restart_marker"]]},
        # The typed inputs themselves, for the tasks and templates after preflight: the role's lazy __zookeeper_inputs
        # templates every input again each time it is read. Not the SASL users' passwords: the model is shown.
        "inputs": dict((name, value) for name, value in inputs.items() if name != "zookeeper_sasl_users"),
    }
    model["problems"] = _problems(inputs, text_settings, sasl_users, model, file_exists, key_problem)
    return model


def _tls(text_settings, host, facts):
    """The quorum's TLS files on the controller, and the names and addresses the other nodes reach this one by
    and connect from, for its certificate."""
    given = (text_settings["zookeeper_tls_ca_file"], text_settings["zookeeper_tls_cert_file"],
             text_settings["zookeeper_tls_key_file"])
    source = rules.tls_source(text_settings["zookeeper_tls_certificates"] == "provided", given,
                              text_settings["zookeeper_tls_dir"], "zookeeper", host)
    names = [host, text_settings["zookeeper_peer_address"]]
    default_ipv4 = facts.get("default_ipv4") or {}
    if "address" in default_ipv4:
        names.append(default_ipv4["address"])
    return {"source": source, "subject_names": rules.unique(names),
            # The certificates the role deploys, by what they are, for the expiry warning.
            "expiry_files": {"CA certificate": source["ca"], "node certificate": source["cert"]}}


def _servers(inputs, hosts, host_variables):
    """zoo.cfg's view of the members: each host's peer address and its peer and election ports (its own where its
    inventory sets them, else this node's), for an ensemble of more than one node."""
    if len(hosts) <= 1:
        return []
    servers = []
    for name in hosts:
        variables = host_variables.get(name) or {}
        ports = dict((port, variables[port] if port in variables else inputs[port])
                     for port in ("zookeeper_peer_port", "zookeeper_election_port"))
        servers.append({"host": name, "address": peer_address(variables, name),
                        "peer_port": ports["zookeeper_peer_port"], "election_port": ports["zookeeper_election_port"]})
    return servers


def _problems(inputs, text_settings, sasl_users, model, file_exists, key_problem):
    """What preflight refuses before anything changes, each a sentence naming the variable and the reason (in the
    words its asserts used before they were one)."""
    found = []
    hosts = model["hosts"]
    if model["host"] not in hosts:
        found.append("zookeeper_hosts: %s runs the zookeeper role but is not listed in %s" % (model["host"], hosts))
    if len(hosts) % 2 != 1:
        found.append("zookeeper_hosts: an ensemble needs an odd number of nodes (1, 3 or 5) to keep a majority, "
                     "got %d: %s" % (len(hosts), hosts))
    ports = [inputs["zookeeper_client_port"], inputs["zookeeper_peer_port"], inputs["zookeeper_election_port"]]
    if len(rules.unique(ports)) != 3 or min(ports) < PORT_RANGE[0] or max(ports) > PORT_RANGE[1]:
        found.append("zookeeper_client_port / zookeeper_peer_port / zookeeper_election_port: must be three different "
                     "ports in 1-65535, got %s" % " / ".join(str(port) for port in ports))
    heap = text_settings["zookeeper_heap_size"]
    if not rules.HEAP_SIZE.match(heap):
        found.append("zookeeper_heap_size: expected a JVM size such as 256m or 1g, got '%s'" % heap)
    words = inputs.get("zookeeper_four_letter_words") or []
    if any(word not in words for word in REQUIRED_WORDS):
        found.append("zookeeper_four_letter_words: must include ruok and srvr (the role waits on them), got %s"
                     % words)
    unfit = _unfit_sasl_users(sasl_users, inputs.get("zookeeper_sasl_required"))
    if unfit:
        found.append("zookeeper_sasl_users: each user name must be letters, digits, '.', '_' or '-' and each "
                     "password non-empty without spaces, quotes or backslashes; not so for %s; "
                     "zookeeper_sasl_required needs at least one user" % ", ".join(unfit))
    if model["tls"]["stores"] and text_settings["zookeeper_tls_certificates"] == "provided":
        paths = {name: text_settings[name]
                 for name in ("zookeeper_tls_ca_file", "zookeeper_tls_cert_file", "zookeeper_tls_key_file")}
        missing = rules.provided_tls_problems(paths, "zookeeper_tls_cert_file", "zookeeper_tls_key_file",
                                              file_exists, key_problem)
        if missing:
            found.append("zookeeper_quorum_tls (or zookeeper_quorum_tls_port_unification) needs a CA, a certificate "
                         "and a key for every node: " + "; ".join(missing))
    return found


def _unfit_sasl_users(users, required):
    """The SASL users a user_<name>="<password>" line cannot carry: names that are not USER_NAME, then users whose
    password is empty or holds whitespace, a quote or a backslash; '(none)' when logins are required and there
    are no users."""
    names = [str(name) for name in users if not rules.USER_NAME.match(_as_text(name))]
    passwords = [str(name) for name, password in users.items() if UNFIT_PASSWORD.match(_as_text(password))]
    return names + passwords + (["(none)"] if required and len(users) == 0 else [])


def node_id(model, state):
    """A node's id from its model and what preflight read on it (module host_state_info): the pinned
    zookeeper_id, else the id already in its myid, else its place in zookeeper_hosts."""
    if model["pinned_id"] is not None:
        return rules.as_int(model["pinned_id"])
    existing = state["files"][model["paths"]["myid"]]
    if existing["exists"]:
        return rules.as_int((existing.get("content") or "").strip())
    return model["position"]


def ensemble_ids(hosts, nodes):
    """{host: id} for every host of zookeeper_hosts: a node's own id (node_id) where it published its model and
    state in this run (nodes: by host, a mapping with __zookeeper_model and __zookeeper_state, such as hostvars),
    else its place in the list."""
    ids = {}
    for position, name in enumerate(hosts, 1):
        variables = nodes.get(name) or {}
        if "__zookeeper_model" in variables and "__zookeeper_state" in variables:
            ids.setdefault(name, node_id(variables["__zookeeper_model"], variables["__zookeeper_state"]))
        else:
            ids.setdefault(name, position)
    return ids


def ensemble_problems(model, members, nodes):
    """What preflight refuses once every member read its state: ids that repeat or leave 1-255, and peer addresses
    a member cannot resolve. members: the ensemble's hosts in this play; nodes: by host, as for ensemble_ids."""
    found = []
    every_id = ensemble_ids(model["hosts"], nodes)
    ids = dict((name, every_id[name]) for name in members)
    values = list(ids.values())
    if len(rules.unique(values)) != len(values) or min(values) < ID_RANGE[0] or max(values) > ID_RANGE[1]:
        found.append("zookeeper_id: every node needs its own id in 1-255; the ensemble would get %s" % ids)
    names = dict((name, nodes[name]["__zookeeper_state"]["names"]) for name in members)
    unresolved = rules.unresolved_addresses(names, model["peer_addresses"])
    if unresolved:
        found.append("zookeeper_peer_address: %s. ZooKeeper nodes reach each other (and brokers reach them) by these "
                     "addresses: set zookeeper_peer_address of those nodes to an address every node resolves (an IP "
                     "address, or a name in DNS or /etc/hosts), or make the names resolvable." % "; ".join(unresolved))
    return found


def zookeeper_files(model, templates, nodes):
    """The folders and files the role writes on the node, in the shape module config_files takes, and the paths
    whose change needs a restart.

    templates: service_common's shared templates (service_common_templates). nodes: by host, what the ensemble's
    nodes published (see ensemble_ids): zoo.cfg names every member by its id, myid and the unit this node's.
    """
    account = model["account"]
    paths = model["paths"]
    tls = model["tls"]
    group = account["group"]
    ids = ensemble_ids(model["hosts"], nodes)
    node = ids[model["host"]]
    servers = [dict(server, id=ids[server["host"]]) for server in model["servers"]]
    secret = {"mode": "0640", "sensitive": True}
    files = [
        # The id as ZooKeeper reads it; written without a newline, as the role always has.
        {"dest": paths["myid"], "content": str(node), "owner": account["user"], "group": group, "mode": "0640"},
        rules.file_entry(paths["config_file"], "zoo.cfg.j2", group, mode="0640", template_vars={"servers": servers}),
        rules.file_entry(paths["logging"], "log4j.properties.j2", group),
        dict(rules.file_entry(paths["unit_file"], "zookeeper.service.j2", group, template_vars={"node_id": node}),
             group="root"),
    ]
    if model["sasl"]:
        files.append(rules.file_entry(paths["server_jaas"], "zookeeper-server.jaas.j2", group, **secret))
    if tls["stores"]:
        # The key store holds the private key: sensitive, so neither diff nor log shows it.
        files += [rules.file_entry(tls["truststore"], "ca.crt.j2", group),
                  rules.file_entry(tls["keystore"], "quorum-keystore.pem.j2", group, **secret)]
    if model["prometheus_enabled"]:
        files.append(rules.file_entry(paths["prometheus_rules"], templates["zookeeper_prometheus"], group))
    folders = model["folders"]
    directories = [rules.folder_entry(folders["config"], "root", group, "0755"),
                   rules.folder_entry(folders["data"], account["user"], group, "0750"),
                   rules.folder_entry(folders["log"], account["user"], group, "0750")]
    if tls["stores"]:
        directories.append(rules.folder_entry(tls["host_dir"], "root", group, "0750"))
    # Folders need no restart, a node re-reads its quorum TLS stores by itself when they change, and the
    # Prometheus agent its rules.
    restart_paths = [paths["myid"], paths["config_file"], paths["logging"], paths["unit_file"], paths["server_jaas"]]
    return {"directories": directories, "files": files, "restart_paths": restart_paths}


def restart_order(members, nodes, restart_all=False):
    """The members to restart, one at a time, followers before the leader, so the ensemble holds one leader
    election at most; and what is wrong with the ensemble's roles.

    nodes: by host, a mapping with __zookeeper_status (what zookeeper_info said, its mode) and, unless restart_all,
    __zookeeper_restart_pending (whether the node's configuration changed since it started).
    """
    modes = dict((name, (nodes[name].get("__zookeeper_status") or {}).get("mode")) for name in members)
    problems = []
    if len([mode for mode in modes.values() if mode in ("leader", "standalone")]) != 1:
        problems.append("zookeeper_hosts: expected one leader, the nodes report %s" % modes)
    leaders = [name for name in members if modes[name] == "leader"]
    pending = [name for name in members if restart_all or nodes[name].get("__zookeeper_restart_pending")]
    hosts = [name for name in members if name not in leaders] + leaders
    return {"hosts": [name for name in hosts if name in pending], "problems": problems}
