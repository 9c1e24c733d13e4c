# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What execute_reassignment.yml shows of the move it carried out (plugin_utils/_reassignment_outcome.py)."""

from __future__ import absolute_import, division, print_function


from collections.abc import Mapping

from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._reassignment_outcome import outcome_lines


def kafka_reassignment_outcome(result):
    """The lines that show a kafka_reassignment result (outcome_lines)."""
    if not isinstance(result, Mapping) or "partitions" not in result or "already_in_place" not in result:
        raise AnsibleFilterError("kafka_reassignment_outcome: expected the result of "
                                 "kafkaops.cluster.kafka_reassignment (with partitions and already_in_place)")
    return outcome_lines(result)


class FilterModule(object):
    def filters(self):
        return {"kafka_reassignment_outcome": kafka_reassignment_outcome}
