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

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display
from ansible_collections.kafkaops.cluster.plugins.module_utils._job_progress import describe_job_progress
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._progress_follower import execute_following

display = Display()


class ActionModule(ActionBase):

    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_async = True

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp  # tmp no longer has any effect
        wrap_async = self._task.async_val and not self._connection.has_native_async
        module_args = dict(self._task.args)
        follows = (module_args.get("progress_file") and not wrap_async and not self._task.check_mode
                   and getattr(self._connection, "transport", "") == "local")
        if not follows:
            result.update(self._execute_module(module_args=module_args, task_vars=task_vars, wrap_async=wrap_async))
            if not wrap_async:
                self._remove_tmp_path(self._connection._shell.tmpdir)
            return result
        result.update(execute_following(self, module_args, task_vars, module_args["progress_file"],
                                        lambda reading: display.display(describe_job_progress(reading))))
        return result
