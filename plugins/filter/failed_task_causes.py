# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The causes of a failed task, for the message that stops a rolling restart (role service_common)."""

from __future__ import absolute_import, division, print_function


from collections.abc import Mapping

from ansible.module_utils.common.text.converters import to_text


def failed_task_causes(result):
    """Return the messages that say why a task failed, as a list of text.

    A task that loops fails with "One or more items failed"; the causes, which name the node or broker,
    are in the messages of its failed items. A task that does not loop gives its own message.
    """
    if not isinstance(result, Mapping):
        return [to_text(result)]
    items = result.get("results")
    if isinstance(items, list):
        causes = [to_text(item.get("msg", "failed")) for item in items
                  if isinstance(item, Mapping) and item.get("failed")]
        if causes:
            return causes
    if result.get("msg") is not None:
        return [to_text(result["msg"])]
    return [to_text(result)]


class FilterModule(object):

    def filters(self):
        return {"failed_task_causes": failed_task_causes}
