#!/usr/bin/env python3
"""The cost of `krow audit` on a large table, beside a plain count(*) of the same table.

Produces one JSON topic (--messages, default 10,000,000, over 6 partitions), syncs it into the
warehouse (--warehouse duckdb|postgres|bigquery), then measures, each --runs times (median):

  count(*)              the warehouse's own count of the table (krow-sql or psql: the floor)
  by hand               rows and distinct offsets per partition, the query a user would write
  audit (counts)        `krow audit`: one aggregate query, Kafka not read (the normal case)
  audit --sample 10000  the same, plus 100 runs of 100 messages re-read, decoded, compared
  audit, one row gone   after deleting one row: its partition's offsets read from Kafka,
                        counted per bucket, one bucket read offset by offset

Prints a table (wall time, peak memory of the krow process, ratio to count(*)) and saves the
figures as JSON under bench/results/. Run it through bench/audit.sh, which builds krow and
starts the services.
"""
from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import run as common  # noqa: E402  (the warehouses and helpers of the end-to-end benchmark)

KROW = common.KROW
log = common.log


def measured_scalar(wh, work: pathlib.Path, name: str, query: str) -> tuple[float, str]:
    t0 = time.monotonic()
    value = wh.scalar(work, name, query)
    return time.monotonic() - t0, value


def audit(yaml: pathlib.Path, more: list[str], expect_rc: int = 0) -> dict:
    r = common.run_measured([str(KROW), "audit", str(yaml), "--format", "json", "-q", *more])
    if r["rc"] != expect_rc:
        sys.exit(f"[bench] krow audit {' '.join(more)} exited {r['rc']} (expected {expect_rc}):\n"
                 f"{r['stdout'][-2000:]}{r['stderr']}")
    r["report"] = json.loads(r["stdout"])
    return r


def median_of(results: list[dict]) -> dict:
    ordered = sorted(results, key=lambda r: r["wall_s"])
    return ordered[len(ordered) // 2]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--messages", type=int, default=10_000_000, help="messages in the topic (default 10,000,000)")
    ap.add_argument("--runs", type=int, default=3, help="measurements per scenario (median)")
    ap.add_argument("--sample", type=int, default=10_000, help="messages --sample compares (default 10,000)")
    ap.add_argument("--warehouse", choices=["duckdb", "postgres", "bigquery"], default="duckdb")
    ap.add_argument("--out", type=pathlib.Path, help="JSON results file")
    args = ap.parse_args()
    wh = {"postgres": common.Postgres, "bigquery": common.BigQuery}.get(args.warehouse, common.DuckDB)()
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    topic = f"krow-bench.audit.{stamp}"
    name = "audit"
    table = common.table_of(topic)
    with tempfile.TemporaryDirectory(prefix="krow-bench-audit-") as tmp:
        work = pathlib.Path(tmp)
        log(f"producing {args.messages:,} JSON messages into {topic}")
        common.produce(topic, args.messages, avro=False)
        yaml = common.manifest(wh, work, name, topic, avro=False)
        wh.fresh(work, name)
        log(f"syncing them into {wh.label}")
        synced = common.sync(yaml)
        rows = int(wh.scalar(work, name, f"SELECT count(*) FROM {table}"))
        if rows != args.messages:
            sys.exit(f"[bench] the table holds {rows:,} rows, not {args.messages:,}")

        figures: list[dict] = []
        counts = [measured_scalar(wh, work, name, f"SELECT count(*) FROM {table}")[0] for _ in range(args.runs)]
        floor = statistics.median(counts)
        figures.append({"scenario": "count(*) of the table", "wall_s": round(floor, 3), "peak_rss_mib": None,
                        "runs_wall_s": [round(c, 3) for c in counts]})
        # What a careful user would run by hand (and what the audit's first query is, without
        # the expected ranges): rows and distinct offsets per partition.
        by_hand = [measured_scalar(wh, work, name, f"SELECT sum(n) + sum(d) FROM (SELECT kafka_partition, count(*) AS n, "
                                                   f"count(DISTINCT kafka_offset) AS d FROM {table} GROUP BY 1) AS p")[0]
                   for _ in range(args.runs)]
        figures.append({"scenario": "rows and distinct offsets per partition, by hand", "wall_s":
                        round(statistics.median(by_hand), 3), "peak_rss_mib": None,
                        "runs_wall_s": [round(c, 3) for c in by_hand]})

        def scenario(label: str, more: list[str], expect_rc: int = 0) -> dict:
            results = [audit(yaml, more, expect_rc) for _ in range(args.runs)]
            m = median_of(results)
            parts = [p for t in m["report"]["tables"] for p in t["partitions"]]
            row = {"scenario": label, "wall_s": round(m["wall_s"], 3), "peak_rss_mib": round(m["peak_rss_mib"], 1),
                   "runs_wall_s": [round(r["wall_s"], 3) for r in results],
                   "compared": sum(p["compared"] for p in parts),
                   "partitions_read_from_kafka": sum(1 for p in parts if p["read_kafka"]),
                   "clean": m["report"]["clean"]}
            figures.append(row)
            return row

        scenario("krow audit (counts)", [])
        scenario(f"krow audit --sample {args.sample}", ["--sample", str(args.sample), "--seed", "1"])
        # One row deleted by another client: its partition is read from Kafka and bucketed.
        wh_sql = f"DELETE FROM {table} WHERE kafka_partition = 0 AND kafka_offset = 12345"
        if isinstance(wh, common.BigQuery):
            wh.query(wh.project(name), wh_sql.replace('"', "`"))
        elif isinstance(wh, common.Postgres):
            wh.scalar(work, name, wh_sql + " RETURNING 1")
        else:
            common.subprocess.run([str(common.SQL), str(work / f"{name}.duckdb"), "--execute", wh_sql], check=True)
        scenario("krow audit (counts), one row deleted", [], expect_rc=5)

    print()
    print(f"krow audit of {args.messages:,} rows in {wh.label} ({args.runs} runs, median); "
          f"sync took {synced['wall_s']:.1f} s")
    print(f"{'scenario':44} {'wall':>9} {'x count(*)':>11} {'peak RSS':>10} {'compared':>9} {'Kafka read':>10}")
    for f in figures:
        ratio = f["wall_s"] / floor if floor else 0
        rss = f"{f['peak_rss_mib']:.0f} MiB" if f["peak_rss_mib"] is not None else "-"
        print(f"{f['scenario']:44} {f['wall_s']:8.2f}s {ratio:10.1f}x {rss:>10} {f.get('compared', ''):>9} "
              f"{f.get('partitions_read_from_kafka', ''):>10}")
    out = args.out or common.ROOT / "bench" / "results" / f"audit-{args.warehouse}-{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"messages": args.messages, "warehouse": args.warehouse, "runs": args.runs,
                               "sync_wall_s": synced["wall_s"], "figures": figures}, indent=2))
    log(f"figures saved to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
