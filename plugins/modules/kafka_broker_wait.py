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
  - With O(service), it also reads the broker's systemd unit whenever the broker is not ready yet, and
    stops waiting at once when the unit failed, was restarted by systemd during the wait (the broker
    crashes on start, for example on a configuration it refuses) or stays inactive. The failure
    message then gives the unit's state and the lines of O(log_file) (or of the unit's journal) that
    carry the cause, as it does on a timeout.
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
extends_documentation_fragment:
  - kafkaops.cluster.service_watch
  - kafkaops.cluster.read_only
"""

EXAMPLES = r"""
- name: Wait until broker 1 is registered and serving metadata; if it crashes, stop and say why
  kafkaops.cluster.kafka_broker_wait:
    port: 9092
    broker_id: 1
    service: kafka-broker-1
    log_file: /var/log/kafka/broker-1/server.log

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
  returned: when the broker answered
  type: list
  elements: int
  sample: [1, 2, 3]
controller_id:
  description: Id of the controller broker.
  returned: when the broker answered
  type: int
under_replicated_partitions:
  description: Partitions (topic-partition) whose in-sync replicas are fewer than their replicas.
  returned: when the broker answered
  type: list
  elements: str
offline_partitions:
  description: Partitions without a leader.
  returned: when the broker answered
  type: list
  elements: str
elapsed:
  description: Seconds spent waiting.
  returned: always
  type: float
unit_state:
  description:
    - The unit as last read, when the wait failed and O(service) was given (null when it could not be
      read).
    - C(exit_kind) is C(exited), C(killed) or C(dumped) for the main process's last exit seen during the
      wait (null when none was), C(exit_status) its exit status or signal number; C(restarts) is systemd's
      C(NRestarts), C(restarts_during_wait) how many of them happened while the module waited.
  returned: failure, with O(service)
  type: dict
  sample:
    load_state: loaded
    active_state: activating
    sub_state: auto-restart
    result: exit-code
    restarts: 3
    restarts_during_wait: 1
    exit_kind: exited
    exit_status: 1
    main_pid: 0
log_source:
  description: Where RV(log_excerpt) comes from, O(log_file) or C(journal); null when neither names a cause.
  returned: failure, with O(service)
  type: str
log_excerpt:
  description:
    - The last lines that carry the cause (errors, exceptions and their causes, without stack frames),
      oldest first, at most 10, each at most 240 characters.
  returned: failure, with O(service)
  type: list
  elements: str
  sample:
    - "[2025-01-07 10:00:01,412] ERROR Exiting Kafka due to fatal exception (kafka.Kafka$)"
    - "java.lang.IllegalArgumentException: requirement failed: broker.id must be greater than or equal to -1 and ..."
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
    fail_on_out_of_range,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._service_watch import (
    ServiceWatch,
    service_watch_argument_spec,
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
            **service_watch_argument_spec()
        ),
        required_by=dict(log_file="service"),
        supports_check_mode=True,
    )
    params = module.params
    fail_on_out_of_range(module, LIMITS)

    broker = "broker %d at %s:%d" % (params["broker_id"], params["host"], params["port"])
    watch = ServiceWatch(module, broker, params["service"], params["log_file"])
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
        result = dict(summary or {}, elapsed=round(time.monotonic() - started, 1))
        watch.stop_if_hopeless_or_late(
            time.monotonic() - started >= params["timeout"],
            "%s not ready within %d s: %s" % (watch.subject, params["timeout"], last_problem), result)
        time.sleep(1)


if __name__ == "__main__":
    main()
