"""``import_data`` in a process of its own, stopped at a chosen point, for the crash tests:

    python -m tests.core.import_driver MODE N [M] -- IMPORT_DATA_ARGUMENTS...
    python -m tests.core.import_driver MODE N [M] -- worker WORKER_ARGUMENTS...

(the second: the background worker, stopped at that point of the import job it runs)

- ``kill-at STEP``: SIGKILL itself as soon as the journal has recorded STEP;
- ``kill-after N``: SIGKILL itself when the write pass has handed N documents to the app;
- ``fail-then-kill N M``: an error at document N (so the import rolls back), then SIGKILL after M more
  documents, those of the old data being written back;
- ``pause-after N``: at document N, print ``paused`` and wait for a line on stdin (the test meanwhile
  sends a signal or pauses Redis).

Real signals and a real Redis: only the point of the stop is chosen here.
"""

import os
import signal
import sys


def main() -> None:
    split = sys.argv.index("--")
    mode, points, arguments = sys.argv[1], sys.argv[2:split], sys.argv[split + 1 :]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import execute_from_command_line

    from config.exchange import journal, runner

    if mode == "kill-at":
        record = journal.Journal.record

        def record_then_die(self, step, **values):
            record(self, step, **values)
            if step == points[0]:
                os.kill(os.getpid(), signal.SIGKILL)

        journal.Journal.record = record_then_die
    else:
        unspooled, handed = runner._unspooled, [0]
        first = int(points[0])
        then = first + int(points[1]) if len(points) > 1 else None

        def counted(path):
            for doc in unspooled(path):
                handed[0] += 1
                if handed[0] == first:
                    if mode == "kill-after":
                        os.kill(os.getpid(), signal.SIGKILL)
                    if mode == "fail-then-kill":
                        raise RuntimeError("the disk is on fire")
                    if mode == "pause-after":
                        print("paused", flush=True)
                        sys.stdin.readline()
                if handed[0] == then:
                    os.kill(os.getpid(), signal.SIGKILL)
                yield doc

        runner._unspooled = counted
    command = arguments if arguments[:1] == ["worker"] else ["import_data", *arguments]
    execute_from_command_line(["manage.py", *command])


if __name__ == "__main__":
    main()
