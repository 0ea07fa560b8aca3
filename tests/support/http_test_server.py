#!/usr/bin/env python3
"""A small HTTP(S) server for tests/unit/http/http_client_test.cpp: it shows krow's HTTP client
the request it sent, and answers what a test asks for.

    http_test_server.py [--tls CERT.pem KEY.pem]

Stdlib only. Binds 127.0.0.1 on a port the system picks and prints that port as the first
line of stdout. Exits when stdin closes (so a test that dies takes it along) or on SIGTERM.

    ANY  /echo                   200, the request as JSON: method, path, headers, body
    GET  /status/<n>             status <n>, with "X-Test: yes" and "Retry-After: 7"
    GET  /big?bytes=N&announce=1 N bytes; announce=0: chunked, with no Content-Length
    GET  /slow?seconds=S         200 after S seconds
"""

import json
import os
import signal
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def answer(self, status, body, content_type="text/plain", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def handle_any(self):
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if url.path == "/echo":
            doc = {"method": self.command, "path": self.path,
                   "headers": {k.lower(): v for k, v in self.headers.items()},
                   "body": body.decode("utf-8", "replace")}
            self.answer(200, json.dumps(doc).encode(), "application/json")
        elif url.path.startswith("/status/"):
            status = int(url.path[len("/status/"):])
            self.answer(status, b"status %d" % status, headers=[("X-Test", "yes"), ("Retry-After", "7")])
        elif url.path == "/big":
            size = int(query.get("bytes", "0"))
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            if query.get("announce", "1") == "1":
                self.send_header("Content-Length", str(size))
                self.end_headers()
                self.write_bytes(size, chunked=False)
            else:
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self.write_bytes(size, chunked=True)
        elif url.path == "/slow":
            time.sleep(float(query.get("seconds", "1")))
            self.answer(200, b"late")
        else:
            self.answer(404, b"no such path")

    def write_bytes(self, size, chunked):
        piece = b"x" * 65536
        try:
            while size > 0:
                part = piece[:min(size, len(piece))]
                if chunked:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                else:
                    self.wfile.write(part)
                size -= len(part)
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            self.close_connection = True  # the client stopped reading: what the test is about

    do_GET = do_POST = do_PUT = do_DELETE = handle_any


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if len(sys.argv) == 4 and sys.argv[1] == "--tls":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        server.socket = context.wrap_socket(server.socket, server_side=True)
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
