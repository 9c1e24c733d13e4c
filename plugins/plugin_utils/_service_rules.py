# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Rules the service roles' host models share (plugin_utils/_broker_host_model.py, _controller_host_model.py,
_zookeeper_host_model.py, and _kafka_node.py for what only the Kafka nodes share): how
a value reads as a number, which names and JVM sizes are allowed, where the TLS files are and what is wrong with
provided ones, and the shape of the folders and files module config_files writes. Each rule is written here once.

No I/O: whether a file exists on the controller and whether a certificate is its key's are asked through the
functions the caller passes.
"""

from __future__ import absolute_import, division, print_function


import os.path
import re

from ansible.module_utils.common.text.converters import to_text
from ansible.module_utils.six.moves.urllib.parse import urlsplit

# A JVM heap size such as 512m or 1g (-Xms/-Xmx).
HEAP_SIZE = re.compile(r"^[0-9]+[kKmMgG]$")
# A user name a service's login file or Kafka's SCRAM store can carry.
USER_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
# A certificate's subject alternative names: an IPv4 address, or anything with a colon (a DNS name never holds
# one, so whatever does is IPv6), is an address (IP:); anything else a DNS name (DNS:).
IP_ADDRESS = re.compile(r"^(?=([0-9]{1,3}([.][0-9]{1,3}){3}|[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*)$)")
NOT_AN_ADDRESS = re.compile(r"^(?!IP:)")
# The Prometheus agent: a .jar on the controller, or a URL of one with its sha256; the exporter's address an IPv4
# address or a host name.
JAR = re.compile(r".*[.]jar$")
JAR_URL = re.compile(r"^(https?|ftp|file)://.+[.]jar$")
SHA256 = re.compile(r"^sha256:[0-9a-fA-F]{64}$")
BIND_ADDRESS = re.compile(r"^[^\s:\[\]]+$")


def text(value):
    """A setting as text, '' when it is none."""
    return "" if value is None else str(value)


def as_int(value):
    """A number as Jinja's int filter reads it, 0 when it is none, so that a bad value fails the range check."""
    try:
        return int(value)
    except (TypeError, ValueError):
        try:
            return int(float(value))
        except (TypeError, ValueError):
            return 0


def unique(items):
    """The items without repeats, in their first order."""
    seen = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def in_play(hosts, play_hosts):
    """The hosts of a role's group list that this play runs on, in the list's order, each once."""
    play_hosts = list(play_hosts or [])
    return [name for name in unique(hosts or []) if name in play_hosts]


def missing_files(paths, file_exists):
    """{variable: path} -> sentences: first each variable left empty, then each naming no file there."""
    unset = ["%s: not set" % name for name, path in paths.items() if not path]
    absent = ["%s: no such file on the controller" % name for name, path in paths.items()
              if path and not file_exists(str(path))]
    return unset + absent


def provided_tls_problems(paths, certificate_variable, key_variable, file_exists, key_problem):
    """The provided TLS files as the filter tls_file_problems sees them ({variable: path}): first those not set or
    not there; when all are, whether the certificate is its key's (a certificate of another key would only fail
    at the service's first handshake, after the files were written)."""
    missing = missing_files(paths, file_exists)
    if missing:
        return missing
    mismatch = key_problem(certificate_variable, str(paths[certificate_variable]),
                           key_variable, str(paths[key_variable]))
    return [mismatch] if mismatch else []


def tls_source(provided, files, tls_dir, folder, host):
    """Where a host's CA, certificate and key are on the controller: the files given (CA, certificate, key) when
    they are provided, else where service_common's certificates task issues them (tls_dir/ca.crt and
    tls_dir/<folder>/<host>.crt and .key)."""
    if provided:
        ca, cert, key = files
        return {"ca": ca, "cert": cert, "key": key}
    return {"ca": tls_dir + "/ca.crt", "cert": "%s/%s/%s.crt" % (tls_dir, folder, host),
            "key": "%s/%s/%s.key" % (tls_dir, folder, host)}


def host_tls_paths(config_dir, keystore_name=None):
    """The TLS files on the host: a folder of the configuration folder, the CA the service trusts and, when
    keystore_name is given, one PEM key store (private key, then certificate)."""
    host_dir = config_dir + "/tls"
    paths = {"host_dir": host_dir, "truststore": host_dir + "/ca.crt"}
    if keystore_name:
        paths["keystore"] = host_dir + "/" + keystore_name
    return paths


def unresolved_addresses(names_by_node, owners):
    """What a node cannot resolve, as sentences naming the node, the name and the variable behind it.

    names_by_node: node -> the names result of host_state_info on it (name -> addresses, empty when the name does
    not resolve). owners: name -> the variable (and host) that gives it.
    """
    problems = []
    for node in sorted(names_by_node):
        for name, addresses in sorted((names_by_node[node] or {}).items()):
            if not addresses:
                problems.append("%s cannot resolve '%s' (%s)" % (node, name, owners.get(name, "unknown variable")))
    return problems


def file_entry(dest, template, group, owner="root", mode="0644", **more):
    """A file of module config_files' files option, rendered from template."""
    return dict({"dest": dest, "template": template, "owner": owner, "group": group, "mode": mode}, **more)


def folder_entry(path, owner, group, mode):
    """A folder of module config_files' directories option."""
    return {"path": path, "owner": owner, "group": group, "mode": mode}


def subject_alt_names(names):
    """A certificate's subject alternative names for the names and addresses a host is reached by: IP:<address> or
    DNS:<name>, each once, in the order given."""
    return unique(NOT_AN_ADDRESS.sub("DNS:", IP_ADDRESS.sub("IP:", to_text(name))) for name in names or [])


def tls_certificates(host, subject_names, host_folder, common_name, clients, issues_clients):
    """The keys and certificates service_common's certificates task issues on the controller for a host, each with
    its folder (of the TLS folder), name, subject's common name, subject alternative names and extended key usages:
    the host's own, in host_folder (brokers are clients of each other on a listener with mutual TLS, hence
    clientAuth beside serverAuth); with issues_clients (one host of the play issues them, so that no two write the
    same files at once), one per client name in clients/, for client authentication only."""
    certificates = [{"folder": host_folder, "name": host, "common_name": common_name,
                     "subject_alt_name": subject_alt_names(subject_names),
                     "extended_key_usage": ["serverAuth", "clientAuth"]}]
    if issues_clients:
        certificates += [{"folder": "clients", "name": name, "common_name": name, "subject_alt_name": [],
                          "extended_key_usage": ["clientAuth"]} for name in clients or []]
    return certificates


def _shown(value):
    return "" if value is None else to_text(value)


def prometheus_agent(source, url, checksum="", port=None, bind_address="", other_ports=None, variables="",
                     file_exists=os.path.isfile):
    """Where a service's Prometheus agent (the JMX exporter's jar) comes from and what is wrong with its settings.

    source: the jar on the controller; url: where the hosts download it, with its checksum (sha256:<hex>); either
    empty when not given. port and bind_address: where the exporter listens (port None: not checked here);
    other_ports: name -> the service's other ports on the host; variables: the prefix of the calling role's
    variables, which the problems name. Returns source and url ('' when not given), file_name (the jar's name on the
    host: the source's) and problems, by check, each a sentence or '' (sources: not exactly one of source and url;
    file: the source is no .jar on the controller; download: a URL without a .jar or a sha256; port: a port out of
    range or taken, or an address that is no IPv4 address or host name).
    """
    source = to_text(source) if source else ""
    url = to_text(url) if url else ""
    other_ports = other_ports or {}
    # As a message template shows them: None as nothing.
    names = {"v": variables, "source": source, "url": url, "checksum": _shown(checksum), "port": _shown(port),
             "bind_address": _shown(bind_address), "taken": ", ".join(to_text(taken) for taken in other_ports.values()),
             "others": ", ".join(to_text(name) for name in other_ports) or "the other ports",
             "got": "both" if source else "neither"}
    problems = {"sources": "", "file": "", "download": "", "port": ""}
    if bool(source) == bool(url):
        problems["sources"] = (
            "%(v)s_agent_src / %(v)s_agent_url: %(v)s_enabled needs the jmx_prometheus_javaagent jar: give exactly "
            "one of a path on the controller (_agent_src; scripts/fetch-prometheus-agent.sh fetches it with Maven) or "
            "a URL the hosts download it from (_agent_url), got %(got)s" % names)
    if source and not (file_exists(source) and JAR.match(source)):
        problems["file"] = (
            "%(v)s_agent_src: %(source)s is not a .jar file on the controller (scripts/fetch-prometheus-agent.sh puts "
            "jmx_prometheus_javaagent-<version>.jar in the cache)" % names)
    if url and not (SHA256.match(to_text(checksum)) and JAR_URL.match(url)):
        problems["download"] = (
            "%(v)s_agent_url / %(v)s_agent_checksum: a URL of a .jar (got '%(url)s') and its checksum as "
            "sha256:<64 hex digits> (got '%(checksum)s') are needed, so that every host runs the same jar" % names)
    if port is not None:
        number = as_int(port)
        if not (1 <= number <= 65535 and number not in [as_int(taken) for taken in other_ports.values()]
                and BIND_ADDRESS.match(to_text(bind_address))):
            problems["port"] = (
                "%(v)s_port / %(v)s_bind_address: the port must be within 1-65535 and differ from %(others)s "
                "(%(taken)s), and the address an IPv4 address or a host name; got %(port)s and '%(bind_address)s'"
                % names)
    return {"source": source, "url": url, "file_name": os.path.basename(urlsplit(source or url).path),
            "problems": problems}
