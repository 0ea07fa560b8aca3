#!/usr/bin/env python3
"""A schema registry that answers garbage, for tests/integration/registry_garbage_test.cpp.

Stdlib only. Binds 127.0.0.1 on a port the system picks and prints that port as the first
line of stdout. Exits when stdin closes (so a test that dies takes it along) or on SIGTERM.

Each schema ID (GET /schemas/ids/<id>) and each reference (GET /subjects/<s>/versions/<v>)
has one hostile answer, listed in SCHEMAS and SUBJECTS below; the test names them by the
same numbers. Answers that change with the number of requests (a registry that recovers)
count per path.
"""

import base64
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

AVRO_RECORD = json.dumps({"type": "record", "name": "Reading", "namespace": "garbage",
                          "fields": [{"name": "n", "type": "long"}]})
JSON_SCHEMA = json.dumps({"type": "object"})

HUGE_BYTES = 50 * 1000 * 1000  # "a 50 MB schema"
CHUNK = 1 << 20


def registry_json(status, doc):
    return status, "application/vnd.schemaregistry.v1+json", json.dumps(doc).encode()


def html(status, title, body=""):
    page = ("<!DOCTYPE html>\n<html>\n<head><title>%s</title></head>\n<body>\n<center><h1>%s</h1></center>\n"
            "%s<hr><center>nginx/1.22.1</center>\n</body>\n</html>\n" % (title, title, body))
    return status, "text/html", page.encode()


def schema_doc(schema, schema_type=None, references=None, **extra):
    doc = dict(extra)
    doc["schema"] = schema
    if schema_type:
        doc["schemaType"] = schema_type
    if references:
        doc["references"] = [{"name": n, "subject": s, "version": v} for n, s, v in references]
    return doc


# Avro: two named types that reference each other through the registry (a loop).
AVRO_LOOP_A = json.dumps({"type": "record", "name": "A", "namespace": "loop",
                          "fields": [{"name": "b", "type": ["null", "loop.B"]}]})
AVRO_LOOP_B = json.dumps({"type": "record", "name": "B", "namespace": "loop",
                          "fields": [{"name": "a", "type": ["null", "loop.A"]}]})
AVRO_PLAIN_A = json.dumps({"type": "record", "name": "A", "namespace": "loop",
                           "fields": [{"name": "b", "type": "long"}]})
AVRO_LOOP_ROOT = json.dumps({"type": "record", "name": "Root", "namespace": "loop",
                             "fields": [{"name": "a", "type": "loop.A"}]})
PROTO_LOOP_A = 'syntax = "proto3";\nimport "b.proto";\nmessage A { B b = 1; }\n'
PROTO_LOOP_B = 'syntax = "proto3";\nimport "a.proto";\nmessage B { A a = 1; }\n'
PROTO_LOOP_ROOT = 'syntax = "proto3";\nimport "a.proto";\nmessage Root { A a = 1; }\n'


def fixed(answer):
    return lambda handler: handler.answer(*answer)


# Schema ID -> what GET /schemas/ids/<id> answers. Functions get the request handler.
SCHEMAS = {
    1: fixed(registry_json(200, schema_doc(AVRO_RECORD))),  # a good answer, for contrast
    2: lambda h: h.answer(*html(200, "Sign in to the console as %s" % h.credentials(),
                                "<form method=post><input name=user></form>\n")),
    3: fixed(html(502, "502 Bad Gateway")),
    4: fixed(html(404, "404 Not Found")),
    5: fixed((200, "text/plain", json.dumps(schema_doc(AVRO_RECORD)).encode())),
    6: fixed(registry_json(200, schema_doc("this is not a schema", "AVRO"))),
    7: fixed(registry_json(200, schema_doc("this is not a schema", "PROTOBUF"))),
    8: fixed(registry_json(200, schema_doc("this is not a schema", "JSON"))),
    9: lambda h: h.cut_short(),
    10: lambda h: h.huge(announce_length=True),
    11: lambda h: h.huge(announce_length=False),
    12: fixed(registry_json(200, schema_doc(AVRO_LOOP_ROOT, references=[("loop.A", "avro-loop-a", 1)]))),
    13: fixed(registry_json(200, schema_doc(PROTO_LOOP_ROOT, "PROTOBUF", references=[("a.proto", "proto-loop-a", 1)]))),
    14: fixed(registry_json(200, [])),
    15: fixed(registry_json(200, {"schema": 42})),
    16: fixed(registry_json(200, None)),
    17: fixed(registry_json(200, schema_doc(AVRO_RECORD, references=[("chain", "chain", 1)]))),
    18: fixed(registry_json(200, schema_doc("<xsd:schema/>", "XML"))),
    19: fixed(registry_json(404, {"error_code": 40403, "message": "Schema 19 not found"})),
    20: lambda h: h.answer(*(html(503, "503 Service Temporarily Unavailable") if h.hits() <= 2
                             else registry_json(200, schema_doc(AVRO_RECORD)))),
    21: fixed(registry_json(200, schema_doc(AVRO_LOOP_ROOT, references=[("loop.A", "flaky-a", 1)]))),
    22: fixed(registry_json(200, schema_doc(JSON_SCHEMA, "JSON"))),
}


def subject(handler, name, version):
    """What GET /subjects/<name>/versions/<version> answers."""
    if name == "avro-loop-a":
        return registry_json(200, schema_doc(AVRO_LOOP_A, references=[("loop.B", "avro-loop-b", 1)],
                                             subject=name, version=version, id=101))
    if name == "avro-loop-b":
        return registry_json(200, schema_doc(AVRO_LOOP_B, references=[("loop.A", "avro-loop-a", 1)],
                                             subject=name, version=version, id=102))
    if name == "proto-loop-a":
        return registry_json(200, schema_doc(PROTO_LOOP_A, "PROTOBUF", references=[("b.proto", "proto-loop-b", 1)],
                                             subject=name, version=version, id=103))
    if name == "proto-loop-b":
        return registry_json(200, schema_doc(PROTO_LOOP_B, "PROTOBUF", references=[("a.proto", "proto-loop-a", 1)],
                                             subject=name, version=version, id=104))
    if name == "chain":  # a chain that never closes: every version references the next one
        return registry_json(200, schema_doc(AVRO_RECORD.replace("Reading", "Reading%d" % version),
                                             references=[("chain", "chain", version + 1)],
                                             subject=name, version=version, id=1000 + version))
    if name == "flaky-a":  # fails until its third request, then is a plain loop.A
        if handler.hits() <= 3:
            return html(502, "502 Bad Gateway")
        return registry_json(200, schema_doc(AVRO_PLAIN_A, subject=name, version=version, id=105))
    return registry_json(404, {"error_code": 40401, "message": "Subject '%s' not found." % name})


class Handler(BaseHTTPRequestHandler):
    # HTTP/1.0: one request per connection, and a body without Content-Length ends when the
    # connection closes (the "huge, streamed" answer relies on it).
    protocol_version = "HTTP/1.0"
    hits_by_path = {}
    hits_lock = threading.Lock()

    def log_message(self, *args):  # quiet: the test's output is what matters
        pass

    def credentials(self):
        """The basic-auth password the client sent (a hostile page may echo it)."""
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Basic "):
            return "(nobody)"
        return base64.b64decode(auth[6:]).decode(errors="replace").partition(":")[2]

    def hits(self):
        with Handler.hits_lock:
            return Handler.hits_by_path.get(self.path, 0)

    def answer(self, status, content_type, body):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def cut_short(self):
        """A JSON body that announces 500 bytes, sends 60, and closes the connection."""
        body = json.dumps(schema_doc(AVRO_RECORD)).encode()[:60]
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
        self.send_header("Content-Length", "500")
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        self.close_connection = True

    def huge(self, announce_length):
        """A valid Avro schema document of about 50 MB: a record whose doc is 50 MB of 'x'."""
        head = b'{"schema": "{\\"type\\":\\"record\\",\\"name\\":\\"Huge\\",\\"doc\\":\\"'
        tail = b'\\",\\"fields\\":[{\\"name\\":\\"n\\",\\"type\\":\\"long\\"}]}"}'
        filler = HUGE_BYTES - len(head) - len(tail)
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
        if announce_length:
            self.send_header("Content-Length", str(HUGE_BYTES))
        self.end_headers()
        try:
            self.wfile.write(head)
            chunk = b"x" * CHUNK
            while filler > 0:
                self.wfile.write(chunk[:filler])
                filler -= CHUNK
            self.wfile.write(tail)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: that is the point

    def do_GET(self):
        with Handler.hits_lock:
            Handler.hits_by_path[self.path] = Handler.hits_by_path.get(self.path, 0) + 1
        parts = [unquote(p) for p in self.path.split("?")[0].strip("/").split("/")]
        try:
            if len(parts) == 3 and parts[:2] == ["schemas", "ids"] and parts[2].isdigit() \
                    and int(parts[2]) in SCHEMAS:
                SCHEMAS[int(parts[2])](self)
            elif len(parts) == 4 and parts[0] == "subjects" and parts[2] == "versions" and parts[3].isdigit():
                self.answer(*subject(self, parts[1], int(parts[3])))
            else:
                self.answer(*registry_json(404, {"error_code": 40403, "message": "Schema not found"}))
        except (BrokenPipeError, ConnectionResetError):
            pass


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)

    def stop(*_):
        os._exit(0)  # at once, even while a handler thread is still streaming

    signal.signal(signal.SIGTERM, stop)

    def watch_stdin():
        while sys.stdin.buffer.read(4096):
            pass
        stop()

    threading.Thread(target=watch_stdin, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
