"""Sets of sequence numbers as sorted, merged half-open ranges: ``[[0, 5], [7, 8]]`` holds 0 to 4 and 7.

Manifests keep what was acknowledged this way, and the scan engine what it saw.
"""

import bisect


class SequenceRanges:
    """A set of sequence numbers kept as sorted, merged half-open ranges.

    Acknowledgements of one key arrive in order almost always, so adding at the end is the fast path.
    """

    def __init__(self):
        self.starts = []
        self.ends = []

    def add(self, sequence):
        if self.ends and self.ends[-1] == sequence:
            self.ends[-1] += 1
            return
        if not self.ends or sequence > self.ends[-1]:
            self.starts.append(sequence)
            self.ends.append(sequence + 1)
            return
        index = bisect.bisect_right(self.starts, sequence) - 1
        if index >= 0 and sequence < self.ends[index]:
            return
        self.starts.insert(index + 1, sequence)
        self.ends.insert(index + 1, sequence + 1)
        self._merge_around(index + 1)

    def _merge_around(self, index):
        if index + 1 < len(self.starts) and self.ends[index] == self.starts[index + 1]:
            self.ends[index] = self.ends.pop(index + 1)
            self.starts.pop(index + 1)
        if index > 0 and self.ends[index - 1] == self.starts[index]:
            self.ends[index - 1] = self.ends.pop(index)
            self.starts.pop(index)

    def ranges(self):
        return [[start, end] for start, end in zip(self.starts, self.ends, strict=True)]

    def count(self):
        return sum(end - start for start, end in zip(self.starts, self.ends, strict=True))


def merge_ranges(ranges):
    merged = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def count_within(seen, start, end):
    """How many sequences of [start, end) the sorted, merged ranges seen hold."""
    total = 0
    for first, stop in seen[max(bisect.bisect_right(seen, [start, float("inf")]) - 1, 0) :]:
        if first >= end:
            break
        total += max(0, min(stop, end) - max(first, start))
    return total


def missing_within(seen, start, end, limit):
    """Up to limit sequences of [start, end) that the sorted, merged ranges seen do not hold, in order."""
    missing = []
    position = start
    for first, stop in seen:
        if len(missing) >= limit or position >= end:
            break
        if stop <= position:
            continue
        missing.extend(range(position, min(first, end, position + limit - len(missing))))
        position = max(position, stop)
    if position < end:
        missing.extend(range(position, min(end, position + limit - len(missing))))
    return missing[:limit]


def present_within(seen, start, end, limit):
    """Up to limit sequences of [start, end) that the sorted, merged ranges seen hold, in order."""
    present = []
    for first, stop in seen:
        if len(present) >= limit or first >= end:
            break
        low, high = max(first, start), min(stop, end)
        present.extend(range(low, min(high, low + limit - len(present))))
    return present[:limit]
