"""The lookup certificate_expiry on PEM files written here: every certificate of a file, its days left, the
window, the sentences the roles warn with, and files that are missing or hold no certificate."""

import datetime

import pytest
import yaml
from ansible import constants
from ansible.errors import AnsibleLookupError
from ansible_collections.kafkaops.cluster.plugins.lookup import certificate_expiry
from ansible_collections.kafkaops.cluster.plugins.lookup.certificate_expiry import LookupModule
from ansible_collections.kafkaops.cluster.tests.unit.plugins.certificate_samples import NOW, ca, issue, name


@pytest.fixture
def files(tmp_path):
    """A CA valid for years, a host certificate with 10 days left (its chain after it) and one expired."""
    authority = issue(name("kafkaops.cluster CA"), not_before=NOW - datetime.timedelta(days=10),
                      not_after=NOW + datetime.timedelta(days=3000), is_ca=True)
    host = issue(name("kafka1"), issuer=authority, not_before=NOW - datetime.timedelta(days=10),
                 not_after=NOW + datetime.timedelta(days=10, hours=3))
    old = issue(name("old"), issuer=authority, not_before=NOW - datetime.timedelta(days=100),
                not_after=NOW - datetime.timedelta(days=2, hours=1))
    paths = dict(ca=tmp_path / "ca.crt", host=tmp_path / "kafka1.crt", old=tmp_path / "old.crt")
    paths["ca"].write_text(authority.pem)
    paths["host"].write_text(host.pem + authority.pem)
    paths["old"].write_text(old.pem)
    return dict((key, str(path)) for key, path in paths.items())


def test_every_certificate_of_each_file_with_its_days_left(files):
    entries = certificate_expiry.certificate_expiry([files["ca"], {"host certificate": files["host"]}], now=NOW)
    assert [(entry["name"], entry["position"], entry["subject"], entry["days_left"], entry["expiring"])
            for entry in entries] == [
        (files["ca"], 0, "CN=kafkaops.cluster CA", 3000, False),
        ("host certificate", 0, "CN=kafka1", 10, True),
        ("host certificate", 1, "CN=kafkaops.cluster CA", 3000, False)]
    assert entries[1]["file"] == files["host"] and entries[1]["issuer"] == "CN=kafkaops.cluster CA"
    assert entries[1]["not_after"] == "2026-06-11T15:00:00Z" and entries[1]["not_before"] == "2026-05-22T12:00:00Z"


CA_NAME = "CN=kafkaops.cluster CA"


@pytest.mark.parametrize("warn_days, expiring", [
    (0, ["CN=old"]), (10, ["CN=old"]), (11, ["CN=kafka1", "CN=old"]),
    (3001, [CA_NAME, "CN=kafka1", CA_NAME, "CN=old"])])
def test_the_window_decides_which_expire(files, warn_days, expiring):
    entries = certificate_expiry.certificate_expiry([files["ca"], files["host"], files["old"]], warn_days, now=NOW)
    assert [entry["subject"] for entry in entries if entry["expiring"]] == expiring


def test_the_sentences_name_the_file_its_subject_and_the_date(files):
    sentences = certificate_expiry.certificate_expiry(
        [{"CA certificate": files["ca"], "host certificate": files["host"]}, files["old"]], 30, messages=True, now=NOW)
    assert sentences == [
        "host certificate %s (CN=kafka1) expires on 2026-06-11T15:00:00Z, in 10 days" % files["host"],
        "%s (CN=old) expired on 2026-05-30T11:00:00Z, 3 days ago" % files["old"]]


def test_empty_paths_are_left_out_and_missing_files_too_when_asked(files, tmp_path):
    missing = str(tmp_path / "not-issued-yet.crt")
    terms = [{"admin client certificate": missing, "unset": ""}, "", files["ca"]]
    assert [entry["file"] for entry in certificate_expiry.certificate_expiry(terms, skip_missing=True, now=NOW)] == [
        files["ca"]]
    with pytest.raises(AnsibleLookupError, match="admin client certificate: .*not-issued-yet.crt: No such file"):
        certificate_expiry.certificate_expiry(terms, now=NOW)


def test_a_file_without_a_certificate_is_refused_naming_it(tmp_path):
    key = tmp_path / "kafka1.key"
    key.write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    with pytest.raises(AnsibleLookupError, match="host certificate: .*kafka1.key: no PEM certificate"):
        certificate_expiry.certificate_expiry([{"host certificate": str(key)}])


def _lookup():
    """The lookup with its documented options known, as Ansible's plugin loader makes it known."""
    lookup = LookupModule()
    lookup._load_name = "kafkaops.cluster.certificate_expiry"
    constants.config.initialize_plugin_configuration_definitions(
        "lookup", lookup._load_name, yaml.safe_load(certificate_expiry.DOCUMENTATION)["options"])
    return lookup


def test_the_lookup_takes_its_options_and_refuses_a_negative_window(files):
    lookup = _lookup()
    entries = lookup.run([files["ca"]], variables={}, warn_days="100000")
    assert len(entries) == 1 and entries[0]["expiring"]
    assert lookup.run([files["ca"]], variables={}, messages=True) == []
    with pytest.raises(AnsibleLookupError, match="warn_days must be at least 0"):
        lookup.run([files["ca"]], variables={}, warn_days=-1)


def test_certificates_valid_from_now_are_not_expiring_with_the_default_window(tmp_path):
    path = tmp_path / "ca.crt"
    path.write_text(ca().pem)
    assert _lookup().run([str(path)], variables={}, messages=True) == []
