# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The inventory's feature pins checked before a run changes anything, by the rules kafka_features applies."""

from __future__ import absolute_import, division, print_function

from collections.abc import Mapping

from ansible_collections.kafkaops.cluster.plugins.module_utils._features import (
    FEATURE_NAME,
    FeatureInputError,
    parse_level,
)


def kafka_feature_pin_problems(pins, variable="kafka_broker_features"):
    """What is wrong with the pins ({feature: level}), one sentence per pin joined by '; '; empty when nothing is.

    Only what can be told without the cluster: a name that is no feature's, a level that is not a whole number
    0-32767 (a release name such as 4.4-IV0 included). What the brokers support is kafka_features' check, once
    every node runs the new Kafka.
    """
    if pins in (None, ""):
        return ""
    if not isinstance(pins, Mapping):
        return "%s: expected a mapping of feature name to level, got %r" % (variable, pins)
    problems = []
    for name in sorted(pins, key=str):
        field = "%s.%s" % (variable, name)
        if not isinstance(name, str) or not FEATURE_NAME.match(name):
            problems.append("%s: is not a feature's name (such as transaction.version)" % field)
            continue
        try:
            parse_level(pins[name], field)
        except FeatureInputError as error:
            problems.append(str(error))
    return "; ".join(problems)


class FilterModule(object):
    def filters(self):
        return {"kafka_feature_pin_problems": kafka_feature_pin_problems}
