"""The board's data: stores, results, ranks and the table (no Gradio)."""
