import lib.tools.strings as S

S.shout()
