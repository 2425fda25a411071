from .base import Model

class Cart(Model):
    def total(self):
        self.save()
