"""Rendering findings: text, JSON, SARIF, GitHub annotations, rule docs."""
