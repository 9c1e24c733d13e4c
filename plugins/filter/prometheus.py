# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Prometheus JMX exporter's agent of the service roles (role service_common installs it and checks the
settings)."""

from __future__ import absolute_import, division, print_function


from collections.abc import Mapping

from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._service_rules import prometheus_agent as agent


def prometheus_agent(source, url="", checksum="", port=None, bind_address="", other_ports=None, variables=""):
    """Where a service's Prometheus agent comes from and what is wrong with its settings (the rule is
    plugin_utils/_service_rules.py's prometheus_agent)."""
    if other_ports is not None and not isinstance(other_ports, Mapping):
        raise AnsibleFilterError("prometheus_agent: other_ports must be a mapping of name to port, got %r"
                                 % (other_ports,))
    return agent(source, url, checksum, port, bind_address, other_ports, variables)


class FilterModule(object):
    def filters(self):
        return {"prometheus_agent": prometheus_agent}
