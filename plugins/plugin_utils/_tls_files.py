# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether a provided certificate goes with its key, read on the controller: shared by the filter
tls_file_problems and the host models of the roles kafka_broker and zookeeper, which are given
certificate_key_problem (through key_problem_of) as the one function of it that reads files."""

from __future__ import absolute_import, division, print_function


try:
    from cryptography import x509
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization
    HAS_CRYPTOGRAPHY = True
except ImportError:
    HAS_CRYPTOGRAPHY = False

from ansible.errors import AnsibleFilterError

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


def key_problem_of(filter_name):
    """certificate_key_problem for a host model's filter, which names itself in the refusal when the controller lacks
    the library cryptography."""
    def key_problem(certificate_variable, certificate_path, key_variable, key_path):
        if not HAS_CRYPTOGRAPHY:
            raise AnsibleFilterError("%s: comparing a certificate with its key needs the Python library cryptography "
                                     "on the controller (ansible-core depends on it)" % filter_name)
        return certificate_key_problem(certificate_variable, certificate_path, key_variable, key_path)
    return key_problem
