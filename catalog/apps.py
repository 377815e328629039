from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "catalog"
