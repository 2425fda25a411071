"""The program model: names, classes, variants, the call graph, from the facts."""
