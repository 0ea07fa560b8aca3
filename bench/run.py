#!/usr/bin/env python3
"""End-to-end benchmark of `krow sync` against the consume-only ceiling (run it through
bench/run.sh, which builds krow and starts the local broker and registry first).

Produces fresh 6-partition topics of order messages with a key and a header (JSON of about
350 bytes, and the same orders in Avro through the schema registry), then measures, each as
a whole process from start to exit:

  ceiling   krow's own reader (same client settings as a sync) reading every partition to
            its last stable offset and discarding the messages: bench-ceiling
  sync      `krow sync` into a fresh DuckDB file (median of --runs)
  no-op     a second sync of the same file with nothing new
  resume    a sync killed with SIGKILL halfway, then the sync that finishes the job; the
            table must then hold every message exactly once
  memory    one sync of a topic --big times larger, to compare peak memory

Prints a table and saves everything as JSON (--out, default bench/results/<UTC time>.json).
Python standard library only.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = ROOT / "build" / "release"
KROW = BUILD / "src" / "krow"
PRODUCE = BUILD / "bench" / "bench-produce"
CEILING = BUILD / "bench" / "bench-ceiling"
SQL = BUILD / "tools" / "krow-sql"
SERVICES = pathlib.Path(os.environ.get("KROW_SERVICES_DIR", ROOT / ".services"))
BOOTSTRAP = f"127.0.0.1:{os.environ.get('KROW_KAFKA_PORT', '9092')}"
REGISTRY = f"https://127.0.0.1:{os.environ.get('KROW_REGISTRY_PORT', '8081')}"
REGISTRY_ADMIN = f"http://127.0.0.1:{os.environ.get('KROW_REGISTRY_HTTP_PORT', '18081')}/apis/ccompat/v7"


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def run_measured(cmd: list[str], kill_after: float | None = None) -> dict:
    """Runs cmd to its end, or SIGKILLs it after kill_after seconds: wall time, and the
    child's own peak resident memory from wait4()."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        killed = False
        deadline = None if kill_after is None else t0 + kill_after
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if deadline is not None and time.monotonic() >= deadline and not killed:
                os.kill(proc.pid, signal.SIGKILL)
                killed = True
            time.sleep(0.005)
        wall = time.monotonic() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {"wall_s": wall, "rc": proc.returncode, "killed": killed, "peak_rss_mib": usage.ru_maxrss / 1024,
                "stdout": out.read().decode(errors="replace"), "stderr": err.read().decode(errors="replace")}


def check(result: dict, what: str) -> dict:
    if result["rc"] != 0 and not result["killed"]:
        sys.exit(f"[bench] {what} failed (exit {result['rc']}):\n{result['stdout']}{result['stderr']}")
    return result


def sql_value(db: pathlib.Path, query: str) -> str:
    out = subprocess.run([str(SQL), str(db), query], check=True, capture_output=True, text=True).stdout
    return out.splitlines()[2].strip()  # header, rule, first row


def register_avro_schema(topic: str) -> int:
    schema = (ROOT / "bench" / "order.avsc").read_text()
    body = json.dumps({"schema": json.dumps(json.loads(schema))}).encode()
    req = urllib.request.Request(f"{REGISTRY_ADMIN}/subjects/{topic}-value/versions", data=body, method="POST",
                                 headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return int(json.load(resp)["id"])


def produce(topic: str, messages: int, avro: bool) -> None:
    cmd = [str(PRODUCE), BOOTSTRAP, topic, str(messages), "6"]
    if avro:
        cmd += ["--avro", str(register_avro_schema(topic))]
    log(check(run_measured(cmd), "producing " + topic)["stdout"].strip())


def manifest(work: pathlib.Path, name: str, topic: str, avro: bool) -> pathlib.Path:
    path = work / f"{name}.yaml"
    registry = ""
    if avro:
        registry = (f"registry:\n  url: {REGISTRY}\n  username: registry\n  password: registry-secret\n"
                    f"  ca_file: {SERVICES / 'registry' / 'tls' / 'ca.pem'}\n")
    path.write_text(f"name: {name}\nsource:\n  bootstrap_servers: {BOOTSTRAP}\ntopics:\n  names: [\"{topic}\"]\n"
                    f"{registry}warehouse:\n  path: {name}.duckdb\n")
    return path


def fresh(db: pathlib.Path) -> None:
    for p in db.parent.glob(db.name + "*"):
        p.unlink()


def sync(yaml: pathlib.Path, kill_after: float | None = None) -> dict:
    return check(run_measured([str(KROW), "sync", "-q", str(yaml)], kill_after), "krow sync " + yaml.name)


def last_run_bytes(db: pathlib.Path) -> int:
    return int(sql_value(db, "SELECT CAST(record->>'bytes' AS BIGINT) FROM _krow.runs ORDER BY started_at DESC LIMIT 1"))


def table_counts(db: pathlib.Path, topic: str) -> tuple[int, int]:
    table = "confluent." + '"' + re.sub(r"[^A-Za-z0-9_]", "_", topic) + '"'
    total = int(sql_value(db, f"SELECT count(*) FROM {table}"))
    distinct = int(sql_value(db, f"SELECT count(DISTINCT id) FROM {table}"))
    return total, distinct


def ceiling(label: str, topic: str, runs: int) -> dict:
    results = []
    for _ in range(runs):
        r = check(run_measured([str(CEILING), BOOTSTRAP, topic]), "bench-ceiling")
        m = re.search(r"ceiling: (\d+) messages, ([\d.]+) MB in [\d.]+ s", r["stdout"])
        if not m:
            sys.exit(f"[bench] unexpected bench-ceiling output: {r['stdout']}")
        results.append((r["wall_s"], int(m.group(1)), float(m.group(2)) * 1e6, r["peak_rss_mib"]))
    wall, n, nbytes, rss = sorted(results)[len(results) // 2]
    return row(label, n, wall, nbytes, rss, [w for w, _, _, _ in results])


def row(name: str, messages: int, wall: float, nbytes: int, rss: float, walls: list[float]) -> dict:
    return {"scenario": name, "messages": messages, "wall_s": round(wall, 3),
            "messages_per_s": round(messages / wall) if wall else 0,
            "mb_per_s": round(nbytes / wall / 1e6, 1) if wall and nbytes else None,
            "peak_rss_mib": round(rss, 1), "runs_wall_s": [round(w, 3) for w in walls]}


def sync_runs(label: str, work: pathlib.Path, name: str, topic: str, messages: int, runs: int,
              avro: bool) -> tuple[dict, pathlib.Path]:
    yaml = manifest(work, name, topic, avro)
    db = work / f"{name}.duckdb"
    results = []
    for i in range(runs):
        fresh(db)
        r = sync(yaml)
        total, distinct = table_counts(db, topic)
        if total != messages or distinct != messages:
            sys.exit(f"[bench] {name}: {total} rows, {distinct} distinct ids, expected {messages}")
        results.append((r["wall_s"], r["peak_rss_mib"], last_run_bytes(db)))
        log(f"{name} run {i + 1}/{runs}: {r['wall_s']:.2f} s, peak {r['peak_rss_mib']:.0f} MiB")
    walls = [w for w, _, _ in results]
    median = sorted(results)[len(results) // 2]
    return row(label, messages, median[0], median[2], max(r for _, r, _ in results), walls), yaml


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--messages", type=int, default=1_000_000, help="messages per topic (default 1,000,000)")
    ap.add_argument("--runs", type=int, default=3, help="syncs and ceilings measured per topic (median)")
    ap.add_argument("--big", type=int, default=3, help="memory check: a topic this many times larger (0: skip)")
    ap.add_argument("--no-avro", action="store_true", help="skip the Avro topic (no registry needed)")
    ap.add_argument("--out", type=pathlib.Path, help="JSON results file")
    args = ap.parse_args()

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    n = args.messages
    json_topic = f"krow-bench.json.{stamp}"
    avro_topic = f"krow-bench.avro.{stamp}"
    big_topic = f"krow-bench.big.{stamp}"
    topics = [json_topic]
    rows: list[dict] = []
    extra: dict = {}
    with tempfile.TemporaryDirectory(prefix="krow-bench.") as tmp:
        work = pathlib.Path(tmp)
        try:
            produce(json_topic, n, avro=False)
            ceil = ceiling("JSON ceiling", json_topic, args.runs)
            rows.append(ceil)
            json_row, yaml = sync_runs("JSON krow sync", work, "json", json_topic, n, args.runs, avro=False)
            json_row["vs_ceiling"] = round(json_row["messages_per_s"] / ceil["messages_per_s"], 3)
            rows.append(json_row)

            db = work / "json.duckdb"
            noop = sync(yaml)
            rows.append(row("JSON second sync (nothing new)", 0, noop["wall_s"], 0, noop["peak_rss_mib"], [noop["wall_s"]]))

            fresh(db)
            killed = sync(yaml, kill_after=json_row["wall_s"] / 2)
            at_kill = table_counts(db, json_topic)[0] if killed["killed"] else n
            resume = sync(yaml)
            total, distinct = table_counts(db, json_topic)
            if total != n or distinct != n:
                sys.exit(f"[bench] resume after kill -9: {total} rows, {distinct} distinct ids, expected {n}")
            resumed = n - at_kill
            rows.append(row("JSON resume after kill -9", resumed, resume["wall_s"], 0, resume["peak_rss_mib"],
                            [resume["wall_s"]]))
            extra["resume"] = {"killed_after_s": round(killed["wall_s"], 3), "was_killed": killed["killed"],
                               "rows_committed_before_kill": at_kill, "rows_after_resume": total,
                               "distinct_ids_after_resume": distinct}
            log(f"kill -9 after {killed['wall_s']:.2f} s with {at_kill} rows committed; resume wrote the other "
                f"{resumed} in {resume['wall_s']:.2f} s; {total} rows, {distinct} distinct ids")

            if not args.no_avro:
                topics.append(avro_topic)
                produce(avro_topic, n, avro=True)
                aceil = ceiling("Avro ceiling", avro_topic, args.runs)
                rows.append(aceil)
                avro_row, _ = sync_runs("Avro krow sync", work, "avro", avro_topic, n, args.runs, avro=True)
                avro_row["vs_ceiling"] = round(avro_row["messages_per_s"] / aceil["messages_per_s"], 3)
                avro_row["vs_json_time"] = round(avro_row["wall_s"] / json_row["wall_s"], 2)
                rows.append(avro_row)

            if args.big > 0:
                topics.append(big_topic)
                produce(big_topic, n * args.big, avro=False)
                big_row, _ = sync_runs(f"JSON krow sync, {args.big}x messages", work, "big", big_topic, n * args.big, 1,
                                       avro=False)
                big_row["rss_vs_1x"] = round(big_row["peak_rss_mib"] / json_row["peak_rss_mib"], 2)
                rows.append(big_row)
        finally:
            for t in topics:
                subprocess.run(["bash", str(ROOT / "scripts" / "kafka.sh"), "topics", "--delete", "--topic", t],
                               capture_output=True)

    print(f"\n{'scenario':<34} {'messages':>10} {'wall s':>8} {'messages/s':>11} {'MB/s':>7} {'peak RSS MiB':>13} "
          f"{'vs ceiling':>10}")
    for r in rows:
        ratio = f"{r['vs_ceiling'] * 100:.0f}%" if "vs_ceiling" in r else ""
        mb = "-" if r["mb_per_s"] is None else f"{r['mb_per_s']:.1f}"
        print(f"{r['scenario']:<34} {r['messages']:>10,} {r['wall_s']:>8.2f} {r['messages_per_s']:>11,} "
              f"{mb:>7} {r['peak_rss_mib']:>13.0f} {ratio:>10}")
    machine = {"cpus": os.cpu_count(), "cpu": _cpu_model(), "kernel": os.uname().release}
    result = {"started_at": stamp, "messages": n, "runs": args.runs, "machine": machine, "results": rows} | extra
    out = args.out or ROOT / "bench" / "results" / f"{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nsaved {out}")
    return 0


def _cpu_model() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


if __name__ == "__main__":
    sys.exit(main())
