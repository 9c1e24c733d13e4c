#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: kafka_broker_wait
short_description: Wait until a Kafka broker is registered and serving metadata, optionally in sync
version_added: "0.1.0"
description:
  - Asks one broker listener for cluster metadata until the broker's id is among the live brokers
    and a controller is known.
  - With O(in_sync=true) it also waits until no partition in the cluster is under-replicated,
    which is what a rolling restart must see before it touches the next broker.
  - Speaks the Kafka protocol (Metadata v1) with the Python standard library only, so it runs on
    broker hosts where no Kafka client library is installed. Use it on PLAINTEXT listeners;
    M(kafkaops.cluster.kafka_cluster_info) covers TLS and SASL from the controller.
author:
  - kafkaops.cluster developers (@kafkaops)
options:
  host:
    description: Address of the broker listener to ask.
    type: str
    default: 127.0.0.1
  port:
    description: Port of the broker listener to ask, from 1 to 65535.
    type: int
    required: true
  broker_id:
    description: The id that must appear among the registered brokers; 0 or more.
    type: int
    required: true
  in_sync:
    description: Also wait until no partition is under-replicated or offline.
    type: bool
    default: false
  timeout:
    description: Seconds to wait in all; at least 1.
    type: int
    default: 120
attributes:
  check_mode:
    description: Only reads; runs the same in check mode.
    support: full
  diff_mode:
    description: Changes nothing, so there is nothing to diff.
    support: none
"""

EXAMPLES = r"""
- name: Wait until broker 1 is registered and serving metadata
  kafkaops.cluster.kafka_broker_wait:
    port: 9092
    broker_id: 1

- name: Before the next restart, wait until every partition is fully replicated
  kafkaops.cluster.kafka_broker_wait:
    port: 9092
    broker_id: 1
    in_sync: true
    timeout: 600
"""

RETURN = r"""
broker_ids:
  description: Ids of the brokers registered in the cluster.
  returned: always
  type: list
  elements: int
  sample: [1, 2, 3]
controller_id:
  description: Id of the controller broker.
  returned: always
  type: int
under_replicated_partitions:
  description: Partitions (topic-partition) whose in-sync replicas are fewer than their replicas.
  returned: always
  type: list
  elements: str
offline_partitions:
  description: Partitions without a leader.
  returned: always
  type: list
  elements: str
elapsed:
  description: Seconds spent waiting.
  returned: always
  type: float
"""

import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_wire import (
    KafkaWireError,
    fetch_metadata,
    summarize,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import (
    PORT,
    NumberLimit,
    OptionValueError,
    check_limits,
)

LIMITS = dict(port=PORT, broker_id=NumberLimit(minimum=0), timeout=NumberLimit(minimum=1))


def describe_wait(summary, broker_id, in_sync):
    """What is still missing, or None when the broker is where it must be."""
    if broker_id not in summary["broker_ids"]:
        return "broker %d is not registered (registered: %s)" % (broker_id, summary["broker_ids"])
    if summary["controller_id"] < 0:
        return "no controller is known yet"
    if in_sync and summary["under_replicated_partitions"]:
        return "%d partitions under-replicated, e.g. %s" % (
            len(summary["under_replicated_partitions"]), summary["under_replicated_partitions"][:5])
    if in_sync and summary["offline_partitions"]:
        return "%d partitions offline, e.g. %s" % (
            len(summary["offline_partitions"]), summary["offline_partitions"][:5])
    return None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            host=dict(type="str", default="127.0.0.1"),
            port=dict(type="int", required=True),
            broker_id=dict(type="int", required=True),
            in_sync=dict(type="bool", default=False),
            timeout=dict(type="int", default=120),
        ),
        supports_check_mode=True,
    )
    params = module.params
    try:
        check_limits(params, LIMITS)
    except OptionValueError as error:
        module.fail_json(msg=str(error), field=error.field)

    started = time.monotonic()
    last_problem = None
    summary = None
    while True:
        try:
            summary = summarize(fetch_metadata(params["host"], params["port"], timeout=5,
                                               all_topics=params["in_sync"]))
            last_problem = describe_wait(summary, params["broker_id"], params["in_sync"])
            if last_problem is None:
                module.exit_json(changed=False, elapsed=round(time.monotonic() - started, 1), **summary)
        except KafkaWireError as error:
            last_problem = str(error)
        if time.monotonic() - started >= params["timeout"]:
            result = dict(summary or {})
            module.fail_json(msg="broker %d at %s:%d not ready within %d s: %s" % (
                params["broker_id"], params["host"], params["port"], params["timeout"], last_problem),
                **result)
        time.sleep(1)


if __name__ == "__main__":
    main()
