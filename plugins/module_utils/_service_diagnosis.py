# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Why a service a module waits for does not come up, from its systemd unit and its log (pure logic).

A wait that only polls a port learns nothing but "connection refused" until its timeout. The unit
tells more: a broker whose configuration is refused exits, systemd restarts it (Restart=on-failure)
and it exits again; its reason is in its log4j log, or, when the JVM fails before log4j starts
(a bad -Xmx), only in the journal. The module reads those (see _service_watch); this file decides
when waiting on is hopeless, picks the lines that carry the cause and words the message.
"""

from __future__ import absolute_import, division, print_function


import re
import signal

from ansible_collections.kafkaops.cluster.plugins.module_utils._systemctl import parse_show

UNIT_PROPERTIES = ("LoadState", "ActiveState", "SubState", "Result", "NRestarts", "ExecMainCode",
                   "ExecMainStatus", "ExecMainPID", "MainPID")
# The cause of a crash is near the end of a log; older lines are not worth reading.
LOG_TAIL_BYTES = 256 * 1024
JOURNAL_LINES = 30
EXCERPT_LINES = 10
LINE_WIDTH = 240
# The log_source of lines read from journalctl rather than from the log file.
JOURNAL = "journal"

# ExecMainCode is the si_code of the main process's last exit (CLD_EXITED, CLD_KILLED, CLD_DUMPED);
# 0 means it has not exited since it was last started.
EXIT_KINDS = {1: "exited", 2: "killed", 3: "dumped"}
# Polls in a row that must see the unit inactive: one may fall between a stop and the start that follows it.
INACTIVE_POLLS = 2
# Exits that a later start gets past by itself. A ZooKeeper-mode broker that systemd starts again within
# zookeeper.session.timeout.ms of being killed finds its /brokers/ids node still owned by the dead
# process's session and exits; once ZooKeeper expires that session the next start registers.
PASSING_CAUSES = (re.compile(r"node already exists and owner '[^']*' does not match current session"),)
# Restarts during one wait that passing causes may account for: a broker id another live broker holds
# gives the same message and never passes, so the wait still ends well before its timeout.
FORGIVABLE_RESTARTS = 3

LEVEL = re.compile(r"\b(TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|SEVERE)\b")
CAUSE_LEVELS = ("ERROR", "FATAL", "SEVERE")
THROWABLE = re.compile(r'^(Caused by: |Exception in thread "[^"]*" )?([A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*'
                       r"(Exception|Error|Throwable)\b")
# A setting whose name says it holds a secret (keyStorePassword=..., sasl.jaas.config=... password="..."),
# up to the end of its value: a quote, a space, a comma or the end of the line.
SECRET_SETTING = re.compile(r'((?:password|passwd|secret|passphrase)[\w.-]*\s*[=:]\s*"?)[^"\s,;]+', re.IGNORECASE)
LEADING_TIMESTAMP = re.compile(r"^\[?\d{4}-\d\d-\d\d[ T][\d:.,]+\]?\s*")
# What systemd itself writes into a unit's journal, as opposed to what the service printed.
SYSTEMD_LINE = re.compile(r"^([\w@.:\\-]+\.(service|socket|scope)(: | failed\.)|(Started|Starting|Stopped|Stopping|"
                          r"Reloading|Reloaded|Unit) )")


def parse_unit_state(text):
    """The unit's state from `systemctl show --property=...` output (KEY=value lines)."""
    values = parse_show(text)
    return dict(
        load_state=values.get("LoadState", ""),
        active_state=values.get("ActiveState", ""),
        sub_state=values.get("SubState", ""),
        result=values.get("Result", ""),
        # NRestarts counts systemd's automatic restarts (systemd 235 and later; None before).
        restarts=_whole_number(values.get("NRestarts")),
        exit_kind=EXIT_KINDS.get(_whole_number(values.get("ExecMainCode"))),
        exit_status=_whole_number(values.get("ExecMainStatus")),
        # The process the Exec* fields describe: the running one, or the last one that exited.
        exec_pid=_whole_number(values.get("ExecMainPID")),
        main_pid=_whole_number(values.get("MainPID")),
    )


def _whole_number(text):
    if text is None or not text.strip().lstrip("-").isdigit():
        return None
    return int(text)


class UnitProgress:
    """The unit as the polls of one wait saw it, and whether waiting longer can still help."""

    def __init__(self):
        self.latest = None
        self.restarts_at_start = None
        self.inactive_polls = 0
        # systemd forgets the last exit when it starts the process again; the wait remembers it.
        self.last_exit = None
        # Restarts during the wait whose exits had a passing cause (see forgive).
        self.forgiven = 0
        # The latest poll saw a unit that no start will bring up (see observe).
        self.no_start_coming = False
        # ExecMainPID when NRestarts last went up: the process whose exit that restart answered.
        self.pid_before_restart = None

    def observe(self, state):
        """Take one poll's unit state; True when the service will not come up by itself.

        Hopeless: systemd knows no such unit; the unit failed; systemd restarted it during the wait
        and it is down again (waiting for its next restart), or restarted it twice (it crashes and
        will crash again); it stays inactive (nobody starts it). One restart alone is not enough:
        the restart may pick up a mended configuration (a re-run of the role writes the files
        before it waits), and then the service comes up.
        """
        previous, self.latest = self.latest, state
        if (previous is not None and previous["restarts"] is not None and state["restarts"] is not None
                and state["restarts"] > previous["restarts"]):
            self.pid_before_restart = previous["exec_pid"]
        if state["exit_kind"] is not None:
            self.last_exit = (state["exit_kind"], state["exit_status"])
        if state["restarts"] is not None:
            if self.restarts_at_start is None or state["restarts"] < self.restarts_at_start:
                # A start by hand (systemctl start or restart) sets the counter back to 0.
                self.restarts_at_start = state["restarts"]
                self.forgiven = 0
        self.inactive_polls = self.inactive_polls + 1 if state["active_state"] == "inactive" else 0
        # No start is coming: systemd knows no such unit, gave up on it, or nobody starts it.
        self.no_start_coming = (state["load_state"] == "not-found"
                                or state["active_state"] == "failed"
                                or self.inactive_polls >= INACTIVE_POLLS)
        restarts = (self.restarts_during_wait or 0) - self.forgiven
        return (self.no_start_coming
                or (restarts >= 1 and self._down_after_restart(state))
                or restarts >= 2)

    def _down_after_restart(self, state):
        """Down again after systemd's latest restart, not still waiting for that restart to start it.

        systemd counts a restart (NRestarts) when it queues the start, and the unit stays in auto-restart
        until the start runs: a poll in between sees the count up and the old exit. The exited process
        (ExecMainPID) tells them apart: the same one as before the count went up means not started yet.
        """
        if state["sub_state"] != "auto-restart":
            return False
        return not state["exec_pid"] or state["exec_pid"] != self.pid_before_restart

    def forgive(self):
        """After a hopeless verdict whose exits had a passing cause: True when waiting on may still help.

        The restarts so far no longer count against the unit, so its next start is watched afresh;
        not when the unit failed, is unknown or stays inactive (no restart is coming), nor past
        FORGIVABLE_RESTARTS during the wait.
        """
        restarts = self.restarts_during_wait
        if self.latest is None or self.no_start_coming or restarts is None or restarts > FORGIVABLE_RESTARTS:
            return False
        self.forgiven = restarts
        return True

    @property
    def restarts_during_wait(self):
        if self.latest is None or self.latest["restarts"] is None or self.restarts_at_start is None:
            return None
        return self.latest["restarts"] - self.restarts_at_start

    def report(self):
        """The latest state, with the restarts counted during the wait and the last exit seen, as modules return it."""
        if self.latest is None:
            return None
        report = dict(self.latest, restarts_during_wait=self.restarts_during_wait)
        if report["exit_kind"] is None and self.last_exit is not None:
            report["exit_kind"], report["exit_status"] = self.last_exit
        return report


def passing_cause(lines):
    """True when the cause lines show an exit that a later start gets past by itself (PASSING_CAUSES)."""
    return any(pattern.search(line) for line in lines for pattern in PASSING_CAUSES)


def describe_unit(unit, state, read_error=None):
    """One clause on the unit, e.g. 'the unit is activating (auto-restart) and restarted once during ...'.

    state: UnitProgress.report(), or None when the unit could not be read (read_error says why).
    """
    if state is None:
        return "the state of unit %s could not be read (%s)" % (unit, read_error or "not read yet")
    if state["load_state"] == "not-found":
        return "systemd knows no unit %s (see the option service)" % unit
    text = "the unit is %s" % state["active_state"]
    if state["sub_state"] and state["sub_state"] != state["active_state"]:
        text += " (%s)" % state["sub_state"]
    if state["active_state"] == "failed" and state["result"] not in ("", "success"):
        text += " (result %s)" % state["result"]
    restarts = state.get("restarts_during_wait")
    if restarts == 1:
        text += " and restarted once during the wait"
    elif restarts:
        text += " and restarted %d times during the wait" % restarts
    elif restarts == 0:
        text += " and not restarted during the wait"
    last_exit = describe_exit(state["exit_kind"], state["exit_status"])
    if last_exit:
        text += ", " + last_exit
    return text


def describe_exit(kind, status):
    if kind == "exited":
        return "last exit status %s" % status
    if kind in ("killed", "dumped"):
        verb = "killed by" if kind == "killed" else "dumped core on"
        return "last %s %s" % (verb, signal_name(status))
    return None


def signal_name(number):
    try:
        return signal.Signals(number).name
    except (TypeError, ValueError):
        return "signal %s" % number


def cause_lines(text, limit=EXCERPT_LINES, width=LINE_WIDTH):
    """The log lines that carry the reason, oldest first: at most limit lines, each at most width long.

    A log4j record is a line with its level and the lines after it (stack traces). Records at
    ERROR or FATAL count; when the tail holds none, any record carrying an exception does (ZooKeeper
    logs a peer it cannot reach at WARN, with the UnknownHostException under it), but not beside
    an ERROR: a broker's controlled shutdown logs exceptions at INFO that would crowd out the fatal
    one of the start that follows. Of a record, its first line,
    the exception and its 'Caused by' lines are kept, not the stack frames. A record that repeats
    (a crash loop writes the same one on every start) is kept once, where it last appeared. When
    not all fit, the newest records win; of one record too long, its last causes (the root one).
    """
    found = [_cause_of(record) for record in _records(text)]
    at_cause_level = [kept for kept, severe in found if kept and severe]
    records = at_cause_level or [kept for kept, unused in found if kept]
    latest = {}
    for position, record in enumerate(records):
        latest[tuple(LEADING_TIMESTAMP.sub("", line) for line in record)] = position
    distinct = [records[position] for position in sorted(latest.values())]
    chosen = []
    for record in reversed(distinct):
        if len(chosen) + len(record) > limit:
            if not chosen:
                chosen = record[:1] + record[1:][-(limit - 1):] if limit > 1 else record[-1:]
            break
        chosen = record + chosen
    return [_trim(line, width) for line in chosen]


def _records(text):
    record = []
    for line in text.splitlines():
        line = line.rstrip()
        if not line:
            continue
        starts_record = not line[0].isspace() and not THROWABLE.match(line)
        if starts_record and record:
            yield record
            record = []
        record.append(line)
    if record:
        yield record


def _cause_of(record):
    """The lines of a record worth showing ([] when it carries no cause), and whether it is at a cause level."""
    # A record cut off by the start of the tail has no heading, only its exception and stack frames.
    heading = record[0] if not (record[0][0].isspace() or THROWABLE.match(record[0])) else None
    throwables = [line.strip() for line in (record[1:] if heading else record) if THROWABLE.match(line.strip())]
    level = LEVEL.search(heading) if heading else None
    severe = bool(level and level.group(1) in CAUSE_LEVELS)
    if not throwables and not severe:
        return [], False
    return ([heading] if heading else []) + throwables, severe


def journal_cause_lines(text, limit=EXCERPT_LINES, width=LINE_WIDTH):
    """What the service itself printed to the journal that names a cause, oldest first.

    The cause lines as in a log file when there are any; otherwise the last lines the service
    printed (a JVM that does not start says why in plain lines like 'Invalid maximum heap size').
    systemd's own lines about the unit are left out: the unit's state says the same.
    """
    printed = [line.rstrip() for line in text.splitlines() if line.strip() and not SYSTEMD_LINE.match(line)]
    found = cause_lines("\n".join(printed), limit, width)
    if found:
        return found
    distinct = []
    for line in reversed(printed):
        if line not in distinct:
            distinct.insert(0, line)
        if len(distinct) == limit:
            break
    return [_trim(line, width) for line in distinct]


def _trim(line, width):
    line = mask_secrets(line)
    return line if len(line) <= width else line[:width - 3] + "..."


def mask_secrets(line):
    """The line with the value of anything named like a password or secret replaced by ********.

    A service that fails on its configuration may echo it (the JDK's JMX agent names a key store path
    it cannot open as read from its properties file, neighbouring lines included), and the excerpt
    travels into the play's output and log, where no secret may appear.
    """
    return SECRET_SETTING.sub(lambda match: match.group(1) + "********", line)


def source_name(source, unit):
    """How a message names where the lines come from: the log file, or the unit's journal."""
    return "the journal of %s" % unit if source == JOURNAL else source


def describe_cause(unit, source, lines, searched):
    """'From <source>: line | line', or a sentence saying that none of the places searched names a cause."""
    if lines:
        return "From %s: %s" % (source_name(source, unit), " | ".join(lines))
    if not searched:
        return "No log file was given and journalctl is missing: nothing to read the cause from."
    return "Nothing in %s names a cause." % " or ".join(source_name(place, unit) for place in searched)


def service_report(unit, state, read_error, source, lines, searched):
    """The unit's state and the cause, as a wait's failure message ends."""
    return "%s. %s" % (describe_unit(unit, state, read_error), describe_cause(unit, source, lines, searched))
