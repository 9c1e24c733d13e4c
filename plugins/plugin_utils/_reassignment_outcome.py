# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What execute_reassignment.yml shows of a kafka_reassignment result.

The module returns some figures only when it moved something (state present, not in check mode): elapsed, throttled,
election_failed, and bytes_to_move, rate and expected_seconds when it waited, throttle_removed only when it removed a
throttle left behind. A figure it did not return shows as its empty value (0 seconds, no brokers) or None for the
byte figures, which are null anyway where the sizes could not be read. Plain data in, plain data out.
"""

from __future__ import absolute_import, division, print_function


from collections.abc import Mapping


def _shown(value):
    """A figure as the play's output has always shown it: None (a figure the module could not read) as nothing."""
    return "" if value is None else value


def _brokers(result, key):
    """The brokers of a {brokers, topics} figure, [] when the result has no such figure."""
    figure = result.get(key)
    return figure.get("brokers", []) if isinstance(figure, Mapping) else []


def outcome_lines(result):
    """The lines that show a kafka_reassignment result: changes, time and throttles, bytes, elections, throttles left
    behind by an earlier run. Raises KeyError for a result without partitions or already_in_place (always
    returned: not a kafka_reassignment result)."""
    return [
        "partitions changed: %s, already in place: %s"
        % (len(result["partitions"]), _shown(result["already_in_place"])),
        "seconds: %s, throttled brokers: %s"
        % (_shown(result.get("elapsed", 0)), _shown(_brokers(result, "throttled"))),
        "bytes copied: %s, at %s bytes/s (at the throttle it takes at least %s s)"
        % tuple(_shown(result.get(key)) for key in ("bytes_to_move", "rate", "expected_seconds")),
        "leader elections that failed: %s" % (_shown(result.get("election_failed", [])),),
        "throttle a timed-out run left, removed from brokers: %s" % (_shown(_brokers(result, "throttle_removed")),),
    ]
