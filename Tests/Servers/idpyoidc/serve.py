#!/usr/bin/env python3
"""Runs a real OpenID provider built with idpyoidc (5.0.0, IdentityPython's OP library) for the tests.

idpyoidc is a library: it parses requests, authenticates clients, keeps sessions and grants,
mints and checks tokens, and builds answers, but leaves HTTP to its caller. This file is that
caller (the standard library's http.server, no web framework), in-process, on 127.0.0.1 only,
one free port for the provider and the harness alike. Every OAuth decision (PKCE, scopes,
offline_access, rotation, expiry, revocation, the error codes and descriptions) is idpyoidc's;
this file only maps its answers to HTTP: a redirect for the authorization endpoint's answers,
JSON bodies, and the status of an error (400, or 401 for `invalid_client` at the token endpoint
and `invalid_token` at userinfo, with a Bearer challenge there), as RFC 6749 §5.2 and RFC 6750 §3.1
say; an exception idpyoidc raises where it has no error answer becomes 400 invalid_request
with the exception's text.

Provider (issuer http://127.0.0.1:<port>, all on that port):
  GET  /.well-known/openid-configuration   discovery
  GET  /authorization                      the login page (no session cookie is kept: every
                                           authorization asks alice to log in), or a redirect
  POST /login                              the login form's target: username, password, token
  POST /token                              authorization_code (PKCE S256 required), refresh_token
                                           (rotated: the used one is revoked)
  GET|POST /userinfo                       Authorization: Bearer <access token>
  POST /revocation                         RFC 7009, client_id in the form (public client)
  GET  /jwks                               the signing keys (RS256 ID tokens, ES256 JWT access tokens)
One public client (token_endpoint_auth_method none): client_id `sessionvault-test`, redirect URI
`sessionvault-test://callback`, scopes `openid profile email offline_access`. One user `alice`
(password below), whose public `sub` (ID token, userinfo) is `alice-public-sub`; her user
record holds `"sub": "alice-sub-0001"`, the user database's own id.

Harness (JSON):
  GET  /harness/info                      issuer, endpoints, client_id, redirect_uri, scope,
                                          subject, database_subject, username, password, options
  POST /harness/authorize                 {"url": "<authorization URL>"} -> {"redirect": "<redirect
                                          URI with code and state>"}: GETs the URL, fills in and
                                          posts the login page as alice (idpyoidc has no consent
                                          page: the requested scopes are granted). When the
                                          provider answers without a redirect (a refused request),
                                          the answer has its status and {"status", "error",
                                          "error_description", "body"}.
  POST /harness/expire-refresh-tokens     every refresh token issued so far is made inactive
                                          (its expiry moved into the past) -> {"expired": n}

Options: --access-token jwt|opaque (default jwt), --access-token-lifetime N (default 60),
--refresh-token jwt|opaque (default opaque), --refresh-token-lifetime N (default 86400),
--access-token-claims by-scope|none (default by-scope: the JWT access token carries the user
record's claims for the granted scopes, its `sub` then the user record's `sub`; none: only
the grant's public `sub`). Prints `OAUTH-SERVER READY port=<n>` when it listens; exits,
removing its temporary directory, when stdin reaches EOF, on SIGTERM or SIGINT.

idpyoidc facts the tests meet (5.0.0; answers checked with this file): token_type `Bearer`;
`offline_access` without `prompt=consent` is refused at the authorization endpoint (400
{"error": "invalid_request", "error_description": "consent in prompt"}, no redirect), and so is
a request without code_challenge ("Missing required code_challenge"); without `offline_access`
no refresh token is issued; a refresh answers new access, refresh and ID tokens, and the used
refresh token is refused afterwards (400 invalid_request "Refresh token inactive") while the new
one still works; a revoked or expired (opaque) refresh token is refused the same way, an
unknown one with 400 invalid_grant "Invalid refresh token"; an expired JWT refresh token makes
idpyoidc raise ToOld, answered 400 invalid_request "Token has expired"; a code used twice is
400 invalid_grant "Code inactive", a wrong verifier 400 invalid_grant "PKCE check failed";
revocation answers 200 `OK` (text/plain), or 200 with an empty body for a token it does not
know; the ID token and userinfo carry `sub` alice-public-sub, a JWT access token (by-scope)
`sub` alice-sub-0001.
"""
import argparse
import html
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOST = "127.0.0.1"
CLIENT_ID = "sessionvault-test"
REDIRECT_URI = "sessionvault-test://callback"
SCOPE = "openid profile email offline_access"
USERNAME = "alice"
PASSWORD = "correct horse battery staple"
SUBJECT = "alice-public-sub"          # the `sub` idpyoidc gives alice (subject type public)
DATABASE_SUBJECT = "alice-sub-0001"   # the `sub` claim in alice's user record
USER_RECORDS = {
    USERNAME: {
        "sub": DATABASE_SUBJECT,
        "name": "Alice Example",
        "given_name": "Alice",
        "family_name": "Example",
        "preferred_username": USERNAME,
        "email": "alice@example.com",
        "email_verified": True,
    }
}
PASSWORDS = {USERNAME: PASSWORD}
PASSWORD_ACR = "urn:oasis:names:tc:SAML:2.0:ac:classes:InternetProtocolPassword"
HTTP_TIMEOUT = 15


def log(message):
    print("idpyoidc harness: %s" % message, file=sys.stderr, flush=True)


# idpyoidc is imported inside main(), after the working directory moved to the temporary
# one, so that nothing it might write lands in the caller's directory.
def provider_classes():
    from idpyoidc.server.user_authn.user import UserAuthnMethod, create_signed_jwt
    from idpyoidc.server.exception import FailedAuthentication

    class LoginPage(UserAuthnMethod):
        """Username and password on a small form. The form carries, as idpyoidc's own login
        methods do, the authorization request in a JWT signed by the provider's key."""

        url_endpoint = "/login"

        def __init__(self, passwords, upstream_get=None, **kwargs):
            UserAuthnMethod.__init__(self, upstream_get=upstream_get, **kwargs)
            self.passwords = passwords

        def __call__(self, **kwargs):
            context = self.upstream_get("context")
            keyjar = self.upstream_get("attribute", "keyjar")
            token = create_signed_jwt(context.issuer, keyjar, sign_alg="ES256", **kwargs)
            return (
                "<!DOCTYPE html>\n<html><head><title>Log in</title></head><body>\n"
                '<form method="post" action="%s">\n'
                '<input type="hidden" name="token" value="%s"/>\n'
                '<label>Username <input type="text" name="username"/></label>\n'
                '<label>Password <input type="password" name="password"/></label>\n'
                '<button type="submit">Log in</button>\n'
                "</form>\n</body></html>\n" % (self.url_endpoint, html.escape(token, quote=True)))

        def verify(self, *args, **kwargs):
            username = kwargs.get("username", "")
            if username in self.passwords and self.passwords[username] == kwargs.get("password"):
                return username
            raise FailedAuthentication("wrong username or password")

    return LoginPage


def public_subject(user_id, *args, **kwargs):
    """idpyoidc's sub function for subject type public: alice's public identifier."""
    return {USERNAME: SUBJECT}.get(user_id, "public-" + user_id)


def provider_configuration(issuer, options):
    """The configuration idpyoidc's Server is built from: keys in memory only, nothing on disk."""
    login_page = provider_classes()
    access = options.access_token_lifetime
    refresh = options.refresh_token_lifetime
    if options.access_token == "jwt":
        access_handler = {"class": "idpyoidc.server.token.jwt_token.JWTToken",
                          "kwargs": {"lifetime": access, "alg": "ES256"}}
        if options.access_token_claims == "by-scope":
            access_handler["kwargs"]["add_claims_by_scope"] = True
    else:
        access_handler = {"kwargs": {"lifetime": access}}  # DefaultToken: encrypted, opaque
    if options.refresh_token == "jwt":
        refresh_handler = {"class": "idpyoidc.server.token.jwt_token.JWTToken",
                           "kwargs": {"lifetime": refresh, "alg": "ES256"}}
    else:
        refresh_handler = {"kwargs": {"lifetime": refresh}}
    in_memory_keys = {"key_defs": [{"type": "OCT", "use": ["enc"], "kid": "enc"},
                                   {"type": "OCT", "use": ["sig"], "kid": "sig"}]}
    return {
        "issuer": issuer,
        "base_url": issuer,
        "httpc_params": {"verify": False, "timeout": 4},
        "key_conf": {
            "key_defs": [{"type": "RSA", "use": ["sig"]},
                         {"type": "EC", "crv": "P-256", "use": ["sig"]}],
            "uri_path": "jwks",
        },
        "cookie_handler": {
            "class": "idpyoidc.server.cookie_handler.CookieHandler",
            "kwargs": {"keys": in_memory_keys,
                       "name": {"session": "oidc_op", "register": "oidc_op_rp",
                                "session_management": "sman"}},
        },
        "preference": {
            "subject_types_supported": ["public"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "scopes_supported": SCOPE.split(),
            "token_endpoint_auth_methods_supported": ["none"],
            "response_types_supported": ["code"],
            "claims_supported": ["sub"] + sorted(k for k in USER_RECORDS[USERNAME] if k != "sub"),
        },
        "endpoint": {
            "provider_info": {
                "path": ".well-known/openid-configuration",
                "class": "idpyoidc.server.oidc.provider_config.ProviderConfiguration",
                "kwargs": {"client_authn_method": None},
            },
            "authorization": {
                "path": "authorization",
                "class": "idpyoidc.server.oidc.authorization.Authorization",
                "kwargs": {
                    "client_authn_method": None,
                    "claims_parameter_supported": True,
                    "request_parameter_supported": False,
                    "request_uri_parameter_supported": None,
                    "response_types_supported": ["code"],
                    "response_modes_supported": ["query"],
                },
            },
            "token": {
                "path": "token",
                "class": "idpyoidc.server.oidc.token.Token",
                "kwargs": {"client_authn_method": ["none"], "revoke_refresh_on_issue": True},
            },
            "userinfo": {
                "path": "userinfo",
                "class": "idpyoidc.server.oidc.userinfo.UserInfo",
                "kwargs": {"client_authn_method": ["bearer_header"]},
            },
            "token_revocation": {
                "path": "revocation",
                "class": "idpyoidc.server.oauth2.token_revocation.TokenRevocation",
                "kwargs": {"client_authn_method": ["none"]},
            },
        },
        "add_on": {
            "pkce": {
                "function": "idpyoidc.server.oauth2.add_on.pkce.add_support",
                "kwargs": {"essential": True, "code_challenge_methods": {"S256": "S256"}},
            },
        },
        "authentication": {
            "user": {"acr": PASSWORD_ACR, "class": login_page, "kwargs": {"passwords": PASSWORDS}},
        },
        "userinfo": {"class": "idpyoidc.server.user_info.UserInfo", "kwargs": {"db": USER_RECORDS}},
        "authz": {
            "class": "idpyoidc.server.authz.AuthzHandling",
            "kwargs": {
                "grant_config": {
                    "usage_rules": {
                        "authorization_code": {
                            "supports_minting": ["access_token", "refresh_token", "id_token"],
                            "max_usage": 1,
                            "expires_in": 120,
                        },
                        "access_token": {"expires_in": access},
                        "refresh_token": {
                            "supports_minting": ["access_token", "refresh_token", "id_token"],
                            "expires_in": refresh,
                        },
                    },
                    # The grant outlives every refresh token it may issue.
                    "expires_in": max(refresh, access) + 30 * 86400,
                }
            },
        },
        "token_handler_args": {
            "code": {"kwargs": {"lifetime": 120}},
            "token": access_handler,
            "refresh": refresh_handler,
            "id_token": {"class": "idpyoidc.server.token.id_token.IDToken",
                         "kwargs": {"lifetime": 3600, "add_claims_by_scope": True}},
        },
        "claims_interface": {"class": "idpyoidc.server.session.claims.ClaimsInterface", "kwargs": {}},
        "session_params": {
            "encrypter": {"kwargs": {"keys": {"key_defs": [
                {"type": "OCT", "use": ["enc"], "kid": "password"},
                {"type": "OCT", "use": ["enc"], "kid": "salt"}]}}},
            "sub_func": {"public": {"function": public_subject}},
        },
        "template_dir": "templates",
    }


class Provider:
    """idpyoidc's Server and the HTTP mapping of its endpoints. One lock: idpyoidc's session
    database is plain dictionaries, so its calls are made one at a time."""

    def __init__(self, issuer, options):
        from idpyoidc.server import Server
        self.issuer = issuer
        self.lock = threading.RLock()
        self.server = Server(provider_configuration(issuer, options), cwd=os.getcwd())
        self.context = self.server.context
        self.context.cdb[CLIENT_ID] = {
            "client_id": CLIENT_ID,
            "client_salt": "sessionvault-test-salt",
            "redirect_uris": [(REDIRECT_URI, {})],
            "response_types_supported": ["code"],
            "token_endpoint_auth_method": "none",
            "allowed_scopes": SCOPE.split(),
            "subject_type": "public",
            "id_token_signed_response_alg": "RS256",
        }

    def endpoint(self, name):
        return self.server.get_endpoint(name)

    def discovery(self):
        with self.lock:
            return dict(self.context.provider_info)

    def jwks(self):
        with self.lock:
            return self.context.keyjar.export_jwks()

    def expire_refresh_tokens(self):
        from idpyoidc.server.session.grant import Grant
        from idpyoidc.time_util import utc_time_sans_frac
        past = utc_time_sans_frac() - 1
        count = 0
        with self.lock:
            for item in list(self.context.session_manager.db.values()):
                if not isinstance(item, Grant):
                    continue
                for token in item.issued_token:
                    if token.token_class == "refresh_token":
                        token.expires_at = past
                        count += 1
        return count


def is_error(message):
    from idpyoidc.message.oauth2 import ResponseMessage
    return isinstance(message, ResponseMessage) and "error" in message


def error_answer(message, status=400):
    body = {k: message[k] for k in ("error", "error_description", "state") if k in message}
    return status, body


class Answer:
    """What goes back: a status, headers and bytes."""

    def __init__(self, status, body=b"", headers=()):
        self.status = status
        self.headers = list(headers)
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            self.headers.append(("Content-Type", "application/json"))
        elif isinstance(body, str):
            body = body.encode()
        self.body = body


NO_STORE = [("Cache-Control", "no-store"), ("Pragma", "no-cache")]


def json_error(status, message, extra_headers=()):
    status, body = error_answer(message, status)
    return Answer(status, body, NO_STORE + list(extra_headers))


def exception_answer(error):
    log("idpyoidc raised %s: %s" % (type(error).__name__, error))
    traceback.print_exc(file=sys.stderr)
    return Answer(400, {"error": "invalid_request", "error_description": str(error)}, NO_STORE)


def from_do_response(endpoint, info):
    """An answer from idpyoidc's do_response: a URL to redirect to (the authorization endpoint's
    answers, placed in the redirect URI) or a body with its headers."""
    headers = [(k, v) for k, v in info.get("http_headers", []) if k.lower() != "content-length"]
    placement = info.get("response_placement", endpoint.response_placement)
    response = info.get("response")
    if placement == "url":
        return Answer(302, b"", [("Location", response)] + NO_STORE)
    if response is None:
        response = b""
    elif not isinstance(response, (str, bytes)):
        response = json.dumps(response)
    return Answer(info.get("response_code", 200), response, headers)


class ProviderHTTP:
    """The provider's endpoints over HTTP, each the parse/process/respond sequence idpyoidc's
    Endpoint class describes."""

    def __init__(self, provider):
        self.provider = provider

    @staticmethod
    def http_info(handler, url):
        headers = {k.lower(): v for k, v in handler.headers.items() if k.lower() not in ("cookie", "user-agent")}
        return {"headers": headers, "method": handler.command, "url": url, "cookie": []}

    def discovery(self, handler, url, query):
        endpoint = self.provider.endpoint("provider_config")
        with self.provider.lock:
            request = endpoint.parse_request({}, http_info=self.http_info(handler, url))
            args = endpoint.process_request(request)
            info = endpoint.do_response(request=request, **args)
        return from_do_response(endpoint, info)

    def authorization(self, handler, url, query):
        endpoint = self.provider.endpoint("authorization")
        with self.provider.lock:
            try:
                request = endpoint.parse_request(query, http_info=self.http_info(handler, url))
            except Exception as error:
                return exception_answer(error)
            if is_error(request):
                return json_error(400, request)
            try:
                args = endpoint.process_request(request, http_info=self.http_info(handler, url))
            except Exception as error:
                return exception_answer(error)
            if is_error(args):
                return json_error(400, args)
            if "http_response" in args:  # the login page
                return Answer(200, args["http_response"],
                              [("Content-Type", "text/html; charset=utf-8")] + NO_STORE)
            return self.authorization_response(endpoint, request, args)

    @staticmethod
    def authorization_response(endpoint, request, args):
        if "response_args" in args and is_error(args["response_args"]) and "return_uri" not in args:
            return json_error(400, args["response_args"])
        args = dict(args)
        args.pop("cookie", None)  # no session cookie: the harness's browser keeps none
        info = endpoint.do_response(request=request, **args)
        return from_do_response(endpoint, info)

    def login(self, handler, url, form):
        """The login form's target: alice's credentials, then idpyoidc's authz_part2."""
        from idpyoidc.message.oidc import AuthorizationRequest
        from idpyoidc.server.exception import FailedAuthentication
        endpoint = self.provider.endpoint("authorization")
        with self.provider.lock:
            method = self.provider.context.authn_broker.get_method_by_id("user")
            try:
                username = method.verify(**form)
            except FailedAuthentication as error:
                return Answer(403, {"error": "access_denied", "error_description": str(error)})
            try:
                auth_args = method.unpack_token(form.get("token", ""))
                request = AuthorizationRequest().from_urlencoded(auth_args["query"])
            except Exception as error:
                return exception_answer(error)
            session_id = endpoint.create_session(request, username, auth_args["authn_class_ref"],
                                                 auth_args["iat"], method)
            args = endpoint.authz_part2(request=request, session_id=session_id)
            if is_error(args):
                return json_error(400, args)
            return self.authorization_response(endpoint, request, args)

    def token(self, handler, url, form):
        endpoint = self.provider.endpoint("token")
        http_info = self.http_info(handler, url)
        with self.provider.lock:
            try:
                request = endpoint.parse_request(form, http_info=http_info)
            except Exception as error:
                from idpyoidc.server.exception import ClientAuthenticationError
                if isinstance(error, ClientAuthenticationError):
                    return Answer(401, {"error": "invalid_client", "error_description": str(error)}, NO_STORE)
                return exception_answer(error)
            if is_error(request):
                return json_error(401 if request["error"] == "invalid_client" else 400, request)
            try:
                args = endpoint.process_request(request, http_info=http_info)
            except Exception as error:
                return exception_answer(error)
            if is_error(args):
                return json_error(400, args)
            args = dict(args)
            args.pop("cookie", None)
            info = endpoint.do_response(request=request, **args)
        return from_do_response(endpoint, info)

    def userinfo(self, handler, url, form):
        endpoint = self.provider.endpoint("userinfo")
        http_info = self.http_info(handler, url)
        challenge = lambda error: [("WWW-Authenticate", 'Bearer error="%s"' % error)]
        with self.provider.lock:
            try:
                request = endpoint.parse_request(form or {}, http_info=http_info)
            except Exception as error:
                log("userinfo: %s: %s" % (type(error).__name__, error))
                return Answer(401, {"error": "invalid_token", "error_description": str(error)},
                              NO_STORE + challenge("invalid_token"))
            if is_error(request):
                status = 401 if request["error"] == "invalid_token" else 400
                return json_error(status, request, challenge(request["error"]) if status == 401 else ())
            try:
                args = endpoint.process_request(request, http_info=http_info)
            except Exception as error:
                return exception_answer(error)
            if is_error(args):
                status = 401 if args["error"] == "invalid_token" else 400
                return json_error(status, args, challenge(args["error"]) if status == 401 else ())
            info = endpoint.do_response(request=request, **args)
        return from_do_response(endpoint, info)

    def revocation(self, handler, url, form):
        endpoint = self.provider.endpoint("token_revocation")
        http_info = self.http_info(handler, url)
        with self.provider.lock:
            try:
                request = endpoint.parse_request(form, http_info=http_info)
            except Exception as error:
                from idpyoidc.server.exception import ClientAuthenticationError
                if isinstance(error, ClientAuthenticationError):
                    return Answer(401, {"error": "invalid_client", "error_description": str(error)}, NO_STORE)
                return exception_answer(error)
            if is_error(request):
                return json_error(400, request)
            try:
                args = endpoint.process_request(request, http_info=http_info)
            except Exception as error:
                return exception_answer(error)
            if is_error(args):
                return json_error(400, args)
            info = endpoint.do_response(request=request, **args)
        return from_do_response(endpoint, info)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Browser:
    """Alice's browser for /harness/authorize: GET the authorization URL, post the login form."""

    def __init__(self, base):
        self.base = base
        self.opener = urllib.request.build_opener(NoRedirect(), urllib.request.ProxyHandler({}))

    def request(self, method, url, form=None):
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if form is not None else {}
        req = urllib.request.Request(urllib.parse.urljoin(self.base, url), data=data, method=method, headers=headers)
        try:
            with self.opener.open(req, timeout=HTTP_TIMEOUT) as resp:
                return resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    @staticmethod
    def refusal(status, headers, body):
        text = body.decode(errors="replace")
        answer = {"status": status, "content_type": headers.get("Content-Type")}
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = text
        answer["body"] = parsed
        if isinstance(parsed, dict):
            for key in ("error", "error_description"):
                if key in parsed:
                    answer[key] = parsed[key]
        return status if status >= 400 else 502, answer

    def authorize(self, url):
        split = urllib.parse.urlsplit(url)
        if split.scheme != "http" or split.hostname != HOST:
            return 400, {"error": "the URL is not this provider's: %s" % url}
        status, headers, body = self.request("GET", url)
        if status in (301, 302, 303, 307, 308):
            return 200, {"redirect": headers.get("Location")}
        if status != 200 or "text/html" not in (headers.get("Content-Type") or ""):
            return self.refusal(status, headers, body)
        page = body.decode()
        token = re.search(r'name="token" value="([^"]*)"', page)
        action = re.search(r'<form method="post" action="([^"]*)"', page)
        if not token or not action:
            return 502, {"error": "the login page has no form", "body": page[:2000]}
        status, headers, body = self.request("POST", html.unescape(action.group(1)), {
            "token": html.unescape(token.group(1)), "username": USERNAME, "password": PASSWORD})
        if status in (301, 302, 303, 307, 308):
            return 200, {"redirect": headers.get("Location")}
        return self.refusal(status, headers, body)


def make_handler(provider, routes, browser, info):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, answer):
            self.send_response(answer.status)
            for name, value in answer.headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer.body)))
            # One request per connection: nothing a client left unread leaks into the next one.
            self.send_header("Connection", "close")
            self.close_connection = True
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(answer.body)

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

        def url(self):
            return provider.issuer + self.path

        def form(self, raw):
            if "application/json" in (self.headers.get("Content-Type") or ""):
                return json.loads(raw or b"{}")
            return dict(urllib.parse.parse_qsl(raw.decode(), keep_blank_values=True))

        def dispatch(self, method):
            split = urllib.parse.urlsplit(self.path)
            path = split.path
            query = dict(urllib.parse.parse_qsl(split.query, keep_blank_values=True))
            raw = self.read_body() if method == "POST" else b""
            try:
                if path == "/.well-known/openid-configuration" and method == "GET":
                    return self.send(routes.discovery(self, self.url(), query))
                if path == "/jwks" and method == "GET":
                    return self.send(Answer(200, provider.jwks()))
                if path == "/authorization" and method == "GET":
                    return self.send(routes.authorization(self, self.url(), query))
                if path == "/login" and method == "POST":
                    return self.send(routes.login(self, self.url(), self.form(raw)))
                if path == "/token" and method == "POST":
                    return self.send(routes.token(self, self.url(), self.form(raw)))
                if path == "/userinfo":
                    return self.send(routes.userinfo(self, self.url(), self.form(raw) if method == "POST" else query))
                if path == "/revocation" and method == "POST":
                    return self.send(routes.revocation(self, self.url(), self.form(raw)))
                if path == "/harness/info" and method == "GET":
                    return self.send(Answer(200, info))
                if path == "/harness/authorize" and method == "POST":
                    status, body = browser.authorize(json.loads(raw or b"{}")["url"])
                    return self.send(Answer(status, body))
                if path == "/harness/expire-refresh-tokens" and method == "POST":
                    return self.send(Answer(200, {"expired": provider.expire_refresh_tokens()}))
                return self.send(Answer(404, {"error": "not_found"}))
            except Exception as error:  # the test wants to see why, not a dropped connection
                traceback.print_exc(file=sys.stderr)
                return self.send(Answer(500, {"error": "server_error",
                                              "error_description": "%s: %s" % (type(error).__name__, error)}))

        def do_GET(self):
            self.dispatch("GET")

        def do_POST(self):
            self.dispatch("POST")

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--access-token", choices=["jwt", "opaque"], default="jwt")
    parser.add_argument("--access-token-lifetime", type=int, default=60)
    parser.add_argument("--access-token-claims", choices=["by-scope", "none"], default="by-scope")
    parser.add_argument("--refresh-token", choices=["jwt", "opaque"], default="opaque")
    parser.add_argument("--refresh-token-lifetime", type=int, default=86400)
    options = parser.parse_args()
    started = time.monotonic()

    workdir = tempfile.mkdtemp(prefix="sessionvault-idpyoidc-")
    stop_lock = threading.Lock()
    stopping = threading.Event()

    def stop(*_, status=0):
        # Once, from whichever comes first: stdin's EOF, SIGTERM/SIGINT, or a failed setup.
        if not stop_lock.acquire(blocking=False):
            return
        stopping.set()
        try:
            os.chdir("/")
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        os._exit(status)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # The test process holds our stdin open; when it goes away (crash, kill), so do we.
    threading.Thread(target=lambda: (sys.stdin.read(), stop()), daemon=True).start()

    try:
        os.chdir(workdir)
        # The socket first: the issuer names its port.
        httpd = ThreadingHTTPServer((HOST, 0), BaseHTTPRequestHandler)
        httpd.daemon_threads = True
        port = httpd.server_port
        issuer = "http://%s:%d" % (HOST, port)
        provider = Provider(issuer, options)
        discovery = provider.discovery()
    except Exception as error:
        traceback.print_exc(file=sys.stderr)
        log("setup failed: %s" % error)
        stop(status=1)

    info = {
        "issuer": discovery.get("issuer"),
        "authorization_endpoint": discovery.get("authorization_endpoint"),
        "token_endpoint": discovery.get("token_endpoint"),
        "userinfo_endpoint": discovery.get("userinfo_endpoint"),
        "revocation_endpoint": discovery.get("revocation_endpoint"),
        "jwks_uri": discovery.get("jwks_uri"),
        "client_id": CLIENT_ID,
        "redirect_uri": REDIRECT_URI,
        "scope": SCOPE,
        "subject": SUBJECT,
        "database_subject": DATABASE_SUBJECT,
        "username": USERNAME,
        "password": PASSWORD,
        "access_token": options.access_token,
        "access_token_claims": options.access_token_claims,
        "access_token_lifetime": options.access_token_lifetime,
        "refresh_token": options.refresh_token,
        "refresh_token_lifetime": options.refresh_token_lifetime,
    }
    httpd.RequestHandlerClass = make_handler(provider, ProviderHTTP(provider), Browser(issuer), info)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    log("idpyoidc provider on %s, set up in %.2f s" % (issuer, time.monotonic() - started))
    print("OAUTH-SERVER READY port=%d" % port, flush=True)
    stopping.wait()
    while True:  # stop() is exiting the process from another thread
        time.sleep(1)


if __name__ == "__main__":
    main()
