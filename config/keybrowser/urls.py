"""The key browser under ``/keys/``, its URL names in the ``keybrowser`` namespace."""

from django.urls import path

from config.keybrowser import views

app_name = "keybrowser"

urlpatterns = [
    path("", views.browse, name="browse"),
    path("download/", views.download, name="download"),
    path("tree/", views.namespaces, name="tree"),
    path("registry/", views.registry, name="registry"),
    path("registry/keys/", views.registered, name="registered"),
    path("orphans/", views.orphans, name="orphans"),
    path("behind/", views.behind_screen, name="behind"),
    path("behind/commands/", views.behind_commands, name="behind_commands"),
    path("memory/", views.memory_by_pattern, name="memory"),
    path("server/", views.server_view, name="server"),
]
