# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


class ModuleDocFragment(object):
    """How a module reaches ZooKeeper; the argument spec and its checks are in module_utils/_zookeeper_client.py."""

    DOCUMENTATION = r"""
options:
  servers:
    description: ZooKeeper nodes as C(host:port); the first one that answers serves the session.
    type: list
    elements: str
    required: true
  timeout:
    description: Seconds for the connection and each request; at least 1.
    type: int
    default: 10
  sasl_user:
    description:
      - The user to log in as with SASL DIGEST-MD5, as a Kafka broker does with a JAAS
        C(org.apache.zookeeper.server.auth.DigestLoginModule) login (its C(Client) section), so that the ACL
        entries for C(sasl:<user>) apply; without it the session is anonymous.
      - Needs O(sasl_password). A refused login fails the task naming the user and the node.
    type: str
  sasl_password:
    description:
      - The password of O(sasl_user), which needs it. It appears in no output.
    type: str
"""
