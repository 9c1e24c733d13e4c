"""The test kafka_list_value: values Kafka's [key=value,...] lists and JAAS lines carry whole."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.test.kafka_list_value import TestModule
from hypothesis import given
from hypothesis import strategies as st

kafka_list_value = TestModule().tests()["kafka_list_value"]


@pytest.mark.parametrize("value", ["broker", "Inter-Broker-5x7Q", "Adm1n!#$%&'()*+-./:;<>?@^_`{|}~", 12345])
def test_values_without_a_breaking_character_pass(value):
    assert kafka_list_value(value) is True


@pytest.mark.parametrize("value", ["", None, "a,b", "a[b", "a]b", "a=b", 'a"b', "a\\b", "two words", "tab\there",
                                   "line\nbreak", "no-break\u00a0space"])
def test_empty_values_and_values_with_a_breaking_character_fail(value):
    assert kafka_list_value(value) is False


@given(st.text(alphabet=st.characters(blacklist_categories=("Zs", "Cc")).filter(lambda c: c not in ',[]="\\'),
               min_size=1))
def test_any_text_without_whitespace_or_those_characters_passes(text):
    assert kafka_list_value(text) is (not any(character.isspace() for character in text))
