"""A real `lode serve` on a temporary home, with HEC tokens, for the compatibility tests.

The binary is $LODE_BIN (the Makefile passes the one `cargo build -p lode` made)."""

import json
import os
import pathlib
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request

import ssl

import pytest

# The API is HTTPS with the self-signed certificate the server generated.
UNVERIFIED = ssl._create_unverified_context()

ROOT = pathlib.Path(__file__).resolve().parent.parent

# requests lets these variables override a session's own `verify` (a client configured with
# ssl_verify=False or a CA file would still check against the system bundle): the clients must
# see only their own settings, as on a machine without them.
for var in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
    os.environ.pop(var, None)
TOKEN = "8d2b7a40-1c5e-4f3a-9b7d-2e6f8a9c0b11"
ACK_TOKEN = "8d2b7a40-1c5e-4f3a-9b7d-2e6f8a9c0b12"
BASIC_TOKEN = "8d2b7a40-1c5e-4f3a-9b7d-2e6f8a9c0b13"
ADMIN_PASSWORD = "compat-admin-pass"
SAMPLE_EVENTS = 50


def lode_bin():
    b = os.environ.get("LODE_BIN")
    if b:
        return b
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    return str(pathlib.Path(target) / "debug" / "lode")


class Lode:
    def __init__(self, home, api, hec):
        self.home = home
        self.api = api
        self.hec = hec
        u = urllib.parse.urlparse(hec)
        self.hec_host, self.hec_port = u.hostname, u.port

    @property
    def cert(self):
        """The self-signed certificate the server generated (clients can verify against it)."""
        return os.path.join(self.home, "etc/auth/lode-server.pem")

    def search(self, q):
        url = self.api + "/lode/search?" + urllib.parse.urlencode({"q": q})
        with open(os.path.join(self.home, "var/run/lode/server.json")) as f:
            secret = json.load(f)["secret"]
        req = urllib.request.Request(url, headers={"Authorization": f"Lode {secret}"})
        with urllib.request.urlopen(req, timeout=60, context=UNVERIFIED) as r:
            rows = [json.loads(line) for line in r.read().decode().splitlines() if line]
        errors = [r for r in rows if "error" in r]
        assert not errors, errors
        return rows

    def count(self, q):
        rows = self.search(q + " | stats count")
        return int(rows[0]["count"]) if rows else 0

    def wait_count(self, q, n, timeout=60):
        """Polls until `q` counts `n` events (HEC answers once durable, so this is at once,
        except for clients that send from a background thread)."""
        deadline = time.time() + timeout
        while True:
            c = self.count(q)
            if c >= n or time.time() > deadline:
                return c
            time.sleep(0.2)


def run(home, *args):
    r = subprocess.run([lode_bin(), "--home", home, *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture(scope="session")
def lode():
    home = tempfile.mkdtemp(prefix="lode-compat-")
    run(home, "hec", "create", "python", "--token", TOKEN, "--index", "main")
    run(home, "hec", "create", "vector", "--token", ACK_TOKEN, "--ack")
    run(home, "hec", "create", "fluentbit", "--token", BASIC_TOKEN)
    sample = os.path.join(home, "sample.log")
    with open(sample, "w") as f:
        for i in range(SAMPLE_EVENTS):
            f.write(f"2025-06-01T10:{i // 60:02d}:{i % 60:02d}Z sdksample user=u{i % 5} n={i}\n")
    run(home, "add", "oneshot", sample, "--sourcetype", "sdk_sample", "--index", "main")
    env = dict(os.environ, LODE_ADMIN_PASSWORD=ADMIN_PASSWORD)
    proc = subprocess.Popen(
        [lode_bin(), "--home", home, "serve", "--listen", "127.0.0.1:0", "--hec-listen", "127.0.0.1:0"],
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    api = hec = None
    for line in proc.stderr:
        if line.startswith("lode: serving ") and " at " in line:
            api = line.split(" at ")[1].split()[0]
        if line.startswith("lode: HTTP Event Collector at "):
            hec = line.split(" at ")[1].strip()
        if api and hec:
            break
    assert api and hec, "server did not start"
    # Keep reading stderr so the server never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    yield Lode(home, api, hec)
    proc.terminate()
    assert proc.wait(timeout=120) == 0
