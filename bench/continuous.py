#!/usr/bin/env python3
"""Benchmarks of the continuous sync and of workers (run them through bench/continuous.sh,
which builds krow and starts the local broker, PostgreSQL server and BigQuery emulator).

  freshness  Messages produced at a steady rate (--rates, default 5,000 and 20,000 per second,
             for --seconds) into a 6-partition topic while `krow sync --follow` copies them
             (batch.max_wait --max-wait). A separate reader polls the warehouse every
             --poll-ms for krow's committed positions, which commit in the same transaction
             as the rows: a message is queryable from the first poll that shows its partition
             past it. Its freshness is that time minus its produce time (its Kafka timestamp,
             set by the producer): p50, p99 and max over every message, and krow's CPU
             seconds per second of the run. Per engine (--engines). The peer, measured in the
             same run: today's bounded `krow sync` run in a loop every second. A DuckDB file
             is read the way docs/continuous-sync.md says: a read-only open between batches.
  workers    --backlog messages in a 24-partition topic copied into PostgreSQL by 1, 2 and 3
             workers (`--follow --worker-id`) started together, beside one bounded `krow sync`
             of the same topic: the time to the first commit (planning, joining the group),
             messages per second from the first commit to the last, and the CPU krow and the
             server used (on this machine's cores). Then, under steady production (5,000/s), the
             pause in committed positions when a 4th worker joins and when a worker dies
             (kill -9, not restarted): the longest time any partition's position stood still.
  idle       `krow sync --follow` on a quiet topic for --idle-minutes: CPU seconds per minute
             and resident memory at the start, the end and the peak.

Prints tables; saves everything as JSON (--out, default bench/results/continuous-<UTC>.json).
Python standard library only.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import run as common  # noqa: E402  (the warehouses and helpers of the end-to-end benchmark)

ROOT = common.ROOT
KROW, PRODUCE, SQL = common.KROW, common.PRODUCE, common.SQL
log = common.log
SESSION_TIMEOUT_S = 12  # the workers' session.timeout.ms (docs/workers.md)


def cpu_seconds(pid: int) -> float:
    """utime + stime of a live process, from /proc."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    m = re.search(r"VmRSS:\s+(\d+) kB", pathlib.Path(f"/proc/{pid}/status").read_text())
    return int(m.group(1)) / 1024 if m else 0.0


def server_cpu_seconds(name: str) -> float:
    """CPU seconds of every process called `name` (the PostgreSQL server's processes), with
    those of its children that ended (a backend whose connection closed), which the parent
    (the postmaster) has reaped."""
    total = 0.0
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        if f"({name})" in text:
            fields = text.rsplit(")", 1)[1].split()
            total += sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return total


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else float("nan")


def krow_sql_rows(stdout: str) -> list[list[str]]:
    """The rows of krow-sql's aligned output (a header, a rule, rows, "(N rows)")."""
    return [[c.strip() for c in line.split("|")] for line in stdout.splitlines()[2:] if "|" in line]


class Positions:
    """Polls krow's committed positions of a sync: {partition: next_offset}."""

    def __init__(self, wh, work: pathlib.Path, name: str, sync_id: str) -> None:
        self.wh, self.work, self.name, self.sync_id = wh, work, name, sync_id
        self.proc = None
        if isinstance(wh, common.Postgres):  # one psql session for every poll
            env = os.environ | {"PGPASSWORD": wh.env["KROW_PG_ADMIN_PASSWORD"]}
            self.proc = subprocess.Popen(
                ["psql", "-X", "-q", "-tA", "-F", ",", "-h", wh.env["KROW_PG_HOST"], "-p", wh.env["KROW_PG_PORT"],
                 "-U", "postgres", "-d", wh.database(name)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)

    def close(self) -> None:
        if self.proc:
            self.proc.stdin.close()
            self.proc.wait()

    def poll(self) -> dict[int, int] | None:
        """The positions now, or None when the warehouse cannot be read at this moment."""
        where = f"sync_id = '{self.sync_id}' AND next_offset IS NOT NULL"
        try:
            if self.proc:
                self.proc.stdin.write(f"SELECT kafka_partition, next_offset FROM _krow.positions WHERE {where};\n"
                                      "\\echo __end__\n")
                self.proc.stdin.flush()
                rows = []
                for line in self.proc.stdout:
                    if line.strip() == "__end__":
                        break
                    if "," in line:
                        rows.append(line.strip().split(","))
            elif isinstance(self.wh, common.BigQuery):
                project = self.wh.project(self.name)
                listed = self.wh.query(project, "SELECT kafka_partition, next_offset, holder_table, epoch "
                                       f"FROM _krow_us.positions WHERE sync_id = '{self.sync_id}'")
                # A partition a worker holds: its live position is in that worker's table.
                held: dict[tuple[str, int], tuple[int, int | None]] = {}
                for table in {r[2] for r in listed if r[2]}:
                    for p, o, e in self.wh.query(project, f"SELECT kafka_partition, next_offset, epoch FROM _krow_us.{table}"):
                        held[(table, int(p))] = (int(e), o)
                rows = []
                for p, o, table, e in listed:
                    if table and held.get((table, int(p)), (None,))[0] == int(e or 0):
                        o = held[(table, int(p))][1]
                    if o is not None:
                        rows.append((p, o))
            else:
                r = subprocess.run([str(SQL), str(self.work / f"{self.name}.duckdb"),
                                    f"SELECT kafka_partition, next_offset FROM _krow.positions WHERE {where}"],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    return None  # the sync has the file: it is writing a batch
                rows = krow_sql_rows(r.stdout)
            return {int(p): int(o) for p, o in rows}
        except (OSError, ValueError, common.urllib.error.URLError, SystemExit):
            return None  # SystemExit: a BigQuery query refused, as before the sync made the table


class Watch:
    """A thread recording, from every poll, when each partition's position moved."""

    def __init__(self, positions: Positions, poll_ms: int) -> None:
        self.positions, self.poll_s = positions, poll_ms / 1000
        self.moves: list[tuple[float, int, int]] = []  # (wall time, partition, next_offset)
        self.failed_polls = 0
        self.polls = 0
        self._last: dict[int, int] = {}
        self._on = True
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while self._on:
            t0 = time.time()
            now = self.positions.poll()
            self.polls += 1
            if now is None:
                self.failed_polls += 1
            else:
                seen = time.time()
                for p, o in now.items():
                    if self._last.get(p) != o:
                        self._last[p] = o
                        self.moves.append((seen, p, o))
            time.sleep(max(0.0, self.poll_s - (time.time() - t0)))

    def total(self) -> int:
        return sum(self._last.values())

    def stop(self) -> None:
        self._on = False
        self._thread.join()
        self.positions.close()


def message_times(wh, work: pathlib.Path, name: str, topic: str) -> dict[tuple[int, int], float]:
    """(partition, offset) -> the message's Kafka timestamp (s), from the table krow wrote."""
    table = common.table_of(topic)
    out: dict[tuple[int, int], float] = {}
    if isinstance(wh, common.Postgres):
        text = wh.psql(wh.database(name), f"COPY (SELECT kafka_partition, kafka_offset, "
                                          f"(extract(epoch FROM kafka_timestamp) * 1000)::bigint FROM {table}) TO STDOUT")
        rows = (line.split("\t") for line in text.splitlines())
    elif isinstance(wh, common.BigQuery):
        acc: list[list] = []
        wh.query(wh.project(name), f"SELECT kafka_partition, kafka_offset, UNIX_MILLIS(kafka_timestamp) FROM "
                                   f"{table.replace(chr(34), '`')}", on_page=acc.extend)
        rows = acc
    else:
        r = subprocess.run([str(SQL), str(work / f"{name}.duckdb"),
                            f"SELECT kafka_partition, kafka_offset, epoch_ms(kafka_timestamp) FROM {table}"],
                           check=True, capture_output=True, text=True)
        rows = krow_sql_rows(r.stdout)
    for p, o, ms in rows:
        out[(int(p), int(o))] = int(ms) / 1000
    return out


def freshness_of(moves: list[tuple[float, int, int]], times: dict[tuple[int, int], float]) -> list[float]:
    """Each message's freshness: the first poll that showed its partition past it, minus its
    produce time."""
    last: dict[int, int] = {}
    out = []
    for seen, p, o in moves:
        for offset in range(last.get(p, 0), o):
            t = times.get((p, offset))
            if t is not None:
                out.append(seen - t)
        last[p] = max(last.get(p, 0), o)
    return out


def start(args: list[str], err: pathlib.Path) -> subprocess.Popen:
    return subprocess.Popen([str(KROW), *args], stdout=subprocess.DEVNULL, stderr=open(err, "ab"))


def stop(proc: subprocess.Popen) -> float:
    """SIGTERM, wait; the CPU seconds it used."""
    os.kill(proc.pid, signal.SIGTERM)  # not Popen.send_signal: its poll() would reap the child first
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        log(f"note: krow ended with exit code {proc.returncode}")
    return usage.ru_utime + usage.ru_stime


def freshness(args, wh, engine: str, work: pathlib.Path, rate: int, looped: bool) -> dict:
    name = f"fresh{engine}{rate}{'loop' if looped else 'follow'}"  # a PostgreSQL database and BigQuery project too
    topic = f"krow-bench-fresh-{engine}-{rate}-{int(time.time())}{'-loop' if looped else ''}"
    total = rate * args.seconds
    wh.fresh(work, name)
    subprocess.run([str(PRODUCE), common.BOOTSTRAP, topic, "0", "6"], check=True, capture_output=True)
    m = common.manifest(wh, work, name, topic, False, f"batch:\n  max_wait: {args.max_wait}\n")
    err = work / f"{name}.err"
    cpu = 0.0
    stop_loop = threading.Event()
    loop_cpu = [0.0]

    def loop() -> None:  # the peer: a bounded sync, again one second after each ends
        while not stop_loop.is_set():
            _, _, usage = os.wait4(start(["sync", "-q", str(m)], err).pid, 0)
            loop_cpu[0] += usage.ru_utime + usage.ru_stime
            stop_loop.wait(1.0)

    if looped:
        looper = threading.Thread(target=loop, daemon=True)
        looper.start()
    else:
        proc = start(["sync", "-q", str(m), "--follow"], err)
    time.sleep(3)  # planned and prepared before the first message
    watch = Watch(Positions(wh, work, name, name), args.poll_ms)
    server0 = server_cpu_seconds("postgres")
    t0 = time.time()
    subprocess.run([str(PRODUCE), common.BOOTSTRAP, topic, str(total), "6", "--rate", str(rate)], check=True,
                   capture_output=True)
    produced_s = time.time() - t0
    deadline = time.time() + 120
    while watch.total() < total and time.time() < deadline:
        time.sleep(0.2)
    wall = time.time() - t0
    server = server_cpu_seconds("postgres") - server0
    watch.stop()
    if looped:
        stop_loop.set()
        looper.join()
        cpu = loop_cpu[0]
    else:
        cpu = stop(proc)
    times = message_times(wh, work, name, topic)
    fresh = freshness_of(watch.moves, times)
    result = {"engine": wh.label, "rate": rate, "peer": looped, "messages": total, "seen": len(fresh),
              "produce_s": round(produced_s, 2), "p50_s": round(percentile(fresh, 50), 3),
              "p99_s": round(percentile(fresh, 99), 3), "max_s": round(max(fresh) if fresh else float("nan"), 3),
              "cpu_s_per_s": round(cpu / wall, 3), "polls": watch.polls, "failed_polls": watch.failed_polls,
              "server_cpu_s_per_s": round(server / wall, 3) if isinstance(wh, common.Postgres) else None}
    log(f"freshness {result}")
    if hasattr(wh, "drop") and not args.keep:
        wh.drop(name)
    return result


def workers_throughput(args, wh, work: pathlib.Path, topic: str, count: int) -> dict:
    name = f"workers{count}" if count else "workersplain"
    wh.fresh(work, name)
    shutil.rmtree(work / ".krow" / "runs" / name, ignore_errors=True)
    m = common.manifest(wh, work, name, topic, False, "batch:\n  max_wait: 500ms\n")
    err = work / f"{name}.err"
    watch = Watch(Positions(wh, work, name, name), 100)
    server = "bqemulator" if isinstance(wh, common.BigQuery) else "postgres"
    pg0 = server_cpu_seconds(server)
    t0 = time.time()
    if count == 0:
        _, _, usage = os.wait4(start(["sync", "-q", str(m)], err).pid, 0)
        cpu = usage.ru_utime + usage.ru_stime
        while watch.total() < args.backlog:
            time.sleep(0.05)
    else:
        procs = [start(["sync", "-q", str(m), "--follow", "--worker-id", f"w{i}", "--refresh-interval", "1h"], err)
                 for i in range(count)]
        deadline = time.time() + 1800
        while watch.total() < args.backlog and time.time() < deadline:
            time.sleep(0.05)
    wall = time.time() - t0
    pg = server_cpu_seconds(server) - pg0
    if count:
        cpu = sum(stop(p) for p in procs)
    watch.stop()
    # From the first commit to the last: the start (plan, joining the group, which the broker
    # holds for group.initial.rebalance.delay.ms) is reported apart.
    first, last = watch.moves[0][0], watch.moves[-1][0]
    # Each process's final run record: its commits, and the transactions it had to try again
    # (on BigQuery, aborted by a concurrent one).
    finals = [r for r in (json.loads(f.read_text()) for f in (work / ".krow" / "runs" / name).glob("*.json"))
              if r.get("follow", {}).get("final", count == 0)]
    result = {"engine": wh.label, "workers": count, "messages": watch.total(), "wall_s": round(wall, 2),
              "commits": sum(r["batches"] for r in finals), "retries": sum(r["warehouse_retries"] for r in finals),
              "start_s": round(first - t0, 2), "copy_s": round(last - first, 2),
              "msgs_per_s": round(watch.total() / max(last - first, 0.001)), "krow_cores": round(cpu / wall, 2),
              "server_cores": round(pg / wall, 2)}
    log(f"workers {result}")
    wh.drop(name)
    return result


def longest_stall(moves: list[tuple[float, int, int]], since: float, until: float, partitions: int) -> float:
    """The longest time in [since, until] during which some partition's position stood still."""
    by: dict[int, list[float]] = {p: [since] for p in range(partitions)}
    for seen, p, _ in moves:
        if since <= seen <= until:
            by[p].append(seen)
    return max(max(b - a for a, b in zip(ts, ts[1:] + [until])) for ts in by.values())


def workers_pause(args, wh, work: pathlib.Path) -> dict:
    name = "workerspause"
    topic = f"krow-bench-workers-pause-{int(time.time())}"
    wh.fresh(work, name)
    subprocess.run([str(PRODUCE), common.BOOTSTRAP, topic, "0", "24"], check=True, capture_output=True)
    m = common.manifest(wh, work, name, topic, False, "batch:\n  max_wait: 250ms\n")
    err = work / f"{name}.err"

    def worker(i: int) -> subprocess.Popen:
        return start(["sync", "-q", str(m), "--follow", "--worker-id", f"w{i}", "--refresh-interval", "1h"], err)

    procs = {i: worker(i) for i in range(3)}
    producer = subprocess.Popen([str(PRODUCE), common.BOOTSTRAP, topic, str(5000 * 120), "24", "--rate", "5000"],
                                stdout=subprocess.DEVNULL)
    watch = Watch(Positions(wh, work, name, name), 100)
    time.sleep(30)  # the group settled, every partition moving
    joined = time.time()
    procs[3] = worker(3)
    time.sleep(25)
    died = time.time()
    procs[1].kill()
    procs[1].wait()
    time.sleep(SESSION_TIMEOUT_S + 15)
    end = time.time()
    watch.stop()
    producer.kill()
    producer.wait()
    for i, p in procs.items():
        if p.returncode is None:
            stop(p)
    result = {"join_stall_s": round(longest_stall(watch.moves, joined, died, 24), 2),
              "death_stall_s": round(longest_stall(watch.moves, died, end, 24), 2),
              "target_death_s": SESSION_TIMEOUT_S + 2}
    log(f"pause {result}")
    wh.drop(name)
    return result


def idle(args, work: pathlib.Path) -> dict:
    wh = common.DuckDB()
    name = "idle"
    topic = f"krow-bench-idle-{int(time.time())}"
    wh.fresh(work, name)
    subprocess.run([str(PRODUCE), common.BOOTSTRAP, topic, "1000", "6"], check=True, capture_output=True)
    m = common.manifest(wh, work, name, topic, False)
    proc = start(["sync", "-q", str(m), "--follow"], work / f"{name}.err")
    time.sleep(10)  # caught up
    cpu0, rss0, peak = cpu_seconds(proc.pid), rss_mib(proc.pid), 0.0
    t0 = time.time()
    while time.time() - t0 < args.idle_minutes * 60:
        time.sleep(10)
        peak = max(peak, rss_mib(proc.pid))
    cpu1, rss1 = cpu_seconds(proc.pid), rss_mib(proc.pid)
    minutes = (time.time() - t0) / 60
    stop(proc)
    result = {"minutes": round(minutes, 1), "cpu_s_per_min": round((cpu1 - cpu0) / minutes, 3),
              "rss_start_mib": round(rss0, 1), "rss_end_mib": round(rss1, 1), "rss_peak_mib": round(peak, 1)}
    log(f"idle {result}")
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", nargs="*", default=[], metavar="freshness|workers|idle",
                    help="which benchmarks (default: freshness and workers)")
    ap.add_argument("--engines", default="postgres,duckdb,bigquery", help="freshness: engines, comma-separated")
    ap.add_argument("--rates", default="5000,20000", help="freshness: messages per second, comma-separated")
    ap.add_argument("--seconds", type=int, default=30, help="freshness: seconds of production per rate")
    ap.add_argument("--max-wait", default="250ms", help="freshness: the sync's batch.max_wait")
    ap.add_argument("--poll-ms", type=int, default=50, help="freshness: the reader's poll interval")
    ap.add_argument("--no-peer", action="store_true", help="freshness: skip the looped bounded sync")
    ap.add_argument("--backlog", type=int, default=2_000_000, help="workers: messages in the 24-partition topic")
    ap.add_argument("--worker-engines", default="postgres", help="workers: engines, comma-separated (postgres,bigquery)")
    ap.add_argument("--idle-minutes", type=float, default=30, help="idle: minutes")
    ap.add_argument("--keep", action="store_true", help="keep the databases and files")
    ap.add_argument("--out", type=pathlib.Path, help="JSON results file")
    args = ap.parse_args()
    what = args.what or ["freshness", "workers"]
    for w in what:
        if w not in ("freshness", "workers", "idle"):
            ap.error(f"unknown benchmark {w!r}: say freshness, workers or idle")
    work = ROOT / "build" / "bench-continuous"
    work.mkdir(parents=True, exist_ok=True)
    results: dict = {"freshness": [], "workers": [], "pause": None, "idle": None, "cores": os.cpu_count()}
    engines = {"postgres": common.Postgres, "duckdb": common.DuckDB, "bigquery": common.BigQuery}
    if "freshness" in what:
        for engine in args.engines.split(","):
            wh = engines[engine]()
            for rate in (int(r) for r in args.rates.split(",")):
                results["freshness"].append(freshness(args, wh, engine, work, rate, looped=False))
                if not args.no_peer and engine == "postgres":
                    results["freshness"].append(freshness(args, wh, engine, work, rate, looped=True))
    if "workers" in what:
        topic = f"krow-bench-workers-{int(time.time())}"
        common.produce(topic, args.backlog, avro=False, partitions=24)
        for engine in args.worker_engines.split(","):
            wh = engines[engine]()
            for count in (0, 1, 2, 3):
                results["workers"].append(workers_throughput(args, wh, work, topic, count))
        results["pause"] = workers_pause(args, common.Postgres(), work)
    if "idle" in what:
        results["idle"] = idle(args, work)

    print()
    if results["freshness"]:
        print(f"Freshness: produce to queryable, polled every {args.poll_ms} ms (figures late by up to that), "
              f"batch.max_wait {args.max_wait}, {args.seconds} s per rate")
        print(f"| {'engine':<22} | {'how':<26} | {'msg/s':>6} | {'p50 s':>6} | {'p99 s':>6} | {'max s':>6} | "
              f"{'krow CPU':>8} | {'server CPU':>10} | {'p99 / follow':>12} |")
        print(f"|{'-' * 24}|{'-' * 28}|{'-' * 7}:|{'-' * 7}:|{'-' * 7}:|{'-' * 7}:|{'-' * 9}:|{'-' * 11}:|{'-' * 13}:|")
        follow_p99 = {(r["engine"], r["rate"]): r["p99_s"] for r in results["freshness"] if not r["peer"]}
        for r in results["freshness"]:
            how = "sync every 1 s (bounded)" if r["peer"] else "sync --follow"
            server = f"{r['server_cpu_s_per_s']:.3f}c" if r.get("server_cpu_s_per_s") is not None else ""
            ratio = r["p99_s"] / follow_p99[(r["engine"], r["rate"])] if follow_p99.get((r["engine"], r["rate"])) else 0
            print(f"| {r['engine']:<22} | {how:<26} | {r['rate']:>6} | {r['p50_s']:>6.3f} | {r['p99_s']:>6.3f} | "
                  f"{r['max_s']:>6.3f} | {r['cpu_s_per_s']:>7.3f}c | {server:>10} | {ratio:>12.2f} |")
        print("(CPU: cores kept busy over the run by krow, and by the PostgreSQL server's processes; targets on "
              "PostgreSQL: p99 <= 1 s at 5,000/s, <= 2 s at 20,000/s; failed polls: the DuckDB file was being "
              "written)")
    if results["workers"]:
        print(f"\nWorkers: {args.backlog:,} messages, 24 partitions, {os.cpu_count()} cores")
        print(f"| {'engine':<22} | {'how':<22} | {'start s':>7} | {'copy s':>6} | {'msg/s':>8} | {'vs 1 worker':>11} | "
              f"{'commits':>7} | {'retried':>7} | {'krow cores':>10} | {'server cores':>12} |")
        print(f"|{'-' * 24}|{'-' * 24}|{'-' * 8}:|{'-' * 7}:|{'-' * 9}:|{'-' * 12}:|{'-' * 8}:|{'-' * 8}:|"
              f"{'-' * 11}:|{'-' * 13}:|")
        for r in results["workers"]:
            one = next(o["msgs_per_s"] for o in results["workers"] if o["workers"] == 1 and o["engine"] == r["engine"])
            how = "one bounded krow sync" if r["workers"] == 0 else f"{r['workers']} worker(s)"
            print(f"| {r['engine']:<22} | {how:<22} | {r['start_s']:>7.2f} | {r['copy_s']:>6.2f} | {r['msgs_per_s']:>8} | "
                  f"{r['msgs_per_s'] / one:>11.2f} | {r['commits']:>7} | {r['retries']:>7} | {r['krow_cores']:>10.2f} | "
                  f"{r['server_cores']:>12.2f} |")
        print("(start: from the processes' start to the first commit; msg/s over the copy, first commit to last; "
              "retried: transactions tried again, on BigQuery those a concurrent one aborted; "
              "cores: CPU over the whole run; server: PostgreSQL's or the emulator's)")
        p = results["pause"]
        print(f"\nLongest stall of any partition's committed position, 3 workers at 5,000 msg/s: a 4th joins "
              f"{p['join_stall_s']} s; one killed (not restarted) {p['death_stall_s']} s "
              f"(target: session timeout + 2 s = {p['target_death_s']} s)")
    if results["idle"]:
        i = results["idle"]
        print(f"\nIdle `krow sync --follow` for {i['minutes']} min: {i['cpu_s_per_min']} CPU s/min, RSS "
              f"{i['rss_start_mib']} MiB at the start, {i['rss_end_mib']} at the end, {i['rss_peak_mib']} at the peak")
    out = args.out or ROOT / "bench" / "results" / f"continuous-{datetime.datetime.utcnow():%Y%m%dT%H%M%SZ}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    log(f"saved {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
