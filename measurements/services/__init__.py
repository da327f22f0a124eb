"""Writes to the measurement database. Every public function is keyword-only and atomic."""
