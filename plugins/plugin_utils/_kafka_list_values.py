# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which values Kafka's [key=value,...] lists and JAAS lines carry whole.

The storage tool reads SCRAM users as [name=...,password=...] and brokers read their logins from a JAAS
line (username="..." password="..."); neither has any quoting, so a value holding one of these characters
is cut short there. The roles' preflights (through the test kafkaops.cluster.kafka_list_value) and the
filter kafka_scram_format_arguments refuse such values with this one rule.
"""

from __future__ import absolute_import, division, print_function


# Besides these, any whitespace.
LIST_VALUE_BREAKERS = frozenset(',[]="\\')
LIST_VALUE_BREAKERS_TEXT = 'a space or one of , [ ] = " \\'


def is_kafka_list_value(value):
    """True for a non-empty text that holds no whitespace and none of LIST_VALUE_BREAKERS."""
    text = "" if value is None else str(value)
    return bool(text) and not any(character.isspace() or character in LIST_VALUE_BREAKERS for character in text)
