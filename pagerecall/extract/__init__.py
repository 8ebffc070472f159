"""Reading source files into pages: PDFs (text, order, labels, OCR, outline) and text layers."""
