"""A harness for the actions that follow their module's progress file (plugin_utils/_progress_follower.py)."""

import json
import time
from types import SimpleNamespace
from unittest.mock import MagicMock

import pytest
from ansible_collections.kafkaops.cluster.plugins.plugin_utils import _progress_follower as follower


@pytest.fixture
def following_action(monkeypatch):
    """following_action(action module, task action name, readings, result(module_args)) -> run(args, transport,
    async_val, check_mode): runs the action's run() with a module stand-in that, given a progress file, appends
    the readings one by one, each only once the action showed the one before. run.module_runs holds the module
    arguments of each run, run.shown what the action displayed, run.seen_while_running how many readings were
    shown before the module ended."""

    def make(action, name, readings, module_result):
        def run(args, transport="local", async_val=0, check_mode=False):
            run.module_runs, run.shown, run.seen_while_running = [], [], 0

            def execute_module(self, module_name=None, module_args=None, task_vars=None, wrap_async=False, **unused):
                run.module_runs.append(dict(module_args))
                if module_args.get("progress_file"):
                    for number, reading in enumerate(readings, 1):
                        with open(module_args["progress_file"], "a") as handle:
                            handle.write(json.dumps(reading) + "\n")
                        # Wait for the action to show it, when it can follow at all (not to slow the other runs).
                        followed = transport == "local" and not async_val and not check_mode
                        deadline = time.monotonic() + (5 if followed else 0)
                        while len(run.shown) < number and time.monotonic() < deadline:
                            time.sleep(0.05)
                        run.seen_while_running = len(run.shown)
                return module_result(module_args)

            monkeypatch.setattr(action.ActionModule, "_execute_module", execute_module)
            monkeypatch.setattr(action.ActionModule, "_remove_tmp_path", lambda self, path: None)
            monkeypatch.setattr(follower, "FOLLOW_SECONDS", 0.05)
            monkeypatch.setattr(action.display, "display", lambda message, **unused: run.shown.append(message))
            task = SimpleNamespace(args=dict(args), async_val=async_val, check_mode=check_mode, action=name)
            connection = MagicMock(transport=transport, has_native_async=False)
            plugin = action.ActionModule(task=task, connection=connection, play_context=None, loader=None,
                                         templar=None)
            plugin._load_name = name
            return plugin.run(task_vars={})

        return run

    return make
