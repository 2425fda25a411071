from .render import helper
