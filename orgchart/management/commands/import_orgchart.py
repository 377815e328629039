"""Import an org chart in the e-book's format: Employee.csv, Location.csv, REPORTS_TO.csv, WORKS_AT.csv."""

from django.core.management.base import BaseCommand, CommandError

from config import store as config_store
from config.activity import Actor
from config.keyspace import keyspace
from orgchart import conf, importing, store


class Command(BaseCommand):
    help = (
        "Import DIR/Employee.csv (name,title), Location.csv (name), REPORTS_TO.csv (src,dest[,relationship]) "
        "and WORKS_AT.csv (src_employee,dest_location,full_time), where names are the identifiers: the "
        "companion repository's tree-and-graph files read as published. Prints what it rewrote (per field, "
        "a count and an example). Any refusal names its file, line and field, and then nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory")

    def handle(self, *args, directory, **options):
        try:
            data, report = importing.read(directory)
        except importing.ImportRefused as exc:
            lines = "\n".join(exc.lines)
            raise CommandError(f"{exc.report.refused} refusal(s), nothing imported:\n{lines}") from None
        actor = Actor("import")
        if len(data.people) <= conf.import_atomic_limit():
            try:
                done = store.import_graph(data, actor=actor)
            except (store.Refused, store.Busy) as exc:
                raise CommandError(f"{exc} Nothing imported.") from None
        else:
            done = self._import_in_chunks(data, actor)
        for line in report.rewrite_lines():
            self.stdout.write(f"Normalized {line}")
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported {done.employees} employees, {done.locations} locations, "
                f"{done.edges} REPORTS_TO and {done.placed} WORKS_AT edges (employee ids from {done.first_employee})."
            )
        )

    def _import_in_chunks(self, data, actor):
        """A large import: pipelined chunks (no EXEC holds Redis for seconds), into an empty org
        chart only, and removed whole if it fails part-way."""
        prefix = keyspace.prefix("orgchart")
        if config_store.holds_prefix(prefix):
            raise CommandError(
                f"{len(data.people)} people is more than one transaction should hold "
                f"({conf.import_atomic_limit()}): a large import goes in chunks, so it needs an empty org chart. "
                "Nothing imported."
            )
        try:
            return store.import_graph(data, actor=actor, atomic=False)
        except BaseException:
            config_store.delete_prefix(prefix)  # the org chart was empty: leave it so
            raise
