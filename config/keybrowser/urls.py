"""The key browser under ``/keys/``; ``keys`` keeps its name, used by base.html and the Redis panel."""

from django.urls import path

from config.keybrowser import views

urlpatterns = [
    path("", views.browse, name="keys"),
    path("tree/", views.namespaces, name="keys_tree"),
    path("registry/", views.registry, name="keys_registry"),
    path("registry/keys/", views.registered, name="keys_registered"),
    path("orphans/", views.orphans, name="keys_orphans"),
    path("behind/", views.behind_screen, name="keys_behind"),
]
