"""The three roles, as Django groups with Django permissions.

- viewer: reads every app's screens; no writes, no key browser.
- editor: writes in every app.
- administrator: everything: the apps, the key browser, failed sign-ins, each
  app's import and export, and users and groups in Django's admin.

A staff user without a group can sign in and reads like a viewer; a superuser
has every permission. ``sync_roles`` runs from a migration and again after
every ``migrate`` (and a test database flush), so the groups always exist with
exactly these permissions.
"""

from __future__ import annotations

VIEWER, EDITOR, ADMINISTRATOR = "viewer", "editor", "administrator"

# The app whose URL space a write falls in, and the permission it needs.
WRITE_PERMISSIONS = {
    "catalog": "config.write_catalog",
    "school": "config.write_school",
    "cms": "config.write_cms",
    "orgchart": "config.write_orgchart",
}
APP_NAMES = {"catalog": "catalog", "school": "school", "cms": "CMS", "orgchart": "org chart"}
BROWSE_KEYS = "config.browse_keys"
SEE_FAILED_SIGNINS = "config.see_failed_signins"
EXCHANGE_DATA = "config.exchange_data"

_USER_ADMIN = [f"auth.{verb}_{model}" for model in ("user", "group") for verb in ("add", "change", "delete", "view")]
ROLES: dict[str, list[str]] = {
    VIEWER: [],
    EDITOR: list(WRITE_PERMISSIONS.values()),
    ADMINISTRATOR: [*WRITE_PERMISSIONS.values(), BROWSE_KEYS, SEE_FAILED_SIGNINS, EXCHANGE_DATA, *_USER_ADMIN],
}


def sync_roles(apps=None) -> None:
    """Create the groups and give each exactly its permissions (with historical
    models inside a migration, the real ones otherwise)."""
    from django.contrib.auth.management import create_permissions

    if apps is None:
        from django.apps import apps as live_apps

        apps = live_apps
    for config in apps.get_app_configs():
        if config.label in {"auth", "config"}:
            config.models_module = getattr(config, "models_module", None) or True
            create_permissions(config, apps=apps, verbosity=0)
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    for role, names in ROLES.items():
        group, _ = group_model.objects.get_or_create(name=role)
        wanted = []
        for name in names:
            app_label, codename = name.split(".")
            found = permission_model.objects.filter(content_type__app_label=app_label, codename=codename).first()
            if found is not None:  # an earlier migration's state lacks the later permissions; a later one syncs again
                wanted.append(found)
        group.permissions.set(wanted)
