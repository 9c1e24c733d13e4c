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
