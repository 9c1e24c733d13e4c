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

import json
import os
import tempfile
import threading

from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_moves import describe_progress

display = Display()
# How often the file is looked at; the module writes a reading every progress_interval seconds (10 by default).
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


def follows_progress(task_args, check_mode, wrap_async, transport):
    """Whether the run can be followed from here: it waits for moves, on this machine, in the foreground."""
    if wrap_async or check_mode or transport != "local":
        return False
    try:
        waits = boolean(task_args.get("wait", True), strict=False)
    except TypeError:
        waits = True
    return task_args.get("state", "present") == "present" and waits


class ActionModule(ActionBase):

    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_async = True

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp  # tmp no longer has any effect
        wrap_async = self._task.async_val and not self._connection.has_native_async
        module_args = dict(self._task.args)
        if not follows_progress(module_args, self._task.check_mode, wrap_async,
                                getattr(self._connection, "transport", "")):
            result.update(self._execute_module(module_args=module_args, task_vars=task_vars, wrap_async=wrap_async))
            if not wrap_async:
                self._remove_tmp_path(self._connection._shell.tmpdir)
            return result

        own_file = not module_args.get("progress_file")
        if own_file:
            handle, module_args["progress_file"] = tempfile.mkstemp(prefix="kafka-reassignment-", suffix=".jsonl")
            os.close(handle)
        progress = ProgressFile(module_args["progress_file"])
        outcome = {}

        def run_module():
            try:
                outcome["result"] = self._execute_module(module_args=module_args, task_vars=task_vars)
            except BaseException as error:  # pylint: disable=broad-except
                outcome["error"] = error

        worker = threading.Thread(target=run_module, name="kafka_reassignment")
        worker.daemon = True
        worker.start()
        try:
            while worker.is_alive():
                worker.join(FOLLOW_SECONDS)
                for reading in progress.new_readings():
                    display.display("kafka_reassignment: %s" % describe_progress(reading))
        finally:
            worker.join()
            if own_file:
                os.remove(module_args["progress_file"])
            self._remove_tmp_path(self._connection._shell.tmpdir)
        if "error" in outcome:
            raise outcome["error"]
        module_result = outcome["result"]
        if own_file:
            # The file was the action's, not the operator's.
            module_result.get("invocation", {}).get("module_args", {})["progress_file"] = None
        result.update(module_result)
        return result
