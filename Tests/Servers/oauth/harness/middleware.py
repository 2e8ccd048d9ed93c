"""Counts the token endpoint's requests by grant type, so the tests can assert how many refreshes
reached the server (one for many concurrent callers). Counts only: no token is recorded."""
import threading
from collections import Counter

_lock = threading.Lock()
_counts = Counter()


def counts():
    with _lock:
        return dict(_counts)


class TokenRequestCounter:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method == "POST" and request.path == "/o/token/":
            grant = request.POST.get("grant_type", "")
            with _lock:
                _counts[grant] += 1
        elif request.method == "POST" and request.path == "/o/revoke_token/":
            with _lock:
                _counts["revoke"] += 1
        return self.get_response(request)


class BasicLogin:
    """The tests' login (browser_settings.py): the user named by HTTP Basic credentials on a
    request to /o/authorize/, as a browser's session would carry after a login form; anyone
    else is anonymous, so DOT's login-required view sends them to the login URL."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        import base64

        from django.contrib.auth import authenticate
        from django.contrib.auth.models import AnonymousUser

        request.user = AnonymousUser()
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if request.path == "/o/authorize/" and header.startswith("Basic "):
            try:
                username, _, password = base64.b64decode(header[6:]).decode().partition(":")
            except ValueError:
                username, password = "", ""
            user = authenticate(request, username=username, password=password)
            if user is not None:
                request.user = user
        return self.get_response(request)
