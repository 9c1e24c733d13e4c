# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kafka_verify role's jobs: the command line of a job it runs in the foreground (verify, bulk_produce), and its
background producers: the commands that start them, the fact that names them, the list steady_stop.yml stops, and
the figures of their manifests. The steady producer always; the transactional one (the same job in its
transactional mode, on its own topic and manifest) when kafka_verify_transactional is on. And the admin user's
connection as the role's jobs take it (produce.yml, verify.yml)."""

from __future__ import absolute_import, division, print_function


import base64
import json
from collections.abc import Mapping

from ansible.errors import AnsibleFilterError
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import connection_argument_spec
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._verify_connection import job_connection

# Each producer's log in the jobs folder, by name.
LOGS = {"steady": "steady_produce.log", "transactional": "transactional_produce.log"}
# What the role's variables give the jobs, by option, for both producers alike.
SHARED_OPTIONS = (("--duration", "duration"), ("--keys", "keys"), ("--payload-bytes", "payload_bytes"))
# The ranges of records: not figures, and long.
RANGE_FIELDS = ("partitions", "aborted_keys")


def kafka_verify_job_argv(options, program, spark_settings=None, manifests=None):
    """A job's command line (module spark_job's argv): program (the Python and the job's module), then each option
    of options (option -> value, in their order) with its value as text, a list's items joined with commas; then one
    --spark-setting=<name>=<value> per Spark setting and one --manifest=<path> per manifest."""
    if not isinstance(options, Mapping):
        raise AnsibleFilterError("kafka_verify_job_argv: options must be a mapping of option to value, got %r"
                                 % (options,))
    if not isinstance(program, list):
        raise AnsibleFilterError("kafka_verify_job_argv: program must be a list (the Python, -m, the job's module), "
                                 "got %r" % (program,))
    argv = [str(part) for part in program]
    for option, value in options.items():
        argv += [str(option), ",".join(str(item) for item in value) if isinstance(value, list) else str(value)]
    argv += ["--spark-setting=%s=%s" % (name, value) for name, value in (spark_settings or {}).items()]
    return argv + ["--manifest=%s" % path for path in manifests or []]


def _required(settings, name):
    if not isinstance(settings, Mapping) or name not in settings:
        raise AnsibleFilterError("kafka_verify_producer_starts: the settings lack %s" % name)
    return settings[name]


def kafka_verify_producer_starts(settings):
    """[{name, log, topic, manifest, argv}] of the producers to start, the steady one first.

    settings: python, package, servers, connection_file, duration, keys, payload_bytes, linger_ms, steady
    ({topic, rate, manifest}) and transactional ({topic, rate, manifest, records, abort_every}, or empty for none).
    """
    common = [str(_required(settings, "python")), "-m", "%s.steady_produce" % _required(settings, "package"),
              "--bootstrap-servers", str(_required(settings, "servers"))]
    for option, name in SHARED_OPTIONS:
        common += [option, str(_required(settings, name))]
    common += ["--client-option", "linger_ms=%s" % _required(settings, "linger_ms"),
               "--connection-file", str(_required(settings, "connection_file"))]
    starts = []
    for name in ("steady", "transactional"):
        producer = settings.get(name)
        if not producer:
            continue
        argv = common + ["--topic", str(producer["topic"]), "--rate", str(producer["rate"]),
                         "--manifest", str(producer["manifest"])]
        if name == "transactional":
            argv += ["--transaction-records", str(producer["records"]), "--abort-every", str(producer["abort_every"])]
        starts.append({"name": name, "log": LOGS[name], "topic": producer["topic"], "manifest": producer["manifest"],
                       "argv": argv})
    return starts


def kafka_verify_producers_started(results, jobs_dir, host):
    """The fact kafka_verify_steady_producer, from the results of the start task's loop over
    kafka_verify_producer_starts (each printed its producer's PID): the steady producer's pid and manifest, and
    transactional ({pid, manifest}) or None."""
    started = {}
    for result in results:
        start = result["item"]
        try:
            pid = int(str(result.get("stdout", "")).strip())
        except ValueError:
            raise AnsibleFilterError(
                "the %s producer's start printed no PID: %r" % (start["name"], result.get("stdout"))) from None
        started[start["name"]] = {"pid": pid, "manifest": start["manifest"]}
    if "steady" not in started:
        raise AnsibleFilterError("kafka_verify_producers_started: no steady producer among the results")
    return dict(started["steady"], jobs_dir=jobs_dir, host=host, transactional=started.get("transactional"))


def kafka_verify_producer_stops(producer):
    """[{name, pid, log, manifest}] of the producers the fact kafka_verify_steady_producer names."""
    stops = [{"name": "steady", "pid": producer["pid"], "log": LOGS["steady"], "manifest": producer["manifest"]}]
    transactional = producer.get("transactional")
    if transactional:
        stops.append({"name": "transactional", "pid": transactional["pid"], "log": LOGS["transactional"],
                      "manifest": transactional["manifest"]})
    return stops


def kafka_verify_manifest_totals(results):
    """{producer name: the manifest's figures, without its ranges} from the results of a slurp loop over
    kafka_verify_producer_stops."""
    totals = {}
    for result in results:
        manifest = json.loads(base64.b64decode(result["content"]))
        totals[result["item"]["name"]] = {key: value for key, value in manifest.items() if key not in RANGE_FIELDS}
    return totals


def kafka_verify_connection(connection):
    """The admin modules' connection options (broker_addresses.yml's kafkaops_connection) as the role's jobs take
    them, {security_protocol, sasl_mechanism, sasl_username, sasl_password, ssl_cafile, ssl_certfile, ssl_keyfile},
    each the admin modules' default where the connection leaves it out (plugin_utils/_verify_connection.py)."""
    if connection is not None and not isinstance(connection, Mapping):
        raise AnsibleFilterError("kafka_verify_connection: expected the admin modules' connection options (a mapping), "
                                 "got %s" % type(connection).__name__)
    defaults = dict((option, spec.get("default")) for option, spec in connection_argument_spec().items())
    return job_connection(connection, defaults)


class FilterModule(object):

    def filters(self):
        return {
            "kafka_verify_job_argv": kafka_verify_job_argv,
            "kafka_verify_producer_starts": kafka_verify_producer_starts,
            "kafka_verify_producers_started": kafka_verify_producers_started,
            "kafka_verify_producer_stops": kafka_verify_producer_stops,
            "kafka_verify_manifest_totals": kafka_verify_manifest_totals,
            "kafka_verify_connection": kafka_verify_connection,
        }
