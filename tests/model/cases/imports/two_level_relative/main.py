from app.api.views import show

show()
