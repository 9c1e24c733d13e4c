#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: zookeeper_info
short_description: Read the state of one ZooKeeper node through its four-letter words
version_added: "0.1.0"
description:
  - Sends C(ruok), C(srvr) and optionally C(mntr) to one ZooKeeper node and returns its mode
    (leader, follower, standalone) and metrics.
  - With O(wait=true) it keeps asking until the node answers C(imok) and serves clients (its mode
    is known), or fails when O(timeout) runs out.
  - With O(wait=true) and O(service), it also reads the node's systemd unit whenever the node does
    not serve clients yet, and stops waiting at once when the unit failed, was restarted by systemd
    during the wait (it crashes on start) or stays inactive. The failure message then gives the
    unit's state and the lines of O(log_file) (or of the unit's journal) that carry the cause, as
    it does on a timeout. Without O(wait=true) the unit is not read.
  - Needs only the Python standard library on the host it runs on (and C(systemctl) for O(service)).
  - The node must allow the words in C(4lw.commands.whitelist).
  - This module was called C(kafkaops.cluster.zookeeper_status); that name still works, with a
    deprecation warning, until version 2.0.0.
author:
  - kafkaops.cluster developers (@kafkaops)
options:
  host:
    description: Address of the ZooKeeper node.
    type: str
    default: 127.0.0.1
  port:
    description: Client port of the ZooKeeper node, from 1 to 65535.
    type: int
    default: 2181
  wait:
    description: Keep asking until the node serves clients, instead of answering once.
    type: bool
    default: false
  timeout:
    description:
      - Seconds to wait in all when O(wait=true); seconds per request otherwise.
      - At least 1.
    type: int
    default: 60
  metrics:
    description: Also return the C(mntr) metrics.
    type: bool
    default: false
extends_documentation_fragment:
  - kafkaops.cluster.service_watch
  - kafkaops.cluster.read_only
"""

EXAMPLES = r"""
- name: Wait until ZooKeeper serves clients; if it does not, say why
  kafkaops.cluster.zookeeper_info:
    port: 2181
    wait: true
    timeout: 120
    service: zookeeper
    log_file: /var/log/zookeeper/zookeeper.log
  register: zookeeper_node

- name: Show its role in the ensemble
  ansible.builtin.debug:
    msg: "{{ inventory_hostname }} is {{ zookeeper_node.mode }}"
"""

RETURN = r"""
ok:
  description: Whether the node answered C(imok) to C(ruok).
  returned: success
  type: bool
mode:
  description: The node's mode from C(srvr), or null when it does not serve clients yet.
  returned: success
  type: str
  sample: follower
zxid:
  description: The last transaction id the node has seen.
  returned: success
  type: str
  sample: "0x100000002"
version:
  description: ZooKeeper version reported by C(srvr).
  returned: success
  type: str
metrics:
  description: The C(mntr) metrics, numbers as integers.
  returned: when O(metrics=true)
  type: dict
unit_state:
  description:
    - The unit as last read, when the wait failed and O(service) was given (null when it could not be
      read).
    - C(exit_kind) is C(exited), C(killed) or C(dumped) for the main process's last exit seen during the
      wait (null when none was), C(exit_status) its exit status or signal number,
      C(exec_pid) that process's PID (systemd's C(ExecMainPID)); C(restarts) is systemd's C(NRestarts),
      C(restarts_during_wait) how many of them happened while the module waited.
  returned: failure, with O(service)
  type: dict
  sample:
    load_state: loaded
    active_state: active
    sub_state: running
    result: success
    restarts: 0
    restarts_during_wait: 0
    exit_kind: null
    exit_status: 0
    exec_pid: 4242
    main_pid: 4242
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
    - "[2025-01-07 10:00:01,412] WARN Cannot open channel to 2 at election address zk2:3888 (org.apache...)"
    - "java.net.UnknownHostException: zk2"
"""

import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import (
    PORT,
    NumberLimit,
    fail_on_out_of_range,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._service_watch import (
    ServiceWatch,
    service_watch_argument_spec,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._zookeeper_words import (
    ZooKeeperWordError,
    parse_mntr,
    parse_srvr,
    send_word,
)

SERVING_MODES = ("leader", "follower", "standalone", "observer")
LIMITS = dict(port=PORT, timeout=NumberLimit(minimum=1))


def read_node(host, port, timeout, with_metrics):
    state = {"ok": send_word(host, port, "ruok", timeout).strip() == "imok"}
    state.update(parse_srvr(send_word(host, port, "srvr", timeout)))
    if with_metrics:
        state["metrics"] = parse_mntr(send_word(host, port, "mntr", timeout))
    return state


def main():
    module = AnsibleModule(
        argument_spec=dict(
            host=dict(type="str", default="127.0.0.1"),
            port=dict(type="int", default=2181),
            wait=dict(type="bool", default=False),
            timeout=dict(type="int", default=60),
            metrics=dict(type="bool", default=False),
            **service_watch_argument_spec()
        ),
        required_by=dict(log_file="service"),
        supports_check_mode=True,
    )
    params = module.params
    fail_on_out_of_range(module, LIMITS)

    node = "ZooKeeper at %s:%d" % (params["host"], params["port"])
    watch = ServiceWatch(module, node, params["service"] if params["wait"] else None, params["log_file"])
    deadline = time.monotonic() + params["timeout"]
    per_request = min(params["timeout"], 5) if params["wait"] else params["timeout"]
    last_problem = None
    while True:
        try:
            state = read_node(params["host"], params["port"], per_request, params["metrics"])
            if not params["wait"] or (state["ok"] and state["mode"] in SERVING_MODES):
                module.exit_json(changed=False, **state)
            last_problem = "ruok=%s, mode=%s" % (state["ok"], state["mode"])
        except ZooKeeperWordError as error:
            if not params["wait"] or "whitelist" in str(error):
                module.fail_json(msg=str(error))
            last_problem = str(error)
        watch.stop_if_hopeless_or_late(
            time.monotonic() >= deadline,
            "%s did not serve clients within %d s (last: %s)" % (watch.subject, params["timeout"], last_problem))
        time.sleep(1)


if __name__ == "__main__":
    main()
