"""The spark_job action: the job's readings shown while the module runs on the controller."""

import json
import time
from types import SimpleNamespace
from unittest.mock import MagicMock

import pytest
from ansible_collections.kafkaops.cluster.plugins.action import spark_job as action
from ansible_collections.kafkaops.cluster.plugins.plugin_utils import _progress_follower as follower

READINGS = [dict(job="verify", elapsed=10.0, tasks_done=1, tasks=4, records_read=250, records_expected=1000),
            dict(job="verify", elapsed=20.0, tasks_done=4, tasks=4, records_read=1000, records_expected=1000,
                 final=True)]


@pytest.fixture
def run_action(monkeypatch):
    def run(args, transport="local", async_val=0, check_mode=False):
        run.module_runs, run.shown, run.seen_while_running = [], [], 0

        def execute_module(self, module_name=None, module_args=None, task_vars=None, wrap_async=False, **unused):
            run.module_runs.append(dict(module_args))
            if module_args.get("progress_file"):
                for number, reading in enumerate(READINGS, 1):
                    with open(module_args["progress_file"], "a") as handle:
                        handle.write(json.dumps(reading) + "\n")
                    # Wait for the action to show it, when it can follow at all (not to slow the other runs).
                    followed = transport == "local" and not async_val and not check_mode
                    deadline = time.monotonic() + (5 if followed else 0)
                    while len(run.shown) < number and time.monotonic() < deadline:
                        time.sleep(0.05)
                    run.seen_while_running = len(run.shown)
            return dict(changed=False, rc=0, progress=READINGS[-1])

        monkeypatch.setattr(action.ActionModule, "_execute_module", execute_module)
        monkeypatch.setattr(action.ActionModule, "_remove_tmp_path", lambda self, path: None)
        monkeypatch.setattr(follower, "FOLLOW_SECONDS", 0.05)
        monkeypatch.setattr(action.display, "display", lambda message, **unused: run.shown.append(message))
        task = SimpleNamespace(args=dict(args), async_val=async_val, check_mode=check_mode,
                               action="kafkaops.cluster.spark_job")
        connection = MagicMock(transport=transport, has_native_async=False)
        plugin = action.ActionModule(task=task, connection=connection, play_context=None, loader=None, templar=None)
        plugin._load_name = "kafkaops.cluster.spark_job"
        return plugin.run(task_vars={})

    return run


def test_each_reading_is_shown_while_the_job_runs(run_action, tmp_path):
    result = run_action(dict(argv=["python", "-m", "kafkaops_verify.verify"],
                             progress_file=str(tmp_path / "progress.jsonl")))
    assert run_action.seen_while_running == 2
    assert run_action.shown == [
        "verify: 1 of 4 tasks done, 250 of 1,000 records read (25%), 25 records/s, about 30 s left, 10 s elapsed",
        "verify: finished, 4 of 4 tasks done, 1,000 of 1,000 records read (100%), 50 records/s, 20 s elapsed"]
    assert result["rc"] == 0


@pytest.mark.parametrize("progress, transport, async_val, check_mode", [
    (True, "ssh", 0, False),
    (True, "local", 600, False),
    (True, "local", 0, True),
    (False, "local", 0, False),
])
def test_runs_it_cannot_follow_run_the_module_as_it_is(run_action, tmp_path, progress, transport, async_val,
                                                       check_mode):
    args = dict(argv=["python"], **(dict(progress_file=str(tmp_path / "p.jsonl")) if progress else {}))
    result = run_action(args, transport, async_val, check_mode)
    assert run_action.module_runs == [args] and run_action.shown == [] and result["rc"] == 0
