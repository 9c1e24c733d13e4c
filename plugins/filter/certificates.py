# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks of the TLS files an inventory provides, run on the controller before a role changes anything."""

from __future__ import absolute_import, division, print_function


from ansible.errors import AnsibleFilterError

try:
    from cryptography import x509
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization
    HAS_CRYPTOGRAPHY = True
except ImportError:
    HAS_CRYPTOGRAPHY = False

from ansible_collections.kafkaops.cluster.plugins.filter.kafka_broker import missing_files
from ansible_collections.kafkaops.cluster.plugins.module_utils._certificates import (
    CertificateError,
    pem_certificates,
)


def _public_key_bytes(public_key):
    return public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def certificate_key_problem(certificate_variable, certificate_path, key_variable, key_path):
    """Why a certificate file and a key file do not go together, naming the variable at fault, or None.

    The first certificate of the file is the host's (a chain follows it). It goes with the key when its
    public key is the key's: a certificate of another key would make the service fail its first handshake,
    long after the files were written.
    """
    try:
        with open(certificate_path, encoding="utf-8", errors="replace") as handle:
            found = pem_certificates(handle.read())
    except CertificateError as error:
        return "%s: %s: %s" % (certificate_variable, certificate_path, error)
    if not found:
        return "%s: %s holds no PEM certificate (-----BEGIN CERTIFICATE-----)" % (
            certificate_variable, certificate_path)
    try:
        certificate = x509.load_der_x509_certificate(found[0])
    except ValueError as error:
        return "%s: the first certificate in %s cannot be read: %s" % (certificate_variable, certificate_path, error)
    with open(key_path, "rb") as handle:
        key_pem = handle.read()
    try:
        key = serialization.load_pem_private_key(key_pem, password=None)
    except TypeError:
        return "%s: %s is encrypted; the services read an unencrypted key (PEM, PKCS#8)" % (key_variable, key_path)
    except (ValueError, UnsupportedAlgorithm) as error:
        # The reason cryptography gives names the format, never the key's content.
        return "%s: %s is not a PEM private key: %s" % (key_variable, key_path, str(error).splitlines()[0])
    if _public_key_bytes(certificate.public_key()) != _public_key_bytes(key.public_key()):
        return ("%s: the certificate in %s (%s) does not match %s (%s): its public key is not that key's; give the "
                "key it was issued for, or a certificate of that key" % (
                    certificate_variable, certificate_path, certificate.subject.rfc4514_string(), key_variable,
                    key_path))
    return None


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


class FilterModule(object):
    def filters(self):
        return {"tls_file_problems": tls_file_problems}
