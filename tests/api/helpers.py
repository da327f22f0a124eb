"""Helpers for reading API responses in tests."""

from __future__ import annotations

from rest_framework.test import APIClient


def rows(response) -> list[dict]:
    """The rows of a list response (paginated or not)."""
    data = response.json()
    return data["results"] if isinstance(data, dict) else data


def all_pages(client: APIClient, url: str) -> list[dict]:
    """Follow `next` links to the end and return every row."""
    out: list[dict] = []
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.content
        data = response.json()
        out.extend(data["results"])
        url = data["next"]
    return out
