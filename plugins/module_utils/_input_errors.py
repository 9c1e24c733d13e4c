# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one kind of error for input the collection refuses: a field and what is wrong with it.

Every check of what a task declares (a module's options, the topics, ACLs or users it lists, a
reassignment plan, an action's entries) raises an InputError, or a subclass named after what it
checks, before anything connects or changes. field names the offending input the way the task
spells it (topics[3].partitions, plan.partitions[4].replicas, request_timeout), so a module can fail
naming it; str() is "field: message".

Failures of the cluster, a host or a tool once the input was accepted (KafkaAdminError and the
like) are not InputErrors.
"""

from __future__ import absolute_import, division, print_function


class InputError(Exception):
    """Input that cannot be used: field names it, message says why; str() is "field: message"."""

    def __init__(self, field, message):
        super(InputError, self).__init__("%s: %s" % (field, message))
        self.field = field
        self.message = message


def field_name(where, field):
    """The name of a field of a listed item, such as topics[3].partitions.

    where is the item (topics[3]); when it is empty, the fields are the module's own options (a module
    that declares one item with name) and the field is named alone.
    """
    return "%s.%s" % (where, field) if where else field
