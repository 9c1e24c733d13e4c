# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


class ModuleDocFragment(object):
    """The unit a wait module follows while it waits; the argument spec is in module_utils/_service_watch.py."""

    DOCUMENTATION = r"""
options:
  service:
    description:
      - Name of the service's systemd unit, such as C(kafka-broker-1) or C(zookeeper), read while the
        service is not ready yet.
    type: str
  log_file:
    description:
      - The service's log4j log, such as C(/var/log/kafka/broker-1/server.log) or
        C(/var/log/zookeeper/zookeeper.log). When the service does not come up, its last error and
        exception lines are shown; the unit's journal is read instead when this file is missing or
        has none (a JVM that fails before its logging starts).
      - Needs O(service).
    type: path
"""
