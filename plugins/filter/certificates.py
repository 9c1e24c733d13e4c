# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The TLS files of the service roles: checks of those an inventory provides, run on the controller before a role
changes anything, and the certificates role service_common issues."""

from __future__ import absolute_import, division, print_function


from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.cluster.plugins.filter.kafka_broker import missing_files
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._service_rules import tls_certificates as certificates
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._tls_files import (
    HAS_CRYPTOGRAPHY,
    certificate_key_problem,
)


def tls_file_problems(paths, certificate=None, key=None):
    """missing_files' sentences for {variable: path}, then, when the certificate and key variables named are
    both there, why the certificate does not match the key (see certificate_key_problem)."""
    problems = missing_files(paths)
    if problems or not (certificate and key):
        return problems
    for variable in (certificate, key):
        if variable not in paths:
            raise AnsibleFilterError("tls_file_problems: %s is not one of the variables given (%s)"
                                     % (variable, ", ".join(paths)))
    if not HAS_CRYPTOGRAPHY:
        raise AnsibleFilterError("tls_file_problems: comparing a certificate with its key needs the Python library "
                                 "cryptography on the controller (ansible-core depends on it)")
    problem = certificate_key_problem(certificate, str(paths[certificate]), key, str(paths[key]))
    return [problem] if problem else []


def tls_certificates(subject_names, host, host_folder="hosts", common_name="", clients=None, client_issuer=None):
    """The keys and certificates role service_common issues for a host (the rule is plugin_utils/_service_rules.py's
    tls_certificates): its own, and the clients' on the host that issues them (client_issuer)."""
    if not isinstance(subject_names, list):
        raise AnsibleFilterError("tls_certificates: expected a list of the names and addresses the host is reached by, "
                                 "got %r" % (subject_names,))
    return certificates(host, subject_names, host_folder, common_name or host, clients or [], host == client_issuer)


class FilterModule(object):
    def filters(self):
        return {"tls_file_problems": tls_file_problems, "tls_certificates": tls_certificates}
