"""Import an org chart in the e-book's format: Employee.csv, Location.csv, REPORTS_TO.csv, WORKS_AT.csv."""

from django.core.management.base import BaseCommand, CommandError

from orgchart import importer, store


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
            data, report = importer.read(directory)
        except importer.ImportError_ as exc:
            lines = "\n".join(exc.errors)
            raise CommandError(f"{exc.report.refused} refusal(s), nothing imported:\n{lines}") from None
        try:
            done = store.import_graph(data, store.Actor("import"))
        except (store.Refused, store.Busy) as exc:
            raise CommandError(f"{exc} Nothing imported.") from None
        for line in report.rewrite_lines():
            self.stdout.write(f"Normalized {line}")
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported {done.employees} employees, {done.locations} locations, "
                f"{done.edges} REPORTS_TO and {done.placed} WORKS_AT edges (employee ids from {done.first_employee})."
            )
        )
