app_name = "cms"
urlpatterns = []
