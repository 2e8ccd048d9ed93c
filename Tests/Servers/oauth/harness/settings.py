"""Settings of the tiny Django project the SessionVault tests run django-oauth-toolkit in.

Only what a token endpoint needs: no admin, no templates, no sessions. The database path and the
access token lifetime come from the environment that serve.py sets up.
"""
import os
import secrets

BASE_DIR = os.path.dirname(os.path.abspath(__file__))
# A fresh key per run: nothing signed by one test server must be accepted by another.
SECRET_KEY = secrets.token_hex(32)
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "oauth2_provider",
]
MIDDLEWARE = [
    "harness.middleware.TokenRequestCounter",
]
ROOT_URLCONF = "harness.urls"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ["OAUTH_HARNESS_DB"],
        # Threaded server: writers wait for each other instead of failing with "database is locked".
        "OPTIONS": {"timeout": 20},
    }
}
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# The password grant hashes nothing we care about in a test: a fast hasher keeps setup quick.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
OAUTH2_PROVIDER = {
    "ACCESS_TOKEN_EXPIRE_SECONDS": int(os.environ.get("OAUTH_HARNESS_ACCESS_SECONDS", "5")),
    "REFRESH_TOKEN_EXPIRE_SECONDS": 3600,
    # Every refresh returns a new refresh token and revokes the one it was made from…
    "ROTATE_REFRESH_TOKEN": True,
    # …and a second use of a revoked refresh token revokes the whole family (RFC 9700 §4.14.2).
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "SCOPES": {"read": "Read", "write": "Write"},
    "DEFAULT_SCOPES": ["read"],
    "PKCE_REQUIRED": False,
}
LOGGING = {
    "version": 1,
    "disable_existing_loggers": True,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    # Request lines only at warning level and up: tokens travel in bodies, never in URLs here,
    # but the tests' output should stay readable.
    "root": {"handlers": ["stderr"], "level": "WARNING"},
}
