"""Submissions: validation, the request queue and its worker, the expert-weight survey."""
