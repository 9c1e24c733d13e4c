#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: zookeeper_znode
short_description: Read znodes of a ZooKeeper ensemble, or delete them
version_added: "0.4.0"
description:
  - Reads the given znodes (their data, version and children) in one session with the first node of
    O(servers) that answers, or deletes them with O(state=absent).
  - Made for what a ZooKeeper-to-KRaft migration looks at and cleans up (C(/cluster/id), C(/controller),
    C(/migration), C(/brokers/ids)); the playbook C(kafkaops.cluster.migrate_to_kraft) uses it.
  - Deletes one znode at a time, without its children (a znode with children is refused, named).
  - Logs in with SASL DIGEST-MD5 when given O(sasl_user) and O(sasl_password), as a Kafka broker does. A znode
    whose ACL does not allow the session a request (deleting needs the delete permission on the parent znode)
    fails the task saying so.
  - Needs only the Python standard library on the host it runs on.
author:
  - kafkaops.cluster developers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.cluster.zookeeper_session
options:
  paths:
    description: Absolute znode paths, such as C(/cluster/id).
    type: list
    elements: str
    required: true
  state:
    description:
      - C(read) returns the znodes and changes nothing.
      - C(absent) deletes those that exist (changed when one did).
    type: str
    choices: [read, absent]
    default: read
  children:
    description: With O(state=read), also return each znode's children.
    type: bool
    default: false
attributes:
  check_mode:
    description: Reads the znodes and says which would be deleted, but deletes nothing.
    support: full
  diff_mode:
    description: Shows the paths that exist before and after.
    support: full
"""

EXAMPLES = r"""
- name: Read the cluster id and the migration state ZooKeeper holds
  kafkaops.cluster.zookeeper_znode:
    servers: ["zk1:2181", "zk2:2181", "zk3:2181"]
    paths: [/cluster/id, /migration]
  register: znodes

- name: Let a ZooKeeper-mode broker become the controller again (a migration's rollback)
  kafkaops.cluster.zookeeper_znode:
    servers: ["zk1:2181"]
    paths: [/controller, /migration]
    state: absent

- name: The same where the brokers log in and set ACLs (zookeeper.set.acl=true) below the chroot /kafka
  kafkaops.cluster.zookeeper_znode:
    servers: ["zk1:2181", "zk2:2181", "zk3:2181"]
    paths: [/kafka/controller, /kafka/migration]
    state: absent
    sasl_user: kafka
    sasl_password: "{{ zookeeper_kafka_password }}"
"""

RETURN = r"""
znodes:
  description:
    - Per path, whether it exists; for one that does, C(data) (text, null for no data), C(value) (the
      data read as JSON, null when it is not JSON), C(version), C(ephemeral_owner) (the session
      owning an ephemeral znode, 0 for a persistent one) and, with O(children), C(children).
    - With O(state=absent), the znodes as they were before the deletion.
  returned: success
  type: dict
  sample:
    /cluster/id:
      exists: true
      data: '{"version":"1","id":"q1Sh-9_ISia_zwGINzRvyQ"}'
      value: {version: "1", id: q1Sh-9_ISia_zwGINzRvyQ}
      version: 0
      ephemeral_owner: 0
    /migration:
      exists: false
deleted:
  description: With O(state=absent), the paths deleted (or, in check mode, that would be).
  returned: success
  type: list
  elements: str
server:
  description: The node that served the session.
  returned: success
  type: str
"""

import json

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._zookeeper_client import (
    ZooKeeperClientError,
    open_session,
    session_argument_spec,
    session_input_problem,
)


def describe(client, path, with_children):
    found = client.get(path)
    if found is None:
        return {"exists": False}
    data, stat = found
    text = None if data is None else data.decode("utf-8", "replace")
    try:
        value = json.loads(text) if text else None
    except ValueError:
        value = None
    node = {"exists": True, "data": text, "value": value, "version": stat["version"],
            "ephemeral_owner": stat["ephemeral_owner"]}
    if with_children:
        node["children"] = client.children(path) or []
    return node


def check_input(module):
    params = module.params
    for path in params["paths"]:
        if not path.startswith("/") or (len(path) > 1 and path.endswith("/")) or "//" in path:
            module.fail_json(msg="paths: %r is not an absolute znode path such as /cluster/id" % path)
    problem = session_input_problem(params)
    if problem:
        module.fail_json(msg=problem)


def main():
    module = AnsibleModule(
        argument_spec=session_argument_spec(
            paths=dict(type="list", elements="str", required=True),
            state=dict(type="str", choices=["read", "absent"], default="read"),
            children=dict(type="bool", default=False),
        ),
        required_together=[("sasl_user", "sasl_password")],
        supports_check_mode=True,
    )
    params = module.params
    check_input(module)
    try:
        with open_session(params) as client:
            znodes = dict((path, describe(client, path, params["children"] and params["state"] == "read"))
                          for path in params["paths"])
            result = dict(changed=False, znodes=znodes, server=client.server)
            if params["state"] == "absent":
                present = [path for path in params["paths"] if znodes[path]["exists"]]
                deleted = present if module.check_mode else [path for path in present if client.delete(path)]
                result.update(changed=bool(deleted), deleted=deleted)
                if module._diff:
                    result["diff"] = {"before": {"exist": present}, "after": {"exist": []}}
    except ZooKeeperClientError as error:
        module.fail_json(msg=str(error))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
