"""factory_boy factories for the measurement models."""

from __future__ import annotations

import factory
from django.utils import timezone

from measurements.models import (
    Build,
    Campaign,
    ExternalSize,
    HashProfile,
    HashProfileCall,
    Instance,
    Measurement,
    Submission,
    System,
    Trial,
)


class SystemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = System
        django_get_or_create = ("key",)

    key = factory.Sequence(lambda n: f"box_{n}")
    arch = "x86_64"
    description = "test box"


class SubmissionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Submission
        django_get_or_create = ("key",)

    key = factory.Sequence(lambda n: f"kem-{90 + n}")
    category = "kem"
    algorithm = factory.Sequence(lambda n: f"Test-KEM-{n}")


class InstanceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Instance

    submission = factory.SubFactory(SubmissionFactory)
    label = factory.Sequence(lambda n: f"TEST-{n}")
    position = factory.Sequence(lambda n: n)


class CampaignFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Campaign

    system = factory.SubFactory(SystemFactory)
    key = factory.Sequence(lambda n: f"campaign-{n}")
    status = Campaign.Status.COMPLETE
    started_utc = factory.LazyFunction(timezone.now)
    planning = factory.LazyFunction(lambda: {"trials": 5, "trial_target_s": 1.0})


class BuildFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Build

    campaign = factory.SubFactory(CampaignFactory)
    instance = factory.SubFactory(InstanceFactory)
    flags = "guide"
    kat_status = "PASS"
    elf_load_bytes = 20000


class MeasurementFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Measurement

    campaign = factory.SubFactory(CampaignFactory)
    instance = factory.SubFactory(InstanceFactory)
    operation = "keygen"
    input_bytes = 0
    baseline_rss_bytes = 1400 * 1024
    peak_rss_bytes = 1500 * 1024
    sizes = factory.LazyFunction(
        lambda: {"pk_bytes": 800, "sk_bytes": 1600, "ct_bytes": 768, "ss_bytes": 32}
    )


class TrialFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Trial

    measurement = factory.SubFactory(MeasurementFactory)
    index = factory.Sequence(lambda n: n)
    measurements = 100
    seconds = 0.01
    cycles = 1_000_000


class HashProfileFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = HashProfile

    campaign = factory.SubFactory(CampaignFactory)
    instance = factory.SubFactory(InstanceFactory)
    operation = "keygen"
    total_operations = 100
    total_ticks = 10_000


class HashProfileCallFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = HashProfileCall

    profile = factory.SubFactory(HashProfileFactory)
    fn = "pseudoXOF"
    in_bits = 256
    out_bits = 512
    calls = 200
    ticks = 5_000


class ExternalSizeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ExternalSize

    candidate = "kem-90"
    instance_label = "TEST-0"
    public_key_bytes = 800
    ciphertext_bytes = 768
    basis = "encoded"
