"""NAME=VALUE command-line options."""

import pytest

from kafkaops_verify.options import parse_client_options, parse_options


def test_command_line_options_are_name_value_pairs_and_client_numbers_are_typed():
    assert parse_options(["a.b=1", "c=x=y"], "--kafka-option") == {"a.b": "1", "c": "x=y"}
    assert parse_client_options(["retries=5", "security_protocol=SSL"]) == {
        "retries": 5, "security_protocol": "SSL"}
    with pytest.raises(SystemExit, match="--kafka-option must be NAME=VALUE"):
        parse_options(["novalue"], "--kafka-option")
