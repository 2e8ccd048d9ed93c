"""Starts django-oauth-toolkit for one test run.

Migrates a fresh sqlite database in a temporary directory, creates the test user and a public
client allowed the password grant, then serves on 127.0.0.1 on a free port (the kernel picks it)
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


def main():
    client_id, username, password = sys.argv[1:4]
    workdir = tempfile.mkdtemp(prefix="sessionvault-oauth-")
    os.environ["OAUTH_HARNESS_DB"] = os.path.join(workdir, "db.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "harness.settings")

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

    call_command("migrate", verbosity=0, interactive=False)
    user = get_user_model().objects.create_user(username=username, password=password)
    Application.objects.create(
        name="sessionvault-tests",
        client_id=client_id,
        client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_PASSWORD,
        user=user,
    )

    def ready(port):
        print(f"OAUTH-SERVER READY port={port}", flush=True)

    run("127.0.0.1", 0, get_wsgi_application(), threading=True, on_bind=ready)


if __name__ == "__main__":
    main()
