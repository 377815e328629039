from django.urls import path

from cms import views

app_name = "cms"
urlpatterns = [
    path("posts/", views.post_list, name="post_list"),
    path("posts/add/", views.post_add, name="post_add"),
    path("posts/delete/", views.post_bulk_delete, name="post_bulk_delete"),
    path("posts/status/", views.post_bulk_status, name="post_bulk_status"),
    path("posts/<id:pk>/", views.post_detail, name="post_detail"),
    path("posts/<id:pk>/edit/", views.post_edit, name="post_edit"),
    path("posts/<id:pk>/delete/", views.post_delete, name="post_delete"),
    path("posts/<id:pk>/history/", views.post_history, name="post_history"),
    path("posts/<id:pk>/compare/", views.post_compare, name="post_compare"),
    path("posts/<id:pk>/revisions/<id:number>/revert/", views.post_revert, name="post_revert"),
    path("posts/<id:pk>/comments/", views.comment_list, name="comment_list"),
    path("posts/<id:pk>/comments/add/", views.comment_add, name="comment_add"),
    path("posts/<id:pk>/comments/<id:comment_id>/delete/", views.comment_delete, name="comment_delete"),
]
