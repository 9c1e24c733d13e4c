# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading a service's systemd unit, log file and journal while a module waits for the service.

The wait modules (kafka_broker_wait, zookeeper_info) poll a port; after every poll that finds the
service not ready they let ServiceWatch end the wait: at once when waiting on is hopeless, or when
time is up, with the unit's state and the log lines that say why. The decisions and the wording are
pure functions of _service_diagnosis.
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
    service_report,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._systemctl import show_command


def service_watch_argument_spec():
    """A fresh argument spec of the options service and log_file (doc fragment kafkaops.cluster.service_watch).

    A module passes required_by=dict(log_file="service") as well: the log is only read for a unit.
    """
    return dict(service=dict(type="str"), log_file=dict(type="path"))


class ServiceWatch:
    """How a wait for one service ends; with a systemd unit, the unit followed on every poll and its cause told."""

    def __init__(self, module, subject, unit=None, log_file=None):
        """module: the AnsibleModule (its run_command runs systemctl and journalctl; fail_json ends the wait).

        subject: how messages name what is waited for, such as 'broker 1 at 127.0.0.1:9092'; with a
        unit, ' (unit <unit>)' is added. Without a unit the wait ends on its timeout only.
        """
        self.module = module
        self.unit = unit
        self.subject = subject if unit is None else "%s (unit %s)" % (subject, unit)
        self.log_file = log_file
        self.progress = UnitProgress()
        self.read_error = None
        self._systemctl = module.get_bin_path("systemctl") if unit is not None else None
        self._journalctl = module.get_bin_path("journalctl") if unit is not None else None

    def stop_if_hopeless_or_late(self, timed_out, timeout_message, result=None):
        """After a poll that found the service not ready: fail the module when the wait is over, else return."""
        failure = self.failure(timed_out, timeout_message, result)
        if failure is not None:
            self.module.fail_json(**failure)

    def failure(self, timed_out, timeout_message, result=None):
        """What the module fails with (fail_json's keyword arguments), or None while waiting on may still help.

        The unit is read first: when the service will not come up the wait ends at once, as
        '<subject> is not coming up: <the unit's state and cause>'. Otherwise, once timed_out, with
        timeout_message, followed by the unit's state and cause when there is a unit.
        result: what the module returns on failure besides msg and the unit's keys.
        """
        result = dict(result or {})
        if self.hopeless():
            report, details = self.diagnosis()
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

    def hopeless(self):
        """Read the unit once more; True when the service will not come up however long one waits."""
        if self.unit is None:
            return False
        if self._systemctl is None:
            self.read_error = "systemctl not found"
            return False
        code, output, error = self.module.run_command(show_command(self._systemctl, self.unit, UNIT_PROPERTIES))
        if code != 0:
            self.read_error = "systemctl show exited with %d: %s" % (code, " ".join(error.split()))
            return False
        return self.progress.observe(parse_unit_state(output))

    def diagnosis(self):
        """(the clause a failure message ends with, the result keys unit_state, log_source, log_excerpt)."""
        source, lines, searched = self._cause()
        state = self.progress.report()
        report = service_report(self.unit, state, self.read_error, source, lines, searched)
        return report, dict(unit_state=state, log_source=source, log_excerpt=lines)

    def _cause(self):
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
