#!/usr/bin/env python3
"""Produces reference messages with Confluent's own serializers, for krow's integration tests.

    py=$(tests/reference/setup_venv.sh)
    "$py" tests/reference/produce.py [options] SCENARIO TOPIC
    "$py" tests/reference/produce.py --list

The topic is created if it does not exist. Each produced message gives one JSON line on
stdout, in produce order:

    {"partition": 0, "offset": 5, "schema_id": 3, "key": "k1", "expected": {...}}

`expected` is the JSON value krow must store in the row's `value` column (SPEC.md §3: bytes
as base64, Protobuf 64-bit integers as strings, Avro longs as numbers, Protobuf fields under
their .proto names with default values present, enums by name); `key` is the key's text
(null for no key); `schema_id` is the ID written in the message's framing header.
Progress and errors go to stderr; the exit status is 0 only if every message was delivered.

Protobuf schemas reach the registry as .proto text by default, as Confluent's registry would
store them (see ProtoTextRegistry); --protobuf-schema descriptor keeps the Python
serializer's base64 FileDescriptorProto, which Apicurio stores and serves unchanged.

Defaults match scripts/kafka.sh and scripts/registry.sh: PLAINTEXT 127.0.0.1:9092 and
https://127.0.0.1:8081 as registry/registry-secret, CA <services>/registry/tls/ca.pem.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable

from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.serialization import MessageField, SerializationContext, StringSerializer

ROOT = pathlib.Path(__file__).resolve().parents[2]
SERVICES = pathlib.Path(os.environ.get("KROW_SERVICES_DIR", ROOT / ".services"))


def log(msg: str) -> None:
    print(f"[reference] {msg}", file=sys.stderr, flush=True)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


@dataclass
class Message:
    key: str | None
    value: Any  # what the serializer takes
    expected: Any  # what krow must store


@dataclass
class Scenario:
    name: str
    description: str
    # Builds (value serializer, messages) once the registry client exists.
    build: Callable[[SchemaRegistryClient, dict], tuple[Callable[[Any, SerializationContext], bytes], list[Message]]]
    serializer_conf: dict = field(default_factory=dict)


SCENARIOS: dict[str, Scenario] = {}


def scenario(name: str, description: str):
    def register(fn):
        SCENARIOS[name] = Scenario(name, description, fn)
        return fn

    return register


# --- Avro -------------------------------------------------------------------------------

AVRO_BASIC_SCHEMA = {
    "type": "record",
    "name": "Primitives",
    "namespace": "krow.reference",
    "fields": [
        {"name": "f_null", "type": "null"},
        {"name": "f_boolean", "type": "boolean"},
        {"name": "f_int", "type": "int"},
        {"name": "f_long", "type": "long"},
        {"name": "f_float", "type": "float"},
        {"name": "f_double", "type": "double"},
        {"name": "f_bytes", "type": "bytes"},
        {"name": "f_string", "type": "string"},
        {"name": "f_optional", "type": ["null", "string"], "default": None},
    ],
}


@scenario("avro-basic", "Avro record with every primitive type and a nullable union; string keys")
def avro_basic(registry: SchemaRegistryClient, conf: dict):
    from confluent_kafka.schema_registry.avro import AvroSerializer

    # Floats are exactly representable in 32 bits, so their JSON text is not in question.
    rows = [
        ("k1", dict(f_null=None, f_boolean=True, f_int=42, f_long=9007199254740993, f_float=1.5,
                    f_double=2.718281828459045, f_bytes=b"\x00\x01\xfekrow", f_string="héllo ✓",
                    f_optional="present")),
        ("k2", dict(f_null=None, f_boolean=False, f_int=-2147483648, f_long=-9223372036854775808,
                    f_float=-0.25, f_double=-1e-300, f_bytes=b"", f_string="", f_optional=None)),
        ("k3", dict(f_null=None, f_boolean=True, f_int=2147483647, f_long=9223372036854775807,
                    f_float=1024.0, f_double=1.7976931348623157e308, f_bytes=bytes(range(256)),
                    f_string='quote " backslash \\ newline \n tab \t', f_optional="")),
    ]
    messages = []
    for key, value in rows:
        expected = dict(value)
        expected["f_bytes"] = b64(value["f_bytes"])
        messages.append(Message(key, value, expected))
    serializer = AvroSerializer(registry, json.dumps(AVRO_BASIC_SCHEMA), conf=serializer_conf(conf))
    return serializer, messages


# --- Protobuf ---------------------------------------------------------------------------

PROTOBUF_BASIC_FILE = "krow/reference/order.proto"
PROTOBUF_BASIC = """\
syntax = "proto3";
package krow.reference;

// Listed first, so that Order's message index is [1], not the [0] shortcut.
message Address {
  string street = 1;
  string city = 2;
}

message Order {
  enum Status {
    STATUS_UNSPECIFIED = 0;
    PLACED = 1;
    SHIPPED = 2;
  }
  message Line {
    string sku = 1;
    int32 quantity = 2;
  }
  int64 id = 1;
  string customer = 2;
  Status status = 3;
  Line line = 4;
  Address shipping = 5;
  uint64 total_cents = 6;
  bytes note = 7;
}
"""


def compile_proto(files: dict[str, str]):
    """Compiles .proto sources with protoc into a private descriptor pool.

    Returns that pool. The descriptors come from protoc's FileDescriptorSet, so no generated
    _pb2 code (and no protoc/runtime version pairing) is involved.
    """
    from google.protobuf import descriptor_pb2, descriptor_pool

    protoc = shutil.which("protoc")
    if protoc is None:
        raise SystemExit("protoc not found (Debian: apt-get install protobuf-compiler)")
    with tempfile.TemporaryDirectory(prefix="krow-proto-") as tmp:
        for name, text in files.items():
            path = pathlib.Path(tmp, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        out = pathlib.Path(tmp, "set.pb")
        subprocess.run([protoc, f"--proto_path={tmp}", f"--descriptor_set_out={out}", "--include_imports",
                        *files.keys()], check=True, cwd=tmp)
        fds = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:  # dependencies come first
        pool.AddSerializedFile(f.SerializeToString())
    return pool


class ProtoTextRegistry:
    """Wraps a SchemaRegistryClient so that Protobuf schemas go to the registry as .proto text.

    Confluent's Python ProtobufSerializer sends each file as a base64-encoded
    FileDescriptorProto. Confluent's registry turns that into .proto text when it stores it
    (and the Java serializer sends text in the first place), so its clients read text back;
    Apicurio stores and returns the base64 unchanged. With this wrapper the registry gets the
    .proto source the descriptors were compiled from (same files, same references, same
    subjects), as a client of Confluent's registry would see it. Everything else, including
    the bytes of each message, is the serializer's own.
    """

    def __init__(self, inner: SchemaRegistryClient, sources: dict[str, str]):
        from google.protobuf import descriptor_pb2

        self._inner = inner
        self._text_of: dict[str, str] = {}  # base64 descriptor -> .proto text
        self._sources = sources
        self._descriptor_pb2 = descriptor_pb2

    def _text(self, schema):
        from confluent_kafka.schema_registry import Schema

        if schema.schema_type != "PROTOBUF" or not schema.schema_str:
            return schema
        try:
            fd = self._descriptor_pb2.FileDescriptorProto.FromString(base64.b64decode(schema.schema_str, validate=True))
        except Exception:
            return schema  # already text
        text = self._sources.get(fd.name)
        if text is None:
            raise SystemExit(f"internal error: no .proto source for {fd.name}")
        return Schema(text, "PROTOBUF", schema.references, schema.metadata, schema.rule_set)

    def register_schema(self, subject_name, schema, normalize_schemas=False):
        return self._inner.register_schema(subject_name, self._text(schema), normalize_schemas)

    def register_schema_full_response(self, subject_name, schema, normalize_schemas=False):
        return self._inner.register_schema_full_response(subject_name, self._text(schema), normalize_schemas)

    def lookup_schema(self, subject_name, schema, *args, **kwargs):
        return self._inner.lookup_schema(subject_name, self._text(schema), *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._inner, name)


def protobuf_registry(registry: SchemaRegistryClient, conf: dict, sources: dict[str, str]):
    if conf.get("_protobuf_schema", "text") == "text":
        return ProtoTextRegistry(registry, sources)
    return registry


def serializer_conf(conf: dict) -> dict:
    return {k: v for k, v in conf.items() if not k.startswith("_")}


def message_class(pool, full_name: str):
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(pool.FindMessageTypeByName(full_name))


def check_protobuf_expected(msg, expected: dict) -> None:
    """Cross-checks a hand-written expectation against protobuf's own JSON mapping."""
    from google.protobuf import json_format

    mapped = json_format.MessageToDict(msg, preserving_proto_field_name=True,
                                       always_print_fields_with_no_presence=True)
    if mapped != expected:
        raise SystemExit(f"internal error: expected {expected} but protobuf maps the message to {mapped}")


@scenario("protobuf-basic", "Protobuf message with nested message, int64, uint64, enum, bytes; index [1]; no key")
def protobuf_basic(registry: SchemaRegistryClient, conf: dict):
    from google.protobuf import json_format
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer

    pool = compile_proto({PROTOBUF_BASIC_FILE: PROTOBUF_BASIC})
    Order = message_class(pool, "krow.reference.Order")
    inputs = [
        ({"id": "9223372036854775807", "customer": "Zoë", "status": "SHIPPED",
          "line": {"sku": "A-1", "quantity": 3}, "shipping": {"street": "1 Main St", "city": "Springfield"},
          "total_cents": "18446744073709551615", "note": b64(b"\x00\xff")},
         {"id": "9223372036854775807", "customer": "Zoë", "status": "SHIPPED",
          "line": {"sku": "A-1", "quantity": 3}, "shipping": {"street": "1 Main St", "city": "Springfield"},
          "total_cents": "18446744073709551615", "note": "AP8="}),
        # Negative int64; the nested message `shipping` is unset (omitted), `line` is set but
        # empty (its fields at their defaults, which are printed).
        ({"id": "-42", "customer": "B", "status": "PLACED", "line": {}, "total_cents": "1"},
         {"id": "-42", "customer": "B", "status": "PLACED", "line": {"sku": "", "quantity": 0},
          "total_cents": "1", "note": ""}),
        # Every field at its default: an empty payload after the framing and index.
        ({},
         {"id": "0", "customer": "", "status": "STATUS_UNSPECIFIED", "total_cents": "0", "note": ""}),
    ]
    messages = []
    for value, expected in inputs:
        msg = json_format.ParseDict(value, Order())
        check_protobuf_expected(msg, expected)
        messages.append(Message(None, msg, expected))
    registry = protobuf_registry(registry, conf, {PROTOBUF_BASIC_FILE: PROTOBUF_BASIC})
    serializer = ProtobufSerializer(Order, registry, conf=serializer_conf(conf))
    return serializer, messages


PROTOBUF_REFS_COMMON_FILE = "krow/reference/common.proto"
PROTOBUF_REFS_COMMON = """\
syntax = "proto3";
package krow.reference.common;

message Money {
  string currency = 1;
  int64 units = 2;
  int32 nanos = 3;
}
"""

PROTOBUF_REFS_FILE = "krow/reference/invoice.proto"
PROTOBUF_REFS = """\
syntax = "proto3";
package krow.reference;

import "krow/reference/common.proto";
import "google/protobuf/timestamp.proto";

message Invoice {
  string number = 1;
  krow.reference.common.Money amount = 2;
  google.protobuf.Timestamp issued_at = 3;
  repeated krow.reference.common.Money parts = 4;
}
"""


@scenario("protobuf-refs", "Protobuf schema with a reference to another subject "
          "(krow/reference/common.proto) and google/protobuf/timestamp.proto (built in, no reference)")
def protobuf_refs(registry: SchemaRegistryClient, conf: dict):
    from google.protobuf import json_format
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer

    sources = {PROTOBUF_REFS_COMMON_FILE: PROTOBUF_REFS_COMMON, PROTOBUF_REFS_FILE: PROTOBUF_REFS}
    pool = compile_proto(sources)
    Invoice = message_class(pool, "krow.reference.Invoice")
    inputs = [
        ({"number": "INV-1", "amount": {"currency": "EUR", "units": "12", "nanos": 500000000},
          "issued_at": "2024-01-02T03:04:05Z",
          "parts": [{"currency": "EUR", "units": "10"}, {"currency": "EUR", "units": "2", "nanos": 500000000}]},
         {"number": "INV-1", "amount": {"currency": "EUR", "units": "12", "nanos": 500000000},
          "issued_at": "2024-01-02T03:04:05Z",
          "parts": [{"currency": "EUR", "units": "10", "nanos": 0},
                    {"currency": "EUR", "units": "2", "nanos": 500000000}]}),
        ({"number": "INV-2", "issued_at": "1970-01-01T00:00:00.123Z"},
         {"number": "INV-2", "issued_at": "1970-01-01T00:00:00.123Z", "parts": []}),
        ({"number": "INV-3", "amount": {"currency": "USD", "units": "-9223372036854775808"}},
         {"number": "INV-3", "amount": {"currency": "USD", "units": "-9223372036854775808", "nanos": 0},
          "parts": []}),
    ]
    messages = []
    for value, expected in inputs:
        msg = json_format.ParseDict(value, Invoice())
        check_protobuf_expected(msg, expected)
        messages.append(Message(f"inv-{len(messages) + 1}", msg, expected))
    registry = protobuf_registry(registry, conf, sources)
    serializer = ProtobufSerializer(Invoice, registry, conf=serializer_conf(conf))
    return serializer, messages


# --- JSON Schema ------------------------------------------------------------------------

JSON_SCHEMA_BASIC = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Customer",
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "score": {"type": "number"},
        "active": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "address": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "zip": {"type": ["string", "null"]}},
            "required": ["city"],
        },
        "nickname": {"type": ["string", "null"]},
    },
    "required": ["id", "name"],
    "additionalProperties": False,
}


@scenario("json-schema-basic", "JSON Schema (draft-07) object with nested object, array, nulls; string keys")
def json_schema_basic(registry: SchemaRegistryClient, conf: dict):
    from confluent_kafka.schema_registry.json_schema import JSONSerializer

    values = [
        {"id": 1, "name": "Ada", "score": 99.5, "active": True, "tags": ["a", "b"],
         "address": {"city": "London", "zip": "N1"}, "nickname": None},
        {"id": 9007199254740993, "name": "Grace \u00e9\u2713", "score": -0.001, "active": False, "tags": [],
         "address": {"city": "Arlington", "zip": None}},
        {"id": -7, "name": ""},
    ]
    messages = [Message(f"c{i + 1}", v, v) for i, v in enumerate(values)]
    serializer = JSONSerializer(json.dumps(JSON_SCHEMA_BASIC), registry, conf=serializer_conf(conf))
    return serializer, messages


# --- producing --------------------------------------------------------------------------

def ensure_topic(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)],
                                  operation_timeout=30, request_timeout=30)
    try:
        futures[topic].result()
        log(f"created topic {topic} ({partitions} partition(s))")
    except KafkaException as e:
        if e.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
            raise


def schema_id_of(payload: bytes) -> int:
    if len(payload) < 5 or payload[0] != 0:
        raise SystemExit(f"internal error: serializer output is not Confluent-framed: {payload[:8]!r}")
    return int.from_bytes(payload[1:5], "big")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bootstrap", default="127.0.0.1:9092", help="Kafka bootstrap servers (PLAINTEXT)")
    p.add_argument("--registry", default="https://127.0.0.1:8081", help="schema registry URL")
    p.add_argument("--registry-auth", default="registry:registry-secret", help="USER:PASSWORD, or '' for none")
    p.add_argument("--ca", default=str(SERVICES / "registry" / "tls" / "ca.pem"),
                   help="CA file for an https registry")
    p.add_argument("--partitions", type=int, default=1, help="partitions when the topic is created")
    p.add_argument("--protobuf-schema", choices=("text", "descriptor"), default="text",
                   help="how Protobuf schemas reach the registry: .proto text, as Confluent's registry "
                        "stores them (default), or the Python serializer's own base64 FileDescriptorProto, "
                        "which Apicurio keeps as is")
    p.add_argument("--list", action="store_true", help="list the scenarios and exit")
    p.add_argument("scenario", nargs="?")
    p.add_argument("topic", nargs="?")
    args = p.parse_args(argv)

    if args.list:
        for s in SCENARIOS.values():
            print(f"{s.name}\t{s.description}")
        return 0
    if not args.scenario or not args.topic:
        p.error("SCENARIO and TOPIC are required")
    if args.scenario not in SCENARIOS:
        p.error(f"unknown scenario {args.scenario!r}; known: {', '.join(SCENARIOS)}")

    sr_conf: dict[str, Any] = {"url": args.registry}
    if args.registry.startswith("https:") and args.ca:
        sr_conf["ssl.ca.location"] = args.ca
    if args.registry_auth:
        sr_conf["basic.auth.user.info"] = args.registry_auth
    registry = SchemaRegistryClient(sr_conf)

    sc = SCENARIOS[args.scenario]
    serializer, messages = sc.build(registry, {"auto.register.schemas": True,
                                               "_protobuf_schema": args.protobuf_schema})
    key_serializer = StringSerializer("utf_8")

    # Serialize first: a registry problem then stops us before anything is created or produced.
    ctx_value = SerializationContext(args.topic, MessageField.VALUE)
    ctx_key = SerializationContext(args.topic, MessageField.KEY)
    records = [(key_serializer(m.key, ctx_key) if m.key is not None else None, serializer(m.value, ctx_value))
               for m in messages]

    ensure_topic(args.bootstrap, args.topic, args.partitions)
    producer = Producer({"bootstrap.servers": args.bootstrap, "enable.idempotence": True, "acks": "all",
                         "linger.ms": 5})

    results: list[dict | None] = [None] * len(messages)
    errors: list[str] = []

    def on_delivery(i: int, schema_id: int, m: Message):
        def cb(err, record):
            if err is not None:
                errors.append(f"message {i}: {err}")
                return
            results[i] = {"partition": record.partition(), "offset": record.offset(), "schema_id": schema_id,
                          "key": m.key, "expected": m.expected}
        return cb

    for i, (m, (key, value)) in enumerate(zip(messages, records)):
        producer.produce(args.topic, key=key, value=value, on_delivery=on_delivery(i, schema_id_of(value), m))
        producer.poll(0)
    left = producer.flush(30)
    if left:
        errors.append(f"{left} message(s) not delivered within 30s")
    for r in results:
        if r is not None:
            print(json.dumps(r, ensure_ascii=False), flush=True)
    if errors:
        for e in errors:
            log(e)
        return 1
    log(f"{args.scenario}: produced {len(messages)} message(s) to {args.topic}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as e:  # one readable line instead of a traceback; KROW_DEBUG=1 for it
        if os.environ.get("KROW_DEBUG"):
            raise
        log(f"error: {type(e).__name__}: {e}")
        sys.exit(1)
