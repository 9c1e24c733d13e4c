"""Brokers' log dirs as the log dir planner takes them, for the tests of its plans and of a reassignment's dirs."""

GB = 1 << 30


def disk(total=None, used=0, online=True, cordoned=False):
    """A dir's figures: its volume's total and used bytes (None: not reported, as before Kafka 3.3) and state."""
    return dict(total_bytes=total, usable_bytes=None if total is None else total - used, online=online,
                cordoned=cordoned)


def broker(dirs, replicas=None):
    """dirs: {path: disk()}; replicas: {(topic, partition): (path, bytes)}."""
    return dict(dirs=dirs, replicas=dict((key, dict(dir=path, bytes=size))
                                         for key, (path, size) in (replicas or {}).items()))
