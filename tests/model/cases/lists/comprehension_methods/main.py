class Node:
    def visit(self):
        pass

nodes = [Node() for _ in range(2)]
[n.visit() for n in nodes]
