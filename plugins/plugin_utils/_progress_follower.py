# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shows a long-running module's progress in the play's output while it runs.

A module's result reaches the play only when the module ends. Modules that run for long (a throttled
reassignment, a Spark job) append readings (JSON, one per line) to a progress file; when they run on the
controller, their action runs the module in a thread and shows each new reading as it appears.
"""

from __future__ import absolute_import, division, print_function

import json
import threading

from ansible.plugins.action import ActionBase

# How often the file is looked at; the modules write a reading every few seconds.
FOLLOW_SECONDS = 1.0


class ProgressFile(object):
    """The readings appended to a file since the last look, whole lines only."""

    def __init__(self, path):
        self.path = path
        self.offset = 0

    def new_readings(self):
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                chunk = handle.read()
        except OSError:
            return []
        complete = chunk[:chunk.rfind(b"\n") + 1]
        self.offset += len(complete)
        readings = []
        for line in complete.splitlines():
            try:
                readings.append(json.loads(line.decode("utf-8")))
            except ValueError:
                continue
        return readings


def execute_following(action, module_args, task_vars, progress_path, show):
    """The module's result, run by `action` in a thread while show(reading) gets each new reading."""
    progress = ProgressFile(progress_path)
    outcome = {}

    def run_module():
        try:
            outcome["result"] = action._execute_module(module_args=module_args, task_vars=task_vars)
        except BaseException as error:  # pylint: disable=broad-except
            outcome["error"] = error

    worker = threading.Thread(target=run_module, name=action._task.action)
    worker.daemon = True
    worker.start()
    try:
        while worker.is_alive():
            worker.join(FOLLOW_SECONDS)
            for reading in progress.new_readings():
                show(reading)
    finally:
        worker.join()
        action._remove_tmp_path(action._connection._shell.tmpdir)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


class FollowingAction(ActionBase):
    """An action whose module may run for long: it follows the module's progress file when it can (the
    module runs on the controller, in the foreground, for real), else it runs the module as the normal
    action does."""

    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_async = True

    def _wraps_async(self):
        return bool(self._task.async_val and not self._connection.has_native_async)

    def can_follow(self):
        return (not self._wraps_async() and not self._task.check_mode
                and getattr(self._connection, "transport", "") == "local")

    def run_plainly(self, module_args, task_vars):
        wrap_async = self._wraps_async()
        result = self._execute_module(module_args=module_args, task_vars=task_vars, wrap_async=wrap_async)
        if not wrap_async:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        return result

    def run_following(self, module_args, task_vars, progress_path, show):
        return execute_following(self, module_args, task_vars, progress_path, show)
