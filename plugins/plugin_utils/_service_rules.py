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


import re

# A JVM heap size such as 512m or 1g (-Xms/-Xmx).
HEAP_SIZE = re.compile(r"^[0-9]+[kKmMgG]$")
# A user name a service's login file or Kafka's SCRAM store can carry.
USER_NAME = re.compile(r"^[A-Za-z0-9._-]+$")


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
