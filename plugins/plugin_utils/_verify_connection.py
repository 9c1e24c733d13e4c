# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The admin user's connection as the kafka_verify role's Spark jobs take it (playbooks produce.yml and verify.yml).

broker_addresses.yml keeps the login as the admin modules' connection options (the fact kafkaops_connection); the
jobs read the same settings from the role's kafka_verify_security_protocol ... kafka_verify_ssl_keyfile. A setting
the connection leaves out is what an admin module would use: the option's default, or empty text where it has none.
The role's own defaults are not the modules' (its SASL mechanism is SCRAM-SHA-512, theirs PLAIN), so the playbooks
pass every setting.

Plain data in, plain data out: the filter hands in the admin modules' defaults.
"""

from __future__ import absolute_import, division, print_function


# The connection options the jobs take, each as the role's variable kafka_verify_<option>.
JOB_OPTIONS = ("security_protocol", "sasl_mechanism", "sasl_username", "sasl_password", "ssl_cafile", "ssl_certfile",
               "ssl_keyfile")


def job_connection(connection, module_defaults):
    """{option: value} of JOB_OPTIONS: the connection's own where it has the option (even an empty or null one, as
    given), else module_defaults' (the admin modules' option: default), else ''."""
    connection = connection or {}
    settings = {}
    for option in JOB_OPTIONS:
        if option in connection:
            settings[option] = connection[option]
        else:
            default = module_defaults.get(option)
            settings[option] = "" if default is None else default
    return settings
