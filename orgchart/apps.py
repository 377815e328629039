from django.apps import AppConfig


class OrgchartConfig(AppConfig):
    name = "orgchart"
