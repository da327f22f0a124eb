import os

from django.core.management.base import BaseCommand

from runner.harness.sandbox import UNSANDBOXED_ENV
from runner.services import system_register


class Command(BaseCommand):
    help = "Register this machine as a target system: environment and host checks."

    def add_arguments(self, parser) -> None:
        parser.add_argument("system", help="system id, e.g. x86_1")
        parser.add_argument("--cpu", type=int, default=None, help="core to pin (default: last)")
        parser.add_argument("--allow-unfixed-host", action="store_true")
        parser.add_argument(
            "--allow-unsandboxed",
            action="store_true",
            help="allow campaigns where the kernel refuses the sandbox's namespaces (flagged)",
        )
        parser.add_argument("--description", default="")

    def handle(self, *args, system: str, cpu, allow_unfixed_host: bool, description: str, **kw):
        from runner.harness.sandbox import namespaces_refused
        from runner.harness.timing import default_cpu

        refused = namespaces_refused()
        allow_unsandboxed = kw["allow_unsandboxed"]
        self._report_sandbox(refused, allow_unsandboxed)
        if refused and allow_unsandboxed:
            os.environ[UNSANDBOXED_ENV] = "1"  # the counter probe below runs unconfined too
        counter = _probe_counter()
        registered = system_register(
            key=system,
            cpu=default_cpu() if cpu is None else cpu,
            allow_unfixed_host=allow_unfixed_host,
            allow_unsandboxed=allow_unsandboxed,
            sandbox_refused=refused,
            counter=counter,
            description=description,
        )
        env = registered.environment
        self.stdout.write(
            f"system {registered.key}: {env.get('cpu_model')} ({env.get('architecture')})"
        )
        self.stdout.write(f"cycle counter: {counter.get('name', 'unknown')} {counter}")
        if registered.host_problems:
            self.stdout.write(self.style.WARNING("host problems (figures will be flagged):"))
            for problem in registered.host_problems:
                self.stdout.write(f"  - {problem}")
            if not allow_unfixed_host:
                self.stdout.write(
                    "campaigns on this host need --allow-unfixed-host at registration"
                )
        else:
            self.stdout.write(self.style.SUCCESS("host checks passed"))

    def _report_sandbox(self, refused: str, allowed: bool) -> None:
        if not refused:
            self.stdout.write(self.style.SUCCESS("sandbox: bubblewrap namespaces available"))
            return
        self.stdout.write(self.style.WARNING(f"sandbox: unavailable here: {refused}"))
        if allowed:
            self.stdout.write("campaigns will run candidate code unconfined (pages will say so)")
        else:
            self.stdout.write("campaigns on this host need --allow-unsandboxed at registration")


def _probe_counter() -> dict:
    """Ask the timing driver which cycle counter it picks here, with its overhead and rate."""
    from runner.harness.timing import probe_counter
    from runner.steps import timing_driver

    try:
        driver = timing_driver()
    except Exception as exc:  # no compiler: registration still records the rest
        return {"error": f"driver not built: {exc}"}
    return probe_counter(driver=driver)
