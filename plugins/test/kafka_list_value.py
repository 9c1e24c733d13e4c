# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The test kafka_list_value: a value Kafka's [key=value,...] lists and JAAS lines carry whole."""

from __future__ import absolute_import, division, print_function


from ansible_collections.kafkaops.cluster.plugins.plugin_utils._kafka_list_values import is_kafka_list_value


class TestModule(object):
    def tests(self):
        return {"kafka_list_value": is_kafka_list_value}
