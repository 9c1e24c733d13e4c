#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: service_info
short_description: Read a service's systemd unit and, on request, the log lines that say why it is down
version_added: "0.2.0"
description:
  - Returns the state of one systemd unit as a wait follows it (active and sub state, result, how
    often systemd restarted it, the main process's last exit).
  - With O(causes=true), also the last lines of O(log_file), or of the unit's journal when that file
    is missing or names no cause, that carry the cause of a failure (errors and exceptions, without
    stack frames).
  - The action M(kafkaops.cluster.kafka_broker_wait) runs it on the broker's host while the broker is
    not ready, to stop at once when the broker crashes and to say why; it reads the same way as
    M(kafkaops.cluster.zookeeper_info) does while it waits.
  - A unit that cannot be read is not a failure of the module; RV(read_error) says why.
  - Needs only the Python standard library on the host it runs on (and C(systemctl) and C(journalctl)).
author:
  - kafkaops.cluster developers (@kafkaops)
options:
  service:
    description: Name of the systemd unit, such as C(kafka-broker-1) or C(zookeeper).
    type: str
    required: true
  log_file:
    description:
      - The service's log4j log, such as C(/var/log/kafka/broker-1/server.log), searched first for
        the cause with O(causes=true).
    type: path
  causes:
    description: Also return the lines that carry the cause (RV(log_source), RV(log_excerpt), RV(log_searched)).
    type: bool
    default: false
extends_documentation_fragment:
  - kafkaops.cluster.read_only
"""

EXAMPLES = r"""
- name: Read the broker's unit and why it is down
  kafkaops.cluster.service_info:
    service: kafka-broker-1
    log_file: /var/log/kafka/broker-1/server.log
    causes: true
  register: broker_unit

- name: Show it
  ansible.builtin.debug:
    msg: "{{ broker_unit.unit_state.active_state }}: {{ broker_unit.log_excerpt | join(' | ') }}"
"""

RETURN = r"""
unit_state:
  description:
    - The unit's state, null when it could not be read (RV(read_error) says why).
    - C(exit_kind) is C(exited), C(killed) or C(dumped) for the main process's last exit since it was
      last started (null when none), C(exit_status) its exit status or signal number,
      C(exec_pid) that process's PID (systemd's C(ExecMainPID)); C(restarts) is systemd's C(NRestarts),
      the restarts systemd made by itself (null before systemd 235).
  returned: always
  type: dict
  sample:
    load_state: loaded
    active_state: activating
    sub_state: auto-restart
    result: exit-code
    restarts: 3
    exit_kind: exited
    exit_status: 1
    exec_pid: 4242
    main_pid: 0
read_error:
  description: Why the unit could not be read; null when it was.
  returned: always
  type: str
log_source:
  description: Where RV(log_excerpt) comes from, O(log_file) or C(journal); null when neither names a cause.
  returned: with O(causes=true)
  type: str
log_excerpt:
  description:
    - The last lines that carry the cause, oldest first, at most 10, each at most 240 characters.
  returned: with O(causes=true)
  type: list
  elements: str
  sample:
    - "[2025-01-07 10:00:01,412] ERROR Exiting Kafka due to fatal exception (kafka.Kafka$)"
    - "java.lang.IllegalArgumentException: requirement failed: broker.id must be greater than or equal to -1 and ..."
log_searched:
  description: Where the cause was looked for, in order (O(log_file), C(journal)).
  returned: with O(causes=true)
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._service_watch import HostUnitReader, unit_report


def main():
    module = AnsibleModule(
        argument_spec=dict(
            service=dict(type="str", required=True),
            log_file=dict(type="path"),
            causes=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    params = module.params
    reader = HostUnitReader(module, params["service"], params["log_file"])
    module.exit_json(changed=False, **unit_report(reader, params["causes"]))


if __name__ == "__main__":
    main()
