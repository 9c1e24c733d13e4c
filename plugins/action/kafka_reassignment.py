# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action of kafkaops.cluster.kafka_reassignment: the module's progress in the play's output as it runs.

A module's result reaches the play only when the module ends, and a throttled reassignment can run for
hours. When the module runs on the controller (a local connection, as the playbooks run it), the action
runs it in a thread with a progress file of its own and shows each reading the module appends there
(partitions done, bytes copied, rate, time left) while it waits. Anywhere else, and in check mode, for
a cancel or without waiting, it runs the module as the normal action does.
"""

from __future__ import absolute_import, division, print_function

import os
import tempfile

from ansible.module_utils.parsing.convert_bool import boolean
from ansible.utils.display import Display
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_moves import describe_progress
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._progress_follower import FollowingAction

display = Display()


def waits_for_moves(task_args):
    """Whether the run waits for moves (the only runs with progress to show)."""
    try:
        waits = boolean(task_args.get("wait", True), strict=False)
    except TypeError:
        waits = True
    return task_args.get("state", "present") == "present" and waits


class ActionModule(FollowingAction):

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp  # tmp no longer has any effect
        module_args = dict(self._task.args)
        if not (waits_for_moves(module_args) and self.can_follow()):
            result.update(self.run_plainly(module_args, task_vars))
            return result

        own_file = not module_args.get("progress_file")
        if own_file:
            handle, module_args["progress_file"] = tempfile.mkstemp(prefix="kafka-reassignment-", suffix=".jsonl")
            os.close(handle)
        try:
            module_result = self.run_following(
                module_args, task_vars, module_args["progress_file"],
                lambda reading: display.display("kafka_reassignment: %s" % describe_progress(reading)))
        finally:
            if own_file:
                os.remove(module_args["progress_file"])
        if own_file:
            # The file was the action's, not the operator's.
            module_result.get("invocation", {}).get("module_args", {})["progress_file"] = None
        result.update(module_result)
        return result
