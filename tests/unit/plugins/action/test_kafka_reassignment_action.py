"""The kafka_reassignment action: progress readings shown while the module runs on the controller."""

import json

import pytest
from ansible_collections.kafkaops.cluster.plugins.action import kafka_reassignment as action
from ansible_collections.kafkaops.cluster.plugins.plugin_utils import _progress_follower as follower

READINGS = [dict(done=0, total=2, elapsed=1.0, bytes_total=2048, bytes_copied=512, rate=512, seconds_left=3.0),
            dict(done=2, total=2, elapsed=4.2, bytes_total=2048, bytes_copied=2048, rate=512, seconds_left=0.0)]


@pytest.fixture
def run_action(following_action):
    def result(module_args):
        return dict(changed=True, moved=2, invocation=dict(module_args=dict(module_args)))

    return following_action(action, "kafkaops.cluster.kafka_reassignment", READINGS, result)


def test_each_reading_is_shown_while_the_module_runs(run_action):
    result = run_action(dict(bootstrap_servers=["kafka1:9092"], plan_file="plan.json", throttle=1000))
    assert run_action.seen_while_running == 2
    assert run_action.shown == [
        "kafka_reassignment: 0 of 2 partitions moved, 512 B of 2.0 KiB copied, 512 B/s, about 3 s left, 1 s elapsed",
        "kafka_reassignment: 2 of 2 partitions moved, 2.0 KiB of 2.0 KiB copied, 512 B/s, about 0 s left, 4 s elapsed"]
    progress_file = run_action.module_runs[0]["progress_file"]
    assert progress_file and not __import__("os").path.exists(progress_file)
    assert result["moved"] == 2 and result["invocation"]["module_args"]["progress_file"] is None


def test_the_operators_progress_file_is_kept(run_action, tmp_path):
    path = tmp_path / "progress.jsonl"
    result = run_action(dict(bootstrap_servers=["kafka1:9092"], plan_file="plan.json", progress_file=str(path)))
    assert len(run_action.shown) == 2 and path.exists()
    assert result["invocation"]["module_args"]["progress_file"] == str(path)


@pytest.mark.parametrize("args, transport, async_val, check_mode", [
    (dict(), "ssh", 0, False),
    (dict(), "local", 600, False),
    (dict(), "local", 0, True),
    (dict(state="absent"), "local", 0, False),
    (dict(wait=False), "local", 0, False),
])
def test_runs_it_cannot_follow_run_the_module_as_it_is(run_action, args, transport, async_val, check_mode):
    result = run_action(dict(bootstrap_servers=["kafka1:9092"], plan_file="plan.json", **args), transport,
                        async_val, check_mode)
    assert run_action.module_runs == [dict(bootstrap_servers=["kafka1:9092"], plan_file="plan.json", **args)]
    assert run_action.shown == [] and result["moved"] == 2


def test_a_partly_written_line_waits_for_its_end(tmp_path):
    path = tmp_path / "progress.jsonl"
    path.write_text(json.dumps(READINGS[0]) + "\n" + '{"done": 1')
    progress = follower.ProgressFile(str(path))
    assert progress.new_readings() == [READINGS[0]]
    with open(str(path), "a") as handle:
        handle.write(', "total": 2}\n')
    assert progress.new_readings() == [dict(done=1, total=2)] and progress.new_readings() == []
