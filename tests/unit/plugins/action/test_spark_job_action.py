"""The spark_job action: the job's readings shown while the module runs on the controller."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.action import spark_job as action

READINGS = [dict(job="verify", elapsed=10.0, tasks_done=1, tasks=4, records_read=250, records_expected=1000),
            dict(job="verify", elapsed=20.0, tasks_done=4, tasks=4, records_read=1000, records_expected=1000,
                 final=True)]


@pytest.fixture
def run_action(following_action):
    return following_action(action, "kafkaops.cluster.spark_job", READINGS,
                            lambda module_args: dict(changed=False, rc=0, progress=READINGS[-1]))


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
