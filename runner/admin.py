from django.contrib import admin

from runner.models import CampaignStep


@admin.register(CampaignStep)
class CampaignStepAdmin(admin.ModelAdmin):
    list_display = ("campaign", "seq", "phase", "instance", "operation", "status", "attempts")
    list_filter = ("phase", "status", "campaign")
    list_select_related = ("campaign", "instance__submission")
    readonly_fields = [f.name for f in CampaignStep._meta.fields]
