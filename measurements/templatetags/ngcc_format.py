"""Template filters wrapping the one formatter (`measurements.formatting`)."""

from django import template

from measurements import formatting

register = template.Library()

register.filter("cycles", formatting.format_cycles)
register.filter("seconds", formatting.format_seconds)
register.filter("general", formatting.format_general)
register.filter("kib", formatting.format_kib)
register.filter("share", formatting.format_share)
register.filter("ratio", formatting.format_ratio)
register.filter("int_or_missing", formatting.format_int)
register.filter("message_length", formatting.format_message_length)
register.filter("utc", formatting.format_utc)
