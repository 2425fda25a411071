def run():
    pass

if __name__ == "__main__":
    run()
