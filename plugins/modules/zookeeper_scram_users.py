#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: zookeeper_scram_users
short_description: SCRAM users of a ZooKeeper-mode Kafka cluster, written into ZooKeeper before the brokers run
version_added: "0.5.0"
description:
  - Makes sure each user of O(users) has a SCRAM credential for O(mechanism) in the cluster's ZooKeeper, where
    ZooKeeper-mode brokers read them (the user's configuration znode C(<chroot>/config/users/<name>)). A broker
    whose listener between brokers uses SASL needs its own user there before it can reach the others, so
    this runs before any broker starts; C(kafkaops.cluster.kafka_user) manages users of a running cluster.
  - A user that has a credential for O(mechanism) is left as it is (its password is not compared unless
    O(compare_passwords) is set); the other settings of a user's configuration are kept.
  - Writes what Kafka's own tools write there, with the standard library alone over ZooKeeper's protocol (no
    Java tool) - the credential text C(salt=...,stored_key=...,server_key=...,iterations=...) (RFC 5802; the
    password never leaves the task) and a change notification under C(<chroot>/config/changes) that running
    brokers act on. Missing parents, the chroot's levels included, are made as a broker makes them.
  - With O(sasl_user) the session logs in with SASL DIGEST-MD5 as the brokers do (their JAAS C(Client) login),
    and every znode it makes gets the ACL a broker with C(zookeeper.set.acl=true) gives it, all rights for that
    user and read for anyone, except below C(/config/users), which only the user can read. Without a login,
    znodes are open to anyone, as a broker without C(zookeeper.set.acl) makes them.
author:
  - kafkaops.cluster developers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.cluster.zookeeper_session
options:
  chroot:
    description:
      - The cluster's path in ZooKeeper (the chroot of the brokers' C(zookeeper.connect)), such as C(/kafka);
        empty for the root.
    type: str
    default: ""
  users:
    description: The users each to have a credential.
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: The user name (letters, digits, C(.), C(_), C(-)).
        type: str
        required: true
      password:
        description: Its password. It appears in no output.
        type: str
        required: true
  mechanism:
    description: The SCRAM mechanism of the credentials.
    type: str
    choices: [SCRAM-SHA-256, SCRAM-SHA-512]
    default: SCRAM-SHA-512
  iterations:
    description: PBKDF2 iterations of a new credential, 4096 to 16384 (Kafka's limits).
    type: int
    default: 8192
  compare_passwords:
    description:
      - Also check that an existing credential was made from the given password, and write a new one where it
        was not. Off by default, because a cluster's passwords are changed through the brokers
        (C(kafkaops.cluster.kafka_user)) while they run.
    type: bool
    default: false
attributes:
  check_mode:
    description: Reads ZooKeeper and says which users would get a credential, but writes nothing.
    support: full
  diff_mode:
    description: Shows the users with a credential for O(mechanism) before and after.
    support: full
"""

EXAMPLES = r"""
- name: The brokers' inter-broker and admin users, before the first broker starts
  kafkaops.cluster.zookeeper_scram_users:
    servers: ["zk1:2181", "zk2:2181", "zk3:2181"]
    chroot: /kafka
    users:
      - {name: broker, password: "{{ inter_broker_password }}"}
      - {name: admin, password: "{{ admin_password }}"}
    sasl_user: kafka
    sasl_password: "{{ zookeeper_kafka_password }}"
"""

RETURN = r"""
created:
  description: The users that got a credential for O(mechanism) (in check mode, that would).
  returned: success
  type: list
  elements: str
  sample: [broker, admin]
present:
  description: The users that had one already and were left as they are.
  returned: success
  type: list
  elements: str
server:
  description: The ZooKeeper node that served the session.
  returned: success
  type: str
"""

import json
import re

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._scram import (
    MAX_ITERATIONS,
    MIN_ITERATIONS,
    credential_text,
    matches,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._zookeeper_client import (
    CREATOR_ALL_ACL,
    OPEN_ACL_UNSAFE,
    READ_ACL_UNSAFE,
    ZooKeeperClientError,
    open_session,
    session_argument_spec,
    session_input_problem,
)

USER_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
# Paths (below the chroot) whose znodes a broker that sets ACLs keeps from being read by anyone else: users'
# and brokers' configurations (credentials, passwords) and delegation tokens.
SENSITIVE_ROOTS = ("/config/users", "/config/brokers", "/delegation_token/tokens")


def default_acl(secure, path):
    """The ACL a broker gives a znode it makes at `path` (below the chroot)."""
    if not secure:
        return OPEN_ACL_UNSAFE
    if any(path.startswith(root) for root in SENSITIVE_ROOTS):
        return CREATOR_ALL_ACL
    return CREATOR_ALL_ACL + READ_ACL_UNSAFE


def make_parents(client, chroot, path, secure, made):
    """Each missing level of the chroot and of `path` below it, from the top, with the ACL a broker gives it;
    `made` holds the paths this session knows to exist, so each is looked up once."""
    levels = [part for part in chroot.split("/") if part]
    wanted = [("/" + "/".join(levels[:depth]), "/") for depth in range(1, len(levels) + 1)]
    levels = [part for part in path.split("/") if part]
    wanted += [(chroot + "/" + "/".join(levels[:depth]), "/" + "/".join(levels[:depth]))
               for depth in range(1, len(levels) + 1)]
    for full, below_chroot in wanted:
        if full not in made and client.get(full) is None:
            client.create(full, b"", default_acl(secure, below_chroot))
        made.add(full)


def read_config(client, path):
    """(the user's configuration dict, the znode's version), or ({}, None) when it has no znode."""
    found = client.get(path)
    if found is None:
        return {}, None
    data, stat = found
    try:
        value = json.loads((data or b"{}").decode("utf-8"))
    except ValueError:
        raise ZooKeeperClientError("%s: its data is not the JSON a Kafka configuration znode holds" % path) from None
    config = value.get("config") if isinstance(value, dict) else None
    return (config if isinstance(config, dict) else {}), stat["version"]


def check_input(module):
    params = module.params
    problem = session_input_problem(params)
    if problem:
        module.fail_json(msg=problem)
    chroot = params["chroot"]
    if chroot and (not chroot.startswith("/") or chroot.endswith("/") or "//" in chroot or " " in chroot):
        module.fail_json(msg="chroot: %r is not empty or an absolute path without a trailing slash, such as /kafka"
                         % chroot)
    seen = set()
    for index, user in enumerate(params["users"]):
        if not USER_NAME.match(user["name"] or ""):
            module.fail_json(msg="users[%d].name: %r is not a user name of letters, digits, '.', '_' or '-'"
                             % (index, user["name"]))
        if user["name"] in seen:
            module.fail_json(msg="users[%d].name: %s is listed twice" % (index, user["name"]))
        seen.add(user["name"])
        if not user["password"]:
            module.fail_json(msg="users[%d].password: empty; user %s needs a password" % (index, user["name"]))
    if not MIN_ITERATIONS <= params["iterations"] <= MAX_ITERATIONS:
        module.fail_json(msg="iterations: expected %d to %d (Kafka's limits), got %d"
                         % (MIN_ITERATIONS, MAX_ITERATIONS, params["iterations"]))


def main():
    module = AnsibleModule(
        argument_spec=session_argument_spec(
            chroot=dict(type="str", default=""),
            users=dict(type="list", elements="dict", required=True, options=dict(
                name=dict(type="str", required=True),
                password=dict(type="str", required=True, no_log=True),
            )),
            mechanism=dict(type="str", choices=["SCRAM-SHA-256", "SCRAM-SHA-512"], default="SCRAM-SHA-512"),
            iterations=dict(type="int", default=8192),
            compare_passwords=dict(type="bool", default=False),
        ),
        required_together=[("sasl_user", "sasl_password")],
        supports_check_mode=True,
    )
    params = module.params
    check_input(module)
    chroot, mechanism = params["chroot"], params["mechanism"]
    secure = params["sasl_user"] is not None
    created, present, made = [], [], set()
    try:
        with open_session(params) as client:
            for user in params["users"]:
                path = "%s/config/users/%s" % (chroot, user["name"])
                config, version = read_config(client, path)
                current = config.get(mechanism)
                if current and (not params["compare_passwords"] or matches(current, user["password"], mechanism)):
                    present.append(user["name"])
                    continue
                created.append(user["name"])
                if module.check_mode:
                    continue
                config = dict(config, **{mechanism: credential_text(user["password"], mechanism, params["iterations"])})
                data = json.dumps({"version": 1, "config": config}, separators=(",", ":")).encode("utf-8")
                if version is None:
                    make_parents(client, chroot, "/config/users", secure, made)
                    client.create(path, data, default_acl(secure, "/config/users/" + user["name"]))
                else:
                    client.set_data(path, data, version)
                make_parents(client, chroot, "/config/changes", secure, made)
                notice = json.dumps({"version": 2, "entity_path": "users/" + user["name"]}, separators=(",", ":"))
                client.create(chroot + "/config/changes/config_change_", notice.encode("utf-8"),
                              default_acl(secure, "/config/changes/config_change_"), sequential=True)
            server = client.server
    except ZooKeeperClientError as error:
        module.fail_json(msg=str(error), created=created)
    result = dict(changed=bool(created), created=created, present=present, server=server)
    if module._diff:
        result["diff"] = {"before": {"users": sorted(present)}, "after": {"users": sorted(present + created)}}
    module.exit_json(**result)


if __name__ == "__main__":
    main()
