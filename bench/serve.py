#!/usr/bin/env python3
"""Benchmarks of `krow serve` (run them through bench/serve.sh, which builds krow and starts
the local broker).

  hosting  One service hosting --syncs syncs (cron schedules not due during the run, so that
           it idles) plus one sync of a --partitions-partition topic: its resident memory and
           the CPU it uses while idle (CPU seconds over --idle-seconds), beside the same
           service hosting one sync (the memory each more sync costs).
  status   GET /api/v1/syncs/wide/status of that sync, whose 1,000 partitions were synced
           first: the service's own time per call (its Server-Timing header) and the client's,
           p50, p99 and max over --calls calls; the target is p99 <= 100 ms. The peer: the
           same status from the command line, `krow status --format json`, a process per call
           (median of 5).
  page     The console's page of that sync (GET /syncs/wide, signed in): its server time
           (Server-Timing) p50/p99 over --calls calls and its weight in bytes; the target is
           <= 100 ms server time.
  api      Authenticated calls per second: GET /api/v1/syncs with an API token, from 4
           keep-alive clients for --api-seconds (bench-http-load); the ceiling: GET /livez of
           the same server (no credential, no JSON), measured in the same run.

Prints tables; saves everything as JSON (--out, default bench/results/serve-<UTC>.json).
Python standard library only.
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import run as common  # noqa: E402
from continuous import cpu_seconds, percentile, rss_mib  # noqa: E402

KROW = common.KROW
LOAD = common.BUILD / "bench" / "bench-http-load"
log = common.log


def write_config(work: pathlib.Path, name: str, syncs: list[tuple[pathlib.Path, str]]) -> pathlib.Path:
    lines = ["listen: 127.0.0.1:0", f"state: {name}.db", f"logs: {name}-logs", "syncs:"]
    for manifest, schedule in syncs:
        lines += [f"  - manifest: {manifest}", f"    schedule: {schedule}"]
    path = work / f"{name}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def start_serve(config: pathlib.Path) -> tuple[subprocess.Popen, int]:
    err = config.with_suffix(".err")
    proc = subprocess.Popen([str(KROW), "serve", "--config", str(config)], stdout=subprocess.DEVNULL,
                            stderr=err.open("w"))
    deadline = time.time() + 60
    while time.time() < deadline:
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", err.read_text())
        if m:
            port = int(m.group(1))
            while time.time() < deadline:
                try:
                    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                    c.request("GET", "/readyz")
                    if c.getresponse().status == 200:
                        return proc, port
                except OSError:
                    pass
                time.sleep(0.1)
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("krow serve did not become ready: " + err.read_text())


def stop_serve(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=90)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--syncs", type=int, default=50)
    ap.add_argument("--partitions", type=int, default=1000)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--idle-seconds", type=int, default=30)
    ap.add_argument("--api-seconds", type=int, default=10)
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="krow-bench-serve-"))
    wh = common.DuckDB()
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    results: dict = {"when": stamp, "cores": os.cpu_count(), "syncs": args.syncs, "partitions": args.partitions}

    # The wide sync: every partition synced once, so that its status has a position for each.
    wide_topic = f"bench-serve-wide-{stamp.lower()}"
    common.produce(wide_topic, args.partitions * 20, avro=False, partitions=args.partitions)
    wide = common.manifest(wh, work, "wide", wide_topic, avro=False)
    log("syncing the wide topic once")
    common.sync(wide)
    small_topic = f"bench-serve-small-{stamp.lower()}"
    common.produce(small_topic, 1000, avro=False, partitions=6)
    hosted = [(common.manifest(wh, work, f"s{i:03d}", small_topic, avro=False), "cron 0 0 1 1 *")
              for i in range(args.syncs)]

    # hosting: one sync, then all of them.
    proc, _ = start_serve(write_config(work, "one", hosted[:1]))
    time.sleep(5)
    rss_one = rss_mib(proc.pid)
    stop_serve(proc)
    config = write_config(work, "many", hosted + [(wide, "manual")])
    token = subprocess.run([str(KROW), "serve", "create-token", "bench", "--role", "viewer", "--config", str(config)],
                           check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run([str(KROW), "serve", "add-user", "bench", "--role", "viewer", "--config", str(config)],
                   input="bench-password-123\n", check=True, capture_output=True, text=True)
    proc, port = start_serve(config)
    time.sleep(5)
    cpu0 = cpu_seconds(proc.pid)
    time.sleep(args.idle_seconds)
    idle_cpu = cpu_seconds(proc.pid) - cpu0
    rss_many = rss_mib(proc.pid)
    results["hosting"] = {"rss_mib_1_sync": rss_one, f"rss_mib_{args.syncs + 1}_syncs": rss_many,
                          "rss_kib_per_more_sync": (rss_many - rss_one) * 1024 / args.syncs,
                          "idle_cpu_seconds": idle_cpu, "idle_seconds": args.idle_seconds,
                          "idle_cpu_percent": 100 * idle_cpu / args.idle_seconds}

    # status: the service's time and the client's, per call.
    log(f"{args.calls} status calls of a {args.partitions}-partition sync")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    server_ms, client_ms = [], []
    for _ in range(args.calls):
        t0 = time.perf_counter()
        conn.request("GET", "/api/v1/syncs/wide/status", headers={"Authorization": f"Bearer {token}"})
        answer = conn.getresponse()
        body = answer.read()
        client_ms.append((time.perf_counter() - t0) * 1000)
        if answer.status != 200 or b'"status":null' in body:
            raise SystemExit(f"status call failed: {answer.status} {body[:500]!r}")
        m = re.search(r"dur=([0-9.]+)", answer.getheader("Server-Timing", ""))
        server_ms.append(float(m.group(1)) if m else float("nan"))
    partitions_answered = body.count(b'"partition"')
    cli_ms = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([str(KROW), "status", "--format", "json", str(wide)], check=True, capture_output=True)
        cli_ms.append((time.perf_counter() - t0) * 1000)
    results["status"] = {
        "calls": args.calls, "partitions_in_answer": partitions_answered, "answer_bytes": len(body),
        "server_ms": {"p50": percentile(server_ms, 50), "p99": percentile(server_ms, 99), "max": max(server_ms)},
        "client_ms": {"p50": percentile(client_ms, 50), "p99": percentile(client_ms, 99), "max": max(client_ms)},
        "cli_process_ms_median": sorted(cli_ms)[len(cli_ms) // 2]}

    # page: the console's page of the wide sync, signed in.
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/sign-in", body="name=bench&password=bench-password-123",
                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    answer = conn.getresponse()
    answer.read()
    cookie = answer.getheader("Set-Cookie", "").split(";")[0]
    page_ms, size = [], 0
    for _ in range(args.calls):
        conn.request("GET", "/syncs/wide", headers={"Cookie": cookie})
        answer = conn.getresponse()
        page = answer.read()
        if answer.status != 200:
            raise SystemExit(f"the sync's page failed: {answer.status} {page[:300]!r}")
        size = len(page)
        m = re.search(r"dur=([0-9.]+)", answer.getheader("Server-Timing", ""))
        page_ms.append(float(m.group(1)) if m else float("nan"))
    results["page"] = {"calls": args.calls, "bytes": size, "rows": page.count(b"<tr>") - 1,
                       "server_ms": {"p50": percentile(page_ms, 50), "p99": percentile(page_ms, 99),
                                     "max": max(page_ms)}}

    # api: authenticated calls per second beside the server's own ceiling.
    def load(path: str, *headers: str) -> dict:
        out = subprocess.run([str(LOAD), "127.0.0.1", str(port), path, "4", str(args.api_seconds), *headers],
                             check=True, capture_output=True, text=True).stdout
        return json.loads(out)
    log(f"API calls for {args.api_seconds} s, then /livez for as long")
    results["api"] = {"syncs_with_token": load("/api/v1/syncs", f"Authorization: Bearer {token}"),
                      "livez": load("/livez")}
    stop_serve(proc)

    h, s, a = results["hosting"], results["status"], results["api"]
    print(f"\nkrow serve, {os.cpu_count()} cores")
    print(f"{'hosting':<44}{'figure':>14}")
    print(f"{'RSS, 1 sync':<44}{h['rss_mib_1_sync']:>10.1f} MiB")
    print(f"{'RSS, ' + str(args.syncs + 1) + ' syncs':<44}{rss_many:>10.1f} MiB")
    print(f"{'RSS per more sync':<44}{h['rss_kib_per_more_sync']:>10.0f} KiB")
    tick = 100 / os.sysconf("SC_CLK_TCK") / args.idle_seconds  # one clock tick, in percent
    idle = f"< {tick:.2f} %" if idle_cpu == 0 else f"{h['idle_cpu_percent']:.2f} %"
    print(f"{'idle CPU over ' + str(args.idle_seconds) + ' s':<44}{idle:>12}")
    print(f"\n{'status of a ' + str(args.partitions) + '-partition sync':<44}{'p50 ms':>10}{'p99 ms':>10}{'max ms':>10}"
          f"{'p99 / CLI':>12}")
    for label, key in (("service time (Server-Timing)", "server_ms"), ("client time (keep-alive)", "client_ms")):
        v = s[key]
        print(f"{label:<44}{v['p50']:>10.1f}{v['p99']:>10.1f}{v['max']:>10.1f}"
              f"{v['p99'] / s['cli_process_ms_median']:>12.2f}")
    print(f"{'peer: krow status --format json (process)':<44}{s['cli_process_ms_median']:>10.1f}")
    pg = results["page"]
    print(f"{'console page (' + format(pg['bytes'], ',') + ' bytes), service time':<44}{pg['server_ms']['p50']:>10.1f}"
          f"{pg['server_ms']['p99']:>10.1f}{pg['server_ms']['max']:>10.1f}"
          f"{pg['server_ms']['p99'] / s['cli_process_ms_median']:>12.2f}")
    print(f"\n{'API, 4 keep-alive clients':<44}{'calls/s':>10}{'p99 ms':>10}{'errors':>8}{'/ ceiling':>12}")
    for label, key in (("GET /api/v1/syncs, API token", "syncs_with_token"), ("ceiling: GET /livez", "livez")):
        v = a[key]
        print(f"{label:<44}{v['per_second']:>10.0f}{v['p99_ms']:>10.2f}{v['errors']:>8}"
              f"{v['per_second'] / a['livez']['per_second']:>12.2f}")
    out = pathlib.Path(args.out) if args.out else common.ROOT / "bench" / "results" / f"serve-{stamp}.json"
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nsaved {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
