"""The OpenAPI schema view, readable in a browser.

drf-spectacular answers `/api/schema/` as ``application/vnd.oai.openapi`` (YAML), which browsers
download instead of showing. A browser asks for ``text/html`` or ``*/*``: it now gets the same
YAML as ``text/plain`` and displays it. Clients asking for the OpenAPI media types (or
``?format=json``) get exactly what they asked for.
"""

from __future__ import annotations

from drf_spectacular.renderers import (
    OpenApiJsonRenderer,
    OpenApiJsonRenderer2,
    OpenApiYamlRenderer,
    OpenApiYamlRenderer2,
)
from drf_spectacular.views import SpectacularAPIView


class PlainTextYamlRenderer(OpenApiYamlRenderer):
    media_type = "text/plain"
    format = "yaml-text"


class ReadableSchemaView(SpectacularAPIView):
    renderer_classes = [
        PlainTextYamlRenderer,
        OpenApiYamlRenderer,
        OpenApiYamlRenderer2,
        OpenApiJsonRenderer,
        OpenApiJsonRenderer2,
    ]
