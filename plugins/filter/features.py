# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The inventory's feature pins checked before a run changes anything, by the rules kafka_features applies."""

from __future__ import absolute_import, division, print_function

from ansible_collections.kafkaops.cluster.plugins.module_utils._features import pin_problems


def kafka_feature_pin_problems(pins, variable="kafka_broker_features"):
    """What is wrong with the pins ({feature: level}), one sentence per pin joined by '; '; empty when nothing is.

    Only what can be told without the cluster (module_utils/_features.py, pin_problems); the kafka_broker role's
    host model lists the same sentences among its problems.
    """
    return "; ".join(pin_problems(pins, variable))


class FilterModule(object):
    def filters(self):
        return {"kafka_feature_pin_problems": kafka_feature_pin_problems}
