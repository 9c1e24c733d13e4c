#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: kafka_quorum_info
short_description: Read the KRaft metadata quorum from its controllers, or wait until a node is in it
version_added: "0.3.0"
description:
  - Asks the KRaft controllers for the metadata quorum (C(DescribeQuorum)) with Kafka's own
    C(MetadataQuorumCommand), run on the host the module runs on with that host's Kafka. No Kafka
    client library can bootstrap from a controller, which answers no Metadata request.
  - Returns the leader and, for each voter and observer, its directory id, log end offset and lag.
  - With O(wait=true) it keeps asking until the quorum has a leader and, with O(node_id), that node
    is a voter (or an observer, see O(wait_for)) at most O(max_lag) records behind; without
    O(node_id), until every voter is. The kafkaops.cluster.kafka_controller role waits so after
    starting a controller, before it adds a new one to the quorum, and before and after each restart.
  - With O(wait=true) and O(service), it also reads the node's systemd unit while the node is not
    where the wait wants it, and stops at once when the unit failed or crashes on start, with the
    lines of O(log_file) (or the journal) that carry the cause.
  - Needs Java and the Kafka distribution on the host it runs on (Kafka 3.7 or later).
author:
  - kafkaops.cluster developers (@kafkaops)
options:
  bootstrap_controllers:
    description: Controller addresses (C(host:port) of the controller listener) to ask; at least one.
    type: list
    elements: str
    required: true
  java:
    description: The Java executable.
    type: path
    default: /usr/bin/java
  classpath:
    description: Classpath of the Kafka distribution, such as C(/opt/kafkaops/kafka_2.13-4.4.0/libs/*).
    type: str
    required: true
  command_config:
    description: A properties file with the client settings for the controller listener (TLS, SASL).
    type: path
  node_id:
    description: The node the wait is about; at least 0. Without it the wait is about every voter.
    type: int
  wait:
    description: Keep asking until the quorum is as described above, instead of answering once.
    type: bool
    default: false
  wait_for:
    description:
      - With O(node_id), what the node must be. C(voter); C(observer) (a controller that has not
        joined the quorum yet, or already a voter); C(member) (either, the same as C(observer)).
    type: str
    choices: [voter, observer, member]
    default: voter
  max_lag:
    description: Records a node may be behind the leader's log end and count as caught up; at least 0.
    type: int
    default: 100
  timeout:
    description:
      - Seconds to wait in all with O(wait=true); at least 1.
      - Each ask lasts at most 15 s (or this long, if shorter).
    type: int
    default: 120
extends_documentation_fragment:
  - kafkaops.cluster.service_watch
  - kafkaops.cluster.read_only
"""

EXAMPLES = r"""
- name: Wait until controller 9001 is a voter, caught up; if it does not get there, say why
  kafkaops.cluster.kafka_quorum_info:
    bootstrap_controllers: ["ctl-a.example.net:9093", "ctl-b.example.net:9093", "ctl-c.example.net:9093"]
    classpath: /opt/kafkaops/kafka_2.13-4.4.0/libs/*
    node_id: 9001
    wait: true
    service: kafka-controller
    log_file: /var/log/kafka/controller/server.log

- name: Read the quorum
  kafkaops.cluster.kafka_quorum_info:
    bootstrap_controllers: ["ctl-a.example.net:9093"]
    classpath: /opt/kafkaops/kafka_2.13-4.4.0/libs/*
  register: quorum

- name: Show the leader
  ansible.builtin.debug:
    msg: "controller {{ quorum.leader_id }} leads; voters {{ quorum.voters | map(attribute='node_id') | list }}"
"""

RETURN = r"""
leader_id:
  description: The controller that leads the quorum; null while there is none.
  returned: success
  type: int
  sample: 9001
voters:
  description:
    - The voters, each with C(node_id), C(directory_id), C(log_end_offset), C(lag) and C(status)
      (C(Leader) or C(Follower)).
  returned: success
  type: list
  elements: dict
  sample:
    - {node_id: 9001, directory_id: aPrAQCd5RdKJ-aVpXQx5dw, log_end_offset: 133, lag: 0, status: Leader}
observers:
  description: The observers (brokers, controllers not yet added), in the same shape, C(status) C(Observer).
  returned: success
  type: list
  elements: dict
node_role:
  description: With O(node_id), C(voter), C(observer) or null.
  returned: success, with O(node_id)
  type: str
unit_state:
  description:
    - The unit as last read, when the wait failed and O(service) was given (as
      M(kafkaops.cluster.zookeeper_info) returns it).
  returned: failure, with O(service)
  type: dict
log_source:
  description: Where RV(log_excerpt) comes from, O(log_file) or C(journal); null when neither names a cause.
  returned: failure, with O(service)
  type: str
log_excerpt:
  description: The last lines that carry the cause, oldest first, at most 10.
  returned: failure, with O(service)
  type: list
  elements: str
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import NumberLimit, fail_on_out_of_range
from ansible_collections.kafkaops.cluster.plugins.module_utils._quorum import (
    WAIT_FOR,
    QuorumOutputError,
    describe_command,
    describe_wait,
    node_role,
    parse_replication,
    tool_error,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._service_watch import (
    ServiceWatch,
    service_watch_argument_spec,
)

LIMITS = dict(node_id=NumberLimit(minimum=0), max_lag=NumberLimit(minimum=0), timeout=NumberLimit(minimum=1))
# Each ask starts a JVM (about 1.5 s): a pause between two asks keeps a wait from taking a core.
POLL_PAUSE = 1.0
# Seconds one ask may take at most.
ASK_SECONDS = 15


def client_settings(module, command_config, seconds):
    """A properties file for the tool: the user's client settings, and timeouts no longer than one ask."""
    lines = []
    if command_config:
        try:
            with open(command_config) as handle:
                lines = handle.read().splitlines()
        except OSError as error:
            module.fail_json(msg="command_config: cannot read %s: %s" % (command_config, error))
    # A controller that is down would otherwise hold each ask for the admin client's default minute.
    milliseconds = int(seconds * 1000)
    lines += ["request.timeout.ms=%d" % milliseconds, "default.api.timeout.ms=%d" % milliseconds]
    path = os.path.join(module.tmpdir, "quorum-client.properties")
    with open(path, "w") as handle:
        os.fchmod(handle.fileno(), 0o600)
        handle.write("\n".join(lines) + "\n")
    return path


def ask(module, command):
    """The quorum, or raises QuorumOutputError with what the tool said."""
    rc, out, err = module.run_command(command)
    if rc != 0:
        raise QuorumOutputError("the quorum tool failed (rc %d): %s" % (rc, tool_error(err or out)))
    return parse_replication(out)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            bootstrap_controllers=dict(type="list", elements="str", required=True),
            java=dict(type="path", default="/usr/bin/java"),
            classpath=dict(type="str", required=True),
            command_config=dict(type="path"),
            node_id=dict(type="int"),
            wait=dict(type="bool", default=False),
            wait_for=dict(type="str", choices=list(WAIT_FOR), default="voter"),
            max_lag=dict(type="int", default=100),
            timeout=dict(type="int", default=120),
            **service_watch_argument_spec()
        ),
        required_by=dict(log_file="service"),
        supports_check_mode=True,
    )
    params = module.params
    fail_on_out_of_range(module, LIMITS)
    servers = [server.strip() for server in params["bootstrap_controllers"] if server and server.strip()]
    if not servers:
        module.fail_json(msg="bootstrap_controllers: give at least one controller address (host:port)")

    settings = client_settings(module, params["command_config"], min(params["timeout"], ASK_SECONDS))
    command = describe_command(params["java"], params["classpath"], servers, settings)
    subject = "node %d" % params["node_id"] if params["node_id"] is not None else "the quorum"
    watch = ServiceWatch(module, subject, params["service"] if params["wait"] else None, params["log_file"])
    deadline = time.monotonic() + params["timeout"]
    quorum = None
    while True:
        try:
            quorum = ask(module, command)
            problem = describe_wait(quorum, params["node_id"], params["wait_for"], params["max_lag"]) \
                if params["wait"] else None
            if problem is None:
                result = dict(quorum)
                if params["node_id"] is not None:
                    result["node_role"] = node_role(quorum, params["node_id"])
                module.exit_json(changed=False, **result)
        except QuorumOutputError as error:
            if not params["wait"]:
                module.fail_json(msg="the quorum at %s: %s" % (", ".join(servers), error))
            problem = str(error)
        watch.stop_if_hopeless_or_late(
            time.monotonic() >= deadline,
            "%s not ready within %d s, asking %s: %s" % (watch.subject, params["timeout"], ", ".join(servers), problem),
            dict(quorum or {}))
        time.sleep(POLL_PAUSE)


if __name__ == "__main__":
    main()
