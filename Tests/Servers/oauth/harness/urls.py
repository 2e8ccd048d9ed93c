"""The token endpoint (/o/token/), RFC 7009 revocation (/o/revoke_token/), /harness/counts (the
request counts the tests assert on) and /harness/me, a resource an access token is needed for:
the API an app calls in the README's story (scripts/readme-client.sh)."""
from django.http import JsonResponse
from django.urls import include, path
from oauth2_provider.decorators import protected_resource

from harness.middleware import counts


def request_counts(_request):
    return JsonResponse(counts())


# RFC 6750: a missing, expired or revoked token gets 401 with a `WWW-Authenticate: Bearer`
# challenge naming the error, as an app's own API would answer.
@protected_resource(advertise_metadata=True)
def me(request):
    return JsonResponse({"username": request.resource_owner.get_username()})


urlpatterns = [
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    path("harness/counts", request_counts),
    path("harness/me", me),
]
