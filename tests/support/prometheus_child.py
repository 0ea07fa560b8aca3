#!/usr/bin/env python3
"""A real Prometheus server (Debian's `prometheus`) for one test, as a ChildServer: it scrapes
the targets given on the command line every second, and prints the port of its own HTTP API
as its first line once it is ready. It stops Prometheus when its standard input closes (the
test ended, or died), so no server outlives its test.

usage: prometheus_child.py WORK_DIR TARGET [TARGET...]   (TARGET: HOST:PORT serving /metrics)
"""

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    """In the child, before exec: Prometheus gets SIGTERM when this script ends, however."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def main():
    # SIGTERM (the test's ChildServer stopping it) ends this script through `finally` below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    work, targets = sys.argv[1], sys.argv[2:]
    binary = shutil.which("prometheus") or "/usr/bin/prometheus"
    os.makedirs(work, exist_ok=True)
    config = os.path.join(work, "prometheus.yml")
    with open(config, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                "scrape_configs:\n  - job_name: krow\n    static_configs:\n"
                "      - targets: [%s]\n" % ", ".join("'%s'" % t for t in targets))
    for attempt in range(5):  # the port may be taken between choosing and binding it
        port = free_port()
        log = open(os.path.join(work, "prometheus.log"), "ab")
        server = subprocess.Popen(
            [binary, "--config.file=" + config, "--storage.tsdb.path=" + os.path.join(work, "data"),
             "--web.listen-address=127.0.0.1:%d" % port, "--log.level=warn"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, preexec_fn=die_with_parent)
        deadline = time.time() + 30
        ready = False
        while time.time() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/-/ready" % port, timeout=1) as r:
                    ready = r.status == 200
            except OSError:
                pass
            if ready:
                break
            time.sleep(0.2)
        if ready:
            break
        server.kill()
        server.wait()
    else:
        sys.exit("prometheus did not start; see " + os.path.join(work, "prometheus.log"))
    print(port, flush=True)
    try:
        sys.stdin.read()  # until the test closes it
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
