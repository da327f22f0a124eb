"""The harness: everything that touches candidate code, without Django.

Manifest loading and path confinement, the sandbox (the one way to run candidate code), builds,
KAT replay and the functional check, timing plans and the driver-output parser, the ICCS profile
and host checks. It returns plain objects — timing results and hash profiles as the record types
of `measurements.records` — and `runner.store` (the Django glue) stores them.
"""
