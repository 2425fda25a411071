from pkg.impl.runner import execute as run
