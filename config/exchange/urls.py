from django.urls import path

from config.exchange import views

app_name = "exchange"
urlpatterns = [
    path("", views.index, name="index"),
    path("<slug:app>/", views.screen, name="screen"),
    path("<slug:app>/export.zip", views.download, name="download"),
    path("<slug:app>/export/", views.export, name="export"),
    path("<slug:app>/preview/", views.preview, name="preview"),
    path("<slug:app>/jobs/<uuid:pk>/", views.job, name="job"),
    path("<slug:app>/jobs/<uuid:pk>/confirm/", views.confirm, name="confirm"),
    path("<slug:app>/jobs/<uuid:pk>/export.zip", views.job_file, name="job_file"),
]
