#!/usr/bin/env python3
"""Runs a real Glewlwyd (2.7.x, the Debian package's `glewlwyd` binary) OpenID provider for the tests.

What it does, in order:
  1. makes a private temporary work directory (removed at exit) with a sqlite3 database
     initialised from the package's init.sqlite3.sql.gz, an ES256 signing key (jwcrypto) and a
     Glewlwyd configuration bound to 127.0.0.1 on a free port, external_url
     http://127.0.0.1:<port>, logging to glewlwyd.log in the work directory;
  2. starts `glewlwyd --config-file=…` and waits (bounded) until `GET /config/` answers;
  3. as admin (admin/password, the package's initial account), through the admin REST API:
     creates the user `alice`, an OIDC plugin instance `oidc` and a public client (no secret)
     allowed the authorization-code and refresh-token grants, redirect URI
     `sessionvault-test://callback`;
  4. serves a small JSON harness on 127.0.0.1 (another free port) that plays the browser for
     the tests, and prints `OAUTH-SERVER READY port=<harness port>` once all of that is done.

Harness endpoints:
  GET  /harness/info            base, issuer, endpoints (from Glewlwyd's discovery document),
                                client_id, redirect_uri, scope, username, subject
  POST /harness/authorize       {"url": "<authorization URL>"} -> {"redirect": "<Location with code>"}
                                (logs alice in, grants the URL's scopes, follows Glewlwyd's
                                login-page round trip, never follows the custom-scheme redirect)
  POST /harness/end-session     {"url": "<end_session URL>", "confirm": bool, "revoke_tokens":
                                bool, "revoke_sessions": bool (all default false)}
                                -> {"status", "location", "confirm": {...}, "session_status"}
                                GETs the URL with alice's cookie (no redirect followed); with
                                confirm, also makes the requests Glewlwyd's login page makes when
                                the user confirms the sign-out (revoke_*: its two extra choices);
                                session_status: GET /api/profile_list with alice's cookie
                                afterwards (200: her Glewlwyd session lives, 401: it is gone)
  GET  /harness/refresh-tokens  rows of Glewlwyd's gpo_refresh_token table (oidc plugin)
  GET  /harness/log?lines=N     the tail of Glewlwyd's log, for a failing test's message

Exits, stopping Glewlwyd and removing the work directory, when stdin reaches EOF, on SIGTERM
or SIGINT. Nothing binds anything but 127.0.0.1.
Options: --dpop-nonce yes|no (default yes: oauth-dpop-nonce-mandatory),
--access-token-duration N (default 60), --refresh-token-duration N (default 1209600),
--dpop-iat-duration N (default 10, Glewlwyd's default: how old a DPoP proof's iat may be),
--startup-timeout N (seconds, default 30), --log-level (Glewlwyd's, default INFO).

Glewlwyd facts the tests meet (2.7.5): an authorization request without `nonce` is refused
(redirect with error=invalid_request, error_description "nonce required"); token_type is
`bearer` or `DPoP`; a refused refresh is 400 with an empty body; a refused code and a refused
DPoP proof are 403 with a JSON error; /revoke from this public client needs
`Authorization: Bearer <access token with scope openid>` (401 otherwise); end_session only
redirects to Glewlwyd's login page (prompt=end_session), the session ends when that page's
requests are made (`confirm`), and that disables only the refresh tokens issued straight from
a code of that session, not the ones a rotation issued since (revoke_tokens disables all).
"""
import argparse
import gzip
import http.cookiejar
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from jwcrypto import jwk

HOST = "127.0.0.1"
GLEWLWYD = shutil.which("glewlwyd") or "/usr/bin/glewlwyd"
INIT_SQL = "/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz"
LIB = "/usr/lib/glewlwyd"
ADMIN = ("admin", "password")          # the package's initial administrator
USERNAME = "alice"
PASSWORD = "correct horse battery staple"
EMAIL = "alice@example.com"
CLIENT_ID = "sessionvault-test"
REDIRECT_URI = "sessionvault-test://callback"
POST_LOGOUT_REDIRECT_URI = "sessionvault-test://signed-out"
PLUGIN = "oidc"
SCOPES = ["openid", "g_profile"]       # Glewlwyd has no offline_access: code grants always get a refresh token
SUBJECT = "sessionvault-alice-subject"  # planted in gpo_subject_identifier before Glewlwyd starts
HTTP_TIMEOUT = 15


def log(message):
    print("glewlwyd harness: %s" % message, file=sys.stderr, flush=True)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are answers here, never followed."""

    def redirect_request(self, *args, **kwargs):
        return None


class Session:
    """A cookie-keeping HTTP client for one browser (admin's or alice's)."""

    def __init__(self, base):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), NoRedirect(),
            urllib.request.ProxyHandler({}))

    def request(self, method, url, body=None, headers=None):
        """(status, headers, body bytes); HTTP error statuses are answers too."""
        if not url.startswith("http"):
            url = self.base + url
        data = None
        headers = dict(headers or {})
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self.opener.open(req, timeout=HTTP_TIMEOUT) as resp:
                return resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    def expect(self, method, path, body=None, status=200):
        got, _, data = self.request(method, path, body)
        if got != status:
            raise RuntimeError("%s %s answered %d (wanted %d): %s"
                               % (method, path, got, status, data.decode(errors="replace")[:2000]))
        return json.loads(data) if data.strip() else None


class Glewlwyd:
    def __init__(self, options):
        self.options = options
        self.workdir = tempfile.mkdtemp(prefix="sessionvault-glewlwyd-")
        self.database = os.path.join(self.workdir, "glewlwyd.sqlite3")
        self.logfile = os.path.join(self.workdir, "glewlwyd.log")
        self.process = None
        self.port = None
        self.base = None

    # --- setup -------------------------------------------------------------------------------

    def make_database(self):
        with gzip.open(INIT_SQL, "rt", encoding="utf-8") as f:
            script = f.read()
        db = sqlite3.connect(self.database)
        try:
            db.executescript(script)
            # A known `sub` for alice (subject type public: one row, no client), so the tests can
            # compare the ID token's sub with it; Glewlwyd reads this row instead of making one.
            db.execute("INSERT INTO gpo_subject_identifier (gposi_plugin_name, gposi_username,"
                       " gposi_client_id, gposi_sector_identifier_uri, gposi_sub)"
                       " VALUES (?, ?, NULL, NULL, ?)", (PLUGIN, USERNAME, SUBJECT))
            # The client database module keeps only the properties its data-format lists, and
            # the package's list has `post_logout_redirect_uri` where the oidc plugin reads
            # `post_logout_redirect_uris`: add that one, or end_session ignores the client's URI.
            # (Changed here, before start: a PUT /api/mod/client/database is stored but the
            # running module keeps validating clients with its old list.)
            (parameters,) = db.execute("SELECT gcmi_parameters FROM g_client_module_instance"
                                       " WHERE gcmi_name = 'database'").fetchone()
            parameters = json.loads(parameters)
            parameters.setdefault("data-format", {})["post_logout_redirect_uris"] = {
                "multiple": True, "read": True, "write": True}
            db.execute("UPDATE g_client_module_instance SET gcmi_parameters = ?"
                       " WHERE gcmi_name = 'database'", (json.dumps(parameters),))
            db.commit()
        finally:
            db.close()

    def write_config(self):
        config = """# written by SessionVault's Tests/Servers/glewlwyd/serve.py
port=%(port)d
bind_address="%(host)s"
external_url="%(base)s"
login_url="login.html"
api_prefix="api"
allow_origin="*"
log_mode="file"
log_level="%(log_level)s"
log_file="%(logfile)s"
cookie_secure=0
cookie_same_site="empty"
session_expiration=2419200
session_key="GLEWLWYD2_SESSION_ID"
admin_session_authentication="cookie"
profile_session_authentication="cookie"
allow_multiple_user_per_session=true
login_api_enabled=true
plugin_api_run_enabled=""
add_x_frame_option_header_deny=true
max_post_size=16778240
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="%(lib)s/user"
client_module_path="%(lib)s/client"
user_auth_scheme_module_path="%(lib)s/scheme"
plugin_module_path="%(lib)s/plugin"
# Glewlwyd 2.7.5 refuses to start ("secure connection is active but certificate is not valid")
# unless these three are set, even with use_secure_connection=false; they are never read then.
use_secure_connection=false
secure_connection_key_file="/etc/glewlwyd/cert.key"
secure_connection_pem_file="/etc/glewlwyd/cert.pem"
secure_connection_ca_file="/etc/glewlwyd/ca.crt"
hash_algorithm="SHA512"
database =
{
  type = "sqlite3"
  path = "%(database)s"
};
""" % {"port": self.port, "host": HOST, "base": self.base, "logfile": self.logfile,
       "log_level": self.options.log_level, "lib": LIB, "database": self.database}
        path = os.path.join(self.workdir, "glewlwyd.conf")
        with open(path, "w") as f:
            f.write(config)
        return path

    def log_tail(self, lines=40):
        """The end of Glewlwyd's log file and of its console output, for error messages."""
        parts = []
        for name in (self.logfile, os.path.join(self.workdir, "glewlwyd.stdout")):
            try:
                with open(name, errors="replace") as f:
                    tail = "".join(f.readlines()[-lines:])
            except OSError:
                continue
            if tail:
                parts.append("--- %s ---\n%s" % (os.path.basename(name), tail))
        return "\n".join(parts) or "(glewlwyd wrote nothing)"

    def start(self):
        self.make_database()
        deadline = time.monotonic() + self.options.startup_timeout
        attempt = 0
        while True:
            attempt += 1
            self.port = free_port()
            self.base = "http://%s:%d" % (HOST, self.port)
            config = self.write_config()
            stdio = open(os.path.join(self.workdir, "glewlwyd.stdout"), "ab")
            self.process = subprocess.Popen(
                [GLEWLWYD, "--config-file=" + config], stdin=subprocess.DEVNULL,
                stdout=stdio, stderr=subprocess.STDOUT, cwd=self.workdir,
                preexec_fn=die_with_parent)
            stdio.close()
            if self.wait_until_up(deadline):
                return
            code = self.process.poll()
            self.stop_process()
            # The port picked may have been taken in between: try another one, within the bound.
            if code is None or attempt >= 3 or time.monotonic() >= deadline:
                raise RuntimeError("glewlwyd did not answer GET /config/ (exit status %s); log tail:\n%s"
                                   % (code, self.log_tail()))
            log("glewlwyd exited with %s on port %d, retrying" % (code, self.port))

    def wait_until_up(self, deadline):
        probe = Session(self.base)
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                status, _, _ = probe.request("GET", "/config/")
                if status == 200:
                    return True
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.05)
        return False

    def configure(self):
        admin = Session(self.base)
        admin.expect("POST", "/api/auth/", {"username": ADMIN[0], "password": ADMIN[1]})
        admin.expect("POST", "/api/user/", {
            "username": USERNAME, "password": PASSWORD, "name": "Alice", "email": EMAIL,
            "scope": SCOPES, "enabled": True})
        admin.expect("POST", "/api/mod/plugin/", {
            "module": "oidc", "name": PLUGIN, "display_name": "OpenID Connect for SessionVault",
            "parameters": self.plugin_parameters()})
        admin.expect("POST", "/api/client/", {
            "client_id": CLIENT_ID, "name": "SessionVault tests", "description": "public client",
            "enabled": True, "confidential": False, "scope": [],
            "redirect_uri": [REDIRECT_URI],
            "authorization_type": ["code", "refresh_token"],
            "token_endpoint_auth_method": ["none"],
            "post_logout_redirect_uris": [POST_LOGOUT_REDIRECT_URI]})
        client = admin.expect("GET", "/api/client/%s" % CLIENT_ID)
        if client.get("post_logout_redirect_uris") != [POST_LOGOUT_REDIRECT_URI]:
            raise RuntimeError("the client was stored without post_logout_redirect_uris: %s" % client)
        probe = Session(self.base)
        self.discovery = probe.expect("GET", "/api/%s/.well-known/openid-configuration" % PLUGIN)

    def plugin_parameters(self):
        key = jwk.JWK.generate(kty="EC", crv="P-256")
        o = self.options
        return {
            "iss": "%s/api/%s" % (self.base, PLUGIN),
            "subject-type": "public",
            "jwt-type": "ecdsa",
            "jwt-key-size": "256",
            "key": key.export_to_pem(private_key=True, password=None).decode(),
            "cert": key.export_to_pem().decode(),
            "jwks-show": True,
            "access-token-duration": o.access_token_duration,
            "refresh-token-duration": o.refresh_token_duration,
            "code-duration": 600,
            "refresh-token-rolling": True,
            "refresh-token-one-use": "always",
            "client-refresh-token-one-use-parameter": "refresh-token-one-use",
            "allow-non-oidc": False,
            "auth-type-code-enabled": True,
            "auth-type-code-revoke-replayed": False,
            "auth-type-token-enabled": False,
            "auth-type-id-token-enabled": True,
            "auth-type-none-enabled": False,
            "auth-type-password-enabled": False,
            "auth-type-client-enabled": False,
            "auth-type-device-enabled": False,
            "auth-type-refresh-enabled": True,
            "scope": [],
            "allowed-scope": SCOPES,
            "additional-parameters": [],
            "claims": [],
            "name-claim": "on-demand",
            "email-claim": "on-demand",
            "scope-claim": "no",
            "address-claim": {"type": "no", "formatted": "", "street_address": "", "locality": "",
                              "region": "", "postal_code": "", "country": "", "mandatory": False},
            "pkce-allowed": True,
            "pkce-required": True,
            "pkce-method-plain-allowed": False,
            "introspection-revocation-allowed": True,
            "introspection-revocation-auth-scope": ["openid"],
            "introspection-revocation-allow-target-client": True,
            "register-client-allowed": False,
            "session-management-allowed": True,
            "session-cookie-name": "GLEWLWYD2_OIDC_SID",
            "session-cookie-expiration": 2419200,
            # Left on, as the admin UI's defaults have them: with front-channel logout off,
            # GET /api/oidc/session/<sid>/<client_id> (which the end-session page needs) is 400.
            "front-channel-logout-allowed": True,
            "back-channel-logout-allowed": True,
            "request-parameter-allow": False,
            "encrypt-out-token-allow": False,
            "oauth-as-iss-id": True,
            "oauth-dpop-allowed": True,
            "oauth-dpop-iat-duration": o.dpop_iat_duration,
            "oauth-dpop-nonce-mandatory": o.dpop_nonce == "yes",
            "oauth-dpop-nonce-counter": 10,
            "resource-allowed": False,
            "oauth-rar-allowed": False,
            "oauth-par-allowed": False,
            "oauth-ciba-allowed": False,
        }

    # --- shutdown ------------------------------------------------------------------------------

    def stop_process(self):
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)

    def cleanup(self):
        try:
            self.stop_process()
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)


try:  # loaded in this process: the child, between fork and exec, only calls it
    import ctypes
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except (ImportError, OSError, AttributeError):
    _prctl = None


def die_with_parent():
    """In the child: SIGKILL when this script dies, however it dies (Linux PR_SET_PDEATHSIG)."""
    if _prctl is not None:
        _prctl(1, signal.SIGKILL)
    os.setpgrp()  # a terminal's Ctrl-C goes to this script, which stops glewlwyd itself


class Browser:
    """Alice's browser: one cookie jar, used by /harness/authorize and /harness/end-session."""

    def __init__(self, server):
        self.server = server
        self.session = Session(server.base)
        self.lock = threading.Lock()

    def login(self):
        self.session.expect("POST", "/api/auth/", {"username": USERNAME, "password": PASSWORD})

    def authorize(self, url):
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
        client_id = query.get("client_id", CLIENT_ID)
        redirect_uri = query.get("redirect_uri", REDIRECT_URI)
        scope = query.get("scope", " ".join(SCOPES)).split()
        steps = []
        with self.lock:
            self.login()
            # Space-separated, as Glewlwyd's own login page sends it (API.md says comma-separated,
            # but "openid,g_profile" is taken as one unknown scope and answered 401).
            self.session.expect("PUT", "/api/auth/grant/%s" % urllib.parse.quote(client_id, safe=""),
                                {"scope": " ".join(scope)})
            current = url
            for _ in range(6):
                status, headers, body = self.session.request("GET", current)
                location = headers.get("Location")
                steps.append({"url": current, "status": status, "location": location})
                if status not in (301, 302, 303, 307, 308) or not location:
                    raise HarnessError("the authorization endpoint answered %d without a redirect" % status,
                                       steps=steps, body=body.decode(errors="replace")[:2000])
                if location.startswith(redirect_uri):
                    return {"redirect": location, "steps": steps}
                target = urllib.parse.urlsplit(urllib.parse.urljoin(current, location))
                if not target.path.endswith("/login.html"):
                    raise HarnessError("unexpected redirect", steps=steps)
                # Glewlwyd's login page, once the user is signed in and has granted the scopes,
                # sends the browser back to callback_url with `g_continue` added.
                callback = dict(urllib.parse.parse_qsl(target.query)).get("callback_url")
                if not callback:
                    raise HarnessError("login page redirect without callback_url", steps=steps)
                current = callback + ("&g_continue" if "?" in callback else "?g_continue")
            raise HarnessError("too many redirects", steps=steps)

    def end_session(self, url, confirm, revoke_tokens, revoke_sessions):
        with self.lock:
            status, headers, body = self.session.request("GET", url)
            location = headers.get("Location")
            answer = {"status": status, "location": location}
            if status >= 400:
                answer["body"] = body.decode(errors="replace")[:2000]
            if confirm and location:
                answer["confirm"] = self.confirm_end_session(
                    url, location, revoke_tokens, revoke_sessions)
            # 200 while alice's Glewlwyd session lives, 401 once it is gone.
            answer["session_status"] = self.session.request("GET", "/api/profile_list")[0]
            return answer

    def confirm_end_session(self, url, location, revoke_tokens, revoke_sessions):
        """The requests Glewlwyd's login page makes when the user confirms its end-session prompt
        (`revoke_tokens`, `revoke_sessions`: the prompt's two optional extras)."""
        params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(
            urllib.parse.urljoin(url, location)).query))
        sid, plugin, client_id = params.get("sid"), params.get("plugin"), params.get("client_id")
        if not (sid and plugin and client_id):
            raise HarnessError("the end-session redirect is no end-session prompt", location=location)
        plugin_path = "/api/%s" % urllib.parse.quote(plugin, safe="")
        sid_path = urllib.parse.quote(sid, safe="")
        steps = []

        def step(method, path):
            status, _, body = self.session.request(method, path)
            steps.append({"request": "%s %s" % (method, path), "status": status})
            if status >= 400 and body.strip():
                steps[-1]["body"] = body.decode(errors="replace")[:2000]
            return status, body

        query = ""
        if params.get("post_redirect_to"):
            query = "?post_redirect_to=" + urllib.parse.quote(params["post_redirect_to"], safe="")
        status, body = step("GET", "%s/session/%s/%s%s" % (
            plugin_path, sid_path, urllib.parse.quote(client_id, safe=""), query))
        session_list = json.loads(body) if status == 200 and body.strip() else None
        step("DELETE", "%s/session/%s" % (plugin_path, sid_path))
        if revoke_tokens:
            step("DELETE", "%s/token/" % plugin_path)
        if revoke_sessions:
            step("DELETE", "/api/profile/session/")
        step("DELETE", "/api/auth/")
        redirect = None
        if session_list and session_list.get("post_redirect_to"):
            redirect = params.get("callback_url")
        return {"login_page_params": params, "session_list": session_list, "requests": steps,
                "redirect": redirect}


class HarnessError(Exception):
    def __init__(self, message, **details):
        super().__init__(message)
        self.details = details


def refresh_token_rows(database):
    db = sqlite3.connect("file:%s?mode=ro" % urllib.parse.quote(database), uri=True, timeout=10)
    db.row_factory = sqlite3.Row
    try:
        rows = db.execute(
            "SELECT gpor_id AS id, gpor_plugin_name AS plugin, gpor_client_id AS client_id,"
            " gpor_username AS username, gpor_authorization_type AS authorization_type,"
            " gpor_issued_at AS issued_at, gpor_expires_at AS expires_at,"
            " gpor_last_seen AS last_seen, gpor_duration AS duration,"
            " gpor_rolling_expiration AS rolling_expiration, gpor_token_hash AS token_hash,"
            " gpor_jti AS jti, gpor_dpop_jkt AS jkt, gpor_enabled AS enabled,"
            " gpo_refresh_token.gpoc_id AS code_id, gpo_code.gpoc_sid AS sid"
            " FROM gpo_refresh_token LEFT JOIN gpo_code"
            " ON gpo_code.gpoc_id = gpo_refresh_token.gpoc_id"
            " ORDER BY gpor_id").fetchall()
        return [dict(row) for row in rows]
    finally:
        db.close()


def make_handler(server, browser, info):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
            self.close_connection = True

        def read_json(self):
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                data = b""
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        self.rfile.readline()
                        break
                    data += self.rfile.read(size)
                    self.rfile.readline()
            else:
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            return json.loads(data or b"{}")

        def handle_safely(self, action):
            try:
                self.reply(200, action())
            except HarnessError as error:
                self.reply(500, dict(error=str(error), **error.details))
            except Exception as error:  # the test wants to see why, not a dropped connection
                self.reply(500, {"error": "%s: %s" % (type(error).__name__, error)})

        def do_GET(self):
            path = urllib.parse.urlsplit(self.path).path
            if path == "/harness/info":
                self.reply(200, info)
            elif path == "/harness/log":
                self.reply(200, {"log": server.log_tail(int(dict(urllib.parse.parse_qsl(
                    urllib.parse.urlsplit(self.path).query)).get("lines", "200")))})
            elif path == "/harness/refresh-tokens":
                self.handle_safely(lambda: {"refresh_tokens": refresh_token_rows(server.database)})
            else:
                self.reply(404, {"error": "not found"})

        def do_POST(self):
            path = urllib.parse.urlsplit(self.path).path
            if path == "/harness/authorize":
                self.handle_safely(lambda: browser.authorize(self.read_json()["url"]))
            elif path == "/harness/end-session":
                def end():
                    body = self.read_json()
                    return browser.end_session(body["url"], bool(body.get("confirm")),
                                               bool(body.get("revoke_tokens")),
                                               bool(body.get("revoke_sessions")))
                self.handle_safely(end)
            else:
                self.reply(404, {"error": "not found"})

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dpop-nonce", choices=["yes", "no"], default="yes")
    parser.add_argument("--access-token-duration", type=int, default=60)
    parser.add_argument("--refresh-token-duration", type=int, default=1209600)
    parser.add_argument("--dpop-iat-duration", type=int, default=10)
    parser.add_argument("--startup-timeout", type=float, default=30.0)
    parser.add_argument("--log-level", default="INFO", choices=["NONE", "ERROR", "WARNING", "INFO", "DEBUG"])
    options = parser.parse_args()

    started = time.monotonic()
    server = Glewlwyd(options)
    stopping = threading.Event()
    stop_lock = threading.Lock()

    def stop(*_, status=0):
        # Once, from whichever comes first: stdin's EOF, SIGTERM/SIGINT, or a failed setup.
        if not stop_lock.acquire(blocking=False):
            return
        stopping.set()
        server.cleanup()
        os._exit(status)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # The test process holds our stdin open; when it goes away (crash, kill), so do we.
    threading.Thread(target=lambda: (sys.stdin.read(), stop()), daemon=True).start()

    try:
        server.start()
        server.configure()
    except Exception as error:
        log("setup failed: %s" % error)
        if server.process is not None:
            log("glewlwyd log tail:\n%s" % server.log_tail())
        stop(status=1)

    d = server.discovery
    info = {
        "base": server.base,
        "issuer": d.get("issuer"),
        "authorization_endpoint": d.get("authorization_endpoint"),
        "token_endpoint": d.get("token_endpoint"),
        "userinfo_endpoint": d.get("userinfo_endpoint"),
        "revocation_endpoint": d.get("revocation_endpoint"),
        "introspection_endpoint": d.get("introspection_endpoint"),
        "end_session_endpoint": d.get("end_session_endpoint"),
        "jwks_uri": d.get("jwks_uri"),
        "client_id": CLIENT_ID,
        "redirect_uri": REDIRECT_URI,
        "post_logout_redirect_uri": POST_LOGOUT_REDIRECT_URI,
        "scope": " ".join(SCOPES),
        "username": USERNAME,
        "password": PASSWORD,
        "subject": SUBJECT,
        "dpop_nonce_mandatory": options.dpop_nonce == "yes",
        "access_token_duration": options.access_token_duration,
    }
    browser = Browser(server)
    harness = ThreadingHTTPServer((HOST, 0), make_handler(server, browser, info))
    harness.daemon_threads = True
    threading.Thread(target=harness.serve_forever, daemon=True).start()
    log("glewlwyd on %s, set up in %.2f s" % (server.base, time.monotonic() - started))
    print("OAUTH-SERVER READY port=%d" % harness.server_port, flush=True)
    stopping.wait()
    # stop() is exiting the process from another thread.
    while True:
        time.sleep(1)


if __name__ == "__main__":
    main()
