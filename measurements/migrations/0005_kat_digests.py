# KATResult: name the raw output digest and the canonical digests that decided the status.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("measurements", "0004_category_choices_from_registry"),
    ]

    operations = [
        # output_sha256 was always the digest of the raw output bytes.
        migrations.RenameField(
            model_name="katresult",
            old_name="output_sha256",
            new_name="output_raw_sha256",
        ),
        # reference_sha256 was the sha256 field of a digest reference line: a canonical digest.
        migrations.RenameField(
            model_name="katresult",
            old_name="reference_sha256",
            new_name="reference_canonical_sha256",
        ),
        migrations.AddField(
            model_name="katresult",
            name="comparison",
            field=models.CharField(blank=True, max_length=16),
        ),
        migrations.AddField(
            model_name="katresult",
            name="output_canonical_sha256",
            field=models.CharField(blank=True, max_length=64),
        ),
    ]
