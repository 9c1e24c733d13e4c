# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


class ModuleDocFragment(object):
    """How the admin modules reach a Kafka cluster; the argument spec is in module_utils/_kafka_admin.py."""

    DOCUMENTATION = r"""
options:
  bootstrap_servers:
    description:
      - Brokers to ask first for the cluster's metadata, as C(host:port).
      - Items may also be comma-separated lists, as Kafka clients take them.
      - The module runs where the task runs (usually the controller), so the addresses must be
        reachable from there.
    type: list
    elements: str
    required: true
  security_protocol:
    description: Protocol of the listener behind O(bootstrap_servers).
    type: str
    choices: [PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL]
    default: PLAINTEXT
  sasl_mechanism:
    description: SASL mechanism for O(security_protocol=SASL_PLAINTEXT) and O(security_protocol=SASL_SSL).
    type: str
    choices: [PLAIN, SCRAM-SHA-256, SCRAM-SHA-512]
    default: PLAIN
  sasl_username:
    description: SASL user name; required with the SASL protocols.
    type: str
  sasl_password:
    description: SASL password; required with the SASL protocols. Never logged.
    type: str
  ssl_cafile:
    description: CA certificate file (PEM) on the controller that signed the brokers' certificates.
    type: path
  ssl_certfile:
    description: Client certificate file (PEM), for listeners that require client authentication.
    type: path
  ssl_keyfile:
    description: Private key file (PEM) of O(ssl_certfile).
    type: path
  ssl_password:
    description: Password of O(ssl_keyfile), if it is encrypted. Never logged.
    type: str
  ssl_check_hostname:
    description: Check that the broker certificates match the addresses connected to.
    type: bool
    default: true
  request_timeout:
    description:
      - Seconds to wait for the cluster to answer, including the first connection.
      - An unreachable cluster fails after this long with a message that names the servers tried.
      - At least 1; a smaller number is refused before the module connects.
    type: int
    default: 30
requirements:
  - kafka-python >= 3.0 on the host that runs the module
"""
