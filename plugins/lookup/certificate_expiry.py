# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
name: certificate_expiry
short_description: The certificates in PEM files on the controller, with their expiry
version_added: "0.5.0"
description:
  - Reads every certificate of the PEM files given (a file may hold a chain; each of its certificates is
    listed) and returns, per certificate, its subject, issuer, serial and validity, the whole days left and
    whether it expires within O(warn_days).
  - The roles kafkaops.cluster.kafka_broker and kafkaops.cluster.zookeeper read the CA and the certificates they
    deploy with it and warn of those within C(<role>_tls_warn_days) before they deploy them.
  - The files are read on the controller, where lookups run. Only the standard library is needed.
options:
  _terms:
    description:
      - PEM files on the controller. An item is a path, or a mapping of a name to a path; the name (such as the
        variable that gave the path) is put in each entry and sentence of its file. An empty path is left out.
    required: true
    type: list
    elements: raw
  warn_days:
    description: A certificate that expires within this many days, or has expired, is C(expiring).
    type: int
    default: 30
  skip_missing:
    description:
      - Leave out a path that names no file (a certificate not issued yet), instead of failing.
    type: bool
    default: false
  messages:
    description:
      - Instead of the entries, one sentence per expiring certificate, naming the file, the certificate's
        subject and the date, as a warning would say it.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Every certificate of the generated CA and a host, with its expiry
  ansible.builtin.debug:
    msg: "{{ query('kafkaops.cluster.certificate_expiry', tls_dir ~ '/ca.crt', tls_dir ~ '/hosts/kafka1.crt') }}"

- name: Warn of the provided certificates that expire within 60 days
  ansible.builtin.debug:
    msg: "{{ expiring }}"
  when: expiring
  vars:
    expiring: >-
      {{ query('kafkaops.cluster.certificate_expiry', {'kafka_broker_tls_cert_file': kafka_broker_tls_cert_file},
               warn_days=60, messages=true) }}
"""

RETURN = r"""
_raw:
  description:
    - Per certificate, in the order of the files and within a file, C(name) (the name given with the path, else
      the path), C(file), C(position) (0 for a file's first certificate), C(subject) and C(issuer) (RFC 4514),
      C(serial) (upper-case hex), C(not_before) and C(not_after) (ISO 8601, UTC), C(days_left) (whole days until
      C(not_after), negative once expired) and C(expiring).
    - With O(messages), the sentences of the expiring ones instead.
  type: list
  elements: raw
"""

import os
from collections.abc import Mapping

from ansible.errors import AnsibleLookupError
from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.lookup import LookupBase

from ansible_collections.kafkaops.cluster.plugins.module_utils._certificates import (
    CertificateError,
    expiry_sentence,
    now_utc,
    parse_certificate,
    pem_certificates,
    validity_entry,
)


def named_paths(terms):
    """(name, path) of each term: a path, or a mapping of names to paths; empty paths left out."""
    pairs = []
    for term in terms:
        items = term.items() if isinstance(term, Mapping) else [(None, term)]
        for name, path in items:
            path = to_text(path or "").strip()
            if path:
                pairs.append((to_text(name) if name else path, path))
    return pairs


def file_entries(name, path, warn_days, now):
    """The entries of every certificate in one PEM file; AnsibleLookupError naming the file when it holds none."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            found = pem_certificates(handle.read())
        if not found:
            raise CertificateError("no PEM certificate (-----BEGIN CERTIFICATE-----) in it")
        entries = []
        for position, der in enumerate(found):
            entry = dict(name=name, file=path, position=position)
            entry.update(validity_entry(parse_certificate(der), warn_days, now))
            entries.append(entry)
        return entries
    except OSError as error:
        raise AnsibleLookupError("certificate_expiry: %s: cannot read %s: %s" % (name, path, error.strerror)) from None
    except CertificateError as error:
        raise AnsibleLookupError("certificate_expiry: %s: %s: %s" % (name, path, error)) from None


def certificate_expiry(terms, warn_days=30, skip_missing=False, messages=False, now=None):
    """The lookup's result for its terms and options; see DOCUMENTATION."""
    now = now or now_utc()
    entries = []
    for name, path in named_paths(terms):
        if skip_missing and not os.path.exists(path):
            continue
        entries.extend(file_entries(name, path, warn_days, now))
    if not messages:
        return entries
    sentences = []
    for entry in entries:
        if entry["expiring"]:
            # A file given without a name is named by its path alone.
            named = entry["file"] if entry["name"] == entry["file"] else "%s %s" % (entry["name"], entry["file"])
            sentences.append(expiry_sentence(named, entry))
    return sentences


class LookupModule(LookupBase):

    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        try:
            warn_days = int(self.get_option("warn_days"))
        except (TypeError, ValueError):
            raise AnsibleLookupError("certificate_expiry: warn_days must be a whole number of days, got %r"
                                     % (self.get_option("warn_days"),)) from None
        if warn_days < 0:
            raise AnsibleLookupError("certificate_expiry: warn_days must be at least 0, got %d" % warn_days)
        return certificate_expiry(terms, warn_days, self.get_option("skip_missing"), self.get_option("messages"))
