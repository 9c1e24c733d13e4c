"""The admin user's connection as the kafka_verify role's jobs take it (plugin_utils/_verify_connection.py)."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._verify_connection import JOB_OPTIONS, job_connection

DEFAULTS = {"security_protocol": "PLAINTEXT", "sasl_mechanism": "PLAIN", "sasl_username": None, "ssl_cafile": None,
            "request_timeout": 30}


@pytest.mark.parametrize("connection, expected", [
    ({}, {"security_protocol": "PLAINTEXT", "sasl_mechanism": "PLAIN"}),
    (None, {"security_protocol": "PLAINTEXT", "sasl_mechanism": "PLAIN"}),
    ({"security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512", "sasl_username": "admin",
      "sasl_password": "pw", "ssl_cafile": "/ca.crt"},
     {"security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512", "sasl_username": "admin",
      "sasl_password": "pw", "ssl_cafile": "/ca.crt"}),
    # What the connection gives stays as given, an empty or null value too.
    ({"ssl_cafile": None, "sasl_username": ""}, {"security_protocol": "PLAINTEXT", "sasl_mechanism": "PLAIN",
                                                 "ssl_cafile": None}),
])
def test_settings_left_out_take_the_admin_modules_defaults(connection, expected):
    settings = job_connection(connection, DEFAULTS)
    assert sorted(settings) == sorted(JOB_OPTIONS)
    assert settings == dict(dict((option, "") for option in JOB_OPTIONS), **expected)


def test_other_connection_options_do_not_reach_the_jobs():
    assert "request_timeout" not in job_connection({"request_timeout": 5, "ssl_password": "x"}, DEFAULTS)
