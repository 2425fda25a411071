from abc import ABC

from ext import make_node


class Tree(ABC):
    def __init__(self):
        self.root = make_node()

    def depth(self):
        node = self.root
        while node.parent is not None:
            node = node.parent
        node.visit()


Tree().depth()
