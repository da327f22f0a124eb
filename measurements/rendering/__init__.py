"""Renderers of the page builders' plain data other than the HTML templates (`templates/`)."""
