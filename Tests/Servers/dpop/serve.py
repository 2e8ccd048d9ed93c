#!/usr/bin/env python3
"""A GoTrue-shaped token endpoint that binds its tokens to DPoP keys (RFC 9449), for the tests.

Why this and not a server from PyPI: the DPoP servers there (idpyoidc's add-on, authgent-server)
bring a whole OpenID provider or agent stack to configure for one token endpoint; here the proof
check itself is jwcrypto's (JWS parsing, ES256 verification, RFC 7638 thumbprints), never
SessionVault's code, and this file only applies RFC 9449's rules to what jwcrypto verified:
typ, alg, a public jwk, htm, htu, iat, a jti seen once, the nonce, ath, and the binding of every
token to the thumbprint of the key that proved possession when it was issued.

Endpoints (on 127.0.0.1, a free port; prints `OAUTH-SERVER READY port=<n>`, exits when stdin closes):
  POST /auth/v1/token?grant_type=password       {"email", "password"}   -> tokens bound to the proof's key
  POST /auth/v1/token?grant_type=refresh_token  {"refresh_token"}       -> rotated; the proof's key must be the bound one
  GET  /authorize?...code_challenge (S256)...    -> {"redirect": "<redirect_uri>?code=…&state=…"} (consent without a browser)
  POST /oauth/token   form: authorization_code (PKCE checked) or refresh_token, as RFC 6749
  GET  /resource   Authorization: DPoP <access token>, DPoP: proof with ath
  POST /auth/v1/logout?scope=…  Authorization: DPoP <access token>, DPoP: proof with ath -> 204, the
                   session (every token bound to that key) ended; Bearer, or a bad proof: 401
  GET  /harness/log  every request seen, in order: path, grant, whether a proof came, jti, nonce, status
  POST /harness/clock  {"offset": seconds}: the server's clock from now on (see --clock-offset)
Every request's log entry also has the proof's iat and the thumbprint jwcrypto computes of its
jwk (RFC 7638), read without verifying, for the tests to compare with the client's.
Options: --clock-offset N (the server's clock runs N seconds ahead of this machine's, behind when
negative: its Date headers and its iat window follow it),
--require-nonce (a nonce in every token request's proof; use_dpop_nonce otherwise),
--resource-nonce (the same for /resource, with a nonce of its own), --downgrade (answer
token_type Bearer), --downgrade-refresh (sign-ins bound, a refresh answered with unbound Bearer
tokens, which are refreshed without a proof afterwards), --stuck-nonce (every token request
refused with use_dpop_nonce and the same nonce, the right one included), --bad-nonce (with
--require-nonce: the nonce offered is no printable token, a client cannot send it), --access-seconds N,
--refuse-proofs (every proof that passes the checks is refused anyway as invalid_dpop_proof).
"""
import argparse
import hashlib
import json
import secrets
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from jwcrypto import jwk, jws
from jwcrypto.common import base64url_encode

EMAIL = "alice@example.com"
PASSWORD = "correct horse battery staple"
SUBJECT = str(uuid.UUID(int=29))
IAT_WINDOW = 300

lock = threading.RLock()  # answer() logs under it, also from inside a held section
seen_jti = set()
refresh_tokens = {}   # token -> {"jkt": ..., "used": bool}
access_tokens = {}    # token -> jkt (None: bearer)
codes = {}            # authorization code -> {"challenge", "redirect_uri", "used"}
log = []
options = None
server_nonce = "n-" + secrets.token_urlsafe(16)
clock_offset = 0.0


def server_now():
    """The server's clock: this machine's, moved by --clock-offset or /harness/clock."""
    return time.time() + clock_offset
resource_nonce = "r-" + secrets.token_urlsafe(16)


class ProofError(Exception):
    def __init__(self, error, detail):
        super().__init__(detail)
        self.error = error
        self.detail = detail


def verify_proof(handler, method, access_token=None, nonce=None):
    """Returns (jkt, claims) of the request's DPoP proof, checked as RFC 9449 §4.3 says."""
    values = handler.headers.get_all("DPoP") or []
    if len(values) != 1:
        raise ProofError("invalid_dpop_proof", "exactly one DPoP header is required")
    token = jws.JWS()
    try:
        token.deserialize(values[0])
        header = token.jose_header
        if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256" or "jwk" not in header:
            raise ProofError("invalid_dpop_proof", "typ, alg or jwk wrong")
        key = jwk.JWK(**header["jwk"])
        if key.has_private:
            raise ProofError("invalid_dpop_proof", "the jwk holds a private key")
        token.verify(key, alg="ES256")
        claims = json.loads(token.payload)
    except ProofError:
        raise
    except Exception as error:  # jwcrypto's verdict: a bad signature, a malformed JWS
        raise ProofError("invalid_dpop_proof", "not verified: %s" % type(error).__name__)
    url = "http://127.0.0.1:%d%s" % (handler.server.server_port, urlsplit(handler.path).path)
    if claims.get("htm") != method or claims.get("htu") != url:
        raise ProofError("invalid_dpop_proof", "htm or htu does not match the request")
    iat = claims.get("iat")
    if not isinstance(iat, int) or abs(server_now() - iat) > IAT_WINDOW:
        raise ProofError("invalid_dpop_proof", "iat missing or out of the window")
    jti = claims.get("jti")
    if not isinstance(jti, str) or len(jti) < 16:
        raise ProofError("invalid_dpop_proof", "jti missing or short")
    if access_token is not None:
        if claims.get("ath") != base64url_encode(hashlib.sha256(access_token.encode()).digest()):
            raise ProofError("invalid_dpop_proof", "ath does not match the access token")
    if nonce is not None and claims.get("nonce") != nonce:
        raise ProofError("use_dpop_nonce", "a nonce is required")
    with lock:
        if jti in seen_jti:
            raise ProofError("invalid_dpop_proof", "jti replayed")
        seen_jti.add(jti)
    if options.refuse_proofs:
        raise ProofError("invalid_dpop_proof", "every proof is refused (--refuse-proofs)")
    return key.thumbprint(), claims


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def date_time_string(self, timestamp=None):
        # The Date header tells the server's clock, as a real server's does.
        return super().date_time_string(server_now() if timestamp is None else timestamp)

    def read_body(self):
        """The request body, whether sized or chunked (Foundation on Linux sends either)."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def answer(self, status, body, entry, headers=()):
        entry["status"] = status
        with lock:
            log.append(entry)
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        # One request per connection: nothing a client left unread can leak into the next one.
        self.send_header("Connection", "close")
        self.close_connection = True
        if options.resource_nonce and entry["path"] == "/resource":
            self.send_header("DPoP-Nonce", resource_nonce)
        elif options.require_nonce and entry["path"] != "/resource":
            self.send_header("DPoP-Nonce", server_nonce)
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def entry(self, grant=None):
        proof = self.headers.get("DPoP")
        entry = {"path": urlsplit(self.path).path, "grant": grant, "proof": proof is not None, "jti": None, "nonce": None,
                 "iat": None, "jkt": None, "serverTime": int(server_now())}
        if proof:
            try:
                claims = json.loads(_payload(proof))
                entry["jti"], entry["nonce"], entry["iat"] = claims.get("jti"), claims.get("nonce"), claims.get("iat")
                entry["jkt"] = jwk.JWK(**_header(proof)["jwk"]).thumbprint()
            except Exception:
                pass
        return entry

    def do_GET(self):
        path = urlsplit(self.path).path
        if path == "/harness/log":
            with lock:
                data = json.dumps(log).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        entry = self.entry()
        if path == "/authorize":
            # The user's consent, without a browser: the redirect comes back as JSON.
            query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
            if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
                return self.answer(400, {"error": "invalid_request"}, entry)
            code = "code-" + secrets.token_urlsafe(16)
            with lock:
                codes[code] = {"challenge": query["code_challenge"], "redirect_uri": query.get("redirect_uri"), "used": False}
            redirect = "%s?code=%s&state=%s" % (query.get("redirect_uri"), code, query.get("state", ""))
            return self.answer(200, {"redirect": redirect}, entry)
        if path != "/resource":
            return self.answer(404, {"error": "not_found"}, entry)
        # A resource server's refusals say it in the challenge only (RFC 9449 §7.1), with an
        # empty JSON body, as most APIs answer.
        authorization = self.headers.get("Authorization", "")
        if not authorization.startswith("DPoP "):
            return self.answer(401, {}, entry, [("WWW-Authenticate", 'DPoP error="invalid_token"')])
        token = authorization[5:]
        try:
            jkt, _ = verify_proof(self, "GET", access_token=token, nonce=resource_nonce if options.resource_nonce else None)
        except ProofError as error:
            return self.answer(401, {}, entry, [("WWW-Authenticate", 'DPoP error="%s"' % error.error)])
        with lock:
            bound = access_tokens.get(token, "unknown")
        if bound != jkt:
            return self.answer(401, {}, entry, [("WWW-Authenticate", 'DPoP error="invalid_token"')])
        return self.answer(200, {"subject": SUBJECT}, entry)

    def do_POST(self):
        split = urlsplit(self.path)
        raw = self.read_body()
        if split.path == "/oauth/token":
            # RFC 6749: a form body, the grant in it.
            body = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
            grant = body.get("grant_type")
        else:
            # GoTrue: JSON, the grant in the query.
            grant = parse_qs(split.query).get("grant_type", [None])[0]
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
        if split.path == "/harness/clock":
            global clock_offset
            clock_offset = float(json.loads(raw)["offset"])
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.close_connection = True
            self.end_headers()
            return
        entry = self.entry(grant)
        if split.path == "/auth/v1/logout":
            return self.logout(entry)
        if split.path not in ("/auth/v1/token", "/oauth/token"):
            return self.answer(404, {"error": "not_found"}, entry)
        with lock:
            unbound = grant == "refresh_token" and refresh_tokens.get(body.get("refresh_token"), {}).get("jkt", "") is None
        if unbound and self.headers.get("DPoP") is None:
            jkt = None  # a bearer refresh token (after --downgrade-refresh): no proof needed
        else:
            try:
                jkt, _ = verify_proof(self, "POST", nonce=server_nonce if options.require_nonce else None)
                if options.stuck_nonce:
                    raise ProofError("use_dpop_nonce", "a fresh nonce is required")
            except ProofError as error:
                return self.answer(400, {"error": error.error, "error_description": error.detail}, entry)
        if grant == "password":
            if body.get("email") != EMAIL or body.get("password") != PASSWORD:
                return self.answer(400, {"error": "invalid_grant", "error_description": "Invalid login credentials"}, entry)
        elif grant == "authorization_code":
            verifier = body.get("code_verifier", "")
            challenge = base64url_encode(hashlib.sha256(verifier.encode()).digest())
            with lock:
                record = codes.get(body.get("code"))
                if record is None or record["used"] or record["challenge"] != challenge or record["redirect_uri"] != body.get("redirect_uri"):
                    return self.answer(400, {"error": "invalid_grant", "error_description": "code unknown, used, or PKCE mismatch"}, entry)
                record["used"] = True
        elif grant == "refresh_token":
            with lock:
                record = refresh_tokens.get(body.get("refresh_token"))
                if record is None or record["used"]:
                    return self.answer(400, {"error": "invalid_grant", "error_description": "Refresh Token Not Found"}, entry)
                if record["jkt"] != jkt:
                    return self.answer(400, {"error": "invalid_grant", "error_description": "the refresh token is bound to another key"}, entry)
                record["used"] = True
        else:
            return self.answer(400, {"error": "unsupported_grant_type"}, entry)
        access, refresh = "at-" + secrets.token_urlsafe(24), "rt-" + secrets.token_urlsafe(24)
        bearer = options.downgrade or (options.downgrade_refresh and grant == "refresh_token")
        if bearer and options.downgrade_refresh:
            jkt = None  # the tokens are not bound: what a real downgrade issues
        with lock:
            access_tokens[access] = jkt
            refresh_tokens[refresh] = {"jkt": jkt, "used": False}
        return self.answer(200, {
            "access_token": access, "refresh_token": refresh,
            "token_type": "Bearer" if bearer else "DPoP",
            "expires_in": options.access_seconds,
            "user": {"id": SUBJECT, "email": EMAIL},
        }, entry)


    def logout(self, entry):
        """GoTrue's logout, for a DPoP-bound session: the access token as `DPoP`, with a proof
        (htm POST, htu the logout URL, ath) by the key it is bound to, checked by jwcrypto as the
        token endpoint's. Ends the session: every token bound to that key is revoked."""
        authorization = self.headers.get("Authorization", "")
        if not authorization.startswith("DPoP "):
            return self.answer(401, {"error": "invalid_token", "error_description": "a DPoP-bound token must be sent as DPoP"}, entry,
                               [("WWW-Authenticate", 'DPoP error="invalid_token"')])
        token = authorization[5:]
        try:
            jkt, _ = verify_proof(self, "POST", access_token=token, nonce=server_nonce if options.require_nonce else None)
        except ProofError as error:
            return self.answer(401, {"error": error.error, "error_description": error.detail}, entry,
                               [("WWW-Authenticate", 'DPoP error="%s"' % error.error)])
        with lock:
            if token not in access_tokens or access_tokens[token] != jkt:
                return self.answer(401, {"error": "invalid_token", "error_description": "token unknown or bound to another key"}, entry)
            for refresh, record in refresh_tokens.items():
                if record["jkt"] == jkt:
                    record["used"] = True
            for access in [a for a, bound in access_tokens.items() if bound == jkt]:
                del access_tokens[access]
        entry["status"] = 204
        with lock:
            log.append(entry)
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.close_connection = True
        self.end_headers()


def _header(proof):
    """The protected header of a proof, unverified: only for the log the tests read."""
    from jwcrypto.common import base64url_decode
    return json.loads(base64url_decode(proof.split(".")[0]))


def _payload(proof):
    """The claims of a proof, unverified: only for the log the tests read."""
    from jwcrypto.common import base64url_decode
    return base64url_decode(proof.split(".")[1])


def main():
    global options
    parser = argparse.ArgumentParser()
    parser.add_argument("--require-nonce", action="store_true")
    parser.add_argument("--resource-nonce", action="store_true")
    parser.add_argument("--downgrade", action="store_true")
    parser.add_argument("--downgrade-refresh", action="store_true")
    parser.add_argument("--stuck-nonce", action="store_true")
    parser.add_argument("--bad-nonce", action="store_true")
    parser.add_argument("--access-seconds", type=int, default=3600)
    parser.add_argument("--clock-offset", type=float, default=0.0)
    parser.add_argument("--refuse-proofs", action="store_true")
    options = parser.parse_args()
    global clock_offset
    clock_offset = options.clock_offset
    global server_nonce
    if options.stuck_nonce:
        options.require_nonce = True
    if options.bad_nonce:
        server_nonce = 'bad "nonce" ' + secrets.token_urlsafe(8)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("OAUTH-SERVER READY port=%d" % server.server_port, flush=True)
    # The test holds stdin open for the server's life: EOF means it is done (or died).
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
