"""The Gradio page: backend, tabs, judge page, HTML, plots and the crowd-serving fast path."""
