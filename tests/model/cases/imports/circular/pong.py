import ping

def reply():
    ping.echo()
