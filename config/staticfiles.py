"""The static files storage of a deployment: WhiteNoise's hashed, compressed files.

A name missing from the manifest (collectstatic not run, as in a scratch server
of the load test) falls back to the plain name, which WhiteNoise serves from
the app's own static folders, instead of failing the page.
"""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    manifest_strict = False

    def stored_name(self, name):
        try:
            return super().stored_name(name)
        except ValueError:
            return name
