"""Fixtures of the scoring tests: tiny Hub-layout datasets."""

from __future__ import annotations
