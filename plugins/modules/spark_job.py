#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: spark_job
short_description: Run one of the collection's Spark jobs, showing its progress while it runs
version_added: "0.4.0"
description:
  - Runs a job of the P(kafkaops.cluster.kafka_verify#role) role (C(python -m kafkaops_verify.verify),
    C(kafkaops_verify.bulk_produce)) and returns its exit code and output, as M(ansible.builtin.command)
    would.
  - With O(progress_file), the job is given C(--progress-file) and appends a reading there every
    O(progress_interval) seconds and when it ends (tasks done of all tasks, and for the verification the
    records read of those it will read). When the module runs on the controller (a local connection, as
    the role runs it by default), its action shows each reading in the play's output while the job runs,
    for example C(7 of 12 tasks done, 1,200,000 of 3,000,000 records read (40%), 52,174 records/s,
    about 34 s left, 23 s elapsed) after the job's name. Elsewhere the last reading comes back in the result.
  - The role passes passwords to the jobs in a file, never in O(argv), which the result shows.
author:
  - kafkaops.cluster developers (@kafkaops)
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying target.
    support: full
    details: In check mode the job does not run, as M(ansible.builtin.command) does not.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
    details: A job writes records, not settings that a diff could show.
options:
  argv:
    description: The job's command line, the program first.
    type: list
    elements: str
    required: true
  chdir:
    description: Folder to run the job in.
    type: path
  progress_file:
    description:
      - File (on the host that runs the job) for the job's progress readings, one JSON object per line;
        given to the job as C(--progress-file). Not given, the job writes none.
    type: path
  progress_interval:
    description: Seconds between readings.
    type: float
    default: 10
  ok_codes:
    description: Exit codes that are not a failure (the verification exits 1 when records are wrong, and says which).
    type: list
    elements: int
    default: [0]
"""

EXAMPLES = r"""
- name: Verify, showing the records read as it goes
  kafkaops.cluster.spark_job:
    argv: [/opt/venv/bin/python, -m, kafkaops_verify.verify, --bootstrap-servers, "kafka1:9092",
           --topics, orders, --report, /tmp/verify/report.json]
    chdir: /tmp/verify
    progress_file: /tmp/verify/progress.jsonl
    ok_codes: [0, 1]
  environment:
    PYTHONPATH: /tmp/verify/kafkaops_verify.zip
"""

RETURN = r"""
rc:
  description: The job's exit code.
  returned: when the job ran
  type: int
stdout:
  description: What the job printed.
  returned: when the job ran
  type: str
stderr:
  description: What the job printed on standard error (Spark's log).
  returned: when the job ran
  type: str
stdout_lines:
  description: RV(stdout) as lines.
  returned: when the job ran
  type: list
  elements: str
cmd:
  description: The command line run, O(argv) with the progress options added.
  returned: always
  type: list
  elements: str
progress:
  description: The job's last progress reading (its final one when it finished), or null.
  returned: always
  type: dict
  sample: {"job": "verify", "elapsed": 57.3, "tasks_done": 12, "tasks": 12, "records_read": 3000000,
           "records_expected": 3000000, "final": true}
"""

import json

from ansible.module_utils.basic import AnsibleModule


def last_reading(path):
    """The last whole reading in the progress file, or None."""
    try:
        with open(path) as stream:
            lines = [line for line in stream.read().splitlines() if line.strip()]
    except OSError:
        return None
    for line in reversed(lines):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def job_command(argv, progress_file, progress_interval):
    if not progress_file:
        return list(argv)
    return list(argv) + ["--progress-file", progress_file, "--progress-interval", "%g" % progress_interval]


def main():
    module = AnsibleModule(
        argument_spec=dict(
            argv=dict(type="list", elements="str", required=True),
            chdir=dict(type="path"),
            progress_file=dict(type="path"),
            progress_interval=dict(type="float", default=10.0),
            ok_codes=dict(type="list", elements="int", default=[0]),
        ),
        supports_check_mode=True,
    )
    params = module.params
    if not params["argv"]:
        module.fail_json(msg="argv: empty; give the job's command line, the program first")
    if params["progress_interval"] <= 0:
        module.fail_json(msg="progress_interval: %s; give a number of seconds above 0" % params["progress_interval"])
    command = job_command(params["argv"], params["progress_file"], params["progress_interval"])
    if module.check_mode:
        module.exit_json(changed=False, skipped=True, cmd=command, progress=None,
                         msg="The job would run, but not in check mode")
    rc, stdout, stderr = module.run_command(command, cwd=params["chdir"])
    result = dict(rc=rc, stdout=stdout, stderr=stderr, stdout_lines=stdout.splitlines(), cmd=command,
                  progress=last_reading(params["progress_file"]) if params["progress_file"] else None,
                  changed=True)
    if rc not in params["ok_codes"]:
        last_words = [line for line in stderr.splitlines() if line.strip()][-1:] or ["(nothing on stderr)"]
        module.fail_json(msg="%s exited with %d: %s" % (" ".join(params["argv"][:3]), rc, last_words[0]), **result)
    # Said outright: Ansible takes a result with a non-zero rc and no "failed" for a failure.
    module.exit_json(failed=False, **result)


if __name__ == "__main__":
    main()
