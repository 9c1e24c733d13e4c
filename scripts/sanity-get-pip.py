"""Stand-in for the pip bootstrap script that ansible-test downloads from a host this machine
cannot reach. ansible-test runs it inside each fresh sanity venv with pip's arguments (for example
`--disable-pip-version-check pip==24.2 --no-setuptools --no-wheel`): it installs pip with the
standard library's ensurepip, then the requested pip version from PyPI.

ansible-test runs pip with a reduced environment, so the CA bundle the machine's pip uses would be
lost; it is written into the venv's own pip.conf, which every later pip call in the venv reads."""

import os
import ensurepip
import subprocess
import sys

candidates = [os.environ.get("PIP_CERT"), os.environ.get("SSL_CERT_FILE"), "/etc/ssl/certs/ca-certificates.crt"]
ca_bundle = next((path for path in candidates if path and os.path.isfile(path)), None)
if ca_bundle:
    with open(os.path.join(sys.prefix, "pip.conf"), "w") as config:
        config.write("[global]\ncert = %s\n" % ca_bundle)

ensurepip.bootstrap(upgrade=True)
arguments = [argument for argument in sys.argv[1:] if argument not in ("--no-setuptools", "--no-wheel")]
cert_option = ["--cert", ca_bundle] if ca_bundle else []
subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet"] + cert_option + arguments)
