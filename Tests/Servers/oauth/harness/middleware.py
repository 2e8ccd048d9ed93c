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
