"""The steady producer's pure decisions (no broker needed)."""

import pytest

from kafkaops_verify import steady_produce


@pytest.mark.parametrize(
    "now, last_success, give_up_seconds, expected",
    [
        (100.0, 99.0, 300.0, False),  # acknowledged a second ago
        (400.0, 100.0, 300.0, True),  # silent for exactly the limit
        (399.9, 100.0, 300.0, False),  # just under it
        (10000.0, 0.0, 0.0, False),  # 0: never gives up
    ],
)
def test_gives_up_only_after_a_silence_of_the_limit(now, last_success, give_up_seconds, expected):
    assert steady_produce.silent_too_long(now, last_success, give_up_seconds) is expected


def test_the_limit_is_an_option_with_a_bounded_default():
    args = steady_produce.argument_parser().parse_args(
        ["--bootstrap-servers", "b:9092", "--topic", "t", "--manifest", "m.json"])
    assert args.give_up_seconds == 300.0
    args = steady_produce.argument_parser().parse_args(
        ["--bootstrap-servers", "b:9092", "--topic", "t", "--manifest", "m.json", "--give-up-seconds", "0"])
    assert args.give_up_seconds == 0.0


@pytest.mark.parametrize(
    "now, quiet_since, outstanding, restart_seconds, expected",
    [
        (159.9, 100.0, 5, 60.0, False),  # quiet for just under the limit
        (160.0, 100.0, 5, 60.0, True),  # quiet for the limit with records waiting: a new producer
        (500.0, 100.0, 0, 60.0, False),  # nothing outstanding: a quiet producer is an idle one, not a stuck one
        (500.0, 100.0, 5, 0.0, False),  # 0: never replaced
    ],
)
def test_a_producer_is_replaced_only_when_records_wait_and_nothing_is_acknowledged(
        now, quiet_since, outstanding, restart_seconds, expected):
    assert steady_produce.restart_due(now, quiet_since, outstanding, restart_seconds) is expected


class _Sender:
    def __init__(self):
        self.forced = False

    def force_close(self):
        self.forced = True


class _Producer:
    """kafka-python's close with records outstanding: its flush raises before the I/O thread is stopped."""

    def __init__(self, outstanding):
        self._sender, self.outstanding = _Sender(), outstanding

    def close(self, timeout=None):
        if self.outstanding:
            raise TimeoutError("flush timed out")


@pytest.mark.parametrize("outstanding, forced", [(3, True), (0, False)])
def test_an_abandoned_producer_has_its_io_thread_stopped_even_when_the_close_raises(outstanding, forced):
    producer = _Producer(outstanding)
    steady_produce.abandon(producer)
    assert producer._sender.forced is forced


def test_log_lines_lose_the_secrets():
    record = steady_produce.logging.LogRecord("kafka.conn", 30, __file__, 1, "login %s refused", ("s3cret",), None)
    assert steady_produce.RedactingFilter(lambda text: text.replace("s3cret", "***")).filter(record)
    assert record.getMessage() == "login *** refused"
