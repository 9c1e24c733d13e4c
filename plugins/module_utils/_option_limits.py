# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ranges of numeric module options, checked before a module connects or changes anything.

Ansible's argument spec checks that an option is a number, not which numbers make sense: a
negative timeout used to be noticed only after a reassignment had been submitted. A module lists
its limits once and calls check_limits first thing.
"""

from __future__ import absolute_import, division, print_function


from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError


class OptionValueError(InputError):
    """A numeric option is out of range; field names the option."""


class NumberLimit:
    """The numbers an option accepts: from minimum (or above it, when exclusive) up to maximum."""

    def __init__(self, minimum=None, maximum=None, exclusive_minimum=False):
        self.minimum = minimum
        self.maximum = maximum
        self.exclusive_minimum = exclusive_minimum

    def problem(self, value):
        """Why value is refused, or None when it is accepted."""
        too_low = self.minimum is not None and (
            value <= self.minimum if self.exclusive_minimum else value < self.minimum)
        too_high = self.maximum is not None and value > self.maximum
        if not (too_low or too_high):
            return None
        if self.minimum is not None and self.maximum is not None and not self.exclusive_minimum:
            wanted = "from %s to %s" % (self.minimum, self.maximum)
        elif self.exclusive_minimum:
            wanted = "more than %s" % (self.minimum,)
            if self.maximum is not None:
                wanted += " and at most %s" % (self.maximum,)
        elif self.minimum is not None:
            wanted = "at least %s" % (self.minimum,)
        else:
            wanted = "at most %s" % (self.maximum,)
        return "must be %s, got %s" % (wanted, value)


PORT = NumberLimit(minimum=1, maximum=65535)
# The options of the modules that move replicas and wait for them (kafka_reassignment, kafka_log_dirs).
MOVE_LIMITS = dict(
    throttle=NumberLimit(minimum=0),
    max_moves_per_broker=NumberLimit(minimum=1),
    max_disk_fill=NumberLimit(minimum=0, maximum=1, exclusive_minimum=True),
    timeout=NumberLimit(minimum=1),
    poll_interval=NumberLimit(minimum=0, exclusive_minimum=True),
    progress_interval=NumberLimit(minimum=0, exclusive_minimum=True),
)


def check_limits(params, limits):
    """Raise OptionValueError for the first option (in the order of limits) outside its limit.

    params: the module's parameters; limits: {option name: NumberLimit}. Options left unset (None)
    are not checked: their absence is the argument spec's business.
    """
    for name, limit in limits.items():
        value = params.get(name)
        if value is None:
            continue
        problem = limit.problem(value)
        if problem:
            raise OptionValueError(name, problem)


def fail_on_out_of_range(module, limits):
    """For a module outside the admin frame: fail_json naming the option when one is out of range.

    module is an AnsibleModule (only its params and fail_json are used, so this file imports nothing of Ansible).
    """
    try:
        check_limits(module.params, limits)
    except OptionValueError as error:
        module.fail_json(msg=str(error), field=error.field)
