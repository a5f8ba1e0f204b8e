"""The identity of a `tfptest_item`, in both versions the provider has released.

- Version 0 identified an item by its file's full path: `{"path": "/dir/name"}`.
- Version 1 splits it: `{"directory": "/dir", "name": "name"}`. Upgrading from 0 splits the path.

Which version a process serves is chosen by its launcher (see `launcher.py`) before Pyvider starts.
"""

import posixpath
from typing import Any

from pyvider.cty.values import UNREFINED_UNKNOWN
from pyvider.schema import PvsSchema, a_str, s_identity

#: The identity version of the current release.
CURRENT_VERSION = 1

_selected = CURRENT_VERSION


def select_version(version: int) -> None:
    """Makes this process serve identity `version`; the launcher calls it before serving."""
    global _selected
    if version not in (0, CURRENT_VERSION):
        raise ValueError(f"tfptest has no identity version {version}; it has 0 and {CURRENT_VERSION}")
    _selected = version


def version() -> int:
    """The identity version this process serves."""
    return _selected


def schema() -> PvsSchema:
    """The identity schema of the version this process serves."""
    if _selected == 0:
        return s_identity(attributes={"path": a_str(required=True)}, version=0)
    return s_identity(
        attributes={"directory": a_str(required=True), "name": a_str(required=True)},
        version=CURRENT_VERSION,
    )


def of(directory: str | None, name: str | None) -> dict[str, Any] | None:
    """The identity of the item `name` in `directory`, or None while either is unknown."""
    if not directory or not name:
        return None
    if _selected == 0:
        return {"path": posixpath.join(directory, name)}
    return {"directory": directory, "name": name}


def unknown(identity: dict[str, Any]) -> dict[str, Any]:
    """`identity` with every value unknown: what a buggy provider might return."""
    return {key: UNREFINED_UNKNOWN for key in identity}


def location(identity: dict[str, Any]) -> tuple[str, str]:
    """The (directory, name) an identity of the served version points at."""
    if _selected == 0:
        return split(str(identity["path"]))
    return str(identity["directory"]), str(identity["name"])


def split(path: str) -> tuple[str, str]:
    """Splits an item's full path into (directory, name), refusing a path without both."""
    directory, name = posixpath.split(path)
    if not directory or not name:
        raise ValueError(f"{path!r} is not a file path of the form <directory>/<name>")
    return directory, name


def upgrade(from_version: int, raw: dict[str, Any]) -> dict[str, Any]:
    """Upgrades an identity stored by an older release to the version this process serves."""
    if from_version == 0 and _selected == 1:
        directory, name = split(str(raw["path"]))
        return {"directory": directory, "name": name}
    raise ValueError(f"tfptest cannot upgrade identity version {from_version} to version {_selected}")
