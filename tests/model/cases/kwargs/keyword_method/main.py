class Job:
    def done(self):
        pass

def schedule(task, *, on_finish):
    on_finish()

job = Job()
schedule(None, on_finish=job.done)
