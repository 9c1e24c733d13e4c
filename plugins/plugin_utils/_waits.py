# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a wait (a task with until/retries) saw, for the message that stops a play when the wait ends without
its condition. Ansible reports such a task only as "Action failed", naming neither what it waited for nor what
it saw last."""

from __future__ import absolute_import, division, print_function


from collections.abc import Mapping

from ansible.module_utils.common.text.converters import to_text

# systemd's states of a unit on its way between two others: its state is read again once it has left them.
TRANSITIONS = ("activating", "deactivating", "reloading")


def wait_failure(result, waiting_for, last_seen):
    """One sentence for a wait that ended without its condition.

    result: the task's result (ansible_failed_result). When the module itself failed (its own message), that
    message is the cause; when the module answered but the condition never held (retries used up), the cause
    is the last value it saw, `last_seen`, worked out by the caller from the same result.
    """
    message = to_text(result.get("msg") or "") if isinstance(result, Mapping) else to_text(result)
    if message:
        return "%s: the wait stopped on a failed read: %s" % (waiting_for, message)
    tries = result.get("attempts") if isinstance(result, Mapping) else None
    return "%s did not happen%s; last seen: %s" % (
        waiting_for, " in %s tries" % tries if tries else "", to_text(last_seen))


def units_in_transition(units):
    """The units of a host_state_info result (its `units` mapping) still activating, deactivating or reloading,
    as 'name (state)', sorted."""
    return ["%s (%s)" % (name, state["active_state"]) for name, state in sorted((units or {}).items())
            if isinstance(state, Mapping) and state.get("active_state") in TRANSITIONS]
