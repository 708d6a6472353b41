"""Answering: the evidence ledger, a generator (Claude or the offline extractive one), context gates, verification."""
