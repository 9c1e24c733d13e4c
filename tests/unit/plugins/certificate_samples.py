"""Throwaway keys and certificates for the tests of what reads certificates, made with cryptography in memory.

A small CA signs host certificates with the validity a test asks for; each comes back as DER, PEM and the
cryptography object, so a test can compare what the collection reads with what cryptography reads.
"""

import datetime
import ipaddress

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

# A fixed moment for the tests that give the clock; certificates without dates are valid around the real now,
# so that a real TLS handshake accepts them.
NOW = datetime.datetime(2026, 6, 1, 12, 0, 0, tzinfo=datetime.UTC)


def real_now():
    return datetime.datetime.now(datetime.UTC)


def ec_key():
    return ec.generate_private_key(ec.SECP256R1())


def rsa_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def key_pem(key, password=None):
    encryption = (serialization.BestAvailableEncryption(password) if password
                  else serialization.NoEncryption())
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)


def name(common_name, *more):
    """A Name of the attributes given (cryptography's NameAttributes) and the common name last."""
    return x509.Name(list(more) + [x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


class Issued:
    """A certificate with its key: der, pem (text), certificate (cryptography's) and key."""

    def __init__(self, certificate, key):
        self.certificate = certificate
        self.key = key
        self.der = certificate.public_bytes(serialization.Encoding.DER)
        self.pem = certificate.public_bytes(serialization.Encoding.PEM).decode()
        self.key_pem = key_pem(key)

    def write(self, folder, stem):
        """Writes <stem>.crt and <stem>.key into folder; returns their paths."""
        certificate, key = folder / ("%s.crt" % stem), folder / ("%s.key" % stem)
        certificate.write_text(self.pem)
        key.write_bytes(self.key_pem)
        return str(certificate), str(key)


def issue(subject, issuer=None, not_before=None, not_after=None, key=None, serial=None, names=(), is_ca=False):
    """A certificate for subject (a Name), signed by issuer (an Issued CA) or by its own key."""
    key = key or ec_key()
    not_before = not_before or real_now() - datetime.timedelta(days=1)
    not_after = not_after or real_now() + datetime.timedelta(days=365)
    builder = (x509.CertificateBuilder().subject_name(subject)
               .issuer_name(issuer.certificate.subject if issuer else subject)
               .public_key(key.public_key()).serial_number(serial or x509.random_serial_number())
               .not_valid_before(not_before).not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=is_ca, path_length=None), critical=True))
    if names:
        alternatives = []
        for item in names:
            try:
                alternatives.append(x509.IPAddress(ipaddress.ip_address(item)))
            except ValueError:
                alternatives.append(x509.DNSName(item))
        builder = builder.add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
    return Issued(builder.sign(issuer.key if issuer else key, hashes.SHA256()), key)


def ca(common_name="test CA"):
    return issue(name(common_name), not_after=real_now() + datetime.timedelta(days=3650), is_ca=True)


def mismatched_tls_files(folder, host, prefix):
    """A CA, a certificate it issued to host and a private key that is not the certificate's, written into folder:
    {variable: path} as a role's provided TLS files (<prefix>_tls_ca_file, _cert_file and _key_file)."""
    authority = ca()
    (folder / "ca.crt").write_text(authority.pem)
    certificate, _key = issue(name(host), issuer=authority).write(folder, host)
    other = folder / "other.key"
    other.write_bytes(key_pem(ec_key()))
    return {prefix + "_tls_ca_file": str(folder / "ca.crt"), prefix + "_tls_cert_file": certificate,
            prefix + "_tls_key_file": str(other)}
