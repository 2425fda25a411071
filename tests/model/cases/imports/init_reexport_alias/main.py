from pkg import run as go

go()
