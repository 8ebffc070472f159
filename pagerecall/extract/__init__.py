"""Reading sources: PDFs, text layers and their outlines (layer 1)."""
