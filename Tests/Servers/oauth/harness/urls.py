"""The token endpoint (/o/token/), RFC 7009 revocation (/o/revoke_token/), and /harness/counts,
the request counts the tests assert on."""
from django.http import JsonResponse
from django.urls import include, path

from harness.middleware import counts


def request_counts(_request):
    return JsonResponse(counts())


urlpatterns = [
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    path("harness/counts", request_counts),
]
