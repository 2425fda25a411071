import logging

log = logging.getLogger("x")
log.info("hi")
