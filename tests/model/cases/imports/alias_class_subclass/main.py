from models.base import Model as M

class User(M):
    def save(self):
        super().save()

User().save()
