# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading a service's systemd unit, log file and journal while a module waits for the service.

The waits poll a port; after a poll that finds the service not ready they let a UnitWatch end the
wait: at once when waiting on is hopeless, or when time is up, with the unit's state and the log
lines that say why. zookeeper_info, a module on the service's host, reads the unit there
(ServiceWatch); the action kafka_broker_wait waits on the controller and reads the unit through
the module service_info on the host (ReportedUnitReader), which reads it with HostUnitReader. The
decisions and the wording are pure functions of _service_diagnosis.
"""

from __future__ import absolute_import, division, print_function


import os

from ansible_collections.kafkaops.cluster.plugins.module_utils._service_diagnosis import (
    JOURNAL,
    JOURNAL_LINES,
    LOG_TAIL_BYTES,
    UNIT_PROPERTIES,
    UnitProgress,
    cause_lines,
    journal_cause_lines,
    parse_unit_state,
    passing_cause,
    service_report,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._systemctl import show_command


def service_watch_argument_spec():
    """A fresh argument spec of the options service and log_file (doc fragment kafkaops.cluster.service_watch).

    A module passes required_by=dict(log_file="service") as well: the log is only read for a unit.
    """
    return dict(service=dict(type="str"), log_file=dict(type="path"))


class HostUnitReader:
    """Reads a unit, its log file and its journal on the host the module runs on."""

    def __init__(self, module, unit, log_file=None):
        """module: the AnsibleModule whose run_command runs systemctl and journalctl."""
        self.module = module
        self.unit = unit
        self.log_file = log_file
        self._systemctl = module.get_bin_path("systemctl")
        self._journalctl = module.get_bin_path("journalctl")

    def state(self, cause_wanted=False):
        """(the unit's state, None), or (None, why it could not be read).

        cause_wanted tells a reader that reads through a module run on another host to bring the
        cause along in the same run; here reading the cause later costs nothing extra.
        """
        if self._systemctl is None:
            return None, "systemctl not found"
        code, output, error = self.module.run_command(show_command(self._systemctl, self.unit, UNIT_PROPERTIES))
        if code != 0:
            return None, "systemctl show exited with %d: %s" % (code, " ".join(error.split()))
        return parse_unit_state(output), None

    def cause(self):
        """(where the lines come from, the lines, every place searched); the log file first, then the journal."""
        searched = []
        if self.log_file:
            searched.append(self.log_file)
            text = read_tail(self.log_file, LOG_TAIL_BYTES)
            lines = cause_lines(text) if text else []
            if lines:
                return self.log_file, lines, searched
        if self._journalctl is not None:
            searched.append(JOURNAL)
            code, output, unused = self.module.run_command(
                [self._journalctl, "-u", self.unit, "-n", str(JOURNAL_LINES), "--no-pager", "-o", "cat"])
            lines = journal_cause_lines(output) if code == 0 else []
            if lines:
                return JOURNAL, lines, searched
        return None, [], searched


def unit_report(reader, causes=False):
    """What the module service_info returns of a unit: its state or why it cannot be read; on request, the cause."""
    state, read_error = reader.state()
    report = dict(unit_state=state, read_error=read_error)
    if causes:
        source, lines, searched = reader.cause()
        report.update(log_source=source, log_excerpt=lines, log_searched=searched)
    return report


class ReportedUnitReader:
    """Reads a unit through the module kafkaops.cluster.service_info run on the unit's host.

    An action plugin waits on the controller and asks the host about the unit only while the
    service is not ready; each ask is one module run, so the cause comes along with the state when
    the caller already knows it will need it.
    """

    def __init__(self, run_service_info, unit, log_file=None):
        """run_service_info(arguments): the result of the module run with those arguments (a dict)."""
        self.run_service_info = run_service_info
        self.unit = unit
        self.log_file = log_file
        self._cause = None

    def state(self, cause_wanted=False):
        result = self._ask(cause_wanted)
        if result.get("failed"):
            return None, "service_info failed: %s" % result.get("msg", "no message")
        if result.get("unit_state") is None:
            return None, result.get("read_error") or "service_info returned no unit state"
        return result["unit_state"], None

    def cause(self):
        if self._cause is None:
            result = self._ask(True)
            if result.get("failed"):
                return None, [], []
        cause, self._cause = self._cause, None
        return cause

    def _ask(self, cause_wanted):
        arguments = dict(service=self.unit, causes=cause_wanted)
        if self.log_file:
            arguments["log_file"] = self.log_file
        result = self.run_service_info(arguments)
        if cause_wanted and not result.get("failed"):
            self._cause = (result.get("log_source"), list(result.get("log_excerpt") or []),
                           list(result.get("log_searched") or []))
        return result


class UnitWatch:
    """How a wait for one service ends; with a systemd unit, the unit followed on every poll and its cause told.

    Waits that run as modules use ServiceWatch; an action plugin gives a reader of its own.
    """

    def __init__(self, subject, unit=None, reader=None):
        """subject: how messages name what is waited for, such as 'broker 1 at 127.0.0.1:9092'; with a
        unit, ' (unit <unit>)' is added. Without a unit the wait ends on its timeout only.

        reader: reads the unit (state(cause_wanted) and cause(), as HostUnitReader does); needed with a unit.
        """
        self.unit = unit
        self.subject = subject if unit is None else "%s (unit %s)" % (subject, unit)
        self.reader = reader
        self.progress = UnitProgress()
        self.read_error = None

    def failure(self, timed_out, timeout_message, result=None):
        """What the wait fails with (fail_json's keyword arguments), or None while waiting on may still help.

        The unit is read first: when the service will not come up the wait ends at once, as
        '<subject> is not coming up: <the unit's state and cause>', unless the cause is one that a
        later start gets past by itself (see UnitProgress.forgive). Otherwise, once timed_out, with
        timeout_message, followed by the unit's state and cause when there is a unit.
        result: what the wait returns on failure besides msg and the unit's keys.
        """
        result = dict(result or {})
        if self.hopeless(cause_wanted=timed_out):
            report, details = self.diagnosis()
            if not timed_out and passing_cause(details["log_excerpt"]) and self.progress.forgive():
                return None
            result.update(details)
            return dict(result, msg="%s is not coming up: %s" % (self.subject, report))
        if not timed_out:
            return None
        message = timeout_message
        if self.unit is not None:
            report, details = self.diagnosis()
            message += "; " + report
            result.update(details)
        return dict(result, msg=message)

    def hopeless(self, cause_wanted=False):
        """Read the unit once more; True when the service will not come up however long one waits."""
        if self.unit is None:
            return False
        state, self.read_error = self.reader.state(cause_wanted)
        if state is None:
            return False
        return self.progress.observe(state)

    def diagnosis(self):
        """(the clause a failure message ends with, the result keys unit_state, log_source, log_excerpt)."""
        source, lines, searched = self.reader.cause()
        state = self.progress.report()
        report = service_report(self.unit, state, self.read_error, source, lines, searched)
        return report, dict(unit_state=state, log_source=source, log_excerpt=lines)


class ServiceWatch(UnitWatch):
    """The watch of a wait module: reads the unit on the module's host and fails the module."""

    def __init__(self, module, subject, unit=None, log_file=None):
        """module: the AnsibleModule (its run_command runs systemctl and journalctl; fail_json ends the wait)."""
        reader = HostUnitReader(module, unit, log_file) if unit is not None else None
        super(ServiceWatch, self).__init__(subject, unit, reader)
        self.module = module

    def stop_if_hopeless_or_late(self, timed_out, timeout_message, result=None):
        """After a poll that found the service not ready: fail the module when the wait is over, else return."""
        failure = self.failure(timed_out, timeout_message, result)
        if failure is not None:
            self.module.fail_json(**failure)


def read_tail(path, size):
    """The last size bytes of a file as text, from its first whole line; None when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            end = handle.tell()
            handle.seek(max(0, end - size))
            data = handle.read()
    except OSError:
        return None
    text = data.decode("utf-8", "replace")
    if end > size:
        text = text.partition("\n")[2]
    return text
