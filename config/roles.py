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

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.db import connections, router
from django.db.models import CharField, Func, OuterRef, Subquery, Value
from django.db.models.functions import Concat

UserModel = get_user_model()

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


ROLE_LABELS = {VIEWER: "Viewer", EDITOR: "Editor", ADMINISTRATOR: "Administrator"}


def role_of(user) -> str:
    """The role a user acts in, read from what they may do rather than from their groups, so a
    superuser reads as an administrator and a staff member without a group as a viewer."""
    if user.has_perm(BROWSE_KEYS):
        return ADMINISTRATOR
    if any(user.has_perm(name) for name in WRITE_PERMISSIONS.values()):
        return EDITOR
    return VIEWER


# The last word of the URL names of the pages that exist only to write (an add or edit form, a
# confirmation, an action): every app names its routes ``<entity>_add``, ``_edit``, ``_delete`` ...
WRITE_PAGES = frozenset({"add", "edit", "delete", "move", "revert", "relation"})


def is_write_page(url_name: str | None) -> bool:
    """Whether a route is a write page, which a role without the app's write permission
    is refused even on a GET: it would show a form the role can never send."""
    return (url_name or "").rsplit("_", 1)[-1] in WRITE_PAGES


def may_write(user, section: str) -> bool:
    """Whether ``user`` may write in the app whose URL space is ``section`` (the check
    ``PermissionMiddleware`` makes of a POST there), for screens to show write controls by."""
    needed = WRITE_PERMISSIONS.get(section)
    return bool(needed) and user.has_perm(needed)


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


class RoleBackend(ModelBackend):
    """Django's ModelBackend, with a user's permissions read in the same query that loads
    the user for the request (two subqueries beside the user's row).

    ModelBackend reads them lazily, in two more queries, the first time a request asks
    ``has_perm`` (the sidebar, the Redis panel, the permission middleware all do). Read
    with the user, they cost no query of their own and can never be stale: every request
    sees the groups and permissions as they are in the database at that moment, so
    nothing needs invalidating when a group or a permission changes.
    """

    def get_user(self, user_id):
        db = router.db_for_read(UserModel)
        if connections[db].vendor not in _AGGREGATE:
            return super().get_user(user_id)
        sql, params, position = _user_query(db)
        pk = UserModel._meta.pk
        try:
            params[position] = pk.get_db_prep_value(pk.to_python(user_id), connections[db])
        except ValidationError:
            return None
        user = next(iter(UserModel._default_manager.db_manager(db).raw(sql, params)), None)
        if user is None:
            return None
        if not user.is_superuser:  # a superuser has every permission, as ModelBackend reads them
            user._user_perm_cache = _names(user.role_user_perms)
            user._group_perm_cache = _names(user.role_group_perms)
        return user if self.user_can_authenticate(user) else None


_SENTINEL = -7_357_913  # stands for the user's id while the query is compiled
_queries: dict[str, tuple[str, tuple]] = {}  # database alias -> the query's SQL and its parameters


def _user_query(db: str) -> tuple[str, list, int]:
    """The user's row and permissions, as SQL compiled once per database by the ORM (building
    the query is what costs, not running it); its parameters and where the user's id goes."""
    if db not in _queries:
        users = UserModel._default_manager.db_manager(db).annotate(
            role_user_perms=_joined(Permission.objects.filter(user=OuterRef("pk"))),
            role_group_perms=_joined(Permission.objects.filter(group__user=OuterRef("pk"))),
        )
        _queries[db] = users.filter(pk=_SENTINEL).query.sql_with_params()
    sql, params = _queries[db]
    return sql, list(params), params.index(_SENTINEL)


_SEP = "\n"  # between two permission names ("app_label.codename"), which never hold one
_AGGREGATE = {"sqlite": "GROUP_CONCAT", "postgresql": "STRING_AGG"}
_NAME = Concat("content_type__app_label", Value("."), "codename", output_field=CharField())


class _Joined(Func):
    """The subquery's rows joined in one string: GROUP_CONCAT(x, sep), STRING_AGG(x, sep) on
    PostgreSQL. A plain Func, not an Aggregate, so the subquery has no GROUP BY: one row."""

    function = "GROUP_CONCAT"
    output_field = CharField()

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, function="STRING_AGG", **extra)


def _joined(permissions) -> Subquery:
    """The names of ``permissions`` in one string, as a subquery of the user's row."""
    return Subquery(permissions.order_by().values(names=_Joined(_NAME, Value(_SEP))))


def _names(joined: str | None) -> set[str]:
    return set(joined.split(_SEP)) if joined else set()
