from os import path as p
import numpy as np

p.exists("x")
arr = np.array([1])
arr.sum()
