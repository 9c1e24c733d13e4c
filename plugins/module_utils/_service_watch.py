# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading a service's systemd unit, log file and journal while a module waits for the service.

The wait modules (kafka_broker_wait, zookeeper_info) poll a port; between polls that find the
service not ready they ask ServiceWatch whether waiting on is hopeless, and when they give up they
ask it why. The decisions and the wording are pure functions of _service_diagnosis.
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


class ServiceWatch:
    """One systemd unit followed through a wait: its state on every poll, its cause when asked."""

    def __init__(self, module, unit, log_file=None):
        """module: the AnsibleModule (its run_command runs systemctl and journalctl)."""
        self.module = module
        self.unit = unit
        self.log_file = log_file
        self.progress = UnitProgress()
        self.read_error = None
        self._systemctl = module.get_bin_path("systemctl")
        self._journalctl = module.get_bin_path("journalctl")

    def hopeless(self):
        """Read the unit once more; True when the service will not come up however long one waits."""
        if self._systemctl is None:
            self.read_error = "systemctl not found"
            return False
        command = [self._systemctl, "show", "--property=" + ",".join(UNIT_PROPERTIES), "--", self.unit]
        code, output, error = self.module.run_command(command)
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
