import pkg.sub.leaf as leaf
import pkg.sub.leaf

leaf.go()
pkg.sub.leaf.go()
