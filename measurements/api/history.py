"""`/api/v1/systems/<system>/submissions/<submission>/history/`: every campaign's figures."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from measurements.api.filters import StrictQueryParamsFilter
from measurements.api.permissions import ReadOnlyOrStaff
from measurements.api.throttling import AnonymousClientThrottle
from measurements.api.views import CachedAnonymousJsonReads, ReadMethodsOnly
from measurements.selectors.history import measurement_history_for


class HistoryPointSerializer(serializers.Serializer):
    measurement_id = serializers.IntegerField()
    campaign_key = serializers.CharField()
    campaign_source = serializers.CharField()
    started = serializers.DateTimeField(allow_null=True)
    cycles = serializers.FloatField(allow_null=True, help_text="Sample median, else mean.")
    low = serializers.FloatField(allow_null=True, help_text="95 % interval, low end.")
    high = serializers.FloatField(allow_null=True, help_text="95 % interval, high end.")
    campaign_spread = serializers.FloatField(
        allow_null=True,
        help_text="The box's campaign-to-campaign relative spread the figure allows for.",
    )
    next_low = serializers.FloatField(
        allow_null=True, help_text="Where the next campaign is expected (95 %), low end."
    )
    next_high = serializers.FloatField(
        allow_null=True, help_text="Where the next campaign is expected (95 %), high end."
    )
    change = serializers.CharField(help_text='"slower", "faster" or "" (see `rule`).')


class HistorySeriesSerializer(serializers.Serializer):
    instance_label = serializers.CharField()
    operation = serializers.CharField()
    input_bytes = serializers.IntegerField()
    points = HistoryPointSerializer(many=True)


class HistorySerializer(serializers.Serializer):
    system = serializers.CharField(source="system.key")
    submission = serializers.CharField(source="submission.key")
    rule = serializers.CharField()
    campaigns = serializers.IntegerField()
    changes = serializers.IntegerField()
    series = HistorySeriesSerializer(many=True)


class CandidateHistoryView(ReadMethodsOnly, CachedAnonymousJsonReads, APIView):
    """One candidate's figures on one system, one point per campaign, with regression flags.
    Other verbs are a 405, unknown query parameters a 400; anonymous JSON reads are cached."""

    permission_classes = [ReadOnlyOrStaff]
    throttle_classes = [AnonymousClientThrottle]
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer]
    http_method_names = ["get", "head", "options"]

    @extend_schema(responses=HistorySerializer)
    def get(self, request: Request, system: str, submission: str) -> Response:
        StrictQueryParamsFilter().filter_queryset(request, None, self)
        return self._cached(self._history, request, system, submission)

    def _history(self, request: Request, system: str, submission: str) -> Response:
        history = measurement_history_for(system_key=system, submission_key=submission)
        return Response(HistorySerializer(history).data)
