from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import LogoutView
from django.urls import include, path, register_converter
from django.views.generic import RedirectView

from config import views
from config.converters import IdConverter

register_converter(IdConverter, "id")  # before the apps' urls, which use <id:pk>

admin.site.site_header = admin.site.site_title = "Redis modeling dashboard"
admin.site.site_url = "/"

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/login/", views.SignInView.as_view(), name="login"),
    path("accounts/logout/", LogoutView.as_view(), name="logout"),
    # Django's admin signs in through the dashboard's own form, with its rate limit.
    path(
        "admin/login/",
        login_not_required(RedirectView.as_view(pattern_name="login", query_string=True)),
        name="admin_login",
    ),
    path("admin/", admin.site.urls),
    path("keys/", include("config.keybrowser.urls")),
    path("catalog/", include("catalog.urls")),
    path("school/", include("school.urls")),
    path("cms/", include("cms.urls")),
    path("orgchart/", include("orgchart.urls")),
    path("exchange/", include("config.exchange.urls")),
]

handler400 = views.bad_request
handler403 = views.permission_denied
handler404 = views.page_not_found
handler500 = views.server_error
