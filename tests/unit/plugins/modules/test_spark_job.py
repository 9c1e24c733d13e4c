"""spark_job runs a real process (a small Python script standing in for a job) and reads its progress file."""

import json
import sys

import pytest
from ansible.module_utils.testing import patch_module_args
from ansible_collections.kafkaops.cluster.plugins.modules import spark_job

# Writes two readings to the file after --progress-file, prints a line, exits with the code it is given.
JOB = """
import json, sys
arguments = sys.argv[1:]
code = int(arguments[0])
if "--progress-file" in arguments:
    path = arguments[arguments.index("--progress-file") + 1]
    assert arguments[arguments.index("--progress-interval") + 1] == "0.5"
    with open(path, "a") as stream:
        stream.write(json.dumps({"job": "verify", "tasks_done": 1, "tasks": 2, "elapsed": 1.0}) + "\\n")
        stream.write(json.dumps({"job": "verify", "tasks_done": 2, "tasks": 2, "elapsed": 2.0, "final": True}) + "\\n")
print("verify: 10 records")
print("Spark says goodbye", file=sys.stderr)
sys.exit(code)
"""


def run(capsys, **args):
    with patch_module_args(args), pytest.raises(SystemExit):
        spark_job.main()
    return json.loads(capsys.readouterr().out)


def test_the_job_runs_with_the_progress_options_and_its_last_reading_comes_back(capsys, tmp_path):
    progress = tmp_path / "progress.jsonl"
    result = run(capsys, argv=[sys.executable, "-c", JOB, "0"], chdir=str(tmp_path), progress_file=str(progress),
                 progress_interval=0.5)
    assert result["rc"] == 0 and result["stdout_lines"] == ["verify: 10 records"] and not result.get("failed")
    assert result["cmd"][-4:] == ["--progress-file", str(progress), "--progress-interval", "0.5"]
    assert result["progress"] == {"job": "verify", "tasks_done": 2, "tasks": 2, "elapsed": 2.0, "final": True}


def test_an_exit_code_outside_ok_codes_fails_with_the_last_line_of_stderr(capsys):
    result = run(capsys, argv=[sys.executable, "-c", JOB, "2"], ok_codes=[0, 1])
    assert result["failed"] and result["rc"] == 2 and result["progress"] is None
    assert result["msg"] == "%s -c %s exited with 2: Spark says goodbye" % (sys.executable, JOB)


def test_an_ok_code_is_not_a_failure(capsys):
    result = run(capsys, argv=[sys.executable, "-c", JOB, "1"], ok_codes=[0, 1])
    # "failed" must be there, False: Ansible reads a result with rc 1 and no "failed" as a failure.
    assert result["rc"] == 1 and result["failed"] is False and "--progress-file" not in result["cmd"]


def test_check_mode_does_not_run_the_job(capsys, tmp_path):
    marker = tmp_path / "ran"
    result = run(capsys, argv=[sys.executable, "-c", "open(%r, 'w')" % str(marker)], _ansible_check_mode=True)
    assert result["skipped"] and not result["changed"] and not marker.exists()


@pytest.mark.parametrize("args, message", [
    (dict(argv=[]), "argv: empty; give the job's command line, the program first"),
    (dict(argv=["python"], progress_interval=0), "progress_interval: 0.0; give a number of seconds above 0"),
])
def test_bad_input_is_refused_naming_the_option(capsys, args, message):
    result = run(capsys, **args)
    assert result["failed"] and result["msg"] == message
