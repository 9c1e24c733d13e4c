# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the zookeeper role: the host model, the ensemble's problems once every node read its state, the files
to write and the order of restarts (plugin_utils/_zookeeper_host_model.py holds the rules)."""

from __future__ import absolute_import, division, print_function


import os
from collections.abc import Mapping

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._tls_files import key_problem_of
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._zookeeper_host_model import (
    ensemble_problems,
    host_model,
    restart_order,
)
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._zookeeper_host_model import (
    zookeeper_files as files_of,
)


def _mapping(name, value, what):
    if not isinstance(value, Mapping):
        raise AnsibleFilterError("%s: %s must be a mapping, got %s" % (name, what, type(value).__name__))
    return value


def _hosts(name, value):
    if not isinstance(value, (list, tuple)):
        raise AnsibleFilterError("%s: expected a list of host names, got %s" % (name, type(value).__name__))
    return list(value)


def _nodes(hostvars, hosts):
    """{host: its variables} of the hosts hostvars knows: a host the inventory lacks has none to give."""
    return dict((name, hostvars[name]) for name in hosts if name in hostvars)


def zookeeper_host_model(inputs, settings, cluster):
    """The zookeeper role's host model (plugin_utils/_zookeeper_host_model.py says what it holds), with the
    controller's own files behind the checks of provided TLS files (there, and the certificate its key's).

    cluster: host (this node's inventory name), hostvars and facts (this node's ansible_facts).
    """
    for what, value in (("inputs", inputs), ("settings", settings), ("cluster", cluster)):
        _mapping("zookeeper_host_model", value, what)
    hostvars = _mapping("zookeeper_host_model", cluster.get("hostvars"), "cluster.hostvars")
    view = {"host": cluster.get("host"), "facts": cluster.get("facts") or {},
            "host_variables": _nodes(hostvars, inputs.get("zookeeper_hosts") or [])}
    return host_model(inputs, settings, view, os.path.isfile, key_problem_of("zookeeper_host_model"))


def zookeeper_ensemble_problems(model, members, hostvars):
    """What preflight refuses once every member of the play read its state: repeated ids or ids outside 1-255, and
    peer addresses a member cannot resolve."""
    _mapping("zookeeper_ensemble_problems", model, "the host model")
    members = _hosts("zookeeper_ensemble_problems", members)
    return ensemble_problems(model, members, _nodes(hostvars, model["hosts"]))


def zookeeper_files(model, templates, hostvars):
    """The folders and files of the zookeeper role on a node and the paths that restart it (zookeeper_files in
    plugin_utils/_zookeeper_host_model.py), once every node decided its id."""
    _mapping("zookeeper_files", model, "the host model")
    _mapping("zookeeper_files", templates, "templates")
    return files_of(model, templates, _nodes(hostvars, model["hosts"]))


def zookeeper_restart_order(members, hostvars, restart_all=False):
    """The members to restart one at a time, followers before the leader, and what is wrong with their roles."""
    members = _hosts("zookeeper_restart_order", members)
    try:
        restart_all = boolean(restart_all, strict=True)
    except TypeError:
        raise AnsibleFilterError("zookeeper_restart_order: restart_all: expected a boolean, got %r"
                                 % (restart_all,)) from None
    return restart_order(members, _nodes(hostvars, members), restart_all)


class FilterModule(object):
    def filters(self):
        return {
            "zookeeper_host_model": zookeeper_host_model,
            "zookeeper_ensemble_problems": zookeeper_ensemble_problems,
            "zookeeper_files": zookeeper_files,
            "zookeeper_restart_order": zookeeper_restart_order,
        }
