"""Import a harness dataset folder and the CSV catalogs.

A dataset imports in one transaction: any malformed file aborts the whole import with an error
naming the file and field, and the database is left as it was. Files already imported with the
same bytes are skipped, so a re-import changes nothing and says so.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import transaction

from measurements.confined_files import (
    DEFAULT_MAX_FILE_BYTES,
    check_regular_file,
    list_regular_files,
    read_confined,
)
from measurements.harness_records import (
    CANDIDATE_ID,
    INSTANCE_LABEL,
    HarnessDataError,
    load_json,
    parse_build_index,
    parse_campaign,
    parse_hash_profile,
    parse_kat_log,
    parse_timing_record,
)
from measurements.models import (
    Campaign,
    EvidenceFile,
    Instance,
    Submission,
    System,
)
from measurements.page_cache import data_version_bump
from measurements.services.catalogs import (  # noqa: F401  (catalogs_import: callers' import)
    catalogs_import,
    security_targets_apply,
)
from measurements.services.evidence import evidence_store, sha256_hex
from measurements.services.recording import (
    build_record,
    hash_profile_store,
    instance_get_or_create,
    kat_result_record,
    timing_record_store,
)
from measurements.services.size_audit import size_audit_recompute

ProgressCallback = Callable[[int, int, str], None]


@dataclass
class ImportSummary:
    files_seen: int = 0
    files_unchanged: int = 0
    counts: collections.Counter = field(default_factory=collections.Counter)

    @property
    def changed(self) -> bool:
        return any(self.counts.values())

    def describe(self) -> str:
        if not self.changed:
            return f"no changes: all {self.files_seen} files were already imported"
        parts = ", ".join(f"{n} {name}" for name, n in sorted(self.counts.items()) if n)
        return (
            f"imported {parts} from {self.files_seen} files "
            f"({self.files_unchanged} already present)"
        )


def _dataset_files(root: Path) -> list[tuple[str, str]]:
    """(relative path, kind) of every file of a dataset, in import order (regular files only)."""
    files: list[tuple[str, str]] = []
    for name, kind in (("campaign.json", "campaign"), ("build.json", "build")):
        check_regular_file(root, name)
        files.append((name, kind))
    for sub, kind, suffix in (
        ("kat", EvidenceFile.Kind.KAT_LOG, ".log"),
        ("records", EvidenceFile.Kind.RECORD, ".json"),
        ("profile", EvidenceFile.Kind.PROFILE, ".json"),
    ):
        files.extend((rel, kind) for rel in list_regular_files(root, sub, suffix))
    return files


def _kat_log_instance(path: str, rel: str) -> tuple[str, str]:
    """(candidate, label) named by ``kat/<candidate>/<label>.log``, both plain identifiers."""
    candidate, name = rel.split("/")[1], Path(rel).stem
    if not CANDIDATE_ID.match(candidate):
        raise HarnessDataError(path, "<path>", f"{candidate!r} is not a candidate id")
    if not INSTANCE_LABEL.match(name) or ".." in name:
        raise HarnessDataError(path, "<path>", f"{name!r} is not a plain instance label")
    return candidate, name


def _primary_cpu(shard_cpus: dict[str, int], record_cpus: list[int]) -> int | None:
    """The core the pages describe: the lowest shard core, else the most used record core."""
    cpus = [c for c in shard_cpus.values() if isinstance(c, int)]
    if cpus:
        return min(cpus)
    if record_cpus:
        return collections.Counter(record_cpus).most_common(1)[0][0]
    return None


def _page_environment(campaign: Campaign) -> None:
    """Set the §2 environment: first complete record measured on the primary core."""
    measurements = list(
        campaign.measurements.filter(status="complete")
        .order_by("started_utc", "id")
        .values("cpu", "environment")
    )
    primary = _primary_cpu(
        campaign.settings.get("shard_cpus", {}), [m["cpu"] for m in measurements if m["cpu"]]
    )
    chosen = next((m for m in measurements if m["cpu"] == primary), None)
    environment = chosen["environment"] if chosen else campaign.environment_at_start
    if campaign.environment != environment or campaign.primary_cpu != primary:
        campaign.environment = environment
        campaign.primary_cpu = primary
        campaign.save(update_fields=["environment", "primary_cpu"])


def max_import_file_bytes() -> int:
    """The per-file import limit (``NGCC_IMPORT_MAX_FILE_BYTES`` in the settings)."""
    return int(getattr(settings, "NGCC_IMPORT_MAX_FILE_BYTES", DEFAULT_MAX_FILE_BYTES))


def _dataset_campaign(info, system_key: str, summary: ImportSummary) -> Campaign:
    """The system (made from the dataset's environment when new) and its imported campaign."""
    env = info.environment_at_start
    system, created = System.objects.get_or_create(
        key=system_key,
        defaults={
            "arch": str(env.get("architecture") or ""),
            "hostname": str(env.get("hostname") or ""),
            "machine": str(env.get("machine") or ""),
        },
    )
    summary.counts["systems"] += int(created)
    campaign, created = Campaign.objects.get_or_create(
        key=f"{system_key}-{info.started_utc.strftime('%Y%m%dT%H%M%SZ')}",
        defaults={
            "system": system,
            "source": "imported",
            "status": Campaign.Status.IMPORTED,
            "started_utc": info.started_utc,
            "ended_utc": info.ended_utc,
            "planning": info.planning,
            "arch_config": info.arch_config,
            "harness_additions": info.harness_additions,
            "environment_at_start": info.environment_at_start,
            "environment_at_end": info.environment_at_end,
            "host_checks": info.host_checks,
            "host_problems": info.host_problems,
            "history_note": info.history_note,
            "settings": {"shard_cpus": info.shard_cpus},
        },
    )
    summary.counts["campaigns"] += int(created)
    return campaign


@dataclass
class _DatasetImport:
    """One dataset's files stored into one campaign; each kind of file has its own method."""

    campaign: Campaign
    summary: ImportSummary
    instances: dict[tuple[str, str], Instance] = field(default_factory=dict)

    def instance_for(self, candidate: str, label: str, **extra: str) -> Instance:
        key = (candidate, label)
        if key not in self.instances:
            instance, made = instance_get_or_create(candidate=candidate, label=label, **extra)
            self.summary.counts["instances"] += int(made)
            self.instances[key] = instance
        return self.instances[key]

    def store(self, path: str, rel: str, kind: str, content: bytes, evidence) -> None:
        if kind == "build":
            self.build_index(path, content)
        elif kind == EvidenceFile.Kind.KAT_LOG:
            self.kat_log(path, rel, content, evidence)
        elif kind == EvidenceFile.Kind.RECORD:
            record = parse_timing_record(path, load_json(path, content))
            instance = self.instance_for(record.candidate, record.label)
            timing_record_store(
                campaign=self.campaign, record=record, evidence=evidence, instance=instance
            )
            self.summary.counts["measurements"] += 1
            self.summary.counts["trials"] += len(record.trials)
        elif kind == EvidenceFile.Kind.PROFILE:
            profile = parse_hash_profile(path, load_json(path, content))
            instance = self.instance_for(profile.candidate, profile.label)
            hash_profile_store(
                campaign=self.campaign, profile=profile, evidence=evidence, instance=instance
            )
            self.summary.counts["hash profiles"] += 1

    def build_index(self, path: str, content: bytes) -> None:
        for entry in parse_build_index(path, load_json(path, content)):
            instance = self.instance_for(
                entry.candidate, entry.label, api_instance=entry.api_instance, variant=entry.variant
            )
            _, changed = build_record(
                campaign=self.campaign,
                instance=instance,
                flags=entry.flags,
                kat_status=entry.kat,
                guide_result=entry.guide_result,
                library_path=entry.library,
                library_sha256=entry.library_sha256,
                elf_load_bytes=entry.elf_load_bytes,
                kat_log_path=entry.kat_log,
                kat_log_sha256=entry.kat_log_sha256,
            )
            self.summary.counts["builds"] += int(changed)

    def kat_log(self, path: str, rel: str, content: bytes, evidence) -> None:
        candidate, name = _kat_log_instance(path, rel)
        log = parse_kat_log(path, content)
        instance = self.instance_for(candidate, name)
        build = instance.builds.filter(campaign=self.campaign).first()
        if build is not None:
            if build.kat_log_sha256 and build.kat_log_sha256 != evidence.sha256:
                raise HarnessDataError(
                    path,
                    "kat_log_sha256",
                    f"build.json says {build.kat_log_sha256[:16]}…, file has "
                    f"{evidence.sha256[:16]}…",
                )
            build.kat_log = evidence
            build.compiler = log.fields.get("compiler", build.compiler)
            build.build_flags = log.fields.get("build_flags", build.build_flags)
            build.save(update_fields=["kat_log", "compiler", "build_flags"])
            kat_result_record(
                build=build,
                kind="official",
                status=log.result_status or build.kat_status,
                manifest_line=log.fields.get("manifest", ""),
                log=content.decode("utf-8", errors="replace"),
                evidence=evidence,
            )
            self.summary.counts["KAT results"] += 1
        submission = instance.submission
        if log.algorithm and not submission.algorithm:
            submission.algorithm = log.algorithm
            submission.save(update_fields=["algorithm"])


@transaction.atomic
def harness_dataset_import(
    *,
    directory: Path,
    system_key: str,
    progress: ProgressCallback | None = None,
    max_file_bytes: int | None = None,
) -> ImportSummary:
    """Import `directory` (campaign.json, build.json, kat/, records/, profile/) for a system.

    Only regular files inside the (resolved) folder are read, each up to `max_file_bytes`.
    """
    root = Path(directory).resolve()
    limit = max_file_bytes or max_import_file_bytes()
    summary = ImportSummary()
    files = _dataset_files(root)
    campaign_path = str(root / "campaign.json")
    info = parse_campaign(
        campaign_path, load_json(campaign_path, read_confined(root, "campaign.json", limit=limit))
    )
    if info.system_id != system_key:
        raise HarnessDataError(
            campaign_path,
            "system_id",
            f"dataset is for system {info.system_id!r}, not {system_key!r}",
        )
    campaign = _dataset_campaign(info, system_key, summary)
    known = dict(
        EvidenceFile.objects.filter(campaign=campaign).values_list("relative_path", "sha256")
    )
    dataset = _DatasetImport(
        campaign,
        summary,
        {(i.submission.key, i.label): i for i in Instance.objects.select_related("submission")},
    )
    submissions_before = Submission.objects.count()
    for done, (rel, kind) in enumerate(files, start=1):
        summary.files_seen += 1
        content = read_confined(root, rel, limit=limit)
        if known.get(rel) == sha256_hex(content):
            summary.files_unchanged += 1
        else:
            evidence, _ = evidence_store(
                campaign=campaign, relative_path=rel, kind=kind, content=content
            )
            summary.counts["evidence files"] += 1
            dataset.store(str(root / rel), rel, kind, content, evidence)
        if progress:
            progress(done, len(files), rel)

    summary.counts["submissions"] += Submission.objects.count() - submissions_before
    if summary.changed:
        _page_environment(campaign)
        security_targets_apply()
        size_audit_recompute()
        data_version_bump()
    return summary
