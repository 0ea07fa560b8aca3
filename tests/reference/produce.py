#!/usr/bin/env python3
"""Produces reference messages with Confluent's own serializers, for krow's integration tests.

    py=$(tests/reference/setup_venv.sh)
    "$py" tests/reference/produce.py [options] SCENARIO TOPIC
    "$py" tests/reference/produce.py --list

The topic is created if it does not exist. Each produced message gives one JSON line on
stdout, in produce order:

    {"partition": 0, "offset": 5, "schema_id": 3, "key": "k1", "key_schema_id": null,
     "expected": {...}, "expected_key": "k1"}

`expected` is the JSON value krow must store in the row's `value` column (docs/row-contract.md: bytes
as base64, Protobuf 64-bit integers as strings, Avro longs as numbers, Protobuf fields under
their .proto names with default values present, enums by name); `schema_id` is the ID written
in the value's framing header. `expected_key` is the text krow must store in the `key` column
(null for no key): the key's own text, or for a schema-encoded key the decoded key as JSON
text. `key` is the key's text, or for a schema-encoded key the decoded key as a JSON value;
`key_schema_id` is the ID in the key's framing header (null unless the key is
schema-encoded). Expectations are written by hand; where Confluent's deserializers can read
the bytes back, each message is cross-checked against them before anything is produced.
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
    key: Any  # what the key serializer takes: the key's text for plain keys (None: no key)
    value: Any  # what the serializer takes
    expected: Any  # what krow must store
    # Schema-encoded keys: the `key` column's text (JSON text of the decoded key). Plain keys: None
    # (the key's own text is stored).
    expected_key: str | None = None


Serializer = Callable[[Any, SerializationContext], bytes]


@dataclass
class Built:
    """What a scenario's build function returns (a plain (serializer, messages) pair also does)."""

    serializer: Serializer  # values
    messages: list[Message]
    key_serializer: Serializer | None = None  # schema-encoded keys; None: keys are UTF-8 text
    # Cross-check against Confluent's deserializers: verify(message, key bytes, value bytes)
    # raises SystemExit when what they read back disagrees with the hand-written expectation.
    verify: Callable[[Message, bytes | None, bytes], None] | None = None


@dataclass
class Scenario:
    name: str
    description: str
    # Builds the serializers and messages (a Built, or a (value serializer, messages) pair)
    # once the registry client exists.
    build: Callable[[SchemaRegistryClient, dict], Built | tuple[Serializer, list[Message]]]
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
    return Built(serializer, messages, verify=avro_verifier(registry))


def check_avro_expected(decoded: Any, expected: Any, path: str = "$") -> None:
    """Cross-checks a hand-written expectation against what Confluent's AvroDeserializer read.

    The deserializer gives Python values (Decimal, datetime, date, time, UUID, bytes, float);
    each is compared with the JSON text krow must write for it. Timestamps compare as instants
    (with a Z exactly when the deserializer's value is UTC, that is for timestamp-* and not
    local-timestamp-*), with 3 or 6 fraction digits; how many is fixed by the schema, which the
    value does not show.
    """
    import datetime
    import decimal
    import math
    import uuid

    def fraction_ok(text: str) -> bool:
        frac = text.rstrip("Z").partition(".")[2]
        return len(frac) in (3, 6) and frac.isdigit()

    if isinstance(decoded, dict):
        ok = isinstance(expected, dict) and list(expected) == list(decoded)
        if ok:
            for k, v in decoded.items():
                check_avro_expected(v, expected[k], f"{path}.{k}")
            return
    elif isinstance(decoded, list):
        ok = isinstance(expected, list) and len(expected) == len(decoded)
        if ok:
            for i, (d, e) in enumerate(zip(decoded, expected)):
                check_avro_expected(d, e, f"{path}[{i}]")
            return
    elif decoded is None or isinstance(decoded, bool):
        ok = expected is decoded
    elif isinstance(decoded, float):
        if math.isnan(decoded):
            ok = expected == "NaN"
        elif math.isinf(decoded):
            ok = expected == ("Infinity" if decoded > 0 else "-Infinity")
        else:
            ok = type(expected) in (int, float) and expected == decoded
    elif isinstance(decoded, int):
        ok = type(expected) is int and expected == decoded
    elif isinstance(decoded, bytes):
        ok = expected == b64(decoded)
    elif isinstance(decoded, decimal.Decimal):
        ok = expected == format(decoded, "f")
    elif isinstance(decoded, datetime.datetime):
        ok = (isinstance(expected, str) and expected.endswith("Z") == (decoded.tzinfo is not None)
              and fraction_ok(expected) and datetime.datetime.fromisoformat(expected) == decoded)
    elif isinstance(decoded, datetime.date):
        ok = expected == decoded.isoformat()
    elif isinstance(decoded, datetime.time):
        ok = isinstance(expected, str) and fraction_ok(expected) and datetime.time.fromisoformat(expected) == decoded
    elif isinstance(decoded, uuid.UUID):
        ok = expected == str(decoded)
    else:
        ok = type(expected) is type(decoded) and expected == decoded
    if not ok:
        raise SystemExit(f"internal error: at {path} expected {expected!r} but Confluent's deserializer "
                         f"read {decoded!r}")


def avro_verifier(registry: SchemaRegistryClient, value_schema_name: str | None = None):
    """Reads each Avro value (and schema-encoded key) back with Confluent's AvroDeserializer,
    which fetches the writer schema by the ID in the framing (references included), and checks
    it against the expectations. With value_schema_name, also checks that the ID on the wire is
    that of the schema with this full name (the main schema, not one it references).
    """
    from confluent_kafka.schema_registry.avro import AvroDeserializer

    deserializer = AvroDeserializer(registry)

    def verify(m: Message, key: bytes | None, value: bytes) -> None:
        check_avro_expected(deserializer(value, None), m.expected)
        if m.expected_key is not None:
            check_avro_expected(deserializer(key, None), json.loads(m.expected_key), "$key")
        if value_schema_name is not None:
            schema = registry.get_schema(schema_id_of(value))
            parsed = json.loads(schema.schema_str)
            name = f"{parsed.get('namespace')}.{parsed['name']}" if "." not in parsed["name"] else parsed["name"]
            if name != value_schema_name or not schema.references:
                raise SystemExit(f"internal error: wire schema ID {schema_id_of(value)} is {name} "
                                 f"(references {schema.references}), not {value_schema_name}")

    return verify


AVRO_LOGICAL_SCHEMA = {
    "type": "record",
    "name": "Logical",
    "namespace": "krow.reference",
    "fields": [
        {"name": "dec_bytes", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
        {"name": "dec_wide", "type": {"type": "bytes", "logicalType": "decimal", "precision": 38, "scale": 10}},
        # No "scale": it defaults to 0, so the text has no decimal point.
        {"name": "dec_int", "type": {"type": "bytes", "logicalType": "decimal", "precision": 20}},
        {"name": "dec_fixed", "type": {"type": "fixed", "name": "Dec16", "size": 16, "logicalType": "decimal",
                                       "precision": 38, "scale": 4}},
        {"name": "uuid", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "t_millis", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "t_micros", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "ts_millis", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "ts_micros", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "local_millis", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
        {"name": "local_micros", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
        {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE"]}},
        {"name": "hash", "type": {"type": "fixed", "name": "Hash4", "size": 4}},
        {"name": "counts", "type": {"type": "map", "values": "long"}},
        {"name": "items", "type": {"type": "array", "items": {
            "type": "record", "name": "Item", "fields": [
                {"name": "sku", "type": "string"},
                {"name": "qty", "type": "int"},
                {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
            ]}}},
        {"name": "nested", "type": {"type": "record", "name": "Outer", "fields": [
            {"name": "label", "type": "string"},
            {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [
                {"name": "depth", "type": "int"},
                {"name": "color", "type": "Color"},  # a named type used again, by name
                {"name": "at", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}]},
            ]}},
        ]}},
        {"name": "choice", "type": ["null", "string", "long", {"type": "record", "name": "Point", "fields": [
            {"name": "x", "type": "double"}, {"name": "y", "type": "double"}]}]},
        {"name": "f_float", "type": "float"},
        {"name": "f_double", "type": "double"},
    ],
}


@scenario("avro-logical", "Avro logical types (decimal on bytes and fixed, uuid, date, time-*, timestamp-*, "
          "local-timestamp-*), enum, fixed, map, array of records, nested records, a 4-branch union, "
          "NaN/Infinity; string keys")
def avro_logical(registry: SchemaRegistryClient, conf: dict):
    from decimal import Decimal
    from confluent_kafka.schema_registry.avro import AvroSerializer

    # Dates, times and timestamps go in as the integers on the wire (days, ms or µs), so that
    # the expectations below are the only place their text is worked out. Floats are exactly
    # representable in 32 bits (their text is not in question).
    rows = [
        ("l1",
         dict(dec_bytes=Decimal("-1234.50"), dec_wide=Decimal("1234567890123456789012345678.9012345678"),
              dec_int=Decimal("12345678901234567890"), dec_fixed=Decimal("9999999999999999999999999999999999.9999"),
              uuid="1b4e28ba-2fa1-11d2-883f-0016d3cca427",
              day=19782,  # 2024-02-29
              t_millis=45296789, t_micros=45296789012,  # 12:34:56.789(012)
              ts_millis=1709210096789, ts_micros=1709210096789012,  # 2024-02-29T12:34:56.789(012)
              local_millis=1709210096789, local_micros=1709210096789012,
              color="GREEN", hash=b"\xde\xad\xbe\xef",
              counts={"a": 1, "zé": -9223372036854775808, "max": 9223372036854775807},
              items=[dict(sku="A-1", qty=2, price=Decimal("19.99")), dict(sku="B-2", qty=-1, price=Decimal("-0.01"))],
              nested=dict(label="outer", inner=dict(depth=1, color="BLUE", at=0)),
              choice=None, f_float=float("nan"), f_double=float("inf")),
         dict(dec_bytes="-1234.50", dec_wide="1234567890123456789012345678.9012345678",
              dec_int="12345678901234567890", dec_fixed="9999999999999999999999999999999999.9999",
              uuid="1b4e28ba-2fa1-11d2-883f-0016d3cca427", day="2024-02-29",
              t_millis="12:34:56.789", t_micros="12:34:56.789012",
              ts_millis="2024-02-29T12:34:56.789Z", ts_micros="2024-02-29T12:34:56.789012Z",
              local_millis="2024-02-29T12:34:56.789", local_micros="2024-02-29T12:34:56.789012",
              color="GREEN", hash="3q2+7w==",
              counts={"a": 1, "zé": -9223372036854775808, "max": 9223372036854775807},
              items=[dict(sku="A-1", qty=2, price="19.99"), dict(sku="B-2", qty=-1, price="-0.01")],
              nested=dict(label="outer", inner=dict(depth=1, color="BLUE", at="1970-01-01T00:00:00.000Z")),
              choice=None, f_float="NaN", f_double="Infinity")),
        # Before 1970: negative days and timestamps (-1 is the last ms/µs of 1969); zeros.
        ("l2",
         dict(dec_bytes=Decimal("0.05"), dec_wide=Decimal("-0.0000000001"), dec_int=Decimal("-1"),
              dec_fixed=Decimal("-9999999999999999999999999999999999.9999"),
              uuid="00000000-0000-0000-0000-000000000000",
              day=-1, t_millis=0, t_micros=0, ts_millis=-1, ts_micros=-1, local_millis=-1, local_micros=-1,
              color="RED", hash=b"\x00\x00\x00\x00", counts={}, items=[],
              nested=dict(label="", inner=dict(depth=-2147483648, color="RED", at=None)),
              choice="42", f_float=float("-inf"), f_double=float("nan")),
         dict(dec_bytes="0.05", dec_wide="-0.0000000001", dec_int="-1",
              dec_fixed="-9999999999999999999999999999999999.9999",
              uuid="00000000-0000-0000-0000-000000000000",
              day="1969-12-31", t_millis="00:00:00.000", t_micros="00:00:00.000000",
              ts_millis="1969-12-31T23:59:59.999Z", ts_micros="1969-12-31T23:59:59.999999Z",
              local_millis="1969-12-31T23:59:59.999", local_micros="1969-12-31T23:59:59.999999",
              color="RED", hash="AAAAAA==", counts={}, items=[],
              nested=dict(label="", inner=dict(depth=-2147483648, color="RED", at=None)),
              choice="42", f_float="-Infinity", f_double="NaN")),
        # Extremes: years 1 and 9999, the last ms/µs of a day, the widest decimals.
        ("l3",
         dict(dec_bytes=Decimal("0.00"), dec_wide=Decimal("-9999999999999999999999999999.9999999999"),
              dec_int=Decimal("99999999999999999999"), dec_fixed=Decimal("-0.0001"),
              uuid="ffffffff-ffff-ffff-ffff-ffffffffffff",
              day=-719162,  # 0001-01-01
              t_millis=86399999, t_micros=86399999999,
              ts_millis=-62135596800000,  # 0001-01-01T00:00:00.000Z
              ts_micros=253402300799999999,  # 9999-12-31T23:59:59.999999Z
              local_millis=253402300799999,  # 9999-12-31T23:59:59.999
              local_micros=-62135596800000000,  # 0001-01-01T00:00:00.000000
              color="BLUE", hash=b"\xff\xfe\xfd\xfc", counts={"": 0},
              items=[dict(sku="", qty=0, price=Decimal("0.00"))],
              nested=dict(label="\u2603", inner=dict(depth=2147483647, color="GREEN", at=-1)),
              choice=-9223372036854775808, f_float=16777216.0, f_double=5e-324),
         dict(dec_bytes="0.00", dec_wide="-9999999999999999999999999999.9999999999",
              dec_int="99999999999999999999", dec_fixed="-0.0001",
              uuid="ffffffff-ffff-ffff-ffff-ffffffffffff",
              day="0001-01-01", t_millis="23:59:59.999", t_micros="23:59:59.999999",
              ts_millis="0001-01-01T00:00:00.000Z", ts_micros="9999-12-31T23:59:59.999999Z",
              local_millis="9999-12-31T23:59:59.999", local_micros="0001-01-01T00:00:00.000000",
              color="BLUE", hash="//79/A==", counts={"": 0},
              items=[dict(sku="", qty=0, price="0.00")],
              nested=dict(label="\u2603", inner=dict(depth=2147483647, color="GREEN", at="1969-12-31T23:59:59.999Z")),
              choice=-9223372036854775808, f_float=16777216.0, f_double=5e-324)),
        # The record branch of the union; two's-complement boundaries (-128, 255 unscaled).
        ("l4",
         dict(dec_bytes=Decimal("-1.28"), dec_wide=Decimal("1.0000000000"), dec_int=Decimal("255"),
              dec_fixed=Decimal("0.0000"), uuid="123e4567-e89b-12d3-a456-426614174000",
              day=2932896,  # 9999-12-31
              t_millis=1, t_micros=1, ts_millis=0, ts_micros=0, local_millis=0, local_micros=0,
              color="GREEN", hash=b"krow", counts={"k": -1},
              items=[dict(sku="x", qty=1, price=Decimal("1.00")), dict(sku="y", qty=2, price=Decimal("-1.28")),
                     dict(sku="z", qty=3, price=Decimal("2.55"))],
              nested=dict(label="l4", inner=dict(depth=0, color="RED", at=1709210096789)),
              choice={"x": 1.5, "y": -2.25}, f_float=0.5, f_double=-1.7976931348623157e308),
         dict(dec_bytes="-1.28", dec_wide="1.0000000000", dec_int="255", dec_fixed="0.0000",
              uuid="123e4567-e89b-12d3-a456-426614174000", day="9999-12-31",
              t_millis="00:00:00.001", t_micros="00:00:00.000001",
              ts_millis="1970-01-01T00:00:00.000Z", ts_micros="1970-01-01T00:00:00.000000Z",
              local_millis="1970-01-01T00:00:00.000", local_micros="1970-01-01T00:00:00.000000",
              color="GREEN", hash="a3Jvdw==", counts={"k": -1},
              items=[dict(sku="x", qty=1, price="1.00"), dict(sku="y", qty=2, price="-1.28"),
                     dict(sku="z", qty=3, price="2.55")],
              nested=dict(label="l4", inner=dict(depth=0, color="RED", at="2024-02-29T12:34:56.789Z")),
              choice={"x": 1.5, "y": -2.25}, f_float=0.5, f_double=-1.7976931348623157e308)),
    ]
    messages = [Message(key, value, expected) for key, value, expected in rows]
    serializer = AvroSerializer(registry, json.dumps(AVRO_LOGICAL_SCHEMA), conf=serializer_conf(conf))
    return Built(serializer, messages, verify=avro_verifier(registry))


AVRO_TYPED_SCHEMA = {
    "type": "record",
    "name": "Order",
    "namespace": "krow.typed",
    "fields": [
        {"name": "id", "type": "int"},
        {"name": "count", "type": "long"},
        {"name": "score", "type": "double"},
        {"name": "paid", "type": "boolean"},
        {"name": "status", "type": "string"},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}},
        {"name": "placed_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
            {"name": "name", "type": "string"},
            {"name": "since", "type": {"type": "int", "logicalType": "date"}},
        ]}},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "note", "type": ["null", "string"], "default": None},
    ],
}


@scenario("avro-typed", "Avro record for typed columns: int, long, double, boolean, string, decimal(12,2) on "
          "bytes, timestamp-millis, date, a nested record, an array, a nullable string; the last message's "
          "amount has 12 integer digits, more than decimal(12,2) holds (Avro writers check the digit count "
          "only); string keys")
def avro_typed(registry: SchemaRegistryClient, conf: dict):
    from decimal import Decimal
    from confluent_kafka.schema_registry.avro import AvroSerializer

    rows = [
        ("t1",
         dict(id=7, count=9007199254740993, score=2.5, paid=True, status="shipped", amount=Decimal("-1234.50"),
              placed_at=1709210096789, day=19782, customer=dict(name="Zoë", since=0), tags=["a", "b"],
              note="fragile"),
         dict(id=7, count=9007199254740993, score=2.5, paid=True, status="shipped", amount="-1234.50",
              placed_at="2024-02-29T12:34:56.789Z", day="2024-02-29", customer=dict(name="Zoë", since="1970-01-01"),
              tags=["a", "b"], note="fragile")),
        ("t2",
         dict(id=-2147483648, count=-1, score=-0.125, paid=False, status="", amount=Decimal("0.05"),
              placed_at=-1, day=-1, customer=dict(name="", since=-1), tags=[], note=None),
         dict(id=-2147483648, count=-1, score=-0.125, paid=False, status="", amount="0.05",
              placed_at="1969-12-31T23:59:59.999Z", day="1969-12-31", customer=dict(name="", since="1969-12-31"),
              tags=[], note=None)),
        ("t3",
         dict(id=1, count=2, score=3.0, paid=True, status="misfit", amount=Decimal("123456789012"),
              placed_at=0, day=0, customer=dict(name="M", since=1), tags=["x"], note=None),
         dict(id=1, count=2, score=3.0, paid=True, status="misfit", amount="123456789012.00",
              placed_at="1970-01-01T00:00:00.000Z", day="1970-01-01", customer=dict(name="M", since="1970-01-02"),
              tags=["x"], note=None)),
    ]
    messages = [Message(key, value, expected) for key, value, expected in rows]
    serializer = AvroSerializer(registry, json.dumps(AVRO_TYPED_SCHEMA), conf=serializer_conf(conf))
    from confluent_kafka.schema_registry.avro import AvroDeserializer
    deserializer = AvroDeserializer(registry)

    def verify(m: Message, key: bytes | None, value: bytes) -> None:
        expected = dict(m.expected)
        if m.key == "t3":  # fastavro reads a decimal with `precision` significant digits: 123456789012
            expected["amount"] = "123456789012"
        check_avro_expected(deserializer(value, None), expected)

    return Built(serializer, messages, verify=verify)


def register_referenced(registry: SchemaRegistryClient, subject: str, schema) -> "SchemaReference":
    """Registers `schema` under `subject` (idempotent) and returns a reference to that version,
    named by the schema's full name (Avro) as Confluent's Avro references are."""
    from confluent_kafka.schema_registry import SchemaReference

    registry.register_schema(subject, schema)
    version = registry.lookup_schema(subject, schema).version
    parsed = json.loads(schema.schema_str)
    name = parsed["name"] if "." in parsed["name"] else f"{parsed['namespace']}.{parsed['name']}"
    return SchemaReference(name, subject, version)


# Defined in its own subject (named after the type). Currency, declared inside Money, is used by
# Payment too: a referenced schema brings every named type it declares.
AVRO_REFS_MONEY = {
    "type": "record",
    "name": "Money",
    "namespace": "krow.common",
    "fields": [
        {"name": "currency", "type": {"type": "enum", "name": "Currency", "symbols": ["EUR", "USD", "JPY"]}},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 18, "scale": 2}},
    ],
}

AVRO_REFS_PAYMENT = {
    "type": "record",
    "name": "Payment",
    "namespace": "krow.reference",
    "fields": [
        {"name": "id", "type": "string"},
        {"name": "amount", "type": "krow.common.Money"},
        {"name": "refund", "type": ["null", "krow.common.Money"], "default": None},
        {"name": "history", "type": {"type": "array", "items": "krow.common.Money"}},
        {"name": "fee_currency", "type": "krow.common.Currency"},
    ],
}


@scenario("avro-refs", "Avro record referencing krow.common.Money, a type registered in its own subject "
          "(Avro schema references); string keys")
def avro_refs(registry: SchemaRegistryClient, conf: dict):
    from decimal import Decimal
    from confluent_kafka.schema_registry import Schema
    from confluent_kafka.schema_registry.avro import AvroSerializer

    money_ref = register_referenced(registry, "krow.common.Money", Schema(json.dumps(AVRO_REFS_MONEY), "AVRO"))
    rows = [
        ("p1",
         dict(id="P-1", amount=dict(currency="EUR", amount=Decimal("12.50")), refund=None,
              history=[dict(currency="USD", amount=Decimal("-0.99")), dict(currency="JPY", amount=Decimal("1000.00"))],
              fee_currency="USD"),
         dict(id="P-1", amount=dict(currency="EUR", amount="12.50"), refund=None,
              history=[dict(currency="USD", amount="-0.99"), dict(currency="JPY", amount="1000.00")],
              fee_currency="USD")),
        ("p2",
         dict(id="P-2", amount=dict(currency="JPY", amount=Decimal("9999999999999999.99")),
              refund=dict(currency="EUR", amount=Decimal("-9999999999999999.99")), history=[], fee_currency="EUR"),
         dict(id="P-2", amount=dict(currency="JPY", amount="9999999999999999.99"),
              refund=dict(currency="EUR", amount="-9999999999999999.99"), history=[], fee_currency="EUR")),
    ]
    messages = [Message(key, value, expected) for key, value, expected in rows]
    # auto.register.schemas registers Payment, with its reference, under the topic's subject.
    serializer = AvroSerializer(registry, Schema(json.dumps(AVRO_REFS_PAYMENT), "AVRO", [money_ref]),
                                conf=serializer_conf(conf))
    return Built(serializer, messages, verify=avro_verifier(registry, "krow.reference.Payment"))


# A diamond: A references B and C, which both reference D. A lists only its direct references.
AVRO_DIAMOND_D = {
    "type": "record", "name": "D", "namespace": "krow.diamond",
    "fields": [{"name": "id", "type": "long"},
               {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}}],
}
AVRO_DIAMOND_B = {
    "type": "record", "name": "B", "namespace": "krow.diamond",
    "fields": [{"name": "b", "type": "string"}, {"name": "d", "type": "krow.diamond.D"}],
}
AVRO_DIAMOND_C = {
    "type": "record", "name": "C", "namespace": "krow.diamond",
    "fields": [{"name": "c", "type": ["null", "krow.diamond.D"]},
               {"name": "ds", "type": {"type": "array", "items": "krow.diamond.D"}}],
}
AVRO_DIAMOND_A = {
    "type": "record", "name": "A", "namespace": "krow.diamond",
    "fields": [{"name": "name", "type": "string"}, {"name": "b", "type": "krow.diamond.B"},
               {"name": "c", "type": "krow.diamond.C"}],
}


@scenario("avro-diamond", "Avro references in a diamond: A references B and C, both of which reference D "
          "(four subjects); string keys")
def avro_diamond(registry: SchemaRegistryClient, conf: dict):
    from confluent_kafka.schema_registry import Schema
    from confluent_kafka.schema_registry.avro import AvroSerializer

    d_ref = register_referenced(registry, "krow.diamond.D", Schema(json.dumps(AVRO_DIAMOND_D), "AVRO"))
    b_ref = register_referenced(registry, "krow.diamond.B", Schema(json.dumps(AVRO_DIAMOND_B), "AVRO", [d_ref]))
    c_ref = register_referenced(registry, "krow.diamond.C", Schema(json.dumps(AVRO_DIAMOND_C), "AVRO", [d_ref]))
    rows = [
        ("a1",
         dict(name="first", b=dict(b="bee", d=dict(id=1, at=1709210096789012)),
              c=dict(c=dict(id=-1, at=-1), ds=[dict(id=2, at=0), dict(id=9223372036854775807, at=1)])),
         dict(name="first", b=dict(b="bee", d=dict(id=1, at="2024-02-29T12:34:56.789012Z")),
              c=dict(c=dict(id=-1, at="1969-12-31T23:59:59.999999Z"),
                     ds=[dict(id=2, at="1970-01-01T00:00:00.000000Z"),
                         dict(id=9223372036854775807, at="1970-01-01T00:00:00.000001Z")]))),
        ("a2",
         dict(name="", b=dict(b="", d=dict(id=0, at=0)), c=dict(c=None, ds=[])),
         dict(name="", b=dict(b="", d=dict(id=0, at="1970-01-01T00:00:00.000000Z")), c=dict(c=None, ds=[]))),
    ]
    messages = [Message(key, value, expected) for key, value, expected in rows]
    serializer = AvroSerializer(registry, Schema(json.dumps(AVRO_DIAMOND_A), "AVRO", [b_ref, c_ref]),
                                conf=serializer_conf(conf))
    return Built(serializer, messages, verify=avro_verifier(registry, "krow.diamond.A"))


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


def check_protobuf_expected(msg, expected: dict, decimal_fields: tuple[str, ...] = ()) -> None:
    """Cross-checks a hand-written expectation against protobuf's own JSON mapping.

    decimal_fields: top-level confluent.type.Decimal fields, which protobuf maps as the message
    they are ({"value": ..., "scale": ...}); they are read with Confluent's own conversion
    (decimal_utils.from_proto_decimal) instead and written with their `scale` fraction digits.
    """
    from google.protobuf import json_format

    mapped = json_format.MessageToDict(msg, preserving_proto_field_name=True,
                                       always_print_fields_with_no_presence=True)
    if decimal_fields:
        from confluent_kafka.schema_registry.confluent.type.decimal_utils import from_proto_decimal

        for name in decimal_fields:
            if msg.HasField(name):
                mapped[name] = format(from_proto_decimal(getattr(msg, name)), "f")
    if mapped != expected:
        raise SystemExit(f"internal error: expected {expected} but protobuf maps the message to {mapped}")


def message_indexes(payload: bytes) -> list[int]:
    """The message-index list of a framed Protobuf payload (docs/row-contract.md): zig-zag varints after
    the 5-byte header, count first; a count of 0 (the single byte 0x00) means [0]."""
    pos = 5

    def varint() -> int:
        nonlocal pos
        n = shift = 0
        while True:
            b = payload[pos]
            pos += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return (n >> 1) ^ -(n & 1)

    count = varint()
    return [varint() for _ in range(count)] if count else [0]


def protobuf_verifier(decimal_fields: tuple[str, ...] = (), indexes: dict[str, list[int]] | None = None):
    """Reads each Protobuf value (and schema-encoded key) back with Confluent's
    ProtobufDeserializer and checks it against the message and its expectation.

    The deserializer runs without a registry: with one it asks for the writer schema with
    ?format=serialized, which Apicurio answers with a malformed descriptor for schemas it holds
    as .proto text. Without, it still reads the framing and the message indexes and parses the
    payload as the message's class. indexes: full message name -> the message-index list the
    value's framing must carry, written by hand (values only).
    """
    from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer

    deserializers: dict[type, Any] = {}

    def read_back(msg, payload: bytes, expected: dict, decimals: tuple[str, ...], is_key: bool) -> None:
        cls = type(msg)
        if cls not in deserializers:
            deserializers[cls] = ProtobufDeserializer(cls, {}, None)
        decoded = deserializers[cls](payload, None)
        if decoded != msg:
            raise SystemExit(f"internal error: Confluent's deserializer read {decoded} back, not {msg}")
        check_protobuf_expected(decoded, expected, decimals)
        name = msg.DESCRIPTOR.full_name
        if indexes is not None and not is_key and message_indexes(payload) != indexes[name]:
            raise SystemExit(f"internal error: {name} framed with message indexes {message_indexes(payload)}, "
                             f"not {indexes[name]}")

    def verify(m: Message, key: bytes | None, value: bytes) -> None:
        read_back(m.value, value, m.expected, decimal_fields, False)
        if m.expected_key is not None:
            read_back(m.key, key, json.loads(m.expected_key), (), True)

    return verify


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
    return Built(serializer, messages, verify=protobuf_verifier(indexes={"krow.reference.Order": [1]}))


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
    return Built(serializer, messages, verify=protobuf_verifier(indexes={"krow.reference.Invoice": [0]}))


PROTOBUF_NESTED_FILE = "krow/reference/nested.proto"
PROTOBUF_NESTED = """\
syntax = "proto3";
package krow.reference.nested;

// Message indexes: A [0], B [1], B.C [1,0], B.C.D [1,0,0], B.E [1,1], B.E.F [1,1,1]. F is
// [1,1,1], not [1,1,0]: the map field declared before it gives E a nested ByNameEntry type
// first, and message indexes count nested types as the descriptor lists them.
message A {
  string name = 1;
  int64 n = 2;
}

message B {
  message C {
    message D {
      sint32 depth = 1;
      string label = 2;
    }
    D d = 1;
    repeated D ds = 2;
    string c = 3;
  }
  message E {
    enum Kind {
      KIND_UNSPECIFIED = 0;
      BIG = 1;
    }
    Kind kind = 1;
    C.D d = 2;
    map<string, C.D> by_name = 3;
    message F {
      bool f = 1;
    }
    F f = 4;
  }
  C c = 1;
  E e = 2;
}
"""


# Hand-written message indexes of every message type in nested.proto.
PROTOBUF_NESTED_INDEXES = {
    "krow.reference.nested.A": [0], "krow.reference.nested.B": [1],
    "krow.reference.nested.B.C": [1, 0], "krow.reference.nested.B.C.D": [1, 0, 0],
    "krow.reference.nested.B.E": [1, 1], "krow.reference.nested.B.E.F": [1, 1, 1],
}


def protobuf_nested_build(registry: SchemaRegistryClient, conf: dict, inputs: list[tuple[str, dict, dict]]):
    """Messages of nested.proto's types: (type name under krow.reference.nested, value in
    protobuf's JSON form, expectation)."""
    from google.protobuf import json_format
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer

    sources = {PROTOBUF_NESTED_FILE: PROTOBUF_NESTED}
    pool = compile_proto(sources)
    classes = {name: message_class(pool, name) for name in PROTOBUF_NESTED_INDEXES}
    messages = []
    for name, value, expected in inputs:
        msg = json_format.ParseDict(value, classes[f"krow.reference.nested.{name}"]())
        check_protobuf_expected(msg, expected)
        messages.append(Message(f"n{len(messages) + 1}", msg, expected))
    registry = protobuf_registry(registry, conf, sources)
    # One serializer per message type, all registering the same file under the topic's subject.
    serializers = {name: ProtobufSerializer(cls, registry, conf=serializer_conf(conf)) for name, cls in classes.items()}

    def serialize(msg, ctx: SerializationContext) -> bytes:
        return serializers[msg.DESCRIPTOR.full_name](msg, ctx)

    return Built(serialize, messages, verify=protobuf_verifier(indexes=PROTOBUF_NESTED_INDEXES))


@scenario("protobuf-nested", "Protobuf messages of nested types, framed with message indexes [0] (one 0x00 "
          "byte), [1], [1,0], [1,0,0], [1,1]; string keys")
def protobuf_nested(registry: SchemaRegistryClient, conf: dict):
    return protobuf_nested_build(registry, conf, [
        ("A", {"name": "first", "n": "-1"},
         {"name": "first", "n": "-1"}),
        ("B.C", {"d": {"depth": -5, "label": "deep"}, "ds": [{}, {"depth": 2147483647}], "c": "see"},
         {"d": {"depth": -5, "label": "deep"}, "ds": [{"depth": 0, "label": ""}, {"depth": 2147483647, "label": ""}],
          "c": "see"}),
        ("B.C.D", {"depth": -2147483648, "label": "d"},
         {"depth": -2147483648, "label": "d"}),
        ("B.E", {"kind": "BIG", "d": {"depth": 1}, "by_name": {"x": {"label": "X"}, "": {}}, "f": {}},
         {"kind": "BIG", "d": {"depth": 1, "label": ""},
          "by_name": {"x": {"depth": 0, "label": "X"}, "": {"depth": 0, "label": ""}}, "f": {"f": False}}),
        ("B", {"c": {"c": "inner"}},
         {"c": {"ds": [], "c": "inner"}}),
        # Every field at its default: nothing after the framing and the indexes.
        ("B.C.D", {},
         {"depth": 0, "label": ""}),
    ])


@scenario("protobuf-nested-map-entry", "Protobuf message B.E.F framed with message indexes [1,1,1]: the "
          "entry type of E's map field, declared before F, counts as E's nested message 0; string keys")
def protobuf_nested_map_entry(registry: SchemaRegistryClient, conf: dict):
    # Confluent's Python serializer counts the nested types as the descriptor lists them, map
    # entries included (as its deserializer does when it reads the indexes back, and as the
    # Java serializer's toMessageIndexes does without normalize.schemas).
    return protobuf_nested_build(registry, conf, [
        ("B.E.F", {"f": True}, {"f": True}),
        ("B.E.F", {}, {"f": False}),
    ])


# Compiled in so that the message classes exist; never sent to the registry. Confluent's
# serializers treat every confluent/ file (like google/protobuf/) as built in and register no
# reference for it, and Confluent's registry knows it without one.
CONFLUENT_DECIMAL_FILE = "confluent/type/decimal.proto"
CONFLUENT_DECIMAL = """\
syntax = "proto3";
package confluent.type;

message Decimal {
  // The two's-complement representation of the unscaled integer value in big-endian byte order
  bytes value = 1;
  // The precision
  uint32 precision = 2;
  // The scale
  int32 scale = 3;
}
"""

PROTOBUF_WKT_FILE = "krow/reference/wkt.proto"
PROTOBUF_WKT = """\
syntax = "proto3";
package krow.reference.wkt;

import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/wrappers.proto";
import "confluent/type/decimal.proto";

enum Color {
  COLOR_UNSPECIFIED = 0;
  RED = 1;
  GREEN = 2;
}

message Event {
  google.protobuf.Timestamp at = 1;
  google.protobuf.Duration took = 2;
  google.protobuf.Int64Value i64 = 3;
  google.protobuf.UInt64Value u64 = 4;
  google.protobuf.StringValue str = 5;
  google.protobuf.BoolValue flag = 6;
  google.protobuf.BytesValue blob = 7;
  oneof choice {
    string text = 8;
    int64 number = 9;
    Color color = 10;
  }
  map<string, int64> counts = 11;
  map<int32, string> names = 12;
  repeated Color colors = 13;
  int64 i64_plain = 14;
  uint64 u64_plain = 15;
  sint64 s64 = 16;
  fixed64 f64 = 17;
  sfixed64 sf64 = 18;
  bytes raw = 19;
  confluent.type.Decimal amount = 20;
  double ratio = 21;
}
"""


def pb_decimal(unscaled: int, scale: int, precision: int) -> dict:
    """A confluent.type.Decimal in protobuf's JSON form: the unscaled value as minimal big-endian
    two's-complement bytes (Confluent's own encoder), base64 in JSON."""
    from confluent_kafka.schema_registry.confluent.type.decimal_utils import unscaled_to_bytes

    return {"value": b64(unscaled_to_bytes(unscaled)), "precision": precision, "scale": scale}


@scenario("protobuf-wkt", "Protobuf well-known types (Timestamp, Duration, wrappers), oneof, maps, repeated "
          "enum, 64-bit extremes, bytes, double specials, confluent.type.Decimal; string keys")
def protobuf_wkt(registry: SchemaRegistryClient, conf: dict):
    from google.protobuf import json_format
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer

    sources = {CONFLUENT_DECIMAL_FILE: CONFLUENT_DECIMAL, PROTOBUF_WKT_FILE: PROTOBUF_WKT}
    pool = compile_proto(sources)
    Event = message_class(pool, "krow.reference.wkt.Event")
    defaults = {"counts": {}, "names": {}, "colors": [], "i64_plain": "0", "u64_plain": "0", "s64": "0", "f64": "0",
                "sf64": "0", "raw": "", "ratio": 0.0}
    inputs = [
        # Millisecond timestamp (3 digits), wrappers set, the string member of the oneof,
        # 64-bit maxima and minima.
        ({"at": "2024-02-29T12:34:56.789Z", "took": "1.5s", "i64": "-9223372036854775808",
          "u64": "18446744073709551615", "str": "h\u00e9llo", "flag": True, "blob": b64(b"\x00\xff"), "text": "hi",
          "counts": {"a": "1", "big": "9223372036854775807"}, "names": {"-1": "minus one", "7": "seven"},
          "colors": ["RED", "GREEN", "RED"], "i64_plain": "9223372036854775807", "u64_plain": "18446744073709551615",
          "s64": "-9223372036854775808", "f64": "18446744073709551615", "sf64": "-9223372036854775808",
          "raw": b64(bytes(range(8))), "amount": pb_decimal(-123450, 2, 6), "ratio": 0.1},
         {"at": "2024-02-29T12:34:56.789Z", "took": "1.500s", "i64": "-9223372036854775808",
          "u64": "18446744073709551615", "str": "h\u00e9llo", "flag": True, "blob": "AP8=", "text": "hi",
          "counts": {"a": "1", "big": "9223372036854775807"}, "names": {"-1": "minus one", "7": "seven"},
          "colors": ["RED", "GREEN", "RED"], "i64_plain": "9223372036854775807", "u64_plain": "18446744073709551615",
          "s64": "-9223372036854775808", "f64": "18446744073709551615", "sf64": "-9223372036854775808",
          "raw": "AAECAwQFBgc=", "amount": "-1234.50", "ratio": 0.1}),
        # Wrappers set to their zero values (present, unlike unset ones); the oneof's int64
        # member set to 0 (present); nanosecond timestamp before 1970; a negative duration;
        # a decimal whose value bytes are empty (zero); NaN.
        ({"at": "1969-12-31T23:59:59.999999999Z", "took": "-0.000000001s", "i64": "0", "u64": "0", "str": "",
          "flag": False, "blob": "", "number": "0", "amount": {"scale": 2}, "ratio": "NaN"},
         {**defaults, "at": "1969-12-31T23:59:59.999999999Z", "took": "-0.000000001s", "i64": "0", "u64": "0",
          "str": "", "flag": False, "blob": "", "number": "0", "amount": "0.00", "ratio": "NaN"}),
        # Timestamp's minimum (no fraction), the enum member of the oneof, a 38-digit decimal.
        ({"at": "0001-01-01T00:00:00Z", "took": "315576000000s", "color": "GREEN",
          "counts": {"": "-1"}, "names": {"-2147483648": "", "2147483647": "max"}, "colors": ["COLOR_UNSPECIFIED"],
          "amount": pb_decimal(99999999999999999999999999999999999999, 10, 38), "ratio": "-Infinity"},
         {**defaults, "at": "0001-01-01T00:00:00Z", "took": "315576000000s", "color": "GREEN",
          "counts": {"": "-1"}, "names": {"-2147483648": "", "2147483647": "max"}, "colors": ["COLOR_UNSPECIFIED"],
          "amount": "9999999999999999999999999999.9999999999", "ratio": "-Infinity"}),
        # Microsecond timestamp (6 digits), a negative 38-digit decimal with scale 0, -1s.
        ({"at": "9999-12-31T23:59:59.999999Z", "took": "-1s",
          "amount": pb_decimal(-99999999999999999999999999999999999999, 0, 38), "ratio": 1e300},
         {**defaults, "at": "9999-12-31T23:59:59.999999Z", "took": "-1s",
          "amount": "-99999999999999999999999999999999999999", "ratio": 1e300}),
        # Nothing set: the unset message fields (WKTs and the decimal) and the oneof are omitted.
        ({}, dict(defaults)),
    ]
    messages = []
    for value, expected in inputs:
        msg = json_format.ParseDict(value, Event())
        check_protobuf_expected(msg, expected, ("amount",))
        messages.append(Message(f"e{len(messages) + 1}", msg, expected))
    registry = protobuf_registry(registry, conf, sources)
    serializer = ProtobufSerializer(Event, registry, conf=serializer_conf(conf))
    return Built(serializer, messages, verify=protobuf_verifier(("amount",)))


# A diamond of imports: both.proto imports left.proto and right.proto, which both import
# shared.proto; both.proto also imports note.proto (a plain one-level import). Each file is
# registered under its own subject (the file's name) by the serializer, with its references.
PROTOBUF_IMPORTS_SHARED_FILE = "krow/reference/imports/shared.proto"
PROTOBUF_IMPORTS_SHARED = """\
syntax = "proto3";
package krow.reference.shared;

enum Level {
  LEVEL_UNSPECIFIED = 0;
  LOW = 1;
  HIGH = 2;
}

message Tag {
  string key = 1;
  string value = 2;
}
"""

PROTOBUF_IMPORTS_LEFT_FILE = "krow/reference/imports/left.proto"
PROTOBUF_IMPORTS_LEFT = """\
syntax = "proto3";
package krow.reference.left;

import "krow/reference/imports/shared.proto";

message Left {
  krow.reference.shared.Tag tag = 1;
  krow.reference.shared.Level level = 2;
  int64 n = 3;
}
"""

PROTOBUF_IMPORTS_RIGHT_FILE = "krow/reference/imports/right.proto"
PROTOBUF_IMPORTS_RIGHT = """\
syntax = "proto3";
package krow.reference.right;

import "krow/reference/imports/shared.proto";

message Right {
  repeated krow.reference.shared.Tag tags = 1;
  map<string, krow.reference.shared.Level> levels = 2;
}
"""

PROTOBUF_IMPORTS_NOTE_FILE = "krow/reference/imports/note.proto"
PROTOBUF_IMPORTS_NOTE = """\
syntax = "proto3";
package krow.reference.note;

message Note {
  string text = 1;
  uint64 seq = 2;
}
"""

PROTOBUF_IMPORTS_FILE = "krow/reference/imports/both.proto"
PROTOBUF_IMPORTS = """\
syntax = "proto3";
package krow.reference.imports;

import "krow/reference/imports/left.proto";
import "krow/reference/imports/right.proto";
import "krow/reference/imports/note.proto";

message Both {
  string id = 1;
  krow.reference.left.Left left = 2;
  krow.reference.right.Right right = 3;
  krow.reference.note.Note note = 4;
}
"""


@scenario("protobuf-imports", "Protobuf imports across registered files: a diamond (both.proto imports "
          "left.proto and right.proto, which both import shared.proto) plus a one-level import; index [0]; no key")
def protobuf_imports(registry: SchemaRegistryClient, conf: dict):
    from google.protobuf import json_format
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer

    sources = {PROTOBUF_IMPORTS_SHARED_FILE: PROTOBUF_IMPORTS_SHARED, PROTOBUF_IMPORTS_LEFT_FILE: PROTOBUF_IMPORTS_LEFT,
               PROTOBUF_IMPORTS_RIGHT_FILE: PROTOBUF_IMPORTS_RIGHT, PROTOBUF_IMPORTS_NOTE_FILE: PROTOBUF_IMPORTS_NOTE,
               PROTOBUF_IMPORTS_FILE: PROTOBUF_IMPORTS}
    pool = compile_proto(sources)
    Both = message_class(pool, "krow.reference.imports.Both")
    inputs = [
        ({"id": "b1", "left": {"tag": {"key": "k", "value": "v"}, "level": "HIGH", "n": "-9223372036854775808"},
          "right": {"tags": [{"key": "a"}, {"value": "b"}], "levels": {"x": "LOW", "y": "LEVEL_UNSPECIFIED"}},
          "note": {"text": "n\u00f6te", "seq": "18446744073709551615"}},
         {"id": "b1", "left": {"tag": {"key": "k", "value": "v"}, "level": "HIGH", "n": "-9223372036854775808"},
          "right": {"tags": [{"key": "a", "value": ""}, {"key": "", "value": "b"}],
                    "levels": {"x": "LOW", "y": "LEVEL_UNSPECIFIED"}},
          "note": {"text": "n\u00f6te", "seq": "18446744073709551615"}}),
        ({"id": "b2", "left": {}, "right": {}},
         {"id": "b2", "left": {"level": "LEVEL_UNSPECIFIED", "n": "0"}, "right": {"tags": [], "levels": {}}}),
        ({}, {"id": ""}),
    ]
    messages = []
    for value, expected in inputs:
        msg = json_format.ParseDict(value, Both())
        check_protobuf_expected(msg, expected)
        messages.append(Message(None, msg, expected))
    registry = protobuf_registry(registry, conf, sources)
    serializer = ProtobufSerializer(Both, registry, conf=serializer_conf(conf))
    return Built(serializer, messages, verify=protobuf_verifier(indexes={"krow.reference.imports.Both": [0]}))


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


def json_deserializer(registry: SchemaRegistryClient):
    """Confluent's JSONDeserializer, which fetches the writer schema by the ID in the framing
    (references included) and validates what it reads against it; by ID alone, with no
    subject look-ups (the default subject strategy wants a topic)."""
    from confluent_kafka.schema_registry.json_schema import JSONDeserializer

    return JSONDeserializer(None, schema_registry_client=registry,
                            conf={"subject.name.strategy": lambda ctx, name: None})


def json_verifier(registry: SchemaRegistryClient):
    """Reads each JSON Schema value back with Confluent's JSONDeserializer and checks that it,
    and the payload after the framing, are the document sent."""
    deserializer = json_deserializer(registry)

    def verify(m: Message, key: bytes | None, value: bytes) -> None:
        decoded = deserializer(value, None)
        if decoded != m.expected or json.loads(value[5:]) != m.expected:
            raise SystemExit(f"internal error: expected {m.expected} but Confluent's deserializer read {decoded}")

    return verify


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
    return Built(serializer, messages, verify=json_verifier(registry))


JSON_SCHEMA_EDGES = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Edges",
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string"},
        "at": {"type": "string", "format": "time"},
        "doc": {"type": "object"},
    },
}


@scenario("json-schema-edges", "JSON Schema values typed columns must read whole: integers beyond 64 bits (2^70, "
          "-2^64), RFC 3339 times with a zone (Z, +02:00, -05:30) and without; string keys")
def json_schema_edges(registry: SchemaRegistryClient, conf: dict):
    from confluent_kafka.schema_registry.json_schema import JSONSerializer

    values = [
        {"id": 2**70, "name": "x", "at": "13:45:00Z", "doc": {"big": -(2**64), "n": 1}},
        {"id": -(2**64), "name": "y", "at": "13:45:00+02:00"},
        {"id": 7, "name": "z", "at": "01:15:30.25-05:30"},
        {"id": 9223372036854775807, "name": "w", "at": "23:59:59"},
    ]
    messages = [Message(f"e{i + 1}", v, v) for i, v in enumerate(values)]
    serializer = JSONSerializer(json.dumps(JSON_SCHEMA_EDGES), registry, conf=serializer_conf(conf))
    return Built(serializer, messages, verify=json_verifier(registry))


# Registered in its own subject and referenced by the name used in "$ref". It has an internal
# reference of its own, which resolves within this document.
JSON_SCHEMA_REFS_ADDRESS_NAME = "address.schema.json"
JSON_SCHEMA_REFS_ADDRESS = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Address",
    "type": "object",
    "properties": {
        "street": {"type": "string"},
        "city": {"type": "string"},
        "zip": {"$ref": "#/definitions/zip"},
    },
    "required": ["city"],
    "definitions": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
}

JSON_SCHEMA_REFS = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "Shipment",
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "from": {"$ref": JSON_SCHEMA_REFS_ADDRESS_NAME},
        "to": {"oneOf": [{"type": "null"}, {"$ref": JSON_SCHEMA_REFS_ADDRESS_NAME}]},
        "tags": {"type": "array", "items": {"$ref": "#/definitions/tag"}},
        "weight": {"type": "number"},
    },
    "required": ["id", "from"],
    "definitions": {"tag": {"type": "string", "minLength": 1}},
}


@scenario("json-schema-refs", "JSON Schema with a $ref to another registered subject (schema references) and "
          "internal #/definitions refs; string keys")
def json_schema_refs(registry: SchemaRegistryClient, conf: dict):
    from confluent_kafka.schema_registry import Schema, SchemaReference
    from confluent_kafka.schema_registry.json_schema import JSONSerializer
    from confluent_kafka.serialization import SerializationError

    address = Schema(json.dumps(JSON_SCHEMA_REFS_ADDRESS), "JSON")
    registry.register_schema("krow.reference.address", address)
    version = registry.lookup_schema("krow.reference.address", address).version
    ref = SchemaReference(JSON_SCHEMA_REFS_ADDRESS_NAME, "krow.reference.address", version)
    values = [
        {"id": 1, "from": {"street": "1 Main St", "city": "Springfield", "zip": "12345"},
         "to": {"city": "Shelbyville"}, "tags": ["fragile", "\u2713"], "weight": 2.5},
        {"id": -9007199254740993, "from": {"city": ""}, "to": None, "tags": []},
        {"id": 0, "from": {"city": "Z\u00fcrich", "zip": "80331", "extra": [1, {"a": None}]}, "weight": -0.0001},
    ]
    messages = [Message(f"s{i + 1}", v, v) for i, v in enumerate(values)]
    serializer = JSONSerializer(Schema(json.dumps(JSON_SCHEMA_REFS), "JSON", [ref]), registry,
                                conf=serializer_conf(conf))
    deserializer = json_deserializer(registry)
    same_document = json_verifier(registry)
    rejected: list[bool] = []

    def verify(m: Message, key: bytes | None, value: bytes) -> None:
        same_document(m, key, value)
        if not rejected:
            # A zip that breaks the referenced schema's own definition must be refused, which
            # shows that both references were followed.
            bad = dict(m.expected, **{"from": {"city": "X", "zip": "1234"}})
            try:
                deserializer(value[:5] + json.dumps(bad).encode(), None)
            except SerializationError as e:
                if "does not match" not in str(e):
                    raise SystemExit(f"internal error: a bad zip was refused for another reason: {e}")
                rejected.append(True)
            else:
                raise SystemExit("internal error: the referenced schema was not applied (a bad zip was accepted)")
        schema = registry.get_schema(schema_id_of(value))
        if json.loads(schema.schema_str).get("title") != "Shipment" or not schema.references:
            raise SystemExit(f"internal error: wire schema ID {schema_id_of(value)} is not the Shipment schema")

    return Built(serializer, messages, verify=verify)


# --- schema-encoded keys ----------------------------------------------------------------

AVRO_KEYED_VALUE_SCHEMA = {
    "type": "record",
    "name": "OrderValue",
    "namespace": "krow.reference",
    "fields": [
        {"name": "status", "type": {"type": "enum", "name": "OrderStatus", "symbols": ["PLACED", "SHIPPED"]}},
        {"name": "total", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "note", "type": ["null", "string"], "default": None},
    ],
}

def avro_keyed(registry: SchemaRegistryClient, conf: dict, key_schema: str, keys: list[tuple[Any, str]]):
    """Avro keys of `key_schema`, serialized by an AvroSerializer for the key (subject
    <topic>-key), with OrderValue values. keys: (what the key serializer takes, the key
    column's text, written by hand)."""
    from decimal import Decimal
    from confluent_kafka.schema_registry.avro import AvroSerializer

    values = [
        (dict(status="PLACED", total=Decimal("12.50"), note=None),
         dict(status="PLACED", total="12.50", note=None)),
        (dict(status="SHIPPED", total=Decimal("-0.01"), note='fragile "glass"'),
         dict(status="SHIPPED", total="-0.01", note='fragile "glass"')),
        (dict(status="PLACED", total=Decimal("0.00"), note=""),
         dict(status="PLACED", total="0.00", note="")),
    ]
    messages = [Message(key, value, expected, expected_key)
                for (key, expected_key), (value, expected) in zip(keys, values, strict=True)]
    serializer = AvroSerializer(registry, json.dumps(AVRO_KEYED_VALUE_SCHEMA), conf=serializer_conf(conf))
    key_serializer = AvroSerializer(registry, key_schema, conf=serializer_conf(conf))
    return Built(serializer, messages, key_serializer, avro_verifier(registry))


AVRO_KEY_SCHEMA = {
    "type": "record",
    "name": "OrderKey",
    "namespace": "krow.reference",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "region", "type": "string"},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    ],
}


@scenario("keyed-avro", "Avro record keys (long, string, date) and Avro values; key column = the key as JSON")
def keyed_avro(registry: SchemaRegistryClient, conf: dict):
    return avro_keyed(registry, conf, json.dumps(AVRO_KEY_SCHEMA), [
        (dict(id=7, region="eu", day=19782), '{"id":7,"region":"eu","day":"2024-02-29"}'),
        (dict(id=-9223372036854775808, region="", day=-1),
         '{"id":-9223372036854775808,"region":"","day":"1969-12-31"}'),
        (dict(id=9223372036854775807, region="\u65e5\u672c", day=0),
         '{"id":9223372036854775807,"region":"\u65e5\u672c","day":"1970-01-01"}'),
    ])


@scenario("keyed-avro-string", 'Avro "string" keys and Avro values; key column = the key as a JSON string')
def keyed_avro_string(registry: SchemaRegistryClient, conf: dict):
    return avro_keyed(registry, conf, json.dumps("string"), [
        ("abc", '"abc"'),
        ("", '""'),
        ('quote " backslash \\ h\u00e9llo', '"quote \\" backslash \\\\ h\u00e9llo"'),
    ])


@scenario("keyed-avro-long", 'Avro "long" keys and Avro values; key column = the key as a JSON number')
def keyed_avro_long(registry: SchemaRegistryClient, conf: dict):
    return avro_keyed(registry, conf, json.dumps("long"), [
        (42, "42"),
        (0, "0"),
        (-9223372036854775808, "-9223372036854775808"),
    ])


PROTOBUF_KEY_FILE = "krow/reference/keys.proto"
PROTOBUF_KEY = """\
syntax = "proto3";
package krow.reference.keys;

message OrderKey {
  int64 id = 1;
  string region = 2;
}
"""


@scenario("keyed-protobuf", "Protobuf keys (krow.reference.keys.OrderKey) and Protobuf values (Order); "
          "key column = the key as JSON")
def keyed_protobuf(registry: SchemaRegistryClient, conf: dict):
    from google.protobuf import json_format
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer

    sources = {PROTOBUF_KEY_FILE: PROTOBUF_KEY, PROTOBUF_BASIC_FILE: PROTOBUF_BASIC}
    pool = compile_proto(sources)
    OrderKey = message_class(pool, "krow.reference.keys.OrderKey")
    Order = message_class(pool, "krow.reference.Order")
    inputs = [
        ({"id": "7", "region": "eu"}, '{"id":"7","region":"eu"}',
         {"id": "1", "status": "PLACED"},
         {"id": "1", "customer": "", "status": "PLACED", "total_cents": "0", "note": ""}),
        # Every key field at its default: the key is the framing and the index byte alone.
        ({}, '{"id":"0","region":""}',
         {"id": "2", "customer": "C", "status": "SHIPPED", "total_cents": "18446744073709551615"},
         {"id": "2", "customer": "C", "status": "SHIPPED", "total_cents": "18446744073709551615", "note": ""}),
        ({"id": "-9223372036854775808", "region": "\u2713"}, '{"id":"-9223372036854775808","region":"\u2713"}',
         {"id": "3", "line": {"sku": "S"}},
         {"id": "3", "customer": "", "status": "STATUS_UNSPECIFIED", "line": {"sku": "S", "quantity": 0},
          "total_cents": "0", "note": ""}),
    ]
    messages = []
    for key, expected_key, value, expected in inputs:
        key_msg = json_format.ParseDict(key, OrderKey())
        check_protobuf_expected(key_msg, json.loads(expected_key))
        msg = json_format.ParseDict(value, Order())
        check_protobuf_expected(msg, expected)
        messages.append(Message(key_msg, msg, expected, expected_key))
    registry = protobuf_registry(registry, conf, sources)
    serializer = ProtobufSerializer(Order, registry, conf=serializer_conf(conf))
    key_serializer = ProtobufSerializer(OrderKey, registry, conf=serializer_conf(conf))
    return Built(serializer, messages, key_serializer, protobuf_verifier())


@scenario("avro-wide-decimal", "Avro decimals wider than 38 digits (decimal(50,5), a text column) beside a "
          "decimal(4,1); string keys")
def avro_wide_decimal(registry: SchemaRegistryClient, conf: dict):
    from decimal import Decimal
    from confluent_kafka.schema_registry.avro import AvroSerializer

    schema = {"type": "record", "name": "Wide", "namespace": "krow.reference", "fields": [
        {"name": "big", "type": {"type": "bytes", "logicalType": "decimal", "precision": 50, "scale": 5}},
        {"name": "small", "type": {"type": "bytes", "logicalType": "decimal", "precision": 4, "scale": 1}},
    ]}
    rows = [("w1", Decimal("123456789012345678901234567890123456789012345.12345"), Decimal("-999.9")),
            ("w2", Decimal("-0.00001"), Decimal("0.0"))]
    messages = [Message(k, dict(big=b, small=s), dict(big=format(b, "f"), small=format(s, "f"))) for k, b, s in rows]
    serializer = AvroSerializer(registry, json.dumps(schema), conf=serializer_conf(conf))
    return Built(serializer, messages, verify=avro_verifier(registry))


PROTOBUF_TYPED_FILE = "krow/reference/typed.proto"
PROTOBUF_TYPED = """\
syntax = "proto3";
package krow.reference;

import "google/protobuf/timestamp.proto";

// First in the file: the value's message (index [0]), as typed columns plan it.
message Typed {
  enum Kind {
    KIND_UNSPECIFIED = 0;
    BIG = 1;
  }
  message Part {
    string sku = 1;
    int32 quantity = 2;
  }
  int64 id = 1;
  uint64 total = 2;
  Kind kind = 3;
  bytes blob = 4;
  Part part = 5;
  google.protobuf.Timestamp at = 6;
  double ratio = 7;
  float weight = 8;
  bool ok = 9;
}
"""


@scenario("protobuf-typed", "Protobuf message for typed columns (index [0]): int64, uint64, enum, bytes, a nested "
          "message, Timestamp, double, float, bool; string keys")
def protobuf_typed(registry: SchemaRegistryClient, conf: dict):
    from google.protobuf import json_format
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer

    pool = compile_proto({PROTOBUF_TYPED_FILE: PROTOBUF_TYPED})
    Typed = message_class(pool, "krow.reference.Typed")
    inputs = [
        ({"id": "9223372036854775807", "total": "18446744073709551615", "kind": "BIG", "blob": b64(b"\x00\xff"),
          "part": {"sku": "A-1", "quantity": 3}, "at": "2024-02-29T12:34:56.789012Z", "ratio": 0.1, "weight": 1.5,
          "ok": True},
         {"id": "9223372036854775807", "total": "18446744073709551615", "kind": "BIG", "blob": "AP8=",
          "part": {"sku": "A-1", "quantity": 3}, "at": "2024-02-29T12:34:56.789012Z", "ratio": 0.1, "weight": 1.5,
          "ok": True}),
        ({"id": "-9223372036854775808", "total": "1"},
         {"id": "-9223372036854775808", "total": "1", "kind": "KIND_UNSPECIFIED", "blob": "", "ratio": 0.0,
          "weight": 0.0, "ok": False}),
    ]
    messages = []
    for i, (value, expected) in enumerate(inputs):
        msg = json_format.ParseDict(value, Typed())
        check_protobuf_expected(msg, expected)
        messages.append(Message(f"p{i + 1}", msg, expected))
    registry = protobuf_registry(registry, conf, {PROTOBUF_TYPED_FILE: PROTOBUF_TYPED})
    serializer = ProtobufSerializer(Typed, registry, conf=serializer_conf(conf))
    return Built(serializer, messages, verify=protobuf_verifier())


@scenario("avro-nul", "Avro record whose string holds U+0000 (which PostgreSQL's text and jsonb refuse) beside an "
          "int; string keys")
def avro_nul(registry: SchemaRegistryClient, conf: dict):
    from confluent_kafka.schema_registry.avro import AvroSerializer

    schema = {"type": "record", "name": "Nul", "namespace": "krow.reference",
              "fields": [{"name": "s", "type": "string"}, {"name": "n", "type": "int"}]}
    messages = [Message("n1", dict(s="a\u0000b", n=1), dict(s="a\u0000b", n=1)),
                Message("n2", dict(s="ok", n=2), dict(s="ok", n=2))]
    serializer = AvroSerializer(registry, json.dumps(schema), conf=serializer_conf(conf))
    return Built(serializer, messages, verify=avro_verifier(registry))


# --- Schema evolution of typed tables ---------------------------------------------------------
# Three versions of one value schema, each produced (two messages) by its own scenario into the
# same topic, in order: v2 adds fields (a nullable one and one with a default) and widens
# int -> long and float -> double; v3 changes `name` from string to int, a breaking change.
# Subject compatibility is left at the registry's default (none), as v3 would not pass a
# BACKWARD check.

def avro_evolve_schema(version: int) -> dict:
    fields = [
        {"name": "id", "type": "int"},
        {"name": "name", "type": "int" if version >= 3 else "string"},
        {"name": "qty", "type": "long" if version >= 2 else "int"},
        {"name": "price", "type": "double" if version >= 2 else "float"},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10 if version >= 2 else 6,
                                    "scale": 2}},
    ]
    if version >= 2:
        fields += [{"name": "note", "type": ["null", "string"], "default": None},
                   {"name": "level", "type": "int", "default": 0}]
    return {"type": "record", "name": "Evolve", "namespace": "krow.reference", "fields": fields}


def _evolve_values():
    from decimal import Decimal

    return {
        1: [dict(id=1, name="a", qty=10, price=1.5, amount=Decimal("1234.56")),
            dict(id=2, name="b", qty=-3, price=0.25, amount=Decimal("-0.01"))],
        2: [dict(id=3, name="c", qty=9007199254740993, price=0.1, amount=Decimal("12345678.90"), note="n", level=5),
            dict(id=4, name="d", qty=1, price=2.0, amount=Decimal("0.00"), note=None, level=0)],
        3: [dict(id=5, name=42, qty=7, price=3.5, amount=Decimal("1.00"), note="x", level=1),
            dict(id=6, name=-1, qty=8, price=-0.5, amount=Decimal("-2.50"), note=None, level=2)],
    }


def avro_evolve(version: int):
    def build(registry: SchemaRegistryClient, conf: dict):
        from confluent_kafka.schema_registry.avro import AvroSerializer

        from decimal import Decimal

        def expected(v: dict) -> dict:  # decimals as the exact text krow writes
            return {k: format(x, "f") if isinstance(x, Decimal) else x for k, x in v.items()}

        messages = [Message(f"e{v['id']}", v, expected(v)) for v in _evolve_values()[version]]
        serializer = AvroSerializer(registry, json.dumps(avro_evolve_schema(version)), conf=serializer_conf(conf))
        return Built(serializer, messages, verify=avro_verifier(registry))

    return build


for _v, _what in ((1, "id int, name string, qty int, price float, amount decimal(6,2)"),
                  (2, "v1 + note (nullable string), level (int, default 0); qty long, price double, amount "
                      "decimal(6,2) -> decimal(10,2) (widened)"),
                  (3, "v2 with name an int (breaking: string -> int)")):
    scenario(f"avro-evolve-v{_v}", f"Avro schema evolution, version {_v} of 3: {_what}; string keys")(avro_evolve(_v))


# Names that collide across versions: v2 puts a top-level field literally named `a__b` before
# the record `a` (whose field b is flattened to the column a__b), and `name` before `Name`
# (the same column name to DuckDB, which folds case); v3 adds a nested field a.c and `A__B`.
# Every field must keep the column it was first given.

def avro_collide_schema(version: int) -> dict:
    inner = [{"name": "b", "type": "string"}]
    if version >= 3:
        inner.append({"name": "c", "type": ["null", "int"], "default": None})
    a = {"name": "a", "type": {"type": "record", "name": "A", "fields": inner}}
    if version == 1:
        fields = [{"name": "n", "type": "int"}, a, {"name": "Name", "type": "string"}]
    else:
        fields = [{"name": "n", "type": "int"}, {"name": "a__b", "type": ["null", "string"], "default": None}, a,
                  {"name": "name", "type": ["null", "string"], "default": None}, {"name": "Name", "type": "string"}]
    if version >= 3:
        fields.append({"name": "A__B", "type": ["null", "long"], "default": None})
    return {"type": "record", "name": "Collide", "namespace": "krow.reference", "fields": fields}


COLLIDE_VALUES = {
    1: [dict(n=1, a=dict(b="b1"), Name="N1"), dict(n=2, a=dict(b="b2"), Name="N2")],
    2: [dict(n=3, a__b="top3", a=dict(b="b3"), name="lower3", Name="N3"),
        dict(n=4, a__b=None, a=dict(b="b4"), name=None, Name="N4")],
    3: [dict(n=5, a__b="top5", a=dict(b="b5", c=55), name="lower5", Name="N5", A__B=9007199254740993),
        dict(n=6, a__b=None, a=dict(b="b6", c=None), name=None, Name="N6", A__B=None)],
}


def avro_collide(version: int):
    def build(registry: SchemaRegistryClient, conf: dict):
        from confluent_kafka.schema_registry.avro import AvroSerializer

        messages = [Message(f"c{v['n']}", v, v) for v in COLLIDE_VALUES[version]]
        serializer = AvroSerializer(registry, json.dumps(avro_collide_schema(version)), conf=serializer_conf(conf))
        return Built(serializer, messages, verify=avro_verifier(registry))

    return build


for _v, _what in ((1, "n int, a {b string}, Name string"),
                  (2, "v1 + a__b (nullable string) before a, name (nullable string) before Name"),
                  (3, "v2 + a.c (nullable int), A__B (nullable long)")):
    scenario(f"avro-collide-v{_v}", f"Avro column names colliding across versions, version {_v} of 3: {_what}; "
                                    "string keys")(avro_collide(_v))


PROTOBUF_EVOLVE_FILE = "krow/reference/evolve.proto"


def protobuf_evolve_source(version: int) -> str:
    name = "int64" if version >= 3 else "string"
    qty, price = ("int64", "double") if version >= 2 else ("int32", "float")
    extra = "  string note = 5;\n" if version >= 2 else ""
    return (f'syntax = "proto3";\npackage krow.reference;\n\nmessage Evolve {{\n  int32 id = 1;\n  {name} name = 2;\n'
            f"  {qty} qty = 3;\n  {price} price = 4;\n{extra}}}\n")


# Inputs and what krow stores (proto3 JSON: 64-bit integers as strings, defaults printed).
PROTOBUF_EVOLVE_VALUES = {
    1: [({"id": 1, "name": "a", "qty": 10, "price": 1.5}, {"id": 1, "name": "a", "qty": 10, "price": 1.5}),
        ({"id": 2, "name": "b", "qty": -3, "price": 0.25}, {"id": 2, "name": "b", "qty": -3, "price": 0.25})],
    2: [({"id": 3, "name": "c", "qty": "9007199254740993", "price": 0.1, "note": "n"},
         {"id": 3, "name": "c", "qty": "9007199254740993", "price": 0.1, "note": "n"}),
        ({"id": 4, "name": "d", "qty": "1", "price": 2.0},
         {"id": 4, "name": "d", "qty": "1", "price": 2.0, "note": ""})],
    3: [({"id": 5, "name": "42", "qty": "7", "price": 3.5, "note": "x"},
         {"id": 5, "name": "42", "qty": "7", "price": 3.5, "note": "x"}),
        ({"id": 6, "name": "-1", "qty": "8", "price": -0.5},
         {"id": 6, "name": "-1", "qty": "8", "price": -0.5, "note": ""})],
}


def protobuf_evolve(version: int):
    def build(registry: SchemaRegistryClient, conf: dict):
        from google.protobuf import json_format
        from confluent_kafka.schema_registry.protobuf import ProtobufSerializer

        sources = {PROTOBUF_EVOLVE_FILE: protobuf_evolve_source(version)}
        pool = compile_proto(sources)
        Evolve = message_class(pool, "krow.reference.Evolve")
        messages = []
        for value, expected in PROTOBUF_EVOLVE_VALUES[version]:
            msg = json_format.ParseDict(value, Evolve())
            check_protobuf_expected(msg, expected)
            messages.append(Message(f"e{value['id']}", msg, expected))
        registry = protobuf_registry(registry, conf, sources)
        serializer = ProtobufSerializer(Evolve, registry, conf=serializer_conf(conf))
        return Built(serializer, messages, verify=protobuf_verifier())

    return build


for _v, _what in ((1, "id int32, name string, qty int32, price float"),
                  (2, "v1 + note (string); qty int64, price double (widened)"),
                  (3, "v2 with name an int64 (breaking: string -> int64)")):
    scenario(f"protobuf-evolve-v{_v}", f"Protobuf schema evolution, version {_v} of 3: {_what}; string keys")(
        protobuf_evolve(_v))


def json_schema_evolve_schema(version: int) -> dict:
    def integer(width: str) -> dict:
        return {"type": "integer", "connect.type": width}

    properties = {
        "id": integer("int32"),
        "name": {"type": "integer"} if version >= 3 else {"type": "string"},
        "qty": {"type": "integer"} if version >= 2 else integer("int32"),
        "price": {"type": "number"} if version >= 2 else {"type": "number", "connect.type": "float32"},
    }
    if version >= 2:
        properties["note"] = {"type": "string"}
    return {"$schema": "http://json-schema.org/draft-07/schema#", "title": "Evolve", "type": "object",
            "properties": properties, "required": ["id", "name", "qty", "price"]}


JSON_SCHEMA_EVOLVE_VALUES = {
    1: [dict(id=1, name="a", qty=10, price=1.5), dict(id=2, name="b", qty=-3, price=0.25)],
    2: [dict(id=3, name="c", qty=9007199254740993, price=0.1, note="n"), dict(id=4, name="d", qty=1, price=2.0)],
    3: [dict(id=5, name=42, qty=7, price=3.5, note="x"), dict(id=6, name=-1, qty=8, price=-0.5)],
}


def json_schema_evolve(version: int):
    def build(registry: SchemaRegistryClient, conf: dict):
        from confluent_kafka.schema_registry.json_schema import JSONSerializer

        messages = [Message(f"e{v['id']}", v, v) for v in JSON_SCHEMA_EVOLVE_VALUES[version]]
        serializer = JSONSerializer(json.dumps(json_schema_evolve_schema(version)), registry,
                                    conf=serializer_conf(conf))
        return Built(serializer, messages, verify=json_verifier(registry))

    return build


for _v, _what in ((1, "id integer (int32), name string, qty integer (int32), price number (float32)"),
                  (2, "v1 + note (string, optional); qty integer, price number (widened)"),
                  (3, "v2 with name an integer (breaking: string -> integer)")):
    scenario(f"json-schema-evolve-v{_v}", f"JSON Schema evolution, version {_v} of 3: {_what}; string keys")(
        json_schema_evolve(_v))


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
    built = sc.build(registry, {"auto.register.schemas": True, "_protobuf_schema": args.protobuf_schema})
    if isinstance(built, tuple):
        built = Built(*built)
    messages = built.messages
    key_serializer = built.key_serializer or StringSerializer("utf_8")

    # Serialize (and cross-check) first: a registry problem or a wrong expectation then stops
    # us before anything is created or produced.
    ctx_value = SerializationContext(args.topic, MessageField.VALUE)
    ctx_key = SerializationContext(args.topic, MessageField.KEY)
    records = []
    for m in messages:
        key = key_serializer(m.key, ctx_key) if m.key is not None else None
        value = built.serializer(m.value, ctx_value)
        if built.verify is not None:
            built.verify(m, key, value)
        records.append((key, value))

    ensure_topic(args.bootstrap, args.topic, args.partitions)
    producer = Producer({"bootstrap.servers": args.bootstrap, "enable.idempotence": True, "acks": "all",
                         "linger.ms": 5})

    results: list[dict | None] = [None] * len(messages)
    errors: list[str] = []

    def on_delivery(i: int, schema_id: int, key_schema_id: int | None, m: Message):
        if key_schema_id is None:
            key, expected_key = m.key, m.key
        else:
            key, expected_key = json.loads(m.expected_key), m.expected_key

        def cb(err, record):
            if err is not None:
                errors.append(f"message {i}: {err}")
                return
            results[i] = {"partition": record.partition(), "offset": record.offset(), "schema_id": schema_id,
                          "key": key, "key_schema_id": key_schema_id, "expected": m.expected,
                          "expected_key": expected_key}
        return cb

    for i, (m, (key, value)) in enumerate(zip(messages, records)):
        key_schema_id = schema_id_of(key) if built.key_serializer is not None and key is not None else None
        if key_schema_id is not None and m.expected_key is None:
            raise SystemExit(f"internal error: message {i} has a schema-encoded key but no expected_key")
        producer.produce(args.topic, key=key, value=value,
                         on_delivery=on_delivery(i, schema_id_of(value), key_schema_id, m))
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
