"""NAME=VALUE command-line options."""

import argparse

import pytest

from kafkaops_verify.options import add_pairs_option, parse_client_options, parse_options


def test_command_line_options_are_name_value_pairs_and_client_numbers_are_typed():
    assert parse_options(["a.b=1", "c=x=y"], "--kafka-option") == {"a.b": "1", "c": "x=y"}
    assert parse_client_options(["retries=5", "security_protocol=SSL"]) == {
        "retries": 5, "security_protocol": "SSL"}
    with pytest.raises(SystemExit, match="--kafka-option must be NAME=VALUE"):
        parse_options(["novalue"], "--kafka-option")


def test_every_job_declares_its_pairs_options_alike():
    from kafkaops_verify import bulk_produce, steady_produce, verify

    for job, flags in ((bulk_produce, ("--kafka-option", "--client-option")), (steady_produce, ("--client-option",)),
                       (verify, ("--kafka-option", "--client-option"))):
        actions = {action.option_strings[0]: action for action in job.argument_parser()._actions}
        for flag in flags:
            action = actions[flag]
            assert (action.metavar, action.default, action.help.endswith("; repeatable")) == ("NAME=VALUE", [], True)


def test_a_pairs_option_collects_every_pair_given():
    parser = argparse.ArgumentParser()
    add_pairs_option(parser, "--client-option", "a kafka-python setting")
    assert parser.parse_args([]).client_option == []
    given = parser.parse_args(["--client-option", "retries=5", "--client-option", "acks=all"]).client_option
    assert parse_client_options(given) == {"retries": 5, "acks": "all"}
