def get_user():
    pass

def post_user():
    pass

routes = {"/user": {"GET": get_user, "POST": post_user}}
routes["/user"]["POST"]()
