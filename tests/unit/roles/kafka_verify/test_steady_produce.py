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
    def __init__(self, events):
        self.events = events

    def force_close(self):
        self.events.append("force_close")

    def join(self, timeout=None):
        self.events.append("join")


class _Producer:
    """kafka-python's producer as abandon and drain use it: close flushes first, and with records outstanding
    its flush raises; a flush marks every held batch ready, so anything after it may send them."""

    def __init__(self, outstanding):
        self.events = []
        self._sender, self.outstanding = _Sender(self.events), outstanding

    def flush(self, timeout=None):
        self.events.append("flush")
        if self.outstanding:
            raise TimeoutError("flush timed out")

    def close(self, timeout=None):
        self.flush(timeout)
        self.events.append("close")


@pytest.mark.parametrize("outstanding", [3, 0])
def test_an_abandoned_producer_has_its_io_thread_stopped_before_anything_flushes(outstanding):
    producer = _Producer(outstanding)
    steady_produce.abandon(producer)
    assert producer.events[:3] == ["force_close", "join", "flush"]


class _Metadata:
    partition = 0


@pytest.mark.parametrize("seconds, expected_events", [
    # No time to drain: nothing is flushed (a flush would send what a linger holds).
    (0, ["force_close", "join", "flush"]),
    (2.5, ["flush", "force_close", "join", "flush"]),
])
def test_a_drain_freezes_the_counts_when_its_wait_ends(seconds, expected_events, capsys):
    acknowledgements = steady_produce.Acknowledgements()
    acknowledgements.on_success("key-0000", 0, _Metadata())
    producer = _Producer(outstanding=2)
    steady_produce.drain(producer, seconds, acknowledgements, 3, str)
    assert producer.events == expected_events
    # Answers that arrive after the wait (the I/O thread had sent them) are not counted: the manifest's
    # records and its figures stay the ones known when the run stopped waiting.
    acknowledgements.on_success("key-0001", 0, _Metadata())
    acknowledgements.on_failure(TimeoutError())
    assert (acknowledgements.acknowledged, acknowledgements.failed) == (1, 0)
    assert acknowledgements.partition_keys() == {0: {"key-0000": [[0, 1]]}}
    assert "2 records unanswered after a drain of %g s" % seconds in capsys.readouterr().err


def test_log_lines_lose_the_secrets():
    record = steady_produce.logging.LogRecord("kafka.conn", 30, __file__, 1, "login %s refused", ("s3cret",), None)
    assert steady_produce.RedactingFilter(lambda text: text.replace("s3cret", "***")).filter(record)
    assert record.getMessage() == "login *** refused"


def test_records_failed_by_the_runs_own_abort_are_settled_not_failed():
    from kafka.errors import TransactionAbortedError

    acknowledgements = steady_produce.Acknowledgements()
    acknowledgements.on_success("key-0000", 0, _Metadata())
    acknowledgements.on_failure(TransactionAbortedError())
    acknowledgements.on_failure(TimeoutError())
    assert (acknowledgements.acknowledged, acknowledgements.failed, acknowledgements.aborted_unsent) == (1, 1, 1)
    assert acknowledgements.errors == {"TimeoutError": 1}
    assert acknowledgements.outstanding(4) == 1 and acknowledgements.stop_counting(4) == 1
