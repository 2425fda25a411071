class Player:
    def play(self):
        pass

def get_action(p):
    return p.play

get_action(Player())()
