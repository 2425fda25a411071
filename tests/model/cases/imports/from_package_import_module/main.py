from lib import tasks

tasks.Job().run()
