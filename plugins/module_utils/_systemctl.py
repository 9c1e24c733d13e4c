# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading a systemd unit's properties with `systemctl show`: the command and its answer.

host_state_info reports units as a role needs them (loaded, active, enabled); the wait modules
follow a unit through a wait (_service_diagnosis). Both ask systemctl the same way and read the
same KEY=value answer, here.
"""

from __future__ import absolute_import, division, print_function


def show_command(systemctl, unit, properties):
    """The argv that asks systemctl for some properties of one unit.

    '--' ends the options, so that a unit name starting with '-' is read as a name.
    """
    return [systemctl, "show", "--property=" + ",".join(properties), "--", unit]


def parse_show(text):
    """`systemctl show` output, KEY=value lines, as a dict of strings; a property with no value is ''."""
    values = {}
    for line in text.splitlines():
        key, separator, value = line.partition("=")
        if separator:
            values[key.strip()] = value.strip()
    return values
