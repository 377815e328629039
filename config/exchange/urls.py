from django.urls import path

from config.exchange import views

app_name = "exchange"
urlpatterns = [
    path("", views.index, name="index"),
    path("<slug:app>/", views.screen, name="screen"),
    path("<slug:app>/export.zip", views.download, name="download"),
    path("<slug:app>/preview/", views.preview, name="preview"),
    path("<slug:app>/confirm/", views.confirm, name="confirm"),
]
