import boot

boot.ready()
