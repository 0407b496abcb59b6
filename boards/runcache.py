"""The report's cache of finished runs: one small JSON file a key, in a folder any number of
reports may share."""

import json
import os
import pathlib
import tempfile

from ..toolchain.cache import cache_dir


__all__ = ["RunCache", "default_folder"]


def default_folder():
    """``report`` in utfhw's cache folder (``~/.cache/utfhw/report`` unless
    ``UTFHW_CACHE_DIR`` or ``XDG_CACHE_HOME`` says otherwise)."""
    return cache_dir() / "report"


class RunCache:
    """Results kept by key in ``folder``: each written beside its place and renamed into it,
    so that a report stopped at any moment leaves whole entries or none, and reports running
    at once do no harm."""
    def __init__(self, folder):
        self.folder = pathlib.Path(folder)

    def _path(self, key):
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key):
        """The value kept under ``key``, or ``None``."""
        try:
            return json.loads(self._path(key).read_text())
        except (OSError, ValueError):
            return None

    def put(self, key, value):
        """Keep ``value`` (JSON's types) under ``key``."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".part",
                                         delete=False) as part:
            json.dump(value, part)
        try:
            os.replace(part.name, path)
        except BaseException:
            os.unlink(part.name)
            raise

    def __len__(self):
        return sum(1 for _ in self.folder.glob("*/*.json"))
