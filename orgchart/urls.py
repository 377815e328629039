app_name = "orgchart"
urlpatterns = []
