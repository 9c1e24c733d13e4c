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
  - Asks the broker at O(bootstrap_servers) (its client address, as the controller reaches it) for the
    cluster's brokers until the broker's id is among the registered brokers and a controller is known.
  - With O(in_sync=true) it also waits until no partition in the cluster is under-replicated or
    offline, which is what a rolling restart must see before it touches the next broker.
  - Runs on the controller (an action plugin) with the kafka-python admin client and the connection
    options of the admin modules such as M(kafkaops.cluster.kafka_cluster_info), so it works on
    PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL listeners. The broker's host needs no Kafka client.
  - With O(service), whenever the broker is not ready yet (at most every few seconds), it reads the
    broker's systemd unit on the task's host (the host the task runs on or is delegated to) with
    M(kafkaops.cluster.service_info), and stops waiting at once when the unit failed, was restarted
    by systemd during the wait (the broker crashes on start, for example on a configuration it
    refuses) or stays inactive. The failure message then gives the unit's state and the lines of
    O(log_file) (or of the unit's journal) that carry the cause, as it does on a timeout. One cause
    does not stop the wait, for up to three restarts. A broker in ZooKeeper mode started again within
    the ZooKeeper session timeout of being killed finds its registration still held by the dead
    process and exits, and starts once ZooKeeper has expired that session. A broker
    that is ready at once costs one connection and one request (two with O(in_sync=true)) and no
    module run on its host.
  - While the broker does not take connections, each attempt to connect lasts 3 s, or a quarter of
    the time waited so far when that is more (at most O(request_timeout)), so that the unit is read
    between attempts. No request lasts longer than O(timeout).
  - Before version 0.2.0 this was a module that ran on the broker's host, spoke PLAINTEXT only and
    took the options C(host) and C(port); give the broker's client address as O(bootstrap_servers)
    instead.
author:
  - kafkaops.cluster developers (@kafkaops)
options:
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
  - kafkaops.cluster.kafka_connection
  - kafkaops.cluster.service_watch
  - kafkaops.cluster.read_only
attributes:
  action:
    description: Runs on the controller as an action plugin; only the reads of O(service) run on the task's host.
    support: full
notes:
  - O(bootstrap_servers) should name the broker waited for, so that the wait also proves that its
    client listener answers with the given security settings.
"""

EXAMPLES = r"""
- name: Wait until broker 1 is registered and serving metadata; if it crashes, stop and say why
  kafkaops.cluster.kafka_broker_wait:
    bootstrap_servers: ["kafka-1.example.net:9092"]
    broker_id: 1
    service: kafka-broker-1
    log_file: /var/log/kafka/broker-1/server.log

- name: Before the next restart, wait until every partition is fully replicated, over SASL_SSL
  kafkaops.cluster.kafka_broker_wait:
    bootstrap_servers: ["kafka-1.example.net:9092"]
    security_protocol: SASL_SSL
    sasl_mechanism: SCRAM-SHA-512
    sasl_username: admin
    sasl_password: "{{ kafka_admin_password }}"
    ssl_cafile: tls/ca.crt
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
  description:
    - Partitions (topic-partition) whose in-sync replicas are fewer than their replicas.
    - Empty without O(in_sync=true).
  returned: when the broker answered
  type: list
  elements: str
offline_partitions:
  description: Partitions without a leader; empty without O(in_sync=true).
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
      wait (null when none was), C(exit_status) its exit status or signal number,
      C(exec_pid) that process's PID (systemd's C(ExecMainPID)); C(restarts) is systemd's C(NRestarts),
      C(restarts_during_wait) how many of them happened during the wait.
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
    exec_pid: 4242
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

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._broker_wait import broker_wait_argument_spec


def main():
    # The action plugin of the same name does the work on the controller; Ansible runs this file only
    # when something calls it without its action (the arguments are checked as the action checks them).
    module = AnsibleModule(argument_spec=broker_wait_argument_spec(), required_by=dict(log_file="service"),
                           supports_check_mode=True)
    module.fail_json(msg="kafkaops.cluster.kafka_broker_wait runs on the controller through its action plugin; "
                         "this module file only documents it")


if __name__ == "__main__":
    main()
