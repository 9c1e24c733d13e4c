#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: kafka_user
short_description: Create, update and delete Kafka SASL/SCRAM users
version_added: "0.2.0"
description:
  - Manages the SCRAM credentials (SCRAM-SHA-512 or SCRAM-SHA-256) that clients log in with over
    SASL, speaking the Kafka protocol through kafka-python's admin client
    (DescribeUserScramCredentials and AlterUserScramCredentials). No JVM tool runs.
  - Declare one user with O(name) and O(password), or many with O(users). However many users are
    declared, the module sends one request to read the credentials and at most one to change them.
  - The cluster keeps a salted hash of each password, never the password, so a password cannot be
    read back and compared. What the module can compare is whether a user has a credential for a
    mechanism, and its iteration count. With O(update_password=on_create) a password is set only
    for a mechanism the user has no credential for, so re-runs report no change; with
    O(update_password=always) it is set on every run, and every run reports C(changed).
  - Passwords are never logged nor returned, and never appear in the diff or in a failure message.
  - Refuses a bad declaration (no name, no password for a user to create, a user declared twice
    for the same mechanism, an unknown mechanism, iterations outside 4096 to 16384) naming the
    field, before anything changes.
  - Works with ZooKeeper-mode and KRaft clusters from Kafka 2.7 on; the credentials can be managed
    whatever the listeners, a SASL listener is only needed to log in with them.
author:
  - kafkaops.cluster developers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.cluster.kafka_connection
options:
  name:
    description:
      - Name of the one user to manage. Use O(users) for several.
    type: str
  password:
    description:
      - Password of the user of O(name); required with O(state=present). Never logged.
      - Use O(users[].password) with O(users).
    type: str
  users:
    description:
      - Users to manage in one call. Where an item leaves out O(users[].mechanism),
        O(users[].iterations) or O(users[].state), the module-level option of the same name applies.
      - One user may be declared twice, once per mechanism.
    type: list
    elements: dict
    suboptions:
      name:
        description: Name of the user.
        type: str
      password:
        description: Password of the user; required with state V(present). Never logged.
        type: str
      mechanism:
        description: V(SCRAM-SHA-512) or V(SCRAM-SHA-256); as O(mechanism).
        type: str
      iterations:
        description: As O(iterations).
        type: int
      state:
        description: V(present) or V(absent); as O(state).
        type: str
  mechanism:
    description:
      - The SCRAM mechanism of the credential.
      - V(SCRAM-SHA-512) when not given with O(state=present). With O(state=absent), leaving it out
        removes the user's credentials for every mechanism, so that the user cannot log in any more.
    type: str
    choices: [SCRAM-SHA-512, SCRAM-SHA-256]
  iterations:
    description:
      - Iterations of the salted password hash for a credential that is set. Kafka accepts 4096 to
        16384; other numbers are refused before the cluster is contacted.
      - With O(update_password=on_create), an existing credential with another count is left alone
        (with a warning).
    type: int
    default: 4096
  state:
    description: V(present) to give the user a credential, V(absent) to remove it.
    type: str
    choices: [present, absent]
    default: present
  update_password:
    description:
      - V(on_create) sets the password only when the user has no credential for the mechanism; an
        existing password is left as it is, even if it differs from O(password).
      - V(always) sets the password (with a new salt) on every run and so always reports C(changed),
        since the module cannot tell whether the password is already the one declared.
    type: str
    choices: [on_create, always]
    default: on_create
attributes:
  check_mode:
    description: Reads the credentials and predicts the change, but changes nothing.
    support: full
  diff_mode:
    description: Shows each changed user's mechanisms and iteration counts before and after, never a password.
    support: full
notes:
  - Needs the ALTER and DESCRIBE operations on the CLUSTER resource when the cluster has an authorizer.
  - Reading the credentials lists those of every user, which needs no more permission than reading some.
seealso:
  - module: kafkaops.cluster.kafka_topic
"""

EXAMPLES = r"""
- name: A user for the orders service
  kafkaops.cluster.kafka_user:
    bootstrap_servers: kafka1:9092
    name: orders-service
    password: "{{ vault_orders_service_password }}"

- name: Several users; a password change is applied on every run with update_password=always
  kafkaops.cluster.kafka_user:
    bootstrap_servers: kafka1:9092
    update_password: always
    users:
      - name: alice
        password: "{{ vault_alice_password }}"
      - name: legacy-client
        password: "{{ vault_legacy_password }}"
        mechanism: SCRAM-SHA-256
        iterations: 8192
      - name: bob
        state: absent

- name: Over TLS, logged in as the admin user
  kafkaops.cluster.kafka_user:
    bootstrap_servers: kafka1:9094
    security_protocol: SASL_SSL
    sasl_mechanism: SCRAM-SHA-512
    sasl_username: admin
    sasl_password: "{{ vault_kafka_admin_password }}"
    ssl_cafile: /etc/kafka/ca.pem
    name: orders-service
    password: "{{ vault_orders_service_password }}"
"""

RETURN = r"""
users:
  description: Names of the users whose credentials changed (or would change in check mode).
  returned: always
  type: list
  elements: str
  sample: [alice]
created:
  description: Names of the users given a credential for a mechanism they had none for.
  returned: always
  type: list
  elements: str
updated:
  description: Names of the users whose existing credential was set again (O(update_password=always)).
  returned: always
  type: list
  elements: str
deleted:
  description: Names of the users whose credentials were removed.
  returned: always
  type: list
  elements: str
"""

from ansible_collections.kafkaops.cluster.plugins.module_utils._admin_module import KafkaAdminModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._user_changes import ITERATIONS, MECHANISMS
from ansible_collections.kafkaops.cluster.plugins.module_utils._users import (
    check_user_inputs,
    run_user,
    unchanged_user_result,
)

ARGUMENT_SPEC = dict(
    name=dict(type="str"),
    password=dict(type="str", no_log=True),
    # The items' mechanism and state are checked by the module, not by choices, so that a bad value
    # is named with its place in the list (users[2].mechanism), which Ansible's message leaves out.
    users=dict(type="list", elements="dict", options=dict(
        name=dict(type="str"),
        password=dict(type="str", no_log=True),
        mechanism=dict(type="str"),
        iterations=dict(type="int"),
        state=dict(type="str"),
    )),
    mechanism=dict(type="str", choices=list(MECHANISMS)),
    iterations=dict(type="int", default=4096),
    state=dict(type="str", default="present", choices=["present", "absent"]),
    # Says when to send the password; it is not a secret itself.
    update_password=dict(type="str", default="on_create", choices=["on_create", "always"], no_log=False),
)
LIMITS = dict(iterations=ITERATIONS)


def main():
    module = KafkaAdminModule(ARGUMENT_SPEC, limits=LIMITS, required_one_of=[("name", "users")],
                              mutually_exclusive=[("name", "users"), ("password", "users")])
    module.run(run_user, check_inputs=check_user_inputs, result=unchanged_user_result())


if __name__ == "__main__":
    main()
