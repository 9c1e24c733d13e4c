# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Systemd units still on their way between two states, and the message of a wait for them that ended in vain
(the roles' node state reads)."""

from __future__ import absolute_import, division, print_function


from collections.abc import Mapping

from ansible_collections.kafkaops.cluster.plugins.plugin_utils._waits import units_in_transition, wait_failure


def units_wait_failure(result, units_of, seconds=200):
    """The sentence for a read of systemd units (host_state_info) that waited for them to settle in vain."""
    return wait_failure(result, "%s settling within %s s" % (units_of, seconds),
                        ", ".join(units_in_transition(result.get("units") if isinstance(result, Mapping) else None)))


class FilterModule(object):

    def filters(self):
        return {"units_in_transition": units_in_transition, "units_wait_failure": units_wait_failure}
