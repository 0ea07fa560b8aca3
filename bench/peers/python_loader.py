#!/usr/bin/env python3
"""The Python peer of bench/run.sh: the Kafka -> DuckDB loader a careful engineer would write
with Confluent's client, Arrow and DuckDB, measured beside krow (never tuned against it).

  python_loader.py BOOTSTRAP TOPIC FILE.duckdb [--batch 50000]

Reads every partition of TOPIC from its stored offset (the beginning at first) up to the end
offsets taken at start (read_committed), and writes batches of --batch messages through an
Arrow table into DuckDB: partition, offset, timestamp, key, value (JSON), headers (JSON). Each
batch and the offsets it reaches commit in one DuckDB transaction, so a rerun neither loses
nor doubles a message. Prints the rows written.
"""

import argparse
import json
import sys

import duckdb
import pyarrow as pa
from confluent_kafka import Consumer, KafkaException, TopicPartition


def text(b):
    return None if b is None else b.decode("utf-8", errors="replace")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bootstrap")
    ap.add_argument("topic")
    ap.add_argument("db")
    ap.add_argument("--batch", type=int, default=50_000)
    args = ap.parse_args()

    consumer = Consumer({"bootstrap.servers": args.bootstrap, "group.id": "krow-bench-python-peer",
                         "enable.auto.commit": False, "isolation.level": "read_committed"})
    meta = consumer.list_topics(args.topic, timeout=30)
    partitions = sorted(meta.topics[args.topic].partitions)
    ends = {p: consumer.get_watermark_offsets(TopicPartition(args.topic, p), timeout=30)[1] for p in partitions}

    con = duckdb.connect(args.db)
    con.execute("CREATE TABLE IF NOT EXISTS messages (kafka_partition INTEGER, kafka_offset BIGINT, "
                "kafka_timestamp TIMESTAMPTZ, key VARCHAR, value JSON, headers JSON)")
    con.execute("CREATE TABLE IF NOT EXISTS offsets (kafka_partition INTEGER PRIMARY KEY, next_offset BIGINT)")
    start = dict.fromkeys(partitions, 0) | dict(con.execute("SELECT kafka_partition, next_offset FROM offsets").fetchall())
    todo = {p for p in partitions if start[p] < ends[p]}
    consumer.assign([TopicPartition(args.topic, p, start[p]) for p in sorted(todo)])

    cols = {name: [] for name in ("kafka_partition", "kafka_offset", "kafka_timestamp", "key", "value", "headers")}
    reached = {}
    written = 0

    def flush():
        nonlocal written
        n = len(cols["kafka_offset"])
        if n == 0:
            return
        batch = pa.table({
            "kafka_partition": pa.array(cols["kafka_partition"], pa.int32()),
            "kafka_offset": pa.array(cols["kafka_offset"], pa.int64()),
            "kafka_timestamp": pa.array(cols["kafka_timestamp"], pa.timestamp("ms", tz="UTC")),
            "key": pa.array(cols["key"], pa.string()),
            "value": pa.array(cols["value"], pa.string()),
            "headers": pa.array(cols["headers"], pa.string()),
        })
        con.begin()
        con.register("batch", batch)
        con.execute("INSERT INTO messages SELECT * FROM batch")
        con.unregister("batch")
        con.executemany("INSERT OR REPLACE INTO offsets VALUES (?, ?)", list(reached.items()))
        con.commit()
        written += n
        for c in cols.values():
            c.clear()

    while todo:
        for m in consumer.consume(10_000, timeout=1.0):
            if m.error():
                raise KafkaException(m.error())
            p, off = m.partition(), m.offset()
            if p not in todo or off >= ends[p]:
                continue
            cols["kafka_partition"].append(p)
            cols["kafka_offset"].append(off)
            cols["kafka_timestamp"].append(m.timestamp()[1])
            cols["key"].append(text(m.key()))
            cols["value"].append(text(m.value()))
            hs = m.headers()
            cols["headers"].append(None if hs is None else json.dumps([{"key": k, "value": text(v)} for k, v in hs]))
            reached[p] = off + 1
            if off + 1 >= ends[p]:
                todo.discard(p)
            if len(cols["kafka_offset"]) >= args.batch:
                flush()
    flush()
    consumer.close()
    con.close()
    print(f"python peer: {written} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
