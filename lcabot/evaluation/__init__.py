"""Evaluation over ``shared/eval``-style question files."""
