from pkg.sub import a

a.run()
