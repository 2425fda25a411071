from collections import UserList

class Stack(UserList):
    def push(self, x):
        super().append(x)

Stack().push(1)
