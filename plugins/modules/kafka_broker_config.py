#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: kafka_broker_config
short_description: Set Kafka's dynamic broker settings, cluster-wide or of one broker
version_added: "0.4.0"
description:
  - Sets and removes dynamic broker settings, the ones C(kafka-configs.sh --entity-type brokers) changes,
    speaking the Kafka protocol through kafka-python (DescribeConfigs, IncrementalAlterConfigs). No JVM
    tool runs and no broker restarts.
  - With O(broker=default) the settings are the cluster-wide defaults every broker takes unless it has its
    own; with a broker id they are that broker's own.
  - Only the settings in O(config) are looked at; others set at the same level are left as they are.
    A value of V(null) removes the setting at that level.
  - On Kafka 4.1 and later with eligible leader replicas (every new KRaft cluster), C(min.insync.replicas)
    of topics without their own value comes from the cluster-wide default and a broker's
    C(server.properties) value is ignored; the kafka_broker role sets it here for that reason.
  - Refuses a bad declaration (no settings, a broker that is neither V(default) nor an id, a list or
    mapping as a value) naming the field, before connecting. A setting the brokers cannot change
    dynamically, or a bad value, is refused by the brokers, in check mode too (validate only), with
    nothing changed.
author:
  - kafkaops.cluster developers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.cluster.kafka_connection
options:
  broker:
    description:
      - V(default) for the cluster-wide defaults, or the id of one broker.
    type: str
    default: default
  config:
    description:
      - The settings, as a mapping of name to value. Booleans are sent as V(true)/V(false), numbers as
        their text; V(null) removes the setting at this level.
    type: dict
    required: true
attributes:
  check_mode:
    description: Reads the settings and predicts the change; the brokers validate it without applying it.
    support: full
  diff_mode:
    description: Shows each changed setting before and after.
    support: full
notes:
  - Needs the ALTER_CONFIGS and DESCRIBE_CONFIGS operations on the CLUSTER resource when the cluster has
    an authorizer.
  - Sensitive settings (passwords) cannot be read back, so the module refuses to manage them.
seealso:
  - module: kafkaops.cluster.kafka_topic
"""

EXAMPLES = r"""
- name: The durability floor of every topic without its own
  kafkaops.cluster.kafka_broker_config:
    bootstrap_servers: kafka1:9092
    config:
      min.insync.replicas: 2

- name: A setting of broker 3 only, and one removed from it
  kafkaops.cluster.kafka_broker_config:
    bootstrap_servers: kafka1:9092
    broker: "3"
    config:
      log.cleaner.threads: 2
      message.max.bytes: null
"""

RETURN = r"""
broker:
  description: V(default) or the broker id whose settings were looked at.
  returned: always
  type: str
  sample: default
changes:
  description: The settings that changed (or would in check mode), with their new values (null when removed).
  returned: always
  type: dict
  sample: {min.insync.replicas: "2"}
"""

from ansible_collections.kafkaops.cluster.plugins.module_utils._admin_module import KafkaAdminModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._broker_configs import (
    check_broker_config_inputs,
    run_broker_config,
    unchanged_broker_config_result,
)

ARGUMENT_SPEC = dict(
    broker=dict(type="str", default="default"),
    config=dict(type="dict", required=True),
)


def main():
    module = KafkaAdminModule(ARGUMENT_SPEC)
    module.run(run_broker_config, check_inputs=lambda admin_module: check_broker_config_inputs(admin_module.params),
               result=unchanged_broker_config_result())


if __name__ == "__main__":
    main()
