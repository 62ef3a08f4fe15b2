"""Deployment: a Hugging Face Space that runs the page and the worker."""
