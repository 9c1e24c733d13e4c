"""The certificates piece of service_common, run by ansible-playbook on the controller alone.

Three made-up hosts (connection local, nothing leaves the machine) get their certificates from a CA
the piece makes in a temporary folder, in the rounds an operator goes through: the first run, a run
that must change nothing, a run with one more name per host, a check-mode run that finds every
certificate close to its end, and a renewal. After each round the files are read back: the chain
verifies, the names are the ones given, the keys are the PKCS#8 PEM Kafka's key store reads, and Python's
ssl (the one kafka-python uses) completes a mutual-TLS handshake with them. No key ever shows in
Ansible's output.
"""

import json
import os
import re
import shutil
import socket
import ssl
import stat
import subprocess
import sys
import threading

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from ansible_collections.kafkaops.cluster.tests.unit.roles.playbook_runs import (REPOSITORY, playbook_command,
                                                                                 playbook_environment)

HERE = os.path.dirname(os.path.abspath(__file__))
PLAYBOOK = os.path.join(HERE, "certificates_playbook.yml")
HOSTS = {"broker-1": "10.0.0.1", "broker-2": "10.0.0.2", "broker-3": "fd00::3"}
EXTRA_NAME = "kafka.example.test"
# Each host's key and certificate, and the admin client's, as paths without the extension.
SIGNED = ["hosts/%s" % host for host in HOSTS] + ["clients/admin"]


def _run_playbook(tls_dir, inventory, *options):
    """One ansible-playbook run; returns its output and the changed count of each host."""
    command = playbook_command("-i", str(inventory), PLAYBOOK, "-e", "tls_dir=%s" % tls_dir, *options,
                               unbuffered=True)
    return subprocess.Popen(command, env=playbook_environment(), cwd=REPOSITORY, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT,
                            text=True)


def _finish(process):
    output, unused = process.communicate(timeout=600)
    assert process.returncode == 0, output
    changed = {host: int(count) for host, count in re.findall(r"^(\S+)\s+: ok=\d+\s+changed=(\d+)", output, re.M)}
    assert set(changed) == set(HOSTS), output
    return output, changed


def _snapshot(tls_dir):
    """Every file below the folder: relative path to (content, modification time)."""
    files = {}
    for folder, _subfolders, names in os.walk(tls_dir):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as handle:
                files[os.path.relpath(path, tls_dir)] = (handle.read(), os.stat(path).st_mtime_ns)
    return files


def _certificate(snapshot, name):
    return x509.load_pem_x509_certificate(snapshot[name][0])


def _names(certificate):
    extension = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return sorted(["DNS:" + name for name in extension.get_values_for_type(x509.DNSName)]
                  + ["IP:" + str(address) for address in extension.get_values_for_type(x509.IPAddress)])


def _expected_names(host, extra=()):
    return sorted(["DNS:" + host, "DNS:%s.example.test" % host, "IP:" + HOSTS[host]]
                  + ["DNS:" + name for name in extra])


@pytest.fixture(scope="module")
def rounds(tmp_path_factory):
    """The rounds, each with its output, changed counts, folder and the files after it.

    Rounds that do not depend on each other run at the same time, each on its own copy of the folder,
    which keeps the whole test to three playbook runs' time.
    """
    base = tmp_path_factory.mktemp("certificates")
    inventory = base / "inventory.ini"
    inventory.write_text("".join("%s host_address=%s\n" % item for item in HOSTS.items())
                         + "[all:vars]\nansible_connection=local\nansible_python_interpreter=%s\n" % sys.executable)
    results = {}

    def run_together(**rounds_to_run):
        started = {name: (folder, _run_playbook(folder, inventory, *options))
                   for name, (folder, options) in rounds_to_run.items()}
        for name, (folder, process) in started.items():
            output, changed = _finish(process)
            results[name] = {"output": output, "changed": changed, "folder": folder,
                             "files": _snapshot(folder) if folder.exists() else {}}

    main, untouched = base / "tls", base / "untouched"
    run_together(first=(main, ()), fresh_check=(untouched, ("--check",)))
    run_together(again=(main, ()))
    copies = {}
    for name in ("check_close_to_expiry", "renew"):
        copies[name] = base / name
        shutil.copytree(main, copies[name])
        results[name + "_before"] = {"files": _snapshot(copies[name])}
    run_together(new_name=(main, ("-e", json.dumps({"extra_names": [EXTRA_NAME]}))),
                 check_close_to_expiry=(copies["check_close_to_expiry"],
                                        ("--check", "-e", json.dumps({"renew_before_days": 900}))),
                 renew=(copies["renew"], ("-e", json.dumps({"renew": True}))))
    return results


def test_the_first_run_makes_a_ca_and_a_certificate_per_host_and_client_with_private_modes(rounds):
    files, tls_dir = rounds["first"]["files"], rounds["first"]["folder"]
    expected = {"ca.crt", "ca.key"} | {"%s.%s" % (pair, kind) for pair in SIGNED for kind in ("crt", "key")}
    assert expected <= set(files)
    for folder in ("", "hosts", "clients"):
        assert stat.S_IMODE(os.stat(tls_dir / folder).st_mode) == 0o700
    for name in files:
        if name.endswith(".key"):
            assert stat.S_IMODE(os.stat(tls_dir / name).st_mode) == 0o600, name
    assert all(rounds["first"]["changed"].values())


def test_keys_are_unencrypted_pkcs8_pem_on_p256(rounds):
    files = rounds["first"]["files"]
    for name in ["ca.key"] + ["%s.key" % pair for pair in SIGNED]:
        content = files[name][0]
        assert content.startswith(b"-----BEGIN PRIVATE KEY-----\n"), name
        key = serialization.load_pem_private_key(content, password=None)
        assert isinstance(key, ec.EllipticCurvePrivateKey) and key.curve.name == "secp256r1", name


def test_every_certificate_is_signed_by_the_ca_with_the_names_and_uses_given(rounds):
    files = rounds["first"]["files"]
    ca = _certificate(files, "ca.crt")
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    for host in HOSTS:
        certificate = _certificate(files, "hosts/%s.crt" % host)
        certificate.verify_directly_issued_by(ca)
        assert certificate.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == host
        assert _names(certificate) == _expected_names(host)
        usages = certificate.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
        assert set(usages) == {ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH}
    client = _certificate(files, "clients/admin.crt")
    client.verify_directly_issued_by(ca)
    assert client.subject.rfc4514_string() == "CN=admin"
    assert list(client.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [
        ExtendedKeyUsageOID.CLIENT_AUTH]


def test_the_caller_learns_the_paths_of_its_host_files(rounds):
    tls_dir = rounds["first"]["folder"]
    for host in HOSTS:
        noted = json.loads(rounds["first"]["files"]["%s-files.json" % host][0])
        assert noted == {"ca": "%s/ca.crt" % tls_dir, "cert": "%s/hosts/%s.crt" % (tls_dir, host),
                         "key": "%s/hosts/%s.key" % (tls_dir, host)}


def _handshake(tls_dir, host, server_name):
    """A mutual-TLS handshake on loopback: the host's certificate serves, the admin client's logs in."""
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(tls_dir / "hosts" / ("%s.crt" % host), tls_dir / "hosts" / ("%s.key" % host))
    server_context.load_verify_locations(tls_dir / "ca.crt")
    server_context.verify_mode = ssl.CERT_REQUIRED
    client_context = ssl.create_default_context(cafile=str(tls_dir / "ca.crt"))
    client_context.load_cert_chain(tls_dir / "clients" / "admin.crt", tls_dir / "clients" / "admin.key")
    seen = {}
    with socket.create_server(("127.0.0.1", 0)) as listener:

        def serve():
            connection, unused = listener.accept()
            try:
                with server_context.wrap_socket(connection, server_side=True) as secured:
                    seen["client"] = dict(item[0] for item in secured.getpeercert()["subject"])
                    secured.sendall(b"ok")
            except ssl.SSLError:
                connection.close()  # the client refused the server's certificate; the client side says why

        server = threading.Thread(target=serve)
        server.start()
        with socket.create_connection(listener.getsockname()) as raw:
            with client_context.wrap_socket(raw, server_hostname=server_name) as secured:
                assert secured.recv(2) == b"ok"
        server.join(timeout=10)
    assert seen["client"] == {"commonName": "admin"}


@pytest.mark.parametrize("host, server_name", [
    ("broker-1", "broker-1.example.test"), ("broker-2", "10.0.0.2"), ("broker-3", "fd00::3")])
def test_python_ssl_completes_a_mutual_tls_handshake_checking_the_name(rounds, host, server_name):
    _handshake(rounds["first"]["folder"], host, server_name)


def test_python_ssl_refuses_a_name_the_certificate_does_not_hold(rounds):
    with pytest.raises(ssl.SSLCertVerificationError):
        _handshake(rounds["first"]["folder"], "broker-1", "broker-2.example.test")


def test_a_second_run_changes_nothing(rounds):
    assert rounds["again"]["changed"] == dict.fromkeys(HOSTS, 0)
    assert rounds["again"]["files"] == rounds["first"]["files"]


def test_a_new_name_signs_the_certificates_again_with_the_same_keys_and_ca(rounds):
    before, after = rounds["again"]["files"], rounds["new_name"]["files"]
    ca = _certificate(after, "ca.crt")
    for name in ("ca.crt", "ca.key", "clients/admin.crt", "clients/admin.key"):
        assert after[name] == before[name], name
    for host in HOSTS:
        assert after["hosts/%s.key" % host] == before["hosts/%s.key" % host]
        certificate = _certificate(after, "hosts/%s.crt" % host)
        certificate.verify_directly_issued_by(ca)
        assert _names(certificate) == _expected_names(host, [EXTRA_NAME])


def test_check_mode_writes_nothing_and_reports_certificates_close_to_expiry(rounds):
    checked = rounds["check_close_to_expiry"]
    assert checked["files"] == rounds["check_close_to_expiry_before"]["files"]
    assert all(checked["changed"].values())
    signing = checked["output"].split("Sign the certificates with the CA")[1].split("TASK [")[0]
    for pair in SIGNED:
        assert re.search(r"changed: \[\S+ -> localhost\] => \(item=%s\)" % pair, signing), pair


def test_check_mode_on_a_folder_not_made_yet_succeeds_and_makes_nothing(rounds):
    assert rounds["fresh_check"]["files"] == {}
    assert rounds["fresh_check"]["changed"]["broker-1"] > 0


def test_renew_makes_new_keys_and_certificates_under_the_same_ca(rounds):
    before, after = rounds["renew_before"]["files"], rounds["renew"]["files"]
    assert after["ca.crt"] == before["ca.crt"] and after["ca.key"] == before["ca.key"]
    ca = _certificate(after, "ca.crt")
    for pair in SIGNED:
        assert after[pair + ".key"][0] != before[pair + ".key"][0], pair
        assert after[pair + ".crt"][0] != before[pair + ".crt"][0], pair
        certificate = _certificate(after, pair + ".crt")
        certificate.verify_directly_issued_by(ca)
        public = serialization.load_pem_private_key(after[pair + ".key"][0], password=None).public_key()
        assert certificate.public_key() == public, pair
    _handshake(rounds["renew"]["folder"], "broker-1", "broker-1.example.test")


def test_no_key_shows_in_any_output(rounds):
    keys = set()
    for round_name in ("first", "new_name", "renew"):
        for name, (content, _modified) in rounds[round_name]["files"].items():
            if name.endswith(".key"):
                keys.add(content.decode().splitlines()[1])
    for round_name, result in rounds.items():
        if "output" in result:
            for line in keys:
                assert line not in result["output"], round_name
