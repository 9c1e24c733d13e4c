"""Converting role inputs by their argument spec's types (plugin_utils/_role_inputs.py), strings as -e gives them."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._role_inputs import (
    InputTypeError,
    convert,
    convert_inputs,
    converted_options,
    entry_point_options,
    is_secret,
)

INT = {"type": "int"}
BOOL = {"type": "bool"}
FLOAT = {"type": "float"}


@pytest.mark.parametrize("given, expected", [("2", 2), (" 2 ", 2), ("0", 0), ("-1", -1), ("9092", 9092), (2, 2),
                                             (2.0, 2), ("2.0", 2)])
def test_ints_from_strings_and_numbers(given, expected):
    converted = convert("x_count", given, INT)
    assert converted == expected and isinstance(converted, int) and not isinstance(converted, bool)


@pytest.mark.parametrize("given, expected", [
    ("true", True), ("True", True), ("yes", True), ("on", True), ("1", True), (" yes ", True), (True, True), (1, True),
    ("false", False), ("False", False), ("no", False), ("off", False), ("0", False), (False, False), (0, False),
])
def test_bools_from_the_words_ansible_knows(given, expected):
    assert convert("x_enabled", given, BOOL) is expected


@pytest.mark.parametrize("given, expected", [("0.5", 0.5), ("10", 10.0), (3, 3.0), (2.5, 2.5)])
def test_floats(given, expected):
    converted = convert("x_interval", given, FLOAT)
    assert converted == expected and isinstance(converted, float)


@pytest.mark.parametrize("given, expected", [
    ('["a", "b"]', ["a", "b"]),
    ("a,b", ["a", "b"]),
    ("a, b", ["a", "b"]),
    ("a", ["a"]),
    ("", []),
    (["a", "b"], ["a", "b"]),
    (("a",), ["a"]),
])
def test_lists_from_json_comma_separated_text_and_lists(given, expected):
    assert convert("x_hosts", given, {"type": "list", "elements": "str"}) == expected


@pytest.mark.parametrize("given", ["4,5", "[4, 5]", '["4", "5"]', [4, "5"], ["4", 5.0]])
def test_list_elements_are_converted_too(given):
    assert convert("x_ids", given, {"type": "list", "elements": "int"}) == [4, 5]


def test_list_of_bools_and_of_dicts():
    assert convert("x_flags", "yes,false", {"type": "list", "elements": "bool"}) == [True, False]
    assert convert("x_items", '[{"name": "a"}]', {"type": "list", "elements": "dict"}) == [{"name": "a"}]


@pytest.mark.parametrize("given, expected", [
    ('{"a": 1}', {"a": 1}), ("a=1 b=2", {"a": "1", "b": "2"}), ("", {}), ({"a": 1}, {"a": 1}),
])
def test_dicts_from_json_and_key_value_text(given, expected):
    assert convert("x_properties", given, {"type": "dict"}) == expected


def test_str_path_and_raw_are_kept_as_given():
    assert convert("x_dir", "~/data", {"type": "path"}) == "~/data"  # a path on the managed host: not expanded here
    assert convert("x_name", "kafka", {"type": "str"}) == "kafka"
    assert convert("x_port", "", {"type": "raw"}) == ""
    assert convert("x_port", 5, {"type": "raw"}) == 5


@pytest.mark.parametrize("option, given, message", [
    (INT, "two", "x_replicas: 'two' is not an int"),
    (INT, "2.5", "x_replicas: '2.5' is not an int"),
    (INT, "", "x_replicas: '' is not an int"),
    (INT, True, "x_replicas: true is not an int"),
    (INT, [2], "x_replicas: [2] is not an int"),
    (FLOAT, "fast", "x_replicas: 'fast' is not a float"),
    (FLOAT, False, "x_replicas: false is not a float"),
    (BOOL, "maybe", "x_replicas: 'maybe' is not a bool (true/false, yes/no, on/off, 1/0)"),
    (BOOL, "2", "x_replicas: '2' is not a bool (true/false, yes/no, on/off, 1/0)"),
    (BOOL, [], "x_replicas: [] is not a bool (true/false, yes/no, on/off, 1/0)"),
    ({"type": "dict"}, "not a dict", "x_replicas: 'not a dict' is not a dict"),
    ({"type": "dict"}, [1], "x_replicas: [1] is not a dict"),
    ({"type": "list"}, {"a": 1}, 'x_replicas: {"a": 1} is not a list'),
    ({"type": "list", "elements": "int"}, "4,x", "x_replicas: item 2, 'x', of '4,x' is not an int"),
])
def test_refusals_name_the_variable_the_value_and_the_type(option, given, message):
    with pytest.raises(InputTypeError) as refused:
        convert("x_replicas", given, option)
    assert str(refused.value) == message


def test_long_values_are_cut_short_in_a_refusal():
    with pytest.raises(InputTypeError) as refused:
        convert("x_count", "9" * 50 + "x" * 200, INT)
    assert len(str(refused.value)) < 160 and str(refused.value).endswith("x... is not an int")


@pytest.mark.parametrize("name, option", [
    ("x_jmx_password", INT), ("x_secret_count", INT), ("x_api_token", INT), ("x_key", INT),
    ("x_sasl_users", {"type": "dict", "no_log": True}),
    ("x_codes", {"type": "list", "elements": "int", "no_log": True}),
])
def test_a_secret_is_never_in_a_refusal(name, option):
    secret = "hunter2-do-not-show"
    with pytest.raises(InputTypeError) as refused:
        convert(name, secret if option["type"] != "list" else "1," + secret, option)
    assert secret not in str(refused.value)
    assert str(refused.value).startswith(name + ": the value given (not shown, a secret) is not ")


@pytest.mark.parametrize("name, secret", [
    ("kafka_broker_admin_password", True), ("kafka_access_sasl_password", True), ("x_keystore_passphrase", True),
    ("kafka_broker_tls_key_file", False), ("kafka_verify_produce_keys", False), ("kafka_broker_port", False),
    ("kafka_broker_jmx_tls_keystore", False),
])
def test_secret_names(name, secret):
    assert is_secret(name, {"type": "str"}) is secret


def test_an_input_with_a_secret_suboption_is_a_secret():
    users = {"type": "list", "elements": "dict", "options": {"name": {"type": "str"}, "password": {"type": "str"}}}
    assert is_secret("x_users", users) is True
    assert is_secret("x_instances", {"type": "list", "elements": "dict", "options": {"port": INT}}) is False


def test_only_typed_inputs_without_secrets_get_a_copy():
    options = {"a_port": INT, "a_name": {"type": "str"}, "a_dir": {"type": "path"}, "a_any": {"type": "raw"},
               "a_flag": BOOL, "a_users": {"type": "dict", "no_log": True}, "a_list": {"type": "list"},
               "a_untyped": {}}
    assert sorted(converted_options(options)) == ["a_flag", "a_list", "a_port"]


def test_inputs_not_given_are_left_out_and_the_rest_converted():
    options = {"a_port": INT, "a_flag": BOOL, "a_id": INT}
    assert convert_inputs(options, {"a_port": "9092", "a_flag": "no"}) == {"a_port": 9092, "a_flag": False}


def test_entry_points_read_mains_inputs_and_their_own():
    specs = {"main": {"options": {"a_port": INT}}, "preflight": {"options": {"a_port": INT}},
             "decommission": {"options": {"a_ids": {"type": "list", "elements": "int"}}}, "node_state": {}}
    assert sorted(entry_point_options(specs, "main")) == ["a_port"]
    assert sorted(entry_point_options(specs)) == ["a_ids", "a_port"]
    assert sorted(entry_point_options(specs, "decommission")) == ["a_ids", "a_port"]
    assert sorted(entry_point_options(specs, "node_state")) == ["a_port"]
    with pytest.raises(KeyError):
        entry_point_options(specs, "nothing")
