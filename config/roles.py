"""The three roles, as Django groups with Django permissions.

- viewer: reads every app's screens; no writes, no key browser.
- editor: writes in every app.
- administrator: everything: the apps, the key browser, failed sign-ins, each
  app's import and export, and users and groups in Django's admin.

A staff user without a group reads like a viewer; a superuser has every permission.
``sync_roles`` runs from a migration and after every ``migrate`` (and a test database flush), so
the groups always exist with exactly these permissions.
"""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group, Permission
from django.contrib.auth.signals import user_logged_in
from django.contrib.contenttypes.models import ContentType
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import connections, router, transaction
from django.db.models import CharField, Func, OuterRef, Subquery, Value
from django.db.models.functions import Concat
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

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
    """The role a user acts in, read from what they may do rather than from their groups."""
    if user.has_perm(BROWSE_KEYS):
        return ADMINISTRATOR
    if any(user.has_perm(name) for name in WRITE_PERMISSIONS.values()):
        return EDITOR
    return VIEWER


# The last word of the URL names of the pages that exist only to write (an add or edit form, a
# confirmation, an action): every app names its routes ``<entity>_add``, ``_edit``, ``_delete`` ...
WRITE_PAGES = frozenset({"add", "edit", "delete", "move", "revert", "relation"})


def is_write_page(url_name: str | None) -> bool:
    """Whether a route is a write page, refused even on a GET to a role that can never send its form."""
    return (url_name or "").rsplit("_", 1)[-1] in WRITE_PAGES


def may_write(user, section: str) -> bool:
    """Whether ``user`` may write in the app of URL space ``section``, for screens' write controls."""
    needed = WRITE_PERMISSIONS.get(section)
    return bool(needed) and user.has_perm(needed)


def sync_roles(apps=None) -> None:
    """Create the groups and give each exactly its permissions (``apps``: a migration's models)."""
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
    """Django's ModelBackend, with the user and its permissions cached in Redis beside the sessions.

    ``get_user`` answers from one cache entry per user, read with the user's and the roles' version
    stamps in one MGET, so a signed-in request sends no SQL. A change of the user, its groups or
    permissions, a group's permissions or a permission (``_bump``, on the model signals below)
    writes a new stamp, so the next request finds the entry stale and reads the database again (one
    query, ``_load``). The stamps are read before the database, so an entry built while a change
    commits is outdated by the change's own stamp. Writes that bypass the model signals
    (``QuerySet.update``, raw SQL) are not seen until the entry expires (``CACHE_SECONDS``).
    """

    def get_user(self, user_id):
        pk = UserModel._meta.pk
        try:
            user_id = pk.to_python(user_id)
        except ValidationError:
            return None
        names = (_entry_key(user_id), _stamp_key(user_id), _ALL_STAMP)
        found = cache.get_many(names)
        stamps = (found.get(names[1]), found.get(names[2]))
        entry = found.get(names[0])
        if entry is not None and entry["stamps"] == stamps:
            user = _from_entry(entry)
        else:
            user = self._load(user_id)
            if user is not None:
                cache.set(names[0], _entry_of(user, stamps), CACHE_SECONDS)
        return user if user is not None and self.user_can_authenticate(user) else None

    def _load(self, user_id):
        """The user with both its permission sets, in one query; None when it does not exist."""
        db = router.db_for_read(UserModel)
        users = UserModel._default_manager.db_manager(db)
        if connections[db].vendor not in _AGGREGATE:
            user = users.filter(pk=user_id).first()
            if user is not None:  # ModelBackend's own reads, done now so the entry holds them
                self.get_all_permissions(user)
            return user
        user = (
            users.annotate(
                role_user_perms=_joined(Permission.objects.filter(user=OuterRef("pk"))),
                role_group_perms=_joined(Permission.objects.filter(group__user=OuterRef("pk"))),
            )
            .filter(pk=user_id)
            .first()
        )
        if user is None:
            return None
        if user.is_superuser:  # every permission, as ModelBackend reads a superuser's
            every = set(_names_of(Permission.objects.using(db).all()))
            user._user_perm_cache, user._group_perm_cache = every, set()
        else:
            user._user_perm_cache = _names(user.role_user_perms)
            user._group_perm_cache = _names(user.role_group_perms)
        return user


# The cache entry of a user, its stamp, and the stamp of every group and permission (a change of a
# group's permissions concerns every member, whom one stamp outdates at once). Names of one segment
# under the cache's prefix, as ``config.keys`` registers Django's cache entries, with one hash tag, so
# the MGET that reads the three is one slot's on a Redis Cluster.
CACHE_SECONDS = 24 * 3600
_ALL_STAMP = "{auth}-stamp-all"


def _entry_key(user_id) -> str:
    return f"{{auth}}-user-{user_id}"


def _stamp_key(user_id) -> str:
    return f"{{auth}}-stamp-{user_id}"


def _entry_of(user, stamps: tuple) -> dict:
    fields = [f.attname for f in UserModel._meta.concrete_fields]
    return {
        "db": user._state.db,
        "fields": fields,
        "values": [getattr(user, name) for name in fields],
        "user_perms": sorted(getattr(user, "_user_perm_cache", ())),
        "group_perms": sorted(getattr(user, "_group_perm_cache", ())),
        "stamps": stamps,
    }


def _from_entry(entry: dict):
    user = UserModel.from_db(entry["db"], entry["fields"], entry["values"])
    user._user_perm_cache, user._group_perm_cache = set(entry["user_perms"]), set(entry["group_perms"])
    return user


def _bump(user_id=None) -> None:
    """A new stamp for one user (its entry dropped), or for every user: written at once, and again at
    commit, so a request that read the old rows meanwhile cannot leave an entry that looks current."""

    def write():
        if user_id is None:
            cache.set(_ALL_STAMP, secrets.token_hex(8), None)
        else:
            cache.set(_stamp_key(user_id), secrets.token_hex(8), None)
            cache.delete(_entry_key(user_id))

    write()
    transaction.on_commit(write)


@receiver(post_save, sender=UserModel, dispatch_uid="config.roles.user_saved")
@receiver(post_delete, sender=UserModel, dispatch_uid="config.roles.user_deleted")
def _user_changed(sender, instance, update_fields=None, **kwargs):
    """Every save but a sign-in's own ``last_login``, which no page shows from ``request.user``."""
    if update_fields is None or set(update_fields) != {"last_login"}:
        _bump(instance.pk)


@receiver(m2m_changed, sender=UserModel.groups.through, dispatch_uid="config.roles.groups_changed")
@receiver(m2m_changed, sender=UserModel.user_permissions.through, dispatch_uid="config.roles.user_perms_changed")
def _membership_changed(sender, instance, action, reverse, pk_set, **kwargs):
    """A user's groups or own permissions: that user; from the group's or permission's side, every user."""
    if action in ("post_add", "post_remove", "post_clear"):
        _bump(None if reverse else instance.pk)


@receiver(m2m_changed, sender=Group.permissions.through, dispatch_uid="config.roles.group_perms_changed")
def _group_permissions_changed(sender, action, **kwargs):
    if action in ("post_add", "post_remove", "post_clear"):
        _bump()


@receiver(post_save, sender=Group, dispatch_uid="config.roles.group_saved")
@receiver(post_delete, sender=Group, dispatch_uid="config.roles.group_deleted")
@receiver(post_save, sender=Permission, dispatch_uid="config.roles.permission_saved")
@receiver(post_delete, sender=Permission, dispatch_uid="config.roles.permission_deleted")
@receiver(post_save, sender=ContentType, dispatch_uid="config.roles.content_type_saved")
@receiver(post_delete, sender=ContentType, dispatch_uid="config.roles.content_type_deleted")
def _roles_changed(sender, **kwargs):
    """A group or permission deleted takes its memberships with it (no m2m signal); a rename renames."""
    _bump()


@receiver(user_logged_in, dispatch_uid="config.roles.signed_in")
def _remember(sender, request, user, **kwargs):
    """Build the entry at sign-in, so even the first page after it sends no SQL."""
    RoleBackend().get_user(user.pk)


_SEP = "\n"  # between two permission names ("app_label.codename"), which never hold one
_AGGREGATE = {"sqlite": "GROUP_CONCAT", "postgresql": "STRING_AGG"}
_NAME = Concat("content_type__app_label", Value("."), "codename", output_field=CharField())


class _Joined(Func):
    """The subquery's rows joined in one string (STRING_AGG on PostgreSQL): a Func, not an Aggregate,
    so the subquery has no GROUP BY."""

    function = "GROUP_CONCAT"
    output_field = CharField()

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, function="STRING_AGG", **extra)


def _joined(permissions) -> Subquery:
    """The names of ``permissions`` in one string, as a subquery of the user's row."""
    return Subquery(permissions.order_by().values(names=_Joined(_NAME, Value(_SEP))))


def _names_of(permissions) -> list[str]:
    return [f"{app}.{codename}" for app, codename in permissions.values_list("content_type__app_label", "codename")]


def _names(joined: str | None) -> set[str]:
    return set(joined.split(_SEP)) if joined else set()
