import ping

ping.start()
