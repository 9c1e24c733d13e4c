#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: kafka_acl
short_description: Declare Kafka ACLs for principals and resources, optionally as the only ones they have
version_added: "0.2.0"
description:
  - Makes the ACLs of a Kafka cluster match a declaration, speaking the Kafka protocol through
    kafka-python's admin client. No JVM tool runs.
  - With O(state=present) creates the declared ACLs that are missing; with O(state=absent) deletes
    exactly the declared ACLs that exist.
  - With O(exclusive=true) the declaration is the whole truth for its scope (see O(exclusive_scope)),
    and every other ACL of the declared principals, or on the declared resources, is deleted.
  - However many ACLs are declared, the module sends one DescribeAcls per declared principal (or
    resource), then at most one CreateAcls with every missing ACL and one DeleteAcls with every ACL to
    remove. New ACLs are created before old ones are deleted, so a principal whose ACLs are replaced
    never goes without either set.
  - Every entry is checked before the module connects - the principal's form, the names of the
    operation, permission, resource type and pattern type, an operation that does not apply to the
    resource type (Kafka's own table), and duplicates. A refusal names the entry, such as
    C(acls[2].operation), and changes nothing.
  - Only reports C(changed) when the cluster differs from the declaration; check mode predicts the
    same result, and diff mode shows the scope's ACLs before and after, one per line.
author:
  - kafkaops.cluster developers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.cluster.kafka_connection
options:
  acls:
    description:
      - The ACLs to declare. Each says that O(acls[].principal) connecting from O(acls[].host) is
        allowed (or denied) O(acls[].operation) on the resources O(acls[].resource_type) named
        O(acls[].resource_name) (exactly, or by prefix).
      - Names are taken in any case and with C(-), C(_) or CamelCase between words, as Kafka's tools
        print them (V(IdempotentWrite), V(IDEMPOTENT_WRITE) and V(idempotent_write) are the same); the
        result spells them in lower case with C(_).
      - Two entries that declare the same ACL are refused.
    type: list
    elements: dict
    required: true
    suboptions:
      principal:
        description:
          - Who the ACL is for, as C(Type:name), for example V(User:alice), or V(User:*) for every user.
          - Required.
        type: str
      host:
        description:
          - The client address the ACL applies to, or V(*) (the default when left out) for any.
        type: str
      operation:
        description:
          - One of V(all), V(read), V(write), V(create), V(delete), V(alter), V(describe),
            V(cluster_action), V(describe_configs), V(alter_configs), V(idempotent_write). Required.
          - It must apply to the resource type (V(all) applies to every type). A V(topic) takes read,
            write, create, delete, alter, describe, describe_configs and alter_configs; a V(group) read,
            delete and describe; the V(cluster) create, alter, describe, cluster_action,
            describe_configs, alter_configs and idempotent_write; a V(transactional_id) write and
            describe; a V(delegation_token) describe.
        type: str
      permission:
        description:
          - V(allow) (the default when left out) or V(deny). A deny wins over any allow.
        type: str
      resource_type:
        description:
          - One of V(topic), V(group), V(cluster), V(transactional_id), V(delegation_token). Required.
        type: str
      resource_name:
        description:
          - The resource's name, or V(*) with O(acls[].pattern_type=literal) for every resource of the type.
          - Required except for the V(cluster), whose only name is V(kafka-cluster) (the default for it).
        type: str
      pattern_type:
        description:
          - V(literal) (the default when left out) matches the name exactly; V(prefixed) matches every
            resource whose name starts with O(acls[].resource_name). The V(cluster) takes only V(literal).
        type: str
  state:
    description:
      - V(present) creates the declared ACLs that are missing.
      - V(absent) deletes exactly the declared ACLs that exist, and nothing else.
    type: str
    choices: [present, absent]
    default: present
  exclusive:
    description:
      - With O(state=present), also delete every ACL of the scope (O(exclusive_scope)) that is not
        declared, so the declaration is all the scope holds.
      - Refused with O(state=absent), and with an empty O(acls) (there would be no scope to bound it).
      - Beware of declaring the principal the module connects as with O(exclusive_scope=principal)
        and without its own ACLs, unless it is a super user.
    type: bool
    default: false
  exclusive_scope:
    description:
      - Which ACLs the declaration is compared with, shown in diff mode, and, with O(exclusive=true), removed
        when not declared.
      - V(principal) - every ACL of each principal named in O(acls), on any resource and from any host.
      - V(resource) - every ACL, of any principal, on each resource pattern named in O(acls) (its
        type, name and pattern type exactly, so V(prefixed) C(orders) and V(literal) C(orders) are
        different resources).
    type: str
    choices: [principal, resource]
    default: principal
attributes:
  check_mode:
    description: Reads the ACLs and computes the change, but creates and deletes nothing.
    support: full
  diff_mode:
    description: Shows the scope's ACLs before and after, one per line, sorted.
    support: full
notes:
  - The brokers need an authorizer (C(authorizer.class.name)); without one the cluster keeps no ACLs
    and the module fails saying so.
  - The principal the module connects as needs C(describe) on the cluster to read ACLs and C(alter) to
    change them, or to be one of the brokers' C(super.users).
  - With ZooKeeper each broker learns of an ACL change through ZooKeeper a moment after it is made, and
    reads go to any broker, so a run started right after a change may still see the ACLs from before
    and report a change it then makes again harmlessly (creating an ACL that exists, or deleting one
    that is gone, changes nothing).
seealso:
  - module: kafkaops.cluster.kafka_topic
"""

EXAMPLES = r"""
- name: Let the orders service produce to and consume from its topics
  kafkaops.cluster.kafka_acl:
    bootstrap_servers: kafka1:9092
    acls:
      - principal: User:orders
        operation: write
        resource_type: topic
        resource_name: orders.
        pattern_type: prefixed
      - principal: User:orders
        operation: read
        resource_type: topic
        resource_name: orders.
        pattern_type: prefixed
      - principal: User:orders
        operation: read
        resource_type: group
        resource_name: orders-service
      - principal: User:orders
        operation: idempotent_write
        resource_type: cluster

- name: These are all the ACLs User:reporting has; any other of its ACLs is removed
  kafkaops.cluster.kafka_acl:
    bootstrap_servers: kafka1:9092
    exclusive: true
    acls:
      - principal: User:reporting
        operation: read
        resource_type: topic
        resource_name: orders.daily
      - principal: User:reporting
        operation: read
        resource_type: group
        resource_name: reporting

- name: Only these principals may read the payments topic
  kafkaops.cluster.kafka_acl:
    bootstrap_servers: kafka1:9092
    exclusive: true
    exclusive_scope: resource
    acls:
      - {principal: "User:payments", operation: read, resource_type: topic, resource_name: payments}
      - {principal: "User:audit", operation: read, resource_type: topic, resource_name: payments}

- name: Remove one ACL
  kafkaops.cluster.kafka_acl:
    bootstrap_servers: kafka1:9092
    state: absent
    acls:
      - {principal: "User:legacy", operation: all, resource_type: topic, resource_name: "*"}
"""

RETURN = r"""
acls:
  description: The declared ACLs, with defaults filled in and names in lower case.
  returned: always
  type: list
  elements: dict
  sample:
    - principal: User:alice
      host: "*"
      operation: read
      permission: allow
      resource_type: topic
      resource_name: orders
      pattern_type: literal
created:
  description: The ACLs created (or that would be in check mode), with the keys of O(acls).
  returned: always
  type: list
  elements: dict
deleted:
  description: The ACLs deleted (or that would be in check mode), with the keys of O(acls).
  returned: always
  type: list
  elements: dict
"""

from ansible_collections.kafkaops.cluster.plugins.module_utils._acl_changes import SCOPES
from ansible_collections.kafkaops.cluster.plugins.module_utils._acls import (
    check_acl_inputs,
    run_acl,
    unchanged_acl_result,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._admin_module import KafkaAdminModule

# The items' values are checked by check_acl_inputs, not by choices here: it takes the spellings of
# Kafka's tools and names the entry that is wrong (acls[2].operation).
ACL_SPEC = dict((key, dict(type="str")) for key in (
    "principal", "host", "operation", "permission", "resource_type", "resource_name", "pattern_type"))
ARGUMENT_SPEC = dict(
    acls=dict(type="list", elements="dict", required=True, options=ACL_SPEC),
    state=dict(type="str", default="present", choices=["present", "absent"]),
    exclusive=dict(type="bool", default=False),
    exclusive_scope=dict(type="str", default="principal", choices=list(SCOPES)),
)


def main():
    module = KafkaAdminModule(ARGUMENT_SPEC, unexpected="Kafka ACL request failed")
    module.run(run_acl, check_inputs=check_acl_inputs, result=unchanged_acl_result())


if __name__ == "__main__":
    main()
