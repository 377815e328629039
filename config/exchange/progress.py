"""tqdm progress bars for the exchange commands: one bar per file, closed when the next opens."""

from __future__ import annotations

from tqdm import tqdm


class Bars:
    def __init__(self, stream, enabled: bool = True):
        self.stream, self.enabled, self.bar = stream, enabled, None

    def __call__(self, label: str, total: int | None):
        self.close()
        self.bar = tqdm(total=total, desc=f"{label:<22}", unit="doc", disable=not self.enabled, file=self.stream)
        return self.bar.update

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
