from django.contrib.auth.views import LogoutView
from django.urls import include, path, register_converter

from config import views
from config.converters import IdConverter

register_converter(IdConverter, "id")  # before the apps' urls, which use <id:pk>

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/login/", views.SignInView.as_view(), name="login"),
    path("accounts/logout/", LogoutView.as_view(), name="logout"),
    path("keys/", include("config.keybrowser.urls")),
    path("catalog/", include("catalog.urls")),
    path("school/", include("school.urls")),
    path("cms/", include("cms.urls")),
    path("orgchart/", include("orgchart.urls")),
    path("exchange/", include("config.exchange.urls")),
]
