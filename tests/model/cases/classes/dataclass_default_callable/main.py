from dataclasses import dataclass

def run_default():
    pass

@dataclass
class Job:
    name: str = "x"

    def execute(self):
        run_default()

Job().execute()
