"""Runs ansible-playbook for the tests, and reads what a run did from its results instead of its console text.

A run prints through the stdout callback ansible.posix.jsonl: one JSON event a line, as the run goes (a play
or a task starts, a host's result comes, the stats at the end). read_run turns those lines into a PlaybookRun:
the plays in the order they started, each run of a task with every host's result, the failures' messages, and
each host's stats (ok, changed, failures, unreachable, ...).

Why events a line rather than the json callback's one document at the end:
- a run cut short (the migration scenario kills one on purpose) still leaves every event up to its end, and
  has no stats; a side effect can follow a run while it goes;
- whatever else reaches stdout (-v's "Using ... as config file", the lines of Molecule's profile_tasks
  callback, what an action shows while its task runs) is no event: it is kept as the lines printed during
  the task that ran then, never read as a result. So a run keeps the Ansible configuration it has.
A no_log task's result reaches the callback censored (its values replaced by a note), as it reaches the
default callback; PlaybookRun.text keeps everything printed, for the checks that a secret never shows.

Imported as a module of its own (`from playbook_runner import ...`): pytest puts tests/integration on the
import path for its own tests, and Molecule's checks add it (molecule/shared/tests/conftest.py).
"""

import contextlib
import json
import os
import signal
import subprocess
import tempfile
from collections import namedtuple

CALLBACK = "ansible.posix.jsonl"
# With sorted keys, _event comes first: a line that starts so is an event (or one cut short by a kill).
EVENT_START = '{"_event":'
TASK_STARTS = ("v2_playbook_on_task_start", "v2_playbook_on_handler_task_start")
RESULTS = ("v2_runner_on_ok", "v2_runner_on_failed", "v2_runner_on_skipped", "v2_runner_on_unreachable")

Failure = namedtuple("Failure", "play task host message")


def fold(text):
    """The text with each run of whitespace made one space, as a message reads whatever its line breaks."""
    return " ".join((text if isinstance(text, str) else json.dumps(text, sort_keys=True)).split())


def result_status(result):
    """A host's result in a word: unreachable, failed, skipped, changed or ok (the first that holds)."""
    for status in ("unreachable", "failed", "skipped", "changed"):
        if result.get(status):
            return status
    return "ok"


def _messages(result, failed_only):
    """The msg of a host's result and of its loop items (only the failed ones when failed_only), folded; a list
    msg (a debug task's lines) gives one message per line."""
    sources = [result] + [item for item in result.get("results") or []
                          if isinstance(item, dict) and (item.get("failed") or not failed_only)]
    found = []
    for source in sources:
        message = source.get("msg")
        if message not in (None, ""):
            found.extend(fold(line) for line in (message if isinstance(message, list) else [message]))
    return found


class TaskRun:
    """One run of a task: its name as the run printed it (a role's task as 'role : name', templated), its
    play, every host's result, and the lines printed from its start until the next task started."""

    def __init__(self, name, play):
        self.name = name
        self.play = play
        self.results = {}
        self.printed = []

    def statuses(self):
        """{host: unreachable, failed, skipped, changed or ok}."""
        return {host: result_status(result) for host, result in self.results.items()}


class PlaybookRun:
    """What one ansible-playbook run did, read from its events (see read_run)."""

    def __init__(self, rc, stdout, stderr, plays, tasks, stats):
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.plays = plays
        self.tasks = tasks
        # None when the run printed no stats: it did not get to its end.
        self.stats = stats

    @property
    def text(self):
        """Everything the run printed."""
        return self.stdout + self.stderr

    @property
    def changes(self):
        """{host: its count of changed results} of the hosts that had any."""
        return {host: counts["changed"] for host, counts in (self.stats or {}).items() if counts["changed"]}

    def task_runs(self, name):
        """The runs of the task of that name, in order."""
        return [task for task in self.tasks if task.name == name]

    def statuses(self, name):
        """[{host: status}, ...]: one entry per run of the task of that name."""
        return [task.statuses() for task in self.task_runs(name)]

    def failures(self):
        """Every failed or unreachable host result, one Failure per message (the results of a loop's failed
        items have their own), in the order they came."""
        found = []
        for task in self.tasks:
            for host, result in task.results.items():
                if result_status(result) in ("failed", "unreachable"):
                    # A no_log result's message is censored: the note that says so stands for it.
                    messages = _messages(result, failed_only=True) or [fold(result.get("censored", ""))]
                    found.extend(Failure(task.play, task.name, host, message) for message in messages)
        return found

    def failure_messages(self, task=None):
        """The failures' messages (of the task of that name only, when given), whitespace folded."""
        return [failure.message for failure in self.failures() if task is None or failure.task == task]

    def messages(self, task=None):
        """Every result's messages, a debug task's lines included (of the task of that name only, when given)."""
        return [message for run in self.tasks if task is None or run.name == task
                for result in run.results.values() for message in _messages(result, failed_only=False)]

    def describe(self, limit=3000):
        """A short account of the run for an assertion's message."""
        lines = ["exit code %s; plays: %s" % (self.rc, ", ".join(self.plays) or "none"),
                 "stats: %s" % (json.dumps(self.stats, sort_keys=True) if self.stats is not None
                                else "none (the run did not get to its end)")]
        lines += ["failed: [%s] %s: %s" % (failure.host, failure.task, failure.message) for failure in self.failures()]
        if self.stderr.strip():
            lines.append("stderr: " + self.stderr.strip()[-1000:])
        text = "\n".join(lines)
        return text if len(text) <= limit else "..." + text[-limit:]


def _event(line):
    if not line.startswith(EVENT_START):
        return None
    try:
        event = json.loads(line)
    except ValueError:
        return None  # the last line of a run killed while it printed it
    return event if isinstance(event, dict) else None


def read_run(stdout, stderr="", rc=None):
    """A PlaybookRun from what a run printed through the jsonl callback (stdout: its events and any other lines,
    or both streams in one), and its exit code when known."""
    plays, tasks, stats = [], [], None
    latest = {}  # task id: its latest run
    play = None
    for line in stdout.splitlines():
        event = _event(line)
        if event is None:
            if tasks:
                tasks[-1].printed.append(line)
            continue
        kind = event["_event"]
        if kind == "v2_playbook_on_play_start":
            play = event["play"]["name"]
            plays.append(play)
        elif kind in TASK_STARTS:
            latest[event["task"]["id"]] = TaskRun(event["task"]["name"], play)
            tasks.append(latest[event["task"]["id"]])
        elif kind in RESULTS:
            task = latest.get(event["task"]["id"])
            if task is None:
                # A play of the free strategy prints no task start: its task's first result stands for it.
                task = latest[event["task"]["id"]] = TaskRun(event["task"]["name"], play)
                tasks.append(task)
            task.results.update(event["hosts"])
        elif kind == "v2_playbook_on_stats":
            stats = event["stats"]
    return PlaybookRun(rc, stdout, stderr, plays, tasks, stats)


def callback_environment(environment=None):
    """The environment (this process's by default) with the jsonl stdout callback, one event a line, no colour."""
    return dict(os.environ if environment is None else environment, ANSIBLE_STDOUT_CALLBACK=CALLBACK,
                ANSIBLE_JSON_INDENT="0", ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0")


def playbook_command(playbook, inventories=(), extra_vars=None, options=()):
    """The ansible-playbook command that runs playbook (a path or a FQCN) with the inventory sources and options.

    extra_vars: a mapping goes as one JSON -e (its values keep their types); a list of strings as one -e each
    ("name=value", which Ansible reads as a string, as an operator types it; JSON; or @file).
    """
    command = ["ansible-playbook"]
    for source in inventories:
        command += ["-i", str(source)]
    command += [str(option) for option in options]
    if isinstance(extra_vars, dict):
        command += ["-e", json.dumps(extra_vars)]
    elif isinstance(extra_vars, (list, tuple)):
        for value in extra_vars:
            command += ["-e", str(value)]
    elif extra_vars is not None:
        raise TypeError("extra_vars: a mapping or a list of -e values, not %s" % type(extra_vars).__name__)
    return command + [str(playbook)]


def run_playbooks(commands, environment=None, timeout=600, cwd=None):
    """Starts every command (playbook_command's) at the same time; returns a PlaybookRun for each, in order.

    Each is awaited up to timeout seconds after the one before it ended; one that runs longer is killed (with
    whatever it started) and fails the check, showing how far it got. Output goes to files: a pipe left unread
    while another run is awaited would stall its run.
    """
    environment = callback_environment(environment)
    with contextlib.ExitStack() as cleanup:
        started = []
        for command in commands:
            stdout, stderr = (cleanup.enter_context(tempfile.TemporaryFile()) for unused in range(2))
            # A session of its own, which a run killed for its time takes with it.
            process = subprocess.Popen(command, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                                       env=environment, cwd=cwd, start_new_session=True)
            # Left running only when a check stops early (a timeout, an interrupt): then it ends with the check.
            cleanup.callback(_kill, process)
            started.append((command, process, stdout, stderr))
        runs = []
        for command, process, stdout, stderr in started:
            try:
                code = process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill(process)
                so_far = read_run(_read(stdout), _read(stderr))
                raise AssertionError("%s ran longer than %s s: %s" % (" ".join(command), timeout, so_far.describe())
                                     ) from None
            runs.append(read_run(_read(stdout), _read(stderr), code))
        return runs


def _read(handle):
    handle.seek(0)
    return handle.read().decode("utf-8", errors="replace")


def _kill(process):
    """Ends a run still going: first as Ctrl-C does, on which Ansible ends its workers (each runs in a session of
    its own, out of the run's reach), then whatever is left of the run's own session."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def run_playbook(playbook, inventories=(), extra_vars=None, options=(), environment=None, timeout=600, cwd=None):
    """Runs one playbook (see playbook_command and run_playbooks); returns its PlaybookRun."""
    command = playbook_command(playbook, inventories, extra_vars, options)
    return run_playbooks([command], environment, timeout, cwd)[0]
