from django.urls import path

from catalog import views

app_name = "catalog"
urlpatterns = [
    path("", views.catalog_home, name="home"),
    path("products/", views.product_list, name="product_list"),
    path("products/add/", views.product_add, name="product_add"),
    path("products/suggest/", views.product_suggest, name="product_suggest"),
    path("products/delete/", views.product_bulk_delete, name="product_bulk_delete"),
    path("products/tags/", views.product_bulk_tag, name="product_bulk_tag"),
    path("products/<id:pk>/", views.product_detail, name="product_detail"),
    path("products/<id:pk>/edit/", views.product_edit, name="product_edit"),
    path("products/<id:pk>/delete/", views.product_delete, name="product_delete"),
    path("products/<id:pk>/reviews/", views.review_list, name="review_list"),
    path("products/<id:pk>/reviews/add/", views.review_add, name="review_add"),
    path("products/<id:pk>/reviews/<id:review_pk>/delete/", views.review_delete, name="review_delete"),
]
