#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: host_state_info
short_description: Read small files, accounts and systemd units of a host in one module run
version_added: "0.1.0"
description:
  - Returns, in one module run, whether each of O(files) exists and its content, whether each of
    O(users) and O(groups) exists and how, the state of each of O(units), and the addresses each of
    O(names) resolves to on this host.
  - Lets a role decide up front which of its steps a host still needs (an account to create, a
    unit to start, a restart left pending), so that a run with nothing to do skips them instead of
    running one module per step.
  - Needs only the Python standard library on the host it runs on (and C(systemctl) for O(units)).
author:
  - kafkaops.cluster developers (@kafkaops)
options:
  files:
    description:
      - Paths to look at. The content of a regular file is returned when it is at most
        O(max_size) bytes.
    type: list
    elements: path
    default: []
  max_size:
    description: Largest file, in bytes, whose content is returned; 0 or more.
    type: int
    default: 65536
  settings:
    description:
      - Java properties files (such as a broker's C(server.properties)) to read only some settings of,
        as a mapping of path to the setting names wanted.
      - The file's text never leaves the host, so settings beside the wanted ones (a JAAS line with a
        password, a keystore password) stay out of the result and out of the play's output. Use it
        instead of O(files) for any file that may hold a secret.
    type: dict
    default: {}
  users:
    description: Names of users to look up.
    type: list
    elements: str
    default: []
  groups:
    description: Names of groups to look up.
    type: list
    elements: str
    default: []
  units:
    description: Names of systemd units (C(.service) is implied when no suffix is given).
    type: list
    elements: str
    default: []
  names:
    description:
      - Host names (or addresses) to resolve on this host, as the services it runs will resolve
        them (the system resolver, so C(/etc/hosts) and DNS both count).
      - A role checks with it that every peer address its configuration files will name resolves
        on every node, before it changes anything.
    type: list
    elements: str
    default: []
extends_documentation_fragment:
  - kafkaops.cluster.read_only
"""

EXAMPLES = r"""
- name: Read the node's id, its account and its unit in one go
  kafkaops.cluster.host_state_info:
    files: [/var/lib/zookeeper/myid, /etc/systemd/system/zookeeper.service]
    users: [zookeeper]
    groups: [zookeeper]
    units: [zookeeper]
    names: [zk-a.example.net, zk-b.example.net, zk-c.example.net]
  register: node_state

- name: Every peer resolves on this node
  ansible.builtin.assert:
    that: node_state.names.values() | select('equalto', []) | list | length == 0

- name: Start ZooKeeper only when it is not running and enabled already
  ansible.builtin.systemd_service:
    name: zookeeper
    state: started
    enabled: true
  when: not (node_state.units.zookeeper.active and node_state.units.zookeeper.enabled)
"""

RETURN = r"""
files:
  description: One entry per path of O(files).
  returned: always
  type: dict
  sample:
    /var/lib/zookeeper/myid: {exists: true, type: file, size: 2, content: "1\n"}
    /etc/zookeeper/.restart-pending: {exists: false, type: null, size: null, content: null}
  contains:
    exists:
      description: Whether the path exists.
      type: bool
    type:
      description: C(file), C(directory), C(link) or C(other); null when missing.
      type: str
    size:
      description: Size in bytes; null when missing.
      type: int
    content:
      description: Text of a regular file of at most O(max_size) bytes (undecodable bytes replaced); else null.
      type: str
settings:
  description: One entry per path of O(settings).
  returned: always
  type: dict
  sample:
    /etc/kafka/broker-1/server.properties: {exists: true, values: {process.roles: broker}}
  contains:
    exists:
      description: Whether the file exists.
      type: bool
    values:
      description: The wanted settings the file sets, by name; a setting it does not set is left out.
      type: dict
users:
  description: One entry per name of O(users).
  returned: always
  type: dict
  sample:
    zookeeper: {exists: true, uid: 999, gid: 999, group: zookeeper, home: /var/lib/zookeeper, shell: /usr/sbin/nologin}
  contains:
    exists:
      description: Whether the user exists.
      type: bool
    uid:
      description: User id.
      type: int
    gid:
      description: Primary group id.
      type: int
    group:
      description: Name of the primary group (null when the group id has no name).
      type: str
    home:
      description: Home folder.
      type: str
    shell:
      description: Login shell.
      type: str
groups:
  description: One entry per name of O(groups).
  returned: always
  type: dict
  sample:
    zookeeper: {exists: true, gid: 999}
  contains:
    exists:
      description: Whether the group exists.
      type: bool
    gid:
      description: Group id.
      type: int
units:
  description: One entry per name of O(units), as given.
  returned: always
  type: dict
  sample:
    zookeeper: {loaded: true, active: true, enabled: true, active_state: active, unit_file_state: enabled}
  contains:
    loaded:
      description: Whether systemd knows the unit (its file exists and was loaded).
      type: bool
    active:
      description: Whether the unit is active (running).
      type: bool
    enabled:
      description: Whether the unit starts at boot.
      type: bool
    active_state:
      description: systemd's ActiveState, such as C(active), C(inactive), C(failed), C(activating).
      type: str
    unit_file_state:
      description: systemd's UnitFileState, such as C(enabled), C(disabled); empty when unknown.
      type: str
names:
  description: One entry per name of O(names), as given; the addresses it resolves to, empty when it does not resolve.
  returned: always
  type: dict
  sample:
    kafka-a: [192.0.2.11]
    kafka-b: []
"""

import grp
import os
import pwd
import socket
import stat

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_text
from ansible_collections.kafkaops.cluster.plugins.module_utils._java_properties import parse_java_properties
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import (
    NumberLimit,
    fail_on_out_of_range,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._systemctl import parse_show, show_command

UNIT_PROPERTIES = ("LoadState", "ActiveState", "UnitFileState")
LIMITS = dict(max_size=NumberLimit(minimum=0))


def read_path(path, max_size):
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return {"exists": False, "type": None, "size": None, "content": None}
    if stat.S_ISREG(status.st_mode):
        kind = "file"
    elif stat.S_ISDIR(status.st_mode):
        kind = "directory"
    elif stat.S_ISLNK(status.st_mode):
        kind = "link"
    else:
        kind = "other"
    content = None
    if kind == "file" and status.st_size <= max_size:
        with open(path, "rb") as handle:
            content = to_text(handle.read(max_size + 1), errors="surrogate_then_replace")
    return {"exists": True, "type": kind, "size": status.st_size, "content": content}


def read_settings(path, names, max_size):
    """The settings `names` of a Java properties file, without the rest of its text."""
    found = read_path(path, max_size)
    if found["exists"] and found["content"] is None:
        raise ValueError("%s is not a regular file of at most max_size (%d) bytes" % (path, max_size))
    values = parse_java_properties(found["content"] or "")
    return {"exists": found["exists"], "values": dict((name, values[name]) for name in names if name in values)}


def read_user(name):
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        return {"exists": False, "uid": None, "gid": None, "group": None, "home": None, "shell": None}
    try:
        group = grp.getgrgid(entry.pw_gid).gr_name
    except KeyError:
        group = None
    return {"exists": True, "uid": entry.pw_uid, "gid": entry.pw_gid, "group": group,
            "home": entry.pw_dir, "shell": entry.pw_shell}


def read_group(name):
    try:
        return {"exists": True, "gid": grp.getgrnam(name).gr_gid}
    except KeyError:
        return {"exists": False, "gid": None}


def parse_unit(output):
    """systemctl show's KEY=value lines as a unit state dict."""
    values = parse_show(output)
    active_state = values.get("ActiveState", "")
    unit_file_state = values.get("UnitFileState", "")
    return {"loaded": values.get("LoadState") == "loaded", "active": active_state == "active",
            "enabled": unit_file_state == "enabled", "active_state": active_state,
            "unit_file_state": unit_file_state}


def read_unit(module, systemctl, name):
    command = show_command(systemctl, name, UNIT_PROPERTIES)
    code, output, error = module.run_command(command)
    if code != 0:
        module.fail_json(msg="units: '%s' failed (%d): %s" % (" ".join(command), code, error.strip()))
    return parse_unit(output)


def resolve(name):
    """The addresses the system resolver gives for a name; empty when it gives none."""
    try:
        answers = socket.getaddrinfo(name, None, 0, socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return []
    return sorted(set(answer[4][0] for answer in answers))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            files=dict(type="list", elements="path", default=[]),
            max_size=dict(type="int", default=65536),
            settings=dict(type="dict", default={}),
            users=dict(type="list", elements="str", default=[]),
            groups=dict(type="list", elements="str", default=[]),
            units=dict(type="list", elements="str", default=[]),
            names=dict(type="list", elements="str", default=[]),
        ),
        supports_check_mode=True,
    )
    params = module.params
    fail_on_out_of_range(module, LIMITS)
    result = {"changed": False, "units": {}}
    try:
        result["files"] = {path: read_path(path, params["max_size"]) for path in params["files"]}
    except OSError as error:
        module.fail_json(msg="files: cannot read %s: %s" % (error.filename, error.strerror))
    for path, names in params["settings"].items():
        if not isinstance(names, list) or not all(isinstance(name, str) and name for name in names):
            module.fail_json(msg="settings: the value for %s must be a list of setting names, got %r" % (path, names))
    try:
        result["settings"] = dict((path, read_settings(path, names, params["max_size"]))
                                  for path, names in params["settings"].items())
    except OSError as error:
        module.fail_json(msg="settings: cannot read %s: %s" % (error.filename, error.strerror))
    except ValueError as error:
        module.fail_json(msg="settings: %s" % error)
    result["users"] = {name: read_user(name) for name in params["users"]}
    result["groups"] = {name: read_group(name) for name in params["groups"]}
    if params["units"]:
        systemctl = module.get_bin_path("systemctl", required=True)
        result["units"] = {name: read_unit(module, systemctl, name) for name in params["units"]}
    result["names"] = {name: resolve(name) for name in params["names"]}
    module.exit_json(**result)


if __name__ == "__main__":
    main()
