# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action of kafkaops.cluster.spark_job: the job's progress in the play's output as it runs.

When the module runs on the controller (a local connection, as the kafka_verify role runs the jobs by
default) with a progress file, the action runs it in a thread and shows each reading the job appends
there. Anywhere else, in check mode and without a progress file, it runs the module as the normal
action does; the last reading then comes back in the result.
"""

from __future__ import absolute_import, division, print_function

from ansible.utils.display import Display
from ansible_collections.kafkaops.cluster.plugins.module_utils._job_progress import describe_job_progress
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._progress_follower import FollowingAction

display = Display()


class ActionModule(FollowingAction):

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp  # tmp no longer has any effect
        module_args = dict(self._task.args)
        if module_args.get("progress_file") and self.can_follow():
            result.update(self.run_following(module_args, task_vars, module_args["progress_file"],
                                             lambda reading: display.display(describe_job_progress(reading))))
        else:
            result.update(self.run_plainly(module_args, task_vars))
        return result
