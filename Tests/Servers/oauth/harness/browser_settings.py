"""settings.py plus what the authorization-code tests need: the consent page (templates),
OpenID Connect ID tokens signed with a fresh RSA key per run, and the `openid` scope. A separate
module so settings.py, whose checksum decides when setup.sh reinstalls the venv and remakes the
template database, stays as it is: nothing here changes the schema."""
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from harness.settings import *  # noqa: F401,F403
from harness.settings import MIDDLEWARE, OAUTH2_PROVIDER

_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)

TEMPLATES = [{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}]
STATIC_URL = "/static/"
# The test login: HTTP Basic credentials on the authorize endpoint stand in for a login form.
MIDDLEWARE = MIDDLEWARE + ["harness.middleware.BasicLogin"]
OAUTH2_PROVIDER = {
    **OAUTH2_PROVIDER,
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": _key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode(),
    "SCOPES": {**OAUTH2_PROVIDER["SCOPES"], "openid": "OpenID Connect"},
}
