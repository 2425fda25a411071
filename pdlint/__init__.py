"""pdlint: find prefill/decode disaggregation gaps in LLM serving engines."""

__version__ = "0.1.0"
