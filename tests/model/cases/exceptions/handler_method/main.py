class Retry(Exception):
    def backoff(self):
        pass

try:
    raise Retry()
except Retry as exc:
    exc.backoff()
