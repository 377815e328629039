"""Django's admin for users and groups, where only a superuser can make, change or remove a
superuser, and nobody grants a permission they do not hold.

The administrator role manages users (``auth.change_user``), which in Django's stock
UserAdmin is enough to tick "superuser" on one's own account or to reset the password of
``admin``. Here a user who is not a superuser:

- cannot change or delete a superuser (nor reach its password form: Django's
  ``user_change_password`` asks ``has_change_permission`` with the user);
- sees "superuser" and the per-user permissions read-only;
- can put a user in a group only if they hold every permission of that group, and a
  user keeps the groups the editor could not grant;
- sees a group's permissions read-only (the roles are kept by ``config.roles``).
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, Permission
from django.db.models import Q

User = get_user_model()


def held_permissions(user):
    """The permissions ``user`` holds, directly or through a group, as a queryset."""
    wanted = Q(pk__in=[])
    for name in user.get_all_permissions():
        app_label, codename = name.split(".", 1)
        wanted |= Q(content_type__app_label=app_label, codename=codename)
    return Permission.objects.filter(wanted)


def grantable_groups(user):
    """The groups whose every permission ``user`` holds: the ones they may hand out."""
    if user.is_superuser:
        return Group.objects.all()
    beyond = Permission.objects.exclude(pk__in=held_permissions(user).values("pk"))
    return Group.objects.exclude(permissions__in=beyond)


class GuardedUserAdmin(UserAdmin):
    def _guards(self, request, obj) -> bool:
        """Whether the request may not touch ``obj``: a superuser, seen by someone who is not one."""
        return obj is not None and obj.is_superuser and not request.user.is_superuser

    def has_change_permission(self, request, obj=None):
        return not self._guards(request, obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return not self._guards(request, obj) and super().has_delete_permission(request, obj)

    def get_readonly_fields(self, request, obj=None):
        fields = tuple(super().get_readonly_fields(request, obj))
        if request.user.is_superuser:
            return fields
        return (*fields, "is_superuser", "user_permissions")

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if db_field.name == "groups":
            kwargs["queryset"] = grantable_groups(request.user)
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def save_related(self, request, form, formsets, change):
        """A user keeps the groups this editor could not grant (they were not offered)."""
        if change and not request.user.is_superuser and "groups" in form.cleaned_data:
            kept = form.instance.groups.exclude(pk__in=grantable_groups(request.user).values("pk"))
            form.cleaned_data["groups"] = [*form.cleaned_data["groups"], *kept]
        super().save_related(request, form, formsets, change)


class GuardedGroupAdmin(GroupAdmin):
    def get_readonly_fields(self, request, obj=None):
        fields = tuple(super().get_readonly_fields(request, obj))
        return fields if request.user.is_superuser else (*fields, "permissions")


admin.site.unregister(User)
admin.site.unregister(Group)
admin.site.register(User, GuardedUserAdmin)
admin.site.register(Group, GuardedGroupAdmin)
