#!/usr/bin/env python3
"""A local stand-in for Google's OAuth2 token endpoint and GCE metadata server, for krow's
BigQuery authentication tests; optionally an authenticating reverse proxy in front of the
BigQuery emulator.

    token_server.py --public-key sa.pub.pem [--port 0] [--lifetime 3] [--issuer EMAIL]
                    [--audience URL] [--refresh-token T --client-id I --client-secret S]
                    [--account EMAIL] [--upstream http://127.0.0.1:9050]

Binds 127.0.0.1:<port> (0: the system picks) and prints the port as the first line of stdout.
Exits when stdin, if a pipe, closes (so a test that dies takes it along) or on SIGTERM/SIGINT.

Endpoints:
  POST /token   OAuth2 token endpoint, as https://oauth2.googleapis.com/token answers:
                grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>: the JWT's
                RS256 signature is checked against --public-key (repeatable), its aud against
                --audience (default: this server's own http://127.0.0.1:<port>/token), its iss
                against --issuer (when given), iat/exp (at most an hour, not expired, not from
                the future) and its scope (present);
                grant_type=refresh_token (when --refresh-token is given): client_id,
                client_secret and refresh_token must match.
                200 {"access_token","expires_in","token_type":"Bearer"}, tokens living
                --lifetime seconds; 400 {"error":"invalid_grant","error_description":...} as
                Google words it.
  GET  /computeMetadata/v1/instance/service-accounts/default/token[?scopes=...]
  GET  /computeMetadata/v1/instance/service-accounts/default/email
  GET  /computeMetadata/v1/, /   the metadata server: requires "Metadata-Flavor: Google"
                (else 403), answers with that header (GCE_METADATA_HOST=127.0.0.1:<port>).
  GET  /stats   {"issued": n, "by_grant": {...}, "refused": n, "proxied": n,
                "proxy_refused": n, "failing": n}
  POST /control/fail?status=503&times=2   the next `times` token requests (either kind)
                answer `status` (a token endpoint outage).
  GET  /echo    without --upstream only: the request as JSON (method, path, query, headers,
                body), so that a second instance can serve as the upstream of a proxy test.

Proxy mode (--upstream URL): every other request is forwarded to URL (method, path, query,
headers but Host/Authorization/hop-by-hop ones, body) only when it carries
"Authorization: Bearer <token>" with a token this server issued and that has not expired;
otherwise 401 with Google's error body. The answer is streamed back; Location headers that
point at the upstream are rewritten to point at this server (resumable uploads). HTTP only:
gRPC (the Storage Write API) cannot go through it.

Signature checks use the `cryptography` package when present (the BigQuery venv has it, via
google-auth), and the openssl command otherwise.
"""

import argparse
import base64
import http.client
import json
import os
import secrets
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
METADATA_PREFIX = "/computeMetadata/v1"
HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
              "trailers", "transfer-encoding", "upgrade", "expect", "host", "authorization"}
MAX_FORM_BYTES = 1 << 20


def b64url_decode(text):
    if "=" in text:
        raise ValueError("padding")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Verifier:
    """RS256 signature checks against one or more PEM public keys."""

    def __init__(self, paths):
        self.paths = paths
        self.keys = []
        try:
            from cryptography.hazmat.primitives.serialization import load_pem_public_key
            for p in paths:
                with open(p, "rb") as f:
                    self.keys.append(load_pem_public_key(f.read()))
        except ImportError:
            self.keys = None

    def verify(self, signed, signature):
        if self.keys is not None:
            from cryptography.exceptions import InvalidSignature
            from cryptography.hazmat.primitives import hashes
            from cryptography.hazmat.primitives.asymmetric import padding
            for k in self.keys:
                try:
                    k.verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
                    return True
                except InvalidSignature:
                    pass
            return False
        with tempfile.NamedTemporaryFile() as sig:
            sig.write(signature)
            sig.flush()
            for p in self.paths:
                r = subprocess.run(["openssl", "dgst", "-sha256", "-verify", p, "-signature", sig.name],
                                   input=signed, capture_output=True)
                if r.returncode == 0:
                    return True
        return False


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.tokens = {}  # token -> (expiry as time.time(), grant)
        self.stats = {"issued": 0, "by_grant": {}, "refused": 0, "proxied": 0, "proxy_refused": 0}
        self.fail_status = 0
        self.fail_times = 0
        self.verifier = Verifier(args.public_key)
        self.port = 0

    def issue(self, grant):
        token = "ya29.krow-test-" + secrets.token_urlsafe(24)
        with self.lock:
            self.tokens[token] = (time.time() + self.args.lifetime, grant)
            self.stats["issued"] += 1
            self.stats["by_grant"][grant] = self.stats["by_grant"].get(grant, 0) + 1
        return {"access_token": token, "expires_in": self.args.lifetime, "token_type": "Bearer"}

    def valid(self, token):
        with self.lock:
            entry = self.tokens.get(token)
        return entry is not None and entry[0] > time.time()

    def take_failure(self):
        with self.lock:
            if self.fail_times > 0:
                self.fail_times -= 1
                return self.fail_status
        return 0

    def refused(self):
        with self.lock:
            self.stats["refused"] += 1

    def count(self, key):
        with self.lock:
            self.stats[key] += 1


def invalid_grant(description):
    return 400, {"error": "invalid_grant", "error_description": description}


def check_assertion(state, assertion):
    """(status, answer) for a jwt-bearer grant, in the words Google's endpoint uses."""
    parts = assertion.split(".")
    if len(parts) != 3:
        return 400, {"error": "invalid_request", "error_description": "Invalid JWT: malformed"}
    try:
        header = json.loads(b64url_decode(parts[0]))
        claims = json.loads(b64url_decode(parts[1]))
        signature = b64url_decode(parts[2])
    except (ValueError, UnicodeDecodeError):
        return 400, {"error": "invalid_request", "error_description": "Invalid JWT: not base64url JSON"}
    if header.get("alg") != "RS256":
        return invalid_grant("Invalid JWT: alg must be RS256")
    if not state.verifier.verify((parts[0] + "." + parts[1]).encode(), signature):
        return invalid_grant("Invalid JWT Signature.")
    audience = state.args.audience or "http://127.0.0.1:%d/token" % state.port
    if claims.get("aud") != audience:
        return invalid_grant("Invalid JWT: Failed audience check. The right audience is " + audience)
    if not claims.get("iss") or (state.args.issuer and claims.get("iss") != state.args.issuer):
        return invalid_grant("Invalid grant: account not found")
    if not claims.get("scope"):
        return 400, {"error": "invalid_scope", "error_description": "Invalid oauth scope or ID token audience provided."}
    now = time.time()
    iat, exp = claims.get("iat"), claims.get("exp")
    if not isinstance(iat, int) or not isinstance(exp, int) or exp <= now or iat > now + 60 or exp - iat > 3600:
        return invalid_grant("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable "
                             "timeframe. Check your iat and exp values in the JWT claim.")
    return 200, state.issue("jwt-bearer")


def check_refresh(state, form):
    a = state.args
    if not a.refresh_token:
        return 400, {"error": "unsupported_grant_type", "error_description": "Invalid grant_type: refresh_token"}
    if form.get("client_id") != a.client_id or form.get("client_secret") != a.client_secret:
        return 401, {"error": "invalid_client", "error_description": "The OAuth client was not found."}
    if form.get("refresh_token") != a.refresh_token:
        return invalid_grant("Token has been expired or revoked.")
    return 200, state.issue("refresh_token")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "krow-token-server"

    def log_message(self, fmt, *args):  # quiet: tests read stdout for the port only
        pass

    # ---- answers ----

    def send_json(self, status, doc, extra=()):
        body = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def send_text(self, status, text, extra=()):
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    # ---- dispatch ----

    def do_GET(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def do_PUT(self):
        self.dispatch()

    def do_PATCH(self):
        self.dispatch()

    def do_DELETE(self):
        self.dispatch()

    def do_HEAD(self):
        self.dispatch()

    def dispatch(self):
        state = self.server.state
        url = urlsplit(self.path)
        path = url.path
        try:
            if path == "/token" and self.command == "POST":
                return self.token(state)
            if path == "/stats" and self.command == "GET":
                with state.lock:
                    doc = dict(state.stats, failing=state.fail_times)
                return self.send_json(200, doc)
            if path == "/control/fail" and self.command == "POST":
                self.read_body()
                q = parse_qs(url.query)
                with state.lock:
                    state.fail_status = int(q.get("status", ["503"])[0])
                    state.fail_times = int(q.get("times", ["1"])[0])
                return self.send_json(200, {"status": state.fail_status, "times": state.fail_times})
            if path == "/" or path.startswith(METADATA_PREFIX):
                return self.metadata(state, path)
            if state.args.upstream:
                return self.proxy(state)
            if path == "/echo":
                body = self.read_body()
                return self.send_json(200, {"method": self.command, "path": path, "query": url.query,
                                            "headers": {k.lower(): v for k, v in self.headers.items()},
                                            "body": body.decode("utf-8", "replace")})
            self.read_body()
            return self.send_json(404, {"error": {"code": 404, "message": "Not found: " + path, "status": "NOT_FOUND"}})
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    # ---- OAuth2 token endpoint ----

    def token(self, state):
        n = int(self.headers.get("Content-Length") or 0)
        if n > MAX_FORM_BYTES:
            self.close_connection = True
            return self.send_json(413, {"error": "invalid_request", "error_description": "Request too large"})
        raw = self.read_body()
        failure = state.take_failure()
        if failure:
            return self.send_json(failure, {"error": "internal_failure", "error_description": "Backend Error"}
                                  if failure >= 500 else {"error": "rate_limit_exceeded",
                                                          "error_description": "Rate Limit Exceeded"})
        form = {k: v[0] for k, v in parse_qs(raw.decode("utf-8", "replace")).items()}
        grant = form.get("grant_type")
        if grant == JWT_BEARER:
            status, doc = check_assertion(state, form.get("assertion", ""))
        elif grant == "refresh_token":
            status, doc = check_refresh(state, form)
        else:
            status, doc = 400, {"error": "unsupported_grant_type", "error_description": "Invalid grant_type: %s" % grant}
        if status != 200:
            state.refused()
        self.send_json(status, doc, [("Cache-Control", "no-cache, no-store, max-age=0, must-revalidate")])

    # ---- GCE metadata server ----

    def metadata(self, state, path):
        self.read_body()
        flavor = [("Metadata-Flavor", "Google")]
        if self.headers.get("Metadata-Flavor") != "Google":
            return self.send_text(403, "Missing required header \"Metadata-Flavor\": \"Google\"\n", flavor)
        if self.command != "GET":
            return self.send_text(405, "Method not allowed\n", flavor)
        base = METADATA_PREFIX + "/instance/service-accounts/default/"
        if path == base + "token":
            failure = state.take_failure()
            if failure:
                return self.send_text(failure, "metadata server unavailable\n", flavor)
            return self.send_json(200, state.issue("metadata"), flavor)
        if path == base + "email":
            return self.send_text(200, state.args.account, flavor)
        if path in ("/", METADATA_PREFIX, METADATA_PREFIX + "/"):
            return self.send_text(200, "computeMetadata/\n", flavor)
        return self.send_text(404, "Not found\n", flavor)

    # ---- authenticating reverse proxy ----

    def proxy(self, state):
        auth = self.headers.get("Authorization", "")
        token = auth[7:].strip() if auth.startswith("Bearer ") else ""
        body = self.read_body()
        if not token or not state.valid(token):
            state.count("proxy_refused")
            return self.send_json(401, {"error": {
                "code": 401,
                "message": "Request had invalid authentication credentials. Expected OAuth 2 access token, login "
                           "cookie or other valid authentication credential. See "
                           "https://developers.google.com/identity/sign-in/web/devconsole-project.",
                "errors": [{"message": "Invalid Credentials", "domain": "global", "reason": "authError",
                            "location": "Authorization", "locationType": "header"}],
                "status": "UNAUTHENTICATED"}}, [("WWW-Authenticate", 'Bearer realm="https://accounts.google.com/"')])
        state.count("proxied")
        up = urlsplit(state.args.upstream)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP and k.lower() != "content-length"}
        if body or self.command in ("POST", "PUT", "PATCH"):
            headers["Content-Length"] = str(len(body))
        conn = http.client.HTTPConnection(up.hostname, up.port or 80, timeout=state.args.upstream_timeout)
        try:
            conn.request(self.command, self.path, body=body or None, headers=headers)
            resp = conn.getresponse()
        except OSError as e:
            conn.close()
            return self.send_json(502, {"error": {"code": 502, "message": "upstream unreachable: %s" % e,
                                                  "status": "UNAVAILABLE"}})
        try:
            self.send_response(resp.status, resp.reason)
            length = resp.getheader("Content-Length")
            upstream_base = "%s://%s" % (up.scheme, up.netloc)
            own_base = "http://127.0.0.1:%d" % state.port
            for k, v in resp.getheaders():
                if k.lower() in HOP_BY_HOP or k.lower() == "content-length":
                    continue
                if k.lower() == "location" and v.startswith(upstream_base):
                    v = own_base + v[len(upstream_base):]
                self.send_header(k, v)
            chunked = length is None and self.command != "HEAD" and resp.status not in (204, 304)
            if length is not None:
                self.send_header("Content-Length", length)
            elif chunked:
                self.send_header("Transfer-Encoding", "chunked")
            elif self.command != "HEAD":
                self.send_header("Content-Length", "0")
            self.end_headers()
            while self.command != "HEAD":
                block = resp.read1(64 * 1024) if hasattr(resp, "read1") else resp.read(64 * 1024)
                if not block:
                    break
                if chunked:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
                else:
                    self.wfile.write(block)
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
        finally:
            conn.close()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--public-key", action="append", required=True,
                   help="PEM public key that signs accepted JWTs (repeatable)")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--lifetime", type=int, default=3600, help="seconds an issued token lives")
    p.add_argument("--audience", help="expected aud (default: http://127.0.0.1:<port>/token)")
    p.add_argument("--issuer", help="expected iss (client_email); any non-empty one when not given")
    p.add_argument("--refresh-token", help="accept grant_type=refresh_token with this token")
    p.add_argument("--client-id", default="krow-test-client.apps.googleusercontent.com")
    p.add_argument("--client-secret", default="krow-test-client-secret")
    p.add_argument("--account", default="krow-vm@krow-test.iam.gserviceaccount.com",
                   help="the metadata server's service account email")
    p.add_argument("--upstream", help="proxy mode: forward authenticated requests here (http://host:port)")
    p.add_argument("--upstream-timeout", type=float, default=300)
    args = p.parse_args()

    state = State(args)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.state = state
    state.port = server.server_address[1]
    print(state.port, flush=True)

    def stop(*_):
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    def watch_stdin():  # the test that started us is gone when its end of stdin closes
        try:
            while os.read(0, 4096):
                pass
        except (OSError, ValueError):
            pass
        stop()

    # Only a pipe: started in the background by a shell, stdin is /dev/null, which is no test.
    if stat.S_ISFIFO(os.fstat(sys.stdin.fileno()).st_mode):
        threading.Thread(target=watch_stdin, daemon=True).start()
    server.serve_forever()
    server.server_close()
    sys.stdout.flush()
    os._exit(0)  # not waiting for proxy transfers or the stdin watcher still in their threads


if __name__ == "__main__":
    main()
