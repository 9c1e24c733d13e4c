"""tests/integration/playbook_runner.py: how the checks run ansible-playbook and read what a run did.

sample-run-stdout.txt is what SAMPLE_PLAYBOOK printed through the jsonl callback, run on localhost with
`-e sample_count=2`, -v and a configuration that enables ansible.posix.profile_tasks (as Molecule's does), so
that other lines sit between the events; the folder it ran in was taken out of its paths, and trailing spaces
out of its lines. The reading is checked on it; one run of the sample here checks that the Ansible installed
prints what the reading expects, and the runner's own work: several runs at once, extra vars, a timeout.
"""

import os
import subprocess
import sys
import time

import pytest

from ansible_collections.kafkaops.cluster.tests.integration.playbook_runner import (
    callback_environment,
    fold,
    playbook_command,
    read_run,
    run_playbook,
    run_playbooks,
)
from ansible_collections.kafkaops.cluster.tests.unit.roles.playbook_runs import playbook_environment

SAMPLE_PLAYBOOK = """---
- name: Changes and failures
  hosts: all
  gather_facts: false
  tasks:
    - name: Say two lines
      ansible.builtin.debug:
        msg: ["Line one", "Line   two,  spaced"]

    - name: Keep a secret
      ansible.builtin.set_fact:
        sample_secret: Sample-Secret-7Kq2
      no_log: true

    - name: Fail with the secret
      ansible.builtin.fail:
        msg: "the secret is {{ sample_secret }}"
      no_log: true
      ignore_errors: true

    - name: Change something
      ansible.builtin.command: echo changed
      changed_when: true
      notify: Handle the change

    - name: Show a line while running
      ansible.builtin.pause:
        seconds: 1

    - name: Refuse {{ sample_count }} items
      ansible.builtin.fail:
        msg: "item {{ item }}:   refused\\n  on two lines"
      loop: [1, 2]
      ignore_errors: true

    - name: Skip this
      ansible.builtin.debug:
        msg: never
      when: false

  handlers:
    - name: Handle the change
      ansible.builtin.debug:
        msg: handled

- name: Settings check
  hosts: all
  gather_facts: false
  tasks:
    - name: Refuse the settings
      ansible.builtin.assert:
        that: false
        fail_msg: "sample_setting: refused, nothing was changed"

- name: Never reached
  hosts: all
  gather_facts: false
  tasks:
    - name: Never runs
      ansible.builtin.debug:
        msg: never
"""

SECRET = "Sample-Secret-7Kq2"
CENSORED = "the output has been hidden due to the fact that 'no_log: true' was specified for this result"
SAMPLE_TASKS = ["Say two lines", "Keep a secret", "Fail with the secret", "Change something",
                "Show a line while running", "Refuse 2 items", "Skip this", "Handle the change", "Refuse the settings"]


@pytest.fixture(scope="module")
def sample_stdout():
    with open(os.path.join(os.path.dirname(__file__), "sample-run-stdout.txt"), encoding="utf-8") as handle:
        return handle.read()


def check_sample(run):
    """What the sample's run did, as every reading of it must give it."""
    assert run.plays == ["Changes and failures", "Settings check"]
    assert [task.name for task in run.tasks] == SAMPLE_TASKS
    assert [task.play for task in run.tasks] == ["Changes and failures"] * 8 + ["Settings check"]
    assert run.stats == {"localhost": {"changed": 1, "failures": 1, "ignored": 2, "ok": 7, "rescued": 0,
                                       "skipped": 1, "unreachable": 0}}
    assert run.changes == {"localhost": 1}
    assert run.statuses("Change something") == [{"localhost": "changed"}]
    assert run.statuses("Skip this") == [{"localhost": "skipped"}]
    assert run.statuses("Refuse 2 items") == [{"localhost": "failed"}]
    assert run.statuses("Handle the change") == [{"localhost": "ok"}]
    assert run.statuses("Never runs") == []
    # The failures in order, one per message: a loop's failed items each have theirs, whitespace folded; a no_log
    # failure shows the note that hides its message.
    assert [(failure.play, failure.task, failure.host, failure.message) for failure in run.failures()] == [
        ("Changes and failures", "Fail with the secret", "localhost", CENSORED),
        ("Changes and failures", "Refuse 2 items", "localhost", "One or more items failed"),
        ("Changes and failures", "Refuse 2 items", "localhost", "item 1: refused on two lines"),
        ("Changes and failures", "Refuse 2 items", "localhost", "item 2: refused on two lines"),
        ("Settings check", "Refuse the settings", "localhost", "sample_setting: refused, nothing was changed")]
    assert run.failure_messages("Refuse the settings") == ["sample_setting: refused, nothing was changed"]
    # A debug task's lines, one message each.
    assert run.messages("Say two lines") == ["Line one", "Line two, spaced"]
    assert "handled" in run.messages()
    # What the pause action showed while its task ran (after the line profile_tasks printed as it started).
    assert run.task_runs("Show a line while running")[0].printed[-1] == "Pausing for 1 seconds"
    # The no_log task's results are censored before they reach the callback.
    assert run.task_runs("Keep a secret")[0].results["localhost"]["censored"] == CENSORED
    assert SECRET not in run.text


def test_a_saved_run_reads_as_its_plays_tasks_results_and_stats(sample_stdout):
    run = read_run(sample_stdout, "", 2)
    check_sample(run)
    assert run.rc == 2 and run.text == sample_stdout
    # The lines that are no event stay where they were printed: -v's first line came before any task.
    assert sample_stdout.startswith("Using ansible.cfg as config file\n")
    assert all("Using ansible.cfg" not in line for task in run.tasks for line in task.printed)
    assert "TASKS RECAP" in "\n".join(run.tasks[-1].printed)


def test_a_run_cut_short_has_the_events_up_to_its_end_and_no_stats(sample_stdout):
    """As a run killed while it printed a line leaves it: the events before it, that line half written."""
    lines = sample_stdout.splitlines()
    cut = next(index for index, line in enumerate(lines) if '"name":"Show a line while running"' in line
               and '"_event":"v2_runner_on_ok"' in line)
    run = read_run("\n".join(lines[:cut] + [lines[cut][:80]]))
    assert run.stats is None and run.changes == {} and run.rc is None
    assert run.plays == ["Changes and failures"]
    assert [task.name for task in run.tasks] == SAMPLE_TASKS[:5]
    # The task still running: started, with no result yet, the half line kept as printed.
    running = run.tasks[-1]
    assert running.results == {} and running.printed[-1] == lines[cut][:80]
    assert "the run did not get to its end" in run.describe()


def test_a_result_without_a_start_event_makes_its_own_task_run():
    """A play of the free strategy prints no task start in lockstep: its results still count."""
    event = ('{"_event":"v2_runner_on_ok","hosts":{"node-1":{"changed":true}},'
             '"task":{"id":"7","name":"Free task"}}')
    run = read_run('{"_event":"v2_playbook_on_play_start","play":{"name":"Free play"}}\n%s\n%s\n'
                   % (event, event.replace("node-1", "node-2").replace("true", "false")))
    assert [(task.name, task.play) for task in run.tasks] == [("Free task", "Free play")]
    assert run.statuses("Free task") == [{"node-1": "changed", "node-2": "ok"}]


def test_a_description_names_the_failures_and_keeps_to_its_limit(sample_stdout):
    described = read_run(sample_stdout, "a warning\n", 2).describe()
    assert described.startswith("exit code 2; plays: Changes and failures, Settings check\nstats: {")
    assert "failed: [localhost] Refuse the settings: sample_setting: refused, nothing was changed" in described
    assert described.endswith("stderr: a warning")
    short = read_run(sample_stdout, "", 2).describe(limit=100)
    assert len(short) == 103 and short.startswith("...")


@pytest.mark.parametrize("text, folded", [("a \n  b\tc ", "a b c"), ({"b": 1, "a": [2]}, '{"a": [2], "b": 1}')])
def test_fold(text, folded):
    assert fold(text) == folded


def test_the_command_gives_extra_vars_as_one_json_or_one_each():
    assert playbook_command("kafkaops.cluster.site", ["inventory", "more.ini"], {"count": 2, "name": "a b"}) == [
        "ansible-playbook", "-i", "inventory", "-i", "more.ini", "-e", '{"count": 2, "name": "a b"}',
        "kafkaops.cluster.site"]
    assert playbook_command("site.yml", ["localhost,"], ["count=2", "@vars.json"], ["-c", "local"]) == [
        "ansible-playbook", "-i", "localhost,", "-c", "local", "-e", "count=2", "-e", "@vars.json", "site.yml"]
    assert playbook_command("site.yml") == ["ansible-playbook", "site.yml"]
    with pytest.raises(TypeError, match="extra_vars: a mapping or a list of -e values, not str"):
        playbook_command("site.yml", extra_vars="count=2")


def test_the_environment_prints_events_one_a_line_and_keeps_the_rest():
    environment = callback_environment({"ANSIBLE_CONFIG": "molecule.cfg", "ANSIBLE_JSON_INDENT": "4"})
    assert environment == {"ANSIBLE_CONFIG": "molecule.cfg", "ANSIBLE_STDOUT_CALLBACK": "ansible.posix.jsonl",
                           "ANSIBLE_JSON_INDENT": "0", "ANSIBLE_NOCOLOR": "1", "ANSIBLE_FORCE_COLOR": "0"}


@pytest.fixture(scope="module")
def local_environment():
    """The repository's configuration and collection, with -v, its ansible-playbook first on the PATH."""
    return dict(playbook_environment(), ANSIBLE_VERBOSITY="1",
                PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])


def test_runs_at_once_read_as_the_saved_run_does(tmp_path, local_environment):
    """The installed Ansible prints what the reading expects, whichever way the extra vars go, two runs at once."""
    playbook = tmp_path / "sample.yml"
    playbook.write_text(SAMPLE_PLAYBOOK)
    interpreter = "ansible_python_interpreter=%s" % sys.executable
    typed, as_strings = run_playbooks(
        [playbook_command(playbook, ["localhost,"], {"sample_count": 2, "ansible_python_interpreter": sys.executable},
                          ["-c", "local"]),
         playbook_command(playbook, ["localhost,"], ["sample_count=2", interpreter], ["-c", "local"])],
        local_environment, timeout=300)
    for run in (typed, as_strings):
        assert run.rc == 2, run.describe()
        check_sample(run)
        assert run.text.startswith("Using ")


def test_a_run_past_its_time_is_killed_and_fails_the_check(tmp_path, local_environment):
    playbook = tmp_path / "slow.yml"
    playbook.write_text("- name: Slow\n  hosts: all\n  gather_facts: false\n  tasks:\n"
                        "    - name: Wait long\n      ansible.builtin.pause:\n        seconds: 120\n")
    started = time.monotonic()
    # How far it got shows: the play had started.
    with pytest.raises(AssertionError, match=r"slow\.yml ran longer than 12 s: exit code None; plays: Slow\n"):
        run_playbook(playbook, ["localhost,"], options=["-c", "local"], environment=local_environment, timeout=12)
    assert time.monotonic() - started < 60
    # Nothing of the run is left, its worker (which runs the pause, in a session of its own) included.
    deadline = time.monotonic() + 10
    while True:
        left = subprocess.run(["pgrep", "-f", str(playbook)], capture_output=True, text=True, check=False).stdout
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert left == "", left
