"""The read-only REST API (`/api/v1/`): raw trials and every figure the pages show."""
