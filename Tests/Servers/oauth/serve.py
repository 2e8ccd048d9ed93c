"""Starts django-oauth-toolkit for one test run.

Migrates a fresh sqlite database in a temporary directory (a copy of the template setup.sh
made, when present), creates the test user, a public client allowed the password grant and a
public client `<client id>-pkce` allowed the authorization-code grant (loopback redirect
`http://127.0.0.1/callback`, any port), then serves on 127.0.0.1 on a free port (the kernel picks it)
with Django's threaded development server, and prints `OAUTH-SERVER READY port=<n>` once it is
listening. Arguments: the client id, the username and the password to create. Stops on SIGTERM
or when its standard input closes (the test process died), removing the temporary directory.
"""
import os
import shutil
import signal
import sys
import tempfile
import threading

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)


# A migrated empty database, made once by setup.sh (`serve.py --make-template`) beside the
# venv's packages: copying it takes milliseconds, migrating takes seconds per server.
TEMPLATE = os.path.join(sys.prefix, "oauth-harness-template.sqlite3")


def make_template():
    partial = TEMPLATE + ".partial"
    if os.path.exists(partial):
        os.remove(partial)
    os.environ["OAUTH_HARNESS_DB"] = partial
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "harness.settings")
    import django
    django.setup()
    from django.core.management import call_command
    call_command("migrate", verbosity=0, interactive=False)
    os.replace(partial, TEMPLATE)


def main():
    if sys.argv[1:] == ["--make-template"]:
        make_template()
        return
    client_id, username, password = sys.argv[1:4]
    workdir = tempfile.mkdtemp(prefix="sessionvault-oauth-")
    database = os.path.join(workdir, "db.sqlite3")
    os.environ["OAUTH_HARNESS_DB"] = database
    # settings.py plus the consent page, OIDC and the test login (same schema as the template).
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "harness.browser_settings")
    if os.path.exists(TEMPLATE):
        shutil.copyfile(TEMPLATE, database)

    def stop(*_):
        shutil.rmtree(workdir, ignore_errors=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # The test process holds our stdin open; when it goes away (crash, kill), so do we.
    threading.Thread(target=lambda: (sys.stdin.read(), stop()), daemon=True).start()

    import django
    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.core.servers.basehttp import run
    from django.core.wsgi import get_wsgi_application
    from oauth2_provider.models import Application

    # A no-op on a copy of the template; the whole migration without one.
    call_command("migrate", verbosity=0, interactive=False)
    user = get_user_model().objects.create_user(username=username, password=password)
    Application.objects.create(
        name="sessionvault-tests",
        client_id=client_id,
        client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_PASSWORD,
        user=user,
    )
    # The app of the authorization-code tests: a public client with PKCE, a loopback redirect (any
    # port, RFC 8252 §7.3) and RS256 ID tokens.
    Application.objects.create(
        name="sessionvault-pkce",
        client_id=client_id + "-pkce",
        client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris="http://127.0.0.1/callback",
        algorithm=Application.RS256_ALGORITHM,
        user=user,
    )

    def ready(port):
        print(f"OAUTH-SERVER READY port={port}", flush=True)

    run("127.0.0.1", 0, get_wsgi_application(), threading=True, on_bind=ready)


if __name__ == "__main__":
    main()
