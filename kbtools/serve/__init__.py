"""`kb serve`: the device's web app for technicians and its JSON API, over the served release.

`app.create_app` builds the Starlette application: pages (`pages`), the JSON API under
``/api/`` (`api`, described by `openapi`), release files (formula SVGs, images) and the
security rules every response follows (`security`). `source.ServedIndex` follows the device's
``current`` release on every request; `docview` renders knowledge Markdown safely.
"""
