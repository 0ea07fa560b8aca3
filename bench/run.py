#!/usr/bin/env python3
"""End-to-end benchmark of `krow sync` beside the ceilings it cannot beat (Kafka's
consume-only rate, the warehouse's own bulk load of the same rows) and the peers a user would
pick instead, all measured in the same run on the same data (run it through bench/run.sh,
which builds krow and starts the local broker, registry and PostgreSQL server first).

Produces fresh 6-partition topics of order messages with a key and a header (JSON of about
350 bytes, and the same orders in Avro through the schema registry), then measures, each as
a whole process from start to exit unless said otherwise (median of --runs):

  ceiling   krow's own reader (same client settings as a sync) reading every partition to
            its last stable offset and discarding the messages: bench-ceiling
  sync      `krow sync` into a fresh DuckDB file or PostgreSQL database (--warehouse), with
            the peak memory of krow and, for PostgreSQL, of the server process that wrote
            the rows
  DuckDB    DuckDB only: DuckDB's own insert of the rows krow wrote (same table definition),
            ready in memory before the clock starts, with DuckDB's defaults (all cores): in
            one transaction, and in one transaction per krow batch (bench-duckdb-load;
            the insert's own time, not a process)
  COPY      PostgreSQL only: the server's own COPY of the same rows from a prepared file
            into an empty table like krow's, in binary and text format
  peers     DuckDB only: a Python loader (confluent-kafka + Arrow + DuckDB, 50,000-message
            batches, bench/peers/python_loader.py) into a fresh DuckDB file, and Kafka Connect
            standalone with its FileStreamSink (Maven Central, 512 MiB heap) timed from its
            start to the last line written; --no-peers skips them
  no-op     a second sync of the same file with nothing new
  trickle   100 new messages, then the sync that copies them
  resume    a sync killed with SIGKILL halfway, then the sync that finishes the job; the
            table must then hold every message exactly once
  memory    one sync of a topic --big times larger, to compare peak memory
  wide      the consume-only ceiling and one sync of a topic of --wide partitions (1,000),
            each holding --wide-mb (1.5) MB of orders padded to 8 kB: more than one fetch per
            partition, so that a reader fetching every partition at once would hold a fetch
            of each (1,000 x 1 MiB). Only a few partitions are fetched at once, so memory must
            not grow with the partition count: their peak RSS beside the 6-partition rows

The last column gives krow's time divided by each ceiling's and peer's (JSON rows against
krow's JSON sync, Avro against its Avro sync): 1.00 is as fast as that row, 2.00 twice as slow,
0.50 twice as fast.

With --warehouse postgres or bigquery the Avro topic, the peers and the memory check are left
out (they measure the decoder, other tools and krow's memory, which do not depend on the
warehouse). --warehouse bigquery writes to the local emulator (a fresh project per scenario)
and measures, beside the sync, the emulator's own load job of the same rows, and the two ways
rows can reach a BigQuery table with their positions (bench/bigquery_write_paths.py, in the
emulator's venv): krow's load job into a load table then one transaction, against the Storage
Write API's pending and committed streams into the same load table and the same transaction,
in krow's batches and in a trickle of 10-row batches. Its figures say nothing about real
BigQuery, whose load jobs and DML take seconds each whatever the size.

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
import threading
import time
import urllib.error
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = ROOT / "build" / "release"
KROW = BUILD / "src" / "krow"
PRODUCE = BUILD / "bench" / "bench-produce"
CEILING = BUILD / "bench" / "bench-ceiling"
SQL = BUILD / "tools" / "krow-sql"
DUCKDB_LOAD = BUILD / "bench" / "bench-duckdb-load"
PEERS = ROOT / "bench" / "peers"
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


def bare_table(topic: str) -> str:
    """krow's table of a topic, as schema.table."""
    return "confluent." + re.sub(r"[^a-z0-9_]", "_", topic.lower())


def table_of(topic: str) -> str:
    """The same, quoted for SQL."""
    schema, table = bare_table(topic).split(".", 1)
    return f'{schema}."{table}"'


class DuckDB:
    """A fresh DuckDB file per scenario."""
    label = "DuckDB"

    def section(self, work: pathlib.Path, name: str) -> str:
        return f"warehouse:\n  path: {name}.duckdb\n"

    def fresh(self, work: pathlib.Path, name: str) -> None:
        for p in work.glob(f"{name}.duckdb*"):
            p.unlink()

    def scalar(self, work: pathlib.Path, name: str, query: str) -> str:
        return sql_value(work / f"{name}.duckdb", query)

    def start_watch(self) -> None:
        pass

    def stop_watch(self) -> float | None:
        return None


class Postgres:
    """A fresh database per scenario on the local server (scripts/postgres.sh)."""
    label = "PostgreSQL"

    def __init__(self) -> None:
        out = subprocess.run(["bash", str(ROOT / "scripts" / "postgres.sh"), "env"], check=True, capture_output=True,
                             text=True).stdout
        self.env = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
        os.environ["KROW_BENCH_PG_PASSWORD"] = self.env["KROW_PG_PASSWORD"]  # krow reads it from there
        self._watch: threading.Thread | None = None
        self._peak = 0.0
        self._watching = False

    def psql(self, database: str, sql: str, admin: bool = True) -> str:
        env = os.environ | {"PGPASSWORD": self.env["KROW_PG_ADMIN_PASSWORD" if admin else "KROW_PG_PASSWORD"]}
        cmd = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-tA", "-h", self.env["KROW_PG_HOST"], "-p",
               self.env["KROW_PG_PORT"], "-U", "postgres" if admin else "krow", "-d", database, "-c", sql]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if r.returncode != 0:
            sys.exit(f"[bench] psql failed: {r.stderr}\n{sql}")
        return r.stdout.strip()

    def database(self, name: str) -> str:
        return f"krow_bench_{name}"

    def section(self, work: pathlib.Path, name: str) -> str:
        return (f"warehouse:\n  type: postgres\n  host: {self.env['KROW_PG_HOST']}\n  port: {self.env['KROW_PG_PORT']}\n"
                f"  database: {self.database(name)}\n  user: krow\n  password: ${{KROW_BENCH_PG_PASSWORD}}\n")

    def fresh(self, work: pathlib.Path, name: str) -> None:
        self.psql("postgres", f"DROP DATABASE IF EXISTS {self.database(name)} WITH (FORCE)")
        self.psql("postgres", f"CREATE DATABASE {self.database(name)} OWNER krow")

    def drop(self, name: str) -> None:
        self.psql("postgres", f"DROP DATABASE IF EXISTS {self.database(name)} WITH (FORCE)")

    def scalar(self, work: pathlib.Path, name: str, query: str) -> str:
        return self.psql(self.database(name), query)

    # The server's memory while krow writes: the largest resident set of any server process
    # (the backend that runs krow's COPY), sampled every 20 ms.
    def start_watch(self) -> None:
        self._peak, self._watching = 0.0, True
        self._watch = threading.Thread(target=self._sample, daemon=True)
        self._watch.start()

    def stop_watch(self) -> float | None:
        self._watching = False
        if self._watch:
            self._watch.join()
        return round(self._peak / 1024, 1)

    def _sample(self) -> None:
        while self._watching:
            for status in pathlib.Path("/proc").glob("[0-9]*/status"):
                try:
                    text = status.read_text()
                except OSError:
                    continue
                if "\nName:\tpostgres" not in "\n" + text:
                    continue
                m = re.search(r"VmRSS:\s+(\d+) kB", text)
                if m:
                    self._peak = max(self._peak, float(m.group(1)))
            time.sleep(0.02)


class BigQuery:
    """A project per scenario on the local BigQuery-API emulator (scripts/bigquery.sh), its
    datasets (rows, krow's state and loads) dropped for a fresh start."""
    label = "the BigQuery emulator"

    def __init__(self) -> None:
        self.url = f"http://127.0.0.1:{os.environ.get('KROW_BIGQUERY_PORT', '9050')}"

    def project(self, name: str) -> str:
        return f"krow-bench-{name}"

    def section(self, work: pathlib.Path, name: str) -> str:
        return f"warehouse:\n  type: bigquery\n  project: {self.project(name)}\n  endpoint: {self.url}\n"

    def fresh(self, work: pathlib.Path, name: str) -> None:
        self.drop(name)

    def drop(self, name: str) -> None:
        for dataset in ("confluent", "_krow_us", "_krow_loads_us"):
            try:
                self.api("DELETE", f"/bigquery/v2/projects/{self.project(name)}/datasets/{dataset}?deleteContents=true")
            except urllib.error.HTTPError as e:
                if e.code != 404:
                    raise

    def api(self, method: str, path: str, body: bytes | None = None, ctype: str = "application/json") -> dict:
        req = urllib.request.Request(self.url + path, data=body, method=method, headers={"Content-Type": ctype})
        with urllib.request.urlopen(req, timeout=3600) as resp:
            text = resp.read()
            return json.loads(text) if text else {}

    def query(self, project: str, sql: str, on_page=None) -> list[list]:
        """The rows of a query; with on_page, each page of rows goes there instead."""
        # Names are qualified with the project: the emulator resolves a bare dataset against
        # its own default project rather than the one the query runs in.
        sql = re.sub(r"(?<![`.\w])(confluent|_krow_us)\.", lambda m: f"`{project}`.{m.group(1)}.", sql)
        r = self.api("POST", f"/bigquery/v2/projects/{project}/queries",
                     json.dumps({"query": sql, "useLegacySql": False, "timeoutMs": 600000}).encode())
        if r.get("errors"):
            sys.exit(f"[bench] BigQuery query failed: {r['errors']}\n{sql}")
        rows: list[list] = []
        while True:
            page = [[c["v"] for c in row["f"]] for row in r.get("rows", [])]
            if on_page:
                on_page(page)
            else:
                rows += page
            if not r.get("pageToken"):
                return rows
            r = self.api("GET", f"/bigquery/v2/projects/{project}/queries/{r['jobReference']['jobId']}"
                                f"?pageToken={r['pageToken']}")

    def scalar(self, work: pathlib.Path, name: str, query: str) -> str:
        # The other engines' SQL: quoted names take backticks; krow's run records are in
        # _krow_<location>, as JSON text.
        query = query.replace('"', "`")
        if "_krow.runs" in query:
            query = "SELECT CAST(JSON_VALUE(record, '$.bytes') AS INT64) FROM _krow_us.runs ORDER BY started_at DESC LIMIT 1"
        return str(self.query(self.project(name), query)[0][0])

    def start_watch(self) -> None:
        pass

    def stop_watch(self) -> float | None:
        return None


def register_avro_schema(topic: str) -> int:
    schema = (ROOT / "bench" / "order.avsc").read_text()
    body = json.dumps({"schema": json.dumps(json.loads(schema))}).encode()
    req = urllib.request.Request(f"{REGISTRY_ADMIN}/subjects/{topic}-value/versions", data=body, method="POST",
                                 headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return int(json.load(resp)["id"])


def produce(topic: str, messages: int, avro: bool, partitions: int = 6, pad: int = 0) -> None:
    cmd = [str(PRODUCE), BOOTSTRAP, topic, str(messages), str(partitions)]
    if pad:
        cmd += ["--pad", str(pad)]
    if avro:
        cmd += ["--avro", str(register_avro_schema(topic))]
    log(check(run_measured(cmd), "producing " + topic)["stdout"].strip())


def manifest(wh, work: pathlib.Path, name: str, topic: str, avro: bool, extra: str = "") -> pathlib.Path:
    path = work / f"{name}.yaml"
    registry = ""
    if avro:
        registry = (f"registry:\n  url: {REGISTRY}\n  username: registry\n  password: registry-secret\n"
                    f"  ca_file: {SERVICES / 'registry' / 'tls' / 'ca.pem'}\n")
    path.write_text(f"name: {name}\nsource:\n  bootstrap_servers: {BOOTSTRAP}\ntopics:\n  names: [\"{topic}\"]\n"
                    f"{registry}{wh.section(work, name)}{extra}")
    return path


def sync(yaml: pathlib.Path, kill_after: float | None = None) -> dict:
    return check(run_measured([str(KROW), "sync", "-q", str(yaml)], kill_after), "krow sync " + yaml.name)


def last_run_bytes(wh, work: pathlib.Path, name: str) -> int:
    return int(wh.scalar(work, name,
                         "SELECT CAST(record->>'bytes' AS BIGINT) FROM _krow.runs ORDER BY started_at DESC LIMIT 1"))


def table_counts(wh, work: pathlib.Path, name: str, topic: str) -> tuple[int, int]:
    table = table_of(topic)
    total = int(wh.scalar(work, name, f"SELECT count(*) FROM {table}"))
    distinct = int(wh.scalar(work, name, f"SELECT count(DISTINCT id) FROM {table}"))
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


def sync_runs(wh, label: str, work: pathlib.Path, name: str, topic: str, messages: int, runs: int,
              avro: bool) -> tuple[dict, pathlib.Path]:
    yaml = manifest(wh, work, name, topic, avro)
    results = []
    for i in range(runs):
        wh.fresh(work, name)
        wh.start_watch()
        r = sync(yaml)
        server_rss = wh.stop_watch()
        total, distinct = table_counts(wh, work, name, topic)
        if total != messages or distinct != messages:
            sys.exit(f"[bench] {name}: {total} rows, {distinct} distinct ids, expected {messages}")
        results.append((r["wall_s"], r["peak_rss_mib"], last_run_bytes(wh, work, name), server_rss))
        log(f"{name} run {i + 1}/{runs}: {r['wall_s']:.2f} s, peak {r['peak_rss_mib']:.0f} MiB"
            + ("" if server_rss is None else f", server process peak {server_rss:.0f} MiB"))
    walls = [w for w, _, _, _ in results]
    median = sorted(results)[len(results) // 2]
    out = row(label, messages, median[0], median[2], max(r for _, r, _, _ in results), walls)
    if median[3] is not None:
        out["server_peak_rss_mib"] = max(r for _, _, _, r in results)
    return out, yaml


def mode_runs(wh, label: str, work: pathlib.Path, name: str, topic: str, extra: str, rows_expected: int,
              messages: int, runs: int, per_batch: dict) -> dict:
    """The JSON topic synced from nothing with another publish mode or strategy (`extra`
    manifest YAML), beside the default per-batch append sync of the same rows."""
    yaml = manifest(wh, work, name, topic, False, extra)
    results = []
    for _ in range(runs):
        wh.fresh(work, name)
        r = sync(yaml)
        total = int(wh.scalar(work, name, f"SELECT count(*) FROM {table_of(topic)}"))
        if total != rows_expected:
            sys.exit(f"[bench] {name}: {total} rows, expected {rows_expected}")
        results.append((r["wall_s"], r["peak_rss_mib"]))
        log(f"{name}: {r['wall_s']:.2f} s, peak {r['peak_rss_mib']:.0f} MiB, {total} rows")
    median = sorted(results)[len(results) // 2]
    out = row(label, messages, median[0], 0, max(r for _, r in results), [w for w, _ in results])
    out["vs_per_batch_time"] = round(median[0] / per_batch["wall_s"], 2)
    if isinstance(wh, Postgres):
        wh.drop(name)
    return out


def copy_baseline(pg: Postgres, name: str, topic: str, messages: int, nbytes: int, runs: int) -> list[dict]:
    """PostgreSQL's own best load of the rows krow wrote: COPY of a prepared file (written
    by the server from krow's table) into an empty table like krow's, one transaction, as a
    whole psql process, in binary and in text format."""
    db, table = pg.database(name), table_of(topic)
    rows = []
    for fmt in ("binary", "text"):
        path = f"/var/tmp/krow-bench-{os.getpid()}.{fmt}"
        pg.psql(db, f"COPY {table} TO '{path}' (FORMAT {fmt})")
        pg.psql(db, f"DROP TABLE IF EXISTS confluent.copy_target; "
                    f"CREATE TABLE confluent.copy_target (LIKE {table} INCLUDING ALL)")
        walls = []
        env = os.environ | {"PGPASSWORD": pg.env["KROW_PG_ADMIN_PASSWORD"]}
        for _ in range(runs):
            pg.psql(db, "TRUNCATE confluent.copy_target; CHECKPOINT")
            cmd = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", pg.env["KROW_PG_HOST"], "-p", pg.env["KROW_PG_PORT"],
                   "-U", "postgres", "-d", db, "-c", f"COPY confluent.copy_target FROM '{path}' (FORMAT {fmt})"]
            t0 = time.monotonic()
            subprocess.run(cmd, check=True, env=env, capture_output=True)
            walls.append(time.monotonic() - t0)
        got = int(pg.psql(db, "SELECT count(*) FROM confluent.copy_target"))
        if got != messages:
            sys.exit(f"[bench] COPY {fmt}: {got} rows, expected {messages}")
        pg.psql(db, "DROP TABLE confluent.copy_target")
        try:
            os.unlink(path)
        except OSError:
            pass
        wall = sorted(walls)[len(walls) // 2]
        rows.append(row(f"PostgreSQL COPY ({fmt}) of the rows", messages, wall, nbytes, 0, walls))
        log(f"COPY {fmt}: {wall:.2f} s")
    return rows


def load_job_baseline(bq: BigQuery, work: pathlib.Path, name: str, topic: str, messages: int, nbytes: int,
                      runs: int) -> list[dict]:
    """The emulator's own load job of the rows krow wrote: newline-delimited JSON of the table
    (read back page by page into a file first, not timed) uploaded by curl into a new table
    of the same columns with one load job, from the upload to DONE. The rows never sit in this
    process's memory, which the children it starts would otherwise count as theirs."""
    project = bq.project(name)
    table = bare_table(topic).split(".", 1)[1]
    fields = bq.api("GET", f"/bigquery/v2/projects/{project}/datasets/confluent/tables/{table}")["schema"]["fields"]
    body, b = work / "load-baseline.body", "krowbench"
    meta = {"configuration": {"load": {
        "destinationTable": {"projectId": project, "datasetId": "confluent", "tableId": "load_baseline"},
        "sourceFormat": "NEWLINE_DELIMITED_JSON", "writeDisposition": "WRITE_TRUNCATE",
        "createDisposition": "CREATE_IF_NEEDED", "schema": {"fields": fields}}}}
    with open(body, "w") as f:
        f.write(f"--{b}\r\nContent-Type: application/json\r\n\r\n{json.dumps(meta)}\r\n--{b}\r\n"
                "Content-Type: application/octet-stream\r\n\r\n")
        bq.query(project, f"SELECT TO_JSON_STRING(t) FROM confluent.`{table}` AS t",
                 on_page=lambda rows: f.write("".join(r[0] + "\n" for r in rows)))
        f.write(f"\r\n--{b}--\r\n")
    walls = []
    for _ in range(runs):
        t0 = time.monotonic()
        out = subprocess.run(["curl", "-sS", "-X", "POST", "-H", f"Content-Type: multipart/related; boundary={b}",
                              "--data-binary", f"@{body}",
                              f"{bq.url}/upload/bigquery/v2/projects/{project}/jobs?uploadType=multipart"],
                             check=True, capture_output=True, text=True).stdout
        job = json.loads(out)
        while job["status"]["state"] != "DONE":
            time.sleep(0.05)
            job = bq.api("GET", f"/bigquery/v2/projects/{project}/jobs/{job['jobReference']['jobId']}")
        walls.append(time.monotonic() - t0)
        if job["status"].get("errorResult"):
            sys.exit(f"[bench] the baseline load job failed: {job['status']['errorResult']}")
        got = int(bq.query(project, "SELECT COUNT(*) FROM confluent.load_baseline")[0][0])
        if got != messages:
            sys.exit(f"[bench] the baseline load job wrote {got} rows, expected {messages}")
    body.unlink()
    wall = sorted(walls)[len(walls) // 2]
    log(f"emulator load job: {wall:.2f} s")
    return [row("the emulator's own load job of the rows (one job)", messages, wall, nbytes, 0, walls)]


KROW_BATCH_ROWS = 40960  # krow's default batch.max_messages
TRICKLE_BATCHES = 50  # of 10 rows, for the write paths' trickle


def bigquery_write_paths(messages: int, nbytes: int) -> tuple[list[dict], list[dict]]:
    """bench/bigquery_write_paths.py with the emulator's venv: krow's write path (a load job
    into a load table, then the batch's transaction) beside the Storage Write API's pending and
    committed streams into the same load table and the same transaction, for `messages` rows in
    krow's batches (bulk, compared with krow's sync) and for a trickle of small batches."""
    grpc_port = os.environ.get("KROW_BIGQUERY_GRPC_PORT", "9060")
    out = subprocess.run([str(SERVICES / "bq" / "bin" / "python"), str(ROOT / "bench" / "bigquery_write_paths.py"),
                          "--rest", BigQuery().url, "--grpc", f"127.0.0.1:{grpc_port}", "--rows", str(messages),
                          "--batch", str(KROW_BATCH_ROWS), "--trickle", str(TRICKLE_BATCHES)],
                         check=True, capture_output=True, text=True).stdout
    bulk, trickle = [], []
    for line in out.splitlines():
        r = json.loads(line)
        what = f"{r['path']} + transaction"
        if r["kind"] == "bulk":
            bulk.append(row(f"{what}, {r['batches']} batches", r["rows"], r["wall_s"], nbytes, 0, [r["wall_s"]]))
        else:
            trickle.append(row(f"{what}, {r['batches']} x 10 rows", r["rows"], r["wall_s"], 0, 0, [r["wall_s"]]))
        log(f"{r['scenario']}: {r['wall_s']:.2f} s (write {r['write_s']:.2f} s, transactions "
            f"{r['transaction_s']:.2f} s)")
    return bulk, trickle


def duckdb_baseline(work: pathlib.Path, name: str, topic: str, messages: int, nbytes: int, runs: int) -> list[dict]:
    """DuckDB's own insert of the rows krow wrote into work/<name>.duckdb: in one
    transaction, and in one transaction per krow batch."""
    rows_dir = work / "duckdb-rows"
    check(run_measured([str(DUCKDB_LOAD), "prepare", str(work / f"{name}.duckdb"), bare_table(topic), str(rows_dir),
                        str(KROW_BATCH_ROWS)]), "bench-duckdb-load prepare")
    out = []
    for mode, label in (("one", "DuckDB insert, one transaction"), ("per-file", "DuckDB insert, a commit per batch")):
        results = []
        for _ in range(runs):
            target = work / "duckdb-load.duckdb"
            r = check(run_measured([str(DUCKDB_LOAD), "load", str(target), str(rows_dir), mode]), "bench-duckdb-load")
            m = re.search(r"loaded (\d+) rows .* in ([\d.]+) s", r["stdout"])
            if not m or int(m.group(1)) != messages:
                sys.exit(f"[bench] unexpected bench-duckdb-load output: {r['stdout']}{r['stderr']}")
            results.append((float(m.group(2)), r["peak_rss_mib"]))
            for p in work.glob("duckdb-load.duckdb*"):
                p.unlink()
        wall, rss = sorted(results)[len(results) // 2]
        out.append(row(label, messages, wall, nbytes, rss, [w for w, _ in results]))
        log(f"{label}: {wall:.2f} s")
    subprocess.run(["rm", "-rf", str(rows_dir)], check=True)
    return out


def python_peer(work: pathlib.Path, topic: str, messages: int, nbytes: int, runs: int) -> dict:
    py = subprocess.run(["bash", str(ROOT / "tests" / "reference" / "setup_venv.sh"), str(PEERS / "requirements.txt"),
                         "bench-py"], check=True, capture_output=True, text=True).stdout.strip()
    results = []
    for i in range(runs):
        db = work / "python-peer.duckdb"
        for p in work.glob("python-peer.duckdb*"):
            p.unlink()
        r = check(run_measured([py, str(PEERS / "python_loader.py"), BOOTSTRAP, topic, str(db)]), "the Python peer")
        got = int(sql_value(db, "SELECT count(*) FROM messages"))
        if got != messages:
            sys.exit(f"[bench] the Python peer wrote {got} rows, expected {messages}")
        results.append((r["wall_s"], r["peak_rss_mib"]))
        log(f"Python peer run {i + 1}/{runs}: {r['wall_s']:.2f} s, peak {r['peak_rss_mib']:.0f} MiB")
    wall, rss = sorted(results)[len(results) // 2]
    return row("peer: Python (confluent-kafka, Arrow, DuckDB)", messages, wall, nbytes, max(r for _, r in results),
               [w for w, _ in results])


def connect_peer(work: pathlib.Path, topic: str, messages: int, nbytes: int, runs: int) -> dict:
    lib = subprocess.run(["bash", str(PEERS / "connect.sh")], check=True, capture_output=True, text=True).stdout.strip()
    results = []
    for i in range(runs):
        d = work / "connect"
        subprocess.run(["rm", "-rf", str(d)], check=True)
        d.mkdir()
        out = d / "sink.txt"
        (d / "worker.properties").write_text(
            f"bootstrap.servers={BOOTSTRAP}\n"
            "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
            "value.converter=org.apache.kafka.connect.storage.StringConverter\n"
            f"offset.storage.file.filename={d / 'offsets'}\n"
            "consumer.auto.offset.reset=earliest\nconsumer.isolation.level=read_committed\n"
            "plugin.discovery=only_scan\n")
        (d / "sink.properties").write_text(
            f"name=krow-bench-file-sink-{i}\nconnector.class=org.apache.kafka.connect.file.FileStreamSinkConnector\n"
            f"tasks.max=1\ntopics={topic}\nfile={out}\n")
        cmd = ["java", "-Xmx512m", "-XX:+UseG1GC", f"-Dlog4j2.configurationFile={ROOT / 'scripts' / 'kafka' / 'tools-log4j2.xml'}",
               "-cp", f"{lib}/*", "org.apache.kafka.connect.cli.ConnectStandalone", str(d / "worker.properties"),
               str(d / "sink.properties")]
        t0 = time.monotonic()
        with open(d / "connect.log", "wb") as logf:
            proc = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT)
        lines, seen, peak = 0, 0, 0.0
        try:
            deadline = t0 + 600
            while lines < messages:
                if proc.poll() is not None:
                    sys.exit(f"[bench] Kafka Connect exited early; see {d / 'connect.log'}")
                if time.monotonic() > deadline:
                    sys.exit(f"[bench] Kafka Connect wrote {lines} of {messages} lines in 600 s")
                if out.exists():
                    with open(out, "rb") as f:
                        f.seek(seen)
                        chunk = f.read()
                    # count only whole lines
                    end = chunk.rfind(b"\n") + 1
                    lines += chunk.count(b"\n", 0, end)
                    seen += end
                peak = max(peak, _rss_mib(proc.pid))
                time.sleep(0.05)
            wall = time.monotonic() - t0
        finally:
            proc.kill()
            proc.wait()
        results.append((wall, peak))
        log(f"Kafka Connect run {i + 1}/{runs}: {wall:.2f} s to the last line, peak {peak:.0f} MiB")
    wall, rss = sorted(results)[len(results) // 2]
    return row("peer: Kafka Connect, FileStreamSink", messages, wall, nbytes, max(r for _, r in results),
               [w for w, _ in results])


def _rss_mib(pid: int) -> float:
    try:
        m = re.search(r"VmRSS:\s+(\d+) kB", pathlib.Path(f"/proc/{pid}/status").read_text())
        return float(m.group(1)) / 1024 if m else 0.0
    except OSError:
        return 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--messages", type=int, default=1_000_000, help="messages per topic (default 1,000,000)")
    ap.add_argument("--runs", type=int, default=3, help="measurements per scenario (median)")
    ap.add_argument("--big", type=int, default=3, help="memory check: a topic this many times larger (0: skip)")
    ap.add_argument("--wide", type=int, default=1000,
                    help="memory check: a topic with this many partitions (0: skip)")
    ap.add_argument("--wide-mb", type=float, default=1.5, help="MB of messages in each partition of the wide topic")
    ap.add_argument("--no-avro", action="store_true", help="skip the Avro topic (no registry needed)")
    ap.add_argument("--no-peers", action="store_true", help="skip the Python and Kafka Connect peers")
    ap.add_argument("--no-modes", action="store_true",
                    help="skip staged publish, latest_by_key and full_refresh on the JSON topic")
    ap.add_argument("--warehouse", choices=["duckdb", "postgres", "bigquery"], default="duckdb",
                    help="where krow writes: a DuckDB file (default), the local PostgreSQL server, or the local "
                         "BigQuery-API emulator")
    ap.add_argument("--out", type=pathlib.Path, help="JSON results file")
    args = ap.parse_args()
    wh = {"postgres": Postgres, "bigquery": BigQuery}.get(args.warehouse, DuckDB)()
    if args.warehouse != "duckdb":
        args.no_avro, args.big, args.no_peers, args.wide = True, 0, True, 0
    if args.warehouse == "bigquery":
        args.no_modes = True  # the publish modes and strategies: minutes each on the emulator

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    n = args.messages
    json_topic = f"krow-bench.json.{stamp}"
    avro_topic = f"krow-bench.avro.{stamp}"
    big_topic = f"krow-bench.big.{stamp}"
    wide_topic = f"krow-bench.wide.{stamp}"
    topics = [json_topic]
    rows: list[dict] = []
    extra: dict = {}
    with tempfile.TemporaryDirectory(prefix="krow-bench.") as tmp:
        work = pathlib.Path(tmp)
        try:
            produce(json_topic, n, avro=False)
            ceil = ceiling("JSON consume-only ceiling", json_topic, args.runs)
            json_row, yaml = sync_runs(wh, f"JSON krow sync into {wh.label}", work, "json", json_topic, n, args.runs,
                                       avro=False)
            nbytes = round(json_row["mb_per_s"] * 1e6 * json_row["wall_s"]) if json_row["mb_per_s"] else 0
            refs = [ceil]
            if isinstance(wh, Postgres):
                refs += copy_baseline(wh, "json", json_topic, n, nbytes, args.runs)
            elif isinstance(wh, BigQuery):
                refs += load_job_baseline(wh, work, "json", json_topic, n, nbytes, args.runs)
                paths, path_trickles = bigquery_write_paths(n, nbytes)
                refs += paths
            else:
                refs += duckdb_baseline(work, "json", json_topic, n, nbytes, args.runs)
            if not args.no_peers:
                refs.append(python_peer(work, json_topic, n, nbytes, args.runs))
                refs.append(connect_peer(work, json_topic, n, nbytes, args.runs))
            for r in refs:
                r["krow_time_ratio"] = round(json_row["wall_s"] / r["wall_s"], 2)
            rows += refs + [json_row]

            noops = [sync(yaml) for _ in range(args.runs)]
            noop = sorted(noops, key=lambda r: r["wall_s"])[len(noops) // 2]
            rows.append(row("JSON second sync (nothing new)", 0, noop["wall_s"], 0, noop["peak_rss_mib"],
                            [r["wall_s"] for r in noops]))
            trickles = []
            for _ in range(args.runs):
                produce(json_topic, 100, avro=False)
                trickles.append(sync(yaml))
            t = sorted(trickles, key=lambda r: r["wall_s"])[len(trickles) // 2]
            rows.append(row("JSON trickle sync (100 new messages)", 100, t["wall_s"], 0, t["peak_rss_mib"],
                            [r["wall_s"] for r in trickles]))
            if isinstance(wh, BigQuery):
                rows += path_trickles
            total_json = n + 100 * args.runs
            total, distinct = table_counts(wh, work, "json", json_topic)
            if total != total_json or distinct != total_json:
                sys.exit(f"[bench] after the trickle syncs: {total} rows, {distinct} distinct ids, expected {total_json}")

            wh.fresh(work, "json")
            killed = sync(yaml, kill_after=json_row["wall_s"] / 2)
            at_kill = table_counts(wh, work, "json", json_topic)[0] if killed["killed"] else total_json
            resume = sync(yaml)
            total, distinct = table_counts(wh, work, "json", json_topic)
            if total != total_json or distinct != total_json:
                sys.exit(f"[bench] resume after kill -9: {total} rows, {distinct} distinct ids, expected {total_json}")
            resumed = total_json - at_kill
            rows.append(row("JSON resume after kill -9", resumed, resume["wall_s"], 0, resume["peak_rss_mib"],
                            [resume["wall_s"]]))
            extra["resume"] = {"killed_after_s": round(killed["wall_s"], 3), "was_killed": killed["killed"],
                               "rows_committed_before_kill": at_kill, "rows_after_resume": total,
                               "distinct_ids_after_resume": distinct}
            log(f"kill -9 after {killed['wall_s']:.2f} s with {at_kill} rows committed; resume wrote the other "
                f"{resumed} in {resume['wall_s']:.2f} s; {total} rows, {distinct} distinct ids")

            if not args.no_modes:
                # The whole topic (the trickles included); bench-produce keys each message by
                # one of 10,007 customers.
                keys = min(n, 10_007)
                quoted = json.dumps(json_topic)
                modes = [
                    ("JSON sync, quality.publish: staged", "staged", "quality:\n  publish: staged\n", total_json),
                    ("JSON sync, strategy latest_by_key", "latest",
                     f"tables:\n  {quoted}: {{strategy: latest_by_key}}\n", keys),
                    ("JSON sync, strategy full_refresh", "refresh", f"tables:\n  {quoted}: {{strategy: full_refresh}}\n",
                     total_json),
                ]
                for label, name, extra_yaml, expected in modes:
                    rows.append(mode_runs(wh, label, work, name, json_topic, extra_yaml, expected, total_json,
                                          args.runs, json_row))

            if not args.no_avro:
                topics.append(avro_topic)
                produce(avro_topic, n, avro=True)
                aceil = ceiling("Avro consume-only ceiling", avro_topic, args.runs)
                avro_row, _ = sync_runs(wh, "Avro krow sync", work, "avro", avro_topic, n, args.runs, avro=True)
                aceil["krow_time_ratio"] = round(avro_row["wall_s"] / aceil["wall_s"], 2)
                avro_row["vs_json_time"] = round(avro_row["wall_s"] / json_row["wall_s"], 2)
                rows += [aceil, avro_row]

            if args.big > 0:
                topics.append(big_topic)
                produce(big_topic, n * args.big, avro=False)
                big_row, _ = sync_runs(wh, f"JSON krow sync, {args.big}x messages", work, "big", big_topic, n * args.big,
                                       1, avro=False)
                big_row["rss_vs_1x"] = round(big_row["peak_rss_mib"] / json_row["peak_rss_mib"], 2)
                rows.append(big_row)

            if args.wide > 0:
                topics.append(wide_topic)
                pad = 8000
                wide_n = int(args.wide * args.wide_mb * 1e6 / (pad + 350))
                produce(wide_topic, wide_n, avro=False, partitions=args.wide, pad=pad)
                label = f"{args.wide:,} partitions x {args.wide_mb:g} MB"
                wide_ceil = ceiling(f"JSON consume-only ceiling, {label}", wide_topic, 1)
                wide_ceil["rss_vs_6_partitions"] = round(wide_ceil["peak_rss_mib"] / ceil["peak_rss_mib"], 2)
                wide_row, _ = sync_runs(wh, f"JSON krow sync, {label}", work, "wide", wide_topic, wide_n, 1,
                                        avro=False)
                wide_row["rss_vs_6_partitions"] = round(wide_row["peak_rss_mib"] / json_row["peak_rss_mib"], 2)
                rows += [wide_ceil, wide_row]
        finally:
            if isinstance(wh, (Postgres, BigQuery)):
                wh.drop("json")
            for t in topics:
                subprocess.run(["bash", str(ROOT / "scripts" / "kafka.sh"), "topics", "--delete", "--topic", t],
                               capture_output=True)

    server_col = any("server_peak_rss_mib" in r for r in rows)
    print(f"\n{'scenario':<52} {'messages':>10} {'wall s':>8} {'messages/s':>11} {'MB/s':>7} {'peak RSS MiB':>13} "
          f"{'krow time / this':>17}" + (f" {'server RSS MiB':>15}" if server_col else ""))
    for r in rows:
        ratio = f"{r['krow_time_ratio']:.2f}" if "krow_time_ratio" in r else ""
        mb = "-" if r["mb_per_s"] is None else f"{r['mb_per_s']:.1f}"
        rss = "-" if not r["peak_rss_mib"] else f"{r['peak_rss_mib']:.0f}"
        line = (f"{r['scenario']:<52} {r['messages']:>10,} {r['wall_s']:>8.2f} {r['messages_per_s']:>11,} "
                f"{mb:>7} {rss:>13} {ratio:>17}")
        if server_col:
            srv = f"{r['server_peak_rss_mib']:.0f}" if "server_peak_rss_mib" in r else ""
            line += f" {srv:>15}"
        print(line)
    notes = []
    if not args.no_avro:
        notes.append(f"Avro sync time / JSON sync time: {avro_row['vs_json_time']:.2f}")
    if args.big > 0:
        notes.append(f"peak RSS at {args.big}x messages / at 1x: {big_row['rss_vs_1x']:.2f}")
    if args.wide > 0:
        notes.append(f"peak RSS with {args.wide:,} partitions / with 6: ceiling {wide_ceil['rss_vs_6_partitions']:.2f}, "
                     f"krow sync {wide_row['rss_vs_6_partitions']:.2f}")
    for r in rows:
        if "vs_per_batch_time" in r:
            notes.append(f"{r['scenario']} time / per-batch append sync time: {r['vs_per_batch_time']:.2f}")
    for note in notes:
        print(note)
    machine = {"cpus": os.cpu_count(), "cpu": _cpu_model(), "kernel": os.uname().release}
    result = {"started_at": stamp, "messages": n, "runs": args.runs, "warehouse": args.warehouse, "machine": machine,
              "results": rows} | extra
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
