#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: kafka_features
short_description: Describe and finalize Kafka's feature levels (metadata.version, transaction.version, ...)
version_added: "0.1.0"
description:
  - Reads the levels the cluster has finalized for each feature (C(metadata.version), C(kraft.version),
    C(eligible.leader.replicas.version), C(transaction.version), C(group.version), C(share.version), and
    whatever else the brokers list) and the range every broker supports, and raises them to the levels
    asked for, speaking the Kafka protocol through kafka-python (ApiVersions, UpdateFeatures). With no
    level asked for and no O(upgrade_to_latest), it only describes.
  - Each broker is asked on its own what it supports (its ApiVersions answer), so a level is never
    finalized past the lowest maximum of all brokers; the brokers that limit it are named. The controllers
    cannot be asked so (the admin client reaches only brokers); the controller checks every registered
    broker and controller itself, and the module sends every change first with validate_only (in check
    mode too), so a level a controller cannot run is refused with nothing changed.
  - Refused before any change, naming the feature as C(features.<name>) and the reason - a feature no
    broker knows, a level beyond what a broker supports (naming the broker and its highest level), a level
    below a broker's lowest, a level lower than the finalized one without O(allow_downgrade), a level that
    is not a number. All changes go in one request, which Kafka applies whole or not at all.
  - Levels are numbers. C(metadata.version)'s levels also have release names (C(4.4-IV0)); this module does
    not translate them, and says so when given one. C(kafka-features.sh version-mapping --release-version 4.4)
    prints the levels of a release.
  - Idempotent - a feature already at the level asked for is left alone, so a second run changes nothing.
    After a change the module waits (up to O(request_timeout)) until every broker reports the new levels.
author:
  - kafkaops.cluster developers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.cluster.kafka_connection
options:
  features:
    description:
      - The level to finalize each feature at, as a mapping of feature name to level (a whole number;
        V(0) takes a feature back to not finalized, which is a downgrade).
      - A feature not named here is left as it is, unless O(upgrade_to_latest) is set.
    type: dict
    default: {}
  upgrade_to_latest:
    description:
      - Also raise every feature not named in O(features) or O(keep) to the highest level every broker
        supports. Never lowers a level.
    type: bool
    default: false
  keep:
    description:
      - Features O(upgrade_to_latest) leaves at their finalized level. A level given in O(features) still applies.
    type: list
    elements: str
    default: []
  allow_downgrade:
    description:
      - V(never) refuses a level lower than the finalized one.
      - V(safe) asks Kafka for a downgrade that loses no metadata; Kafka refuses one it cannot do safely.
      - V(unsafe) asks for a downgrade even when metadata written for the higher level is lost.
    type: str
    choices: [never, safe, unsafe]
    default: never
attributes:
  check_mode:
    description: Reads every broker and predicts the change; the controller validates it without applying it.
    support: full
  diff_mode:
    description: Shows every feature's finalized level before and after.
    support: full
notes:
  - Needs the ALTER operation on the CLUSTER resource (and DESCRIBE to read) when the cluster has an authorizer.
  - A broker that is registered but not running (fenced) cannot say what it supports, and the module then
    refuses to change anything; start it first.
  - Brokers before Kafka 3.9 (ApiVersions below version 4) do not list features whose lowest level is 0;
    the module then takes them for features that broker does not know.
seealso:
  - module: kafkaops.cluster.kafka_cluster_info
"""

EXAMPLES = r"""
- name: Read the finalized levels and what every broker supports
  kafkaops.cluster.kafka_features:
    bootstrap_servers: ["kafka1:9092"]
  register: features

- name: Pin transaction.version at 2, in check mode first
  kafkaops.cluster.kafka_features:
    bootstrap_servers: ["kafka1:9092"]
    features:
      transaction.version: 2
  check_mode: true
  diff: true

- name: After an upgrade, raise every feature to the highest level all brokers run, but kraft.version
  kafkaops.cluster.kafka_features:
    bootstrap_servers: ["kafka1:9092"]
    upgrade_to_latest: true
    keep: [kraft.version]

- name: Take group.version back down, losing nothing (Kafka refuses when it would)
  kafkaops.cluster.kafka_features:
    bootstrap_servers: ["kafka1:9092"]
    features:
      group.version: 0
    allow_downgrade: safe
"""

RETURN = r"""
features:
  description:
    - Every feature the brokers know or the cluster finalized, with its finalized level after the run (in check
      mode, as it would be; 0 when not finalized), the range every broker supports, and the brokers whose highest
      level is that range's top when the brokers differ.
  returned: always
  type: dict
  sample:
    metadata.version: {finalized: 29, supported: {min: 7, max: 29}, limited_by: []}
    transaction.version: {finalized: 2, supported: {min: 0, max: 2}, limited_by: []}
changes:
  description: The features changed (or that would be in check mode), each with its levels and the kind of change.
  returned: always
  type: list
  elements: dict
  sample: [{feature: transaction.version, before: 0, after: 2, type: upgrade}]
"""

from ansible_collections.kafkaops.cluster.plugins.module_utils._admin_module import KafkaAdminModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._features import (
    check_feature_inputs,
    run_features,
)

ARGUMENT_SPEC = dict(
    features=dict(type="dict", default={}),
    upgrade_to_latest=dict(type="bool", default=False),
    keep=dict(type="list", elements="str", default=[]),
    allow_downgrade=dict(type="str", default="never", choices=["never", "safe", "unsafe"]),
)


def main():
    module = KafkaAdminModule(ARGUMENT_SPEC)
    module.run(run_features, check_inputs=check_feature_inputs, result=dict(changed=False, features={}, changes=[]))


if __name__ == "__main__":
    main()
