"""How rows can reach a BigQuery table together with the positions they advance, measured on
the BigQuery-API emulator: the write path krow takes (a load job into a load table of the batch's
own, then one multi-statement transaction that checks and moves the position and inserts the
rows) beside the Storage Write API in its two exactly-once forms (a pending stream committed
with BatchCommitWriteStreams, a committed stream appended at explicit offsets), each into the
same load table and followed by the same transaction: BigQuery lets no API write join a
transaction, so that is the only way either keeps rows and positions visible together.

Run by bench/run.sh --warehouse bigquery (or alone, with the venv of scripts/bigquery.sh:
<services>/bq/bin/python bench/bigquery_write_paths.py --help). Prints one JSON object per
scenario on stdout: {"scenario", "rows", "batches", "wall_s", "write_s", "transaction_s"}.
The rows are made here (krow's 17 columns, a 350-byte JSON value) and encoded before the clock
starts, so the figures are the warehouse's: what it takes to get the batches in.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import uuid

import grpc
import requests
from google.cloud.bigquery_storage_v1 import types
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

# krow's load table (bigquery_warehouse.cpp load_fields): JSON as text, the timestamp in ms.
LOAD_COLUMNS = [("id", "STRING"), ("kafka_topic_id", "STRING"), ("kafka_partition", "INT64"),
                ("kafka_offset", "INT64"), ("kafka_timestamp", "INT64"), ("kafka_timestamp_type", "STRING"),
                ("key", "STRING"), ("key_format", "STRING"), ("key_schema_id", "INT64"), ("value", "STRING"),
                ("value_format", "STRING"), ("value_schema_id", "INT64"), ("value_base64", "STRING"),
                ("value_size_bytes", "INT64"), ("headers", "STRING"), ("is_tombstone", "BOOL"),
                ("decode_error", "STRING")]
TARGET_TYPES = {"kafka_timestamp": "TIMESTAMP", "value": "JSON", "headers": "JSON"}
TOPIC_ID = "q1Xk2v9WQhO3Zb8yT0a1bA"
WRITE = "/google.cloud.bigquery.storage.v1.BigQueryWrite/"


class Emulator:
    def __init__(self, rest: str, grpc_target: str, project: str):
        self.rest, self.project = rest.rstrip("/"), project
        self.api = f"{self.rest}/bigquery/v2/projects/{project}"
        self.http = requests.Session()
        self.channel = grpc.insecure_channel(grpc_target, options=[("grpc.max_send_message_length", 64 << 20),
                                                                   ("grpc.max_receive_message_length", 64 << 20)])
        pb = {n: getattr(types, n).pb() for n in (
            "AppendRowsRequest", "AppendRowsResponse", "CreateWriteStreamRequest", "WriteStream",
            "FinalizeWriteStreamRequest", "FinalizeWriteStreamResponse", "BatchCommitWriteStreamsRequest",
            "BatchCommitWriteStreamsResponse")}
        self.pb = pb

        def unary(method, request, response):
            return self.channel.unary_unary(WRITE + method, request_serializer=pb[request].SerializeToString,
                                            response_deserializer=pb[response].FromString)
        self.create_stream = unary("CreateWriteStream", "CreateWriteStreamRequest", "WriteStream")
        self.finalize = unary("FinalizeWriteStream", "FinalizeWriteStreamRequest", "FinalizeWriteStreamResponse")
        self.batch_commit = unary("BatchCommitWriteStreams", "BatchCommitWriteStreamsRequest",
                                  "BatchCommitWriteStreamsResponse")
        self.append_rows = self.channel.stream_stream(WRITE + "AppendRows",
                                                      request_serializer=pb["AppendRowsRequest"].SerializeToString,
                                                      response_deserializer=pb["AppendRowsResponse"].FromString)

    def checked(self, r: requests.Response) -> dict:
        if r.status_code >= 300:
            sys.exit(f"[write paths] {r.request.method} {r.request.url}: HTTP {r.status_code} {r.text[:300]}")
        body = r.json() if r.text else {}
        if body.get("errors"):
            sys.exit(f"[write paths] {body['errors']}")
        return body

    def query(self, sql: str) -> dict:
        r = self.checked(self.http.post(f"{self.api}/queries", json={"query": sql, "useLegacySql": False,
                                                                      "timeoutMs": 600000}))
        while not r.get("jobComplete", True):
            r = self.checked(self.http.get(f"{self.api}/queries/{r['jobReference']['jobId']}",
                                           params={"timeoutMs": 600000}))
        return r

    def table(self, table: str, columns: list[tuple[str, str]]) -> None:
        self.checked(self.http.post(f"{self.api}/datasets/w/tables", json={
            "tableReference": {"projectId": self.project, "datasetId": "w", "tableId": table},
            "schema": {"fields": [{"name": n, "type": t} for n, t in columns]}}))

    def drop(self, table: str) -> None:
        self.http.delete(f"{self.api}/datasets/w/tables/{table}")

    def load(self, table: str, ndjson: bytes) -> None:
        """krow's Client::load: one multipart upload, WRITE_TRUNCATE, polled until DONE."""
        meta = {"configuration": {"load": {
            "destinationTable": {"projectId": self.project, "datasetId": "w", "tableId": table},
            "sourceFormat": "NEWLINE_DELIMITED_JSON", "writeDisposition": "WRITE_TRUNCATE",
            "createDisposition": "CREATE_IF_NEEDED",
            "schema": {"fields": [{"name": n, "type": t} for n, t in LOAD_COLUMNS]}}}}
        b = "krow" + uuid.uuid4().hex
        body = (f"--{b}\r\nContent-Type: application/json\r\n\r\n{json.dumps(meta)}\r\n--{b}\r\n"
                "Content-Type: application/octet-stream\r\n\r\n").encode() + ndjson + f"\r\n--{b}--\r\n".encode()
        job = self.checked(self.http.post(f"{self.rest}/upload/bigquery/v2/projects/{self.project}/jobs"
                                          "?uploadType=multipart", data=body,
                                          headers={"Content-Type": f"multipart/related; boundary={b}"}))
        while job["status"]["state"] != "DONE":
            time.sleep(0.02)
            job = self.checked(self.http.get(f"{self.api}/jobs/{job['jobReference']['jobId']}"))
        if job["status"].get("errorResult"):
            sys.exit(f"[write paths] load job: {job['status']['errorResult']}")

    def stream_write(self, table: str, kind: str, descriptor, rows: list[bytes]) -> None:
        """All of a batch's rows through one write stream of `kind`, each request at its offset,
        then finalized (PENDING: and committed with BatchCommitWriteStreams)."""
        pb = self.pb
        parent = f"projects/{self.project}/datasets/w/tables/{table}"
        stream = self.create_stream(pb["CreateWriteStreamRequest"](
            parent=parent, write_stream=pb["WriteStream"](type_=getattr(pb["WriteStream"].Type, kind)))).name
        requests_, chunk, size, offset = [], [], 0, 0

        def flush():
            nonlocal chunk, size, offset
            req = pb["AppendRowsRequest"](write_stream=stream)
            if not requests_:
                req.proto_rows.writer_schema.proto_descriptor.CopyFrom(descriptor)
            req.proto_rows.rows.serialized_rows.extend(chunk)
            req.offset.value = offset
            requests_.append(req)
            offset += len(chunk)
            chunk, size = [], 0
        for r in rows:  # requests stay under the API's 10 MB
            if chunk and size + len(r) > 9_000_000:
                flush()
            chunk.append(r)
            size += len(r) + 3
        if chunk:
            flush()
        for answer in self.append_rows(iter(requests_)):
            if answer.HasField("error"):
                sys.exit(f"[write paths] AppendRows: {answer.error}")
        # A finalized stream takes no more rows; a pending one's become visible at its commit.
        self.finalize(pb["FinalizeWriteStreamRequest"](name=stream))
        if kind == "PENDING":
            done = self.batch_commit(pb["BatchCommitWriteStreamsRequest"](parent=parent, write_streams=[stream]))
            if done.stream_errors:
                sys.exit(f"[write paths] BatchCommitWriteStreams: {done.stream_errors}")


def make_rows(first: int, n: int) -> list[dict]:
    out = []
    for offset in range(first, first + n):
        value = json.dumps({"order_id": offset, "customer": {"id": f"c-{offset % 9973:05d}", "name": "Ada Lovelace",
                                                             "email": f"ada{offset % 9973}@example.com"},
                            "items": [{"sku": f"SKU-{offset % 113:04d}", "qty": 1 + offset % 5, "price": 19.99}],
                            "currency": "EUR", "total": 29.99, "status": "CREATED",
                            "created_at": "2026-01-01T00:00:00.000Z", "note": "x" * 60}, separators=(",", ":"))
        out.append({"id": f"{TOPIC_ID}:0:{offset}", "kafka_topic_id": TOPIC_ID, "kafka_partition": 0,
                    "kafka_offset": offset, "kafka_timestamp": 1767225600000 + offset,
                    "kafka_timestamp_type": "create_time", "key": f"order-{offset}", "key_format": "string",
                    "value": value, "value_format": "json", "value_size_bytes": len(value),
                    "headers": "[]", "is_tombstone": False})
    return out


def row_message():
    """The load table's rows as a proto2 message (what Storage Write takes), and its class."""
    d = descriptor_pb2.DescriptorProto(name="Row")
    kinds = {"STRING": descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
             "INT64": descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
             "BOOL": descriptor_pb2.FieldDescriptorProto.TYPE_BOOL}
    for i, (name, t) in enumerate(LOAD_COLUMNS, 1):
        d.field.add(name=name, number=i, type=kinds[t], label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    f = descriptor_pb2.FileDescriptorProto(name="krow_bench_row.proto", syntax="proto2")
    f.message_type.add().CopyFrom(d)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    return d, message_factory.GetMessageClass(pool.FindMessageTypeByName("Row"))


def transaction(table: str, first: int, last: int) -> str:
    """krow's batch transaction, as bigquery_warehouse.cpp writes it for one partition: the
    fence on the stored position, its move, the rows into the target."""
    same = f"p.topic_id = '{TOPIC_ID}' AND p.kafka_partition = 0"
    columns = ", ".join(n for n, _ in LOAD_COLUMNS)
    converted = ", ".join("SAFE.PARSE_JSON(l.value)" if n == "value" else
                          "SAFE.PARSE_JSON(l.headers)" if n == "headers" else
                          "TIMESTAMP_MILLIS(l.kafka_timestamp)" if n == "kafka_timestamp" else f"l.{n}"
                          for n, _ in LOAD_COLUMNS)
    return ("BEGIN TRANSACTION;\n"
            f"SELECT IF((SELECT COUNT(*) FROM w.positions AS p WHERE {same} AND p.next_offset = {first}) <> 1, "
            "ERROR('krow-fence: moved'), 0);\n"
            f"UPDATE w.positions AS p SET next_offset = {last + 1} WHERE {same};\n"
            f"INSERT INTO w.target ({columns}) SELECT {converted} FROM w.{table} AS l;\n"
            "COMMIT TRANSACTION;")


def run(emu: Emulator, path: str, total: int, batch: int) -> dict:
    if emu.http.get(f"{emu.api}/datasets/w").status_code == 404:
        emu.checked(emu.http.post(f"{emu.api}/datasets",
                                  json={"datasetReference": {"projectId": emu.project, "datasetId": "w"}}))
    for t in ("target", "positions"):
        emu.drop(t)
    emu.table("target", [(n, TARGET_TYPES.get(n, t)) for n, t in LOAD_COLUMNS])
    emu.table("positions", [("topic_id", "STRING"), ("kafka_partition", "INT64"), ("next_offset", "INT64")])
    emu.query(f"INSERT INTO w.positions VALUES ('{TOPIC_ID}', 0, 0)")
    descriptor, message = row_message()
    batches = []
    for first in range(0, total, batch):  # encoded before the clock starts
        rows = make_rows(first, min(batch, total - first))
        if path == "load job":
            encoded = ("\n".join(json.dumps(r, separators=(",", ":")) for r in rows) + "\n").encode()
        else:
            encoded = [message(**r).SerializeToString() for r in rows]
        batches.append((first, first + len(rows) - 1, encoded))
    write_s = transaction_s = 0.0
    start = time.monotonic()
    for n, (first, last, encoded) in enumerate(batches):
        table = f"load_{n}"
        t0 = time.monotonic()
        if path == "load job":
            emu.load(table, encoded)
        else:
            emu.table(table, LOAD_COLUMNS)
            emu.stream_write(table, "PENDING" if path == "pending stream" else "COMMITTED", descriptor, encoded)
        t1 = time.monotonic()
        emu.query(transaction(table, first, last))
        emu.drop(table)
        write_s += t1 - t0
        transaction_s += time.monotonic() - t1
    wall = time.monotonic() - start
    stored = int(emu.query("SELECT COUNT(*) FROM w.target")["rows"][0]["f"][0]["v"])
    if stored != total:
        sys.exit(f"[write paths] {path}: {stored} rows stored, {total} written")
    return {"rows": total, "batches": len(batches), "wall_s": round(wall, 3), "write_s": round(write_s, 3),
            "transaction_s": round(transaction_s, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rest", default="http://127.0.0.1:9050", help="the emulator's REST endpoint")
    ap.add_argument("--grpc", default="127.0.0.1:9060", help="the emulator's gRPC endpoint (Storage Write)")
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows of the bulk scenario")
    ap.add_argument("--batch", type=int, default=40960, help="rows per batch (krow's batch.max_messages)")
    ap.add_argument("--trickle", type=int, default=50, help="batches of 10 rows in the trickle scenario")
    args = ap.parse_args()
    stamp = time.strftime("%Y%m%d%H%M%S")
    for path in ("load job", "pending stream", "committed stream"):
        for label, total, batch in (("bulk", args.rows, args.batch), ("trickle", args.trickle * 10, 10)):
            emu = Emulator(args.rest, args.grpc, f"krow-bench-{stamp}-{label}-{path.split()[0]}")
            figures = run(emu, path, total, batch)
            print(json.dumps({"scenario": f"{path}, {label}", "path": path, "kind": label, **figures}), flush=True)


if __name__ == "__main__":
    main()
