"""`tfptest_item`: a file `<directory>/<name>` holding `content`, with a resource identity.

It is the classic-lifecycle peer: create writes the file (and fails if it already exists, as a real
API refuses a duplicate, so the way to adopt one is import); a changed `content` updates it in place;
a changed `directory` or `name` replaces it; read returns what the file holds now, so an edit on disk
is drift that refresh sees; a deleted file is a resource that is gone; destroy removes the file.
Import takes the file's full path as its ID, or an identity of the version the process serves.

One `content` is a fault on purpose: while the file holds exactly `UNKNOWN_IDENTITY`, every
identity returned for it (apply, read, import) has unknown values, which Terraform calls a bug in
the provider. Plan is unaffected on create (the file is not there yet), and a planned identity may
be unknown anyway. It lets a test see what the host does with an object the provider has made
but identified wrongly.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any

from attrs import define, evolve
from pyvider.hub import register_resource
from pyvider.resources.base import BaseResource
from pyvider.resources.context import ResourceContext
from pyvider.schema import PvsSchema, a_str, s_resource

from tfptest import identity

#: The `content` that makes this item's returned identities unknown (see the module's doc).
UNKNOWN_IDENTITY = "tfptest: identify me as unknown"


@define(frozen=True)
class ItemConfig:
    directory: str | None = None
    name: str | None = None
    content: str | None = None


@define(frozen=True)
class ItemState:
    id: str | None = None
    directory: str | None = None
    name: str | None = None
    content: str | None = None


def item_path(directory: str, name: str) -> str:
    """The item's ID: its path exactly as joined from the configuration, never normalised, so that
    the planned ID and the applied one are the same string."""
    return posixpath.join(directory, name)


@register_resource("tfptest_item")
class ItemResource(BaseResource["tfptest_item", ItemState, ItemConfig]):
    config_class = ItemConfig
    state_class = ItemState

    @classmethod
    def get_schema(cls) -> PvsSchema:
        return s_resource(
            {
                "id": a_str(computed=True, description="The file's full path, `<directory>/<name>`."),
                "directory": a_str(
                    required=True, requires_replace=True, description="The directory holding the file."
                ),
                "name": a_str(required=True, requires_replace=True, description="The file's name."),
                "content": a_str(required=True, description="What the file holds."),
            }
        )

    @classmethod
    def get_identity_schema(cls) -> PvsSchema:
        return identity.schema()

    @classmethod
    def get_identity(cls, state: Any) -> dict[str, Any] | None:
        if state is None:
            return None
        directory, name = getattr(state, "directory", None), getattr(state, "name", None)
        found = identity.of(directory, name)
        if found is not None and directory and name and _holds_the_fault(directory, name):
            return identity.unknown(found)
        return found

    @classmethod
    async def upgrade_identity(cls, version: int, raw_identity: dict[str, Any]) -> dict[str, Any]:
        return identity.upgrade(version, raw_identity)

    async def _validate_config(self, config: ItemConfig) -> list[str]:
        errors = []
        if config.name is not None and ("/" in config.name or config.name in ("", ".", "..")):
            errors.append(f"name {config.name!r} must be a plain file name")
        return errors

    async def _create(
        self, ctx: ResourceContext[ItemConfig, ItemState, None], base_plan: dict[str, Any]
    ) -> tuple[dict[str, Any] | None, None]:
        config = ctx.config
        if config is not None and config.directory is not None and config.name is not None:
            base_plan["id"] = item_path(config.directory, config.name)
        return base_plan, None

    async def _create_apply(
        self, ctx: ResourceContext[ItemConfig, ItemState, None]
    ) -> tuple[ItemState | None, None]:
        planned = ctx.planned_state
        assert planned is not None and planned.directory is not None and planned.name is not None
        item_id = item_path(planned.directory, planned.name)
        path = Path(item_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with path.open("x", encoding="utf-8") as file:
                file.write(planned.content or "")
        except FileExistsError:
            raise ValueError(f"{path} already exists: import it instead of creating it") from None
        return evolve(planned, id=item_id), None

    async def _update_apply(
        self, ctx: ResourceContext[ItemConfig, ItemState, None]
    ) -> tuple[ItemState | None, None]:
        planned = ctx.planned_state
        assert planned is not None and planned.directory is not None and planned.name is not None
        Path(item_path(planned.directory, planned.name)).write_text(planned.content or "", encoding="utf-8")
        return planned, None

    async def _delete_apply(self, ctx: ResourceContext[ItemConfig, ItemState, None]) -> None:
        state = ctx.state
        if state is not None and state.directory and state.name:
            Path(item_path(state.directory, state.name)).unlink(missing_ok=True)

    async def read(self, ctx: ResourceContext[ItemConfig, ItemState, None]) -> ItemState | None:
        state = ctx.state
        if state is None or not state.directory or not state.name:
            return None
        return _load(state.directory, state.name)

    async def import_state(self, ctx: ResourceContext, import_id: str) -> ItemState | None:  # type: ignore[type-arg]
        """Finds the item by identity if the host sent one, else by its full path as the ID."""
        if ctx.identity:
            directory, name = identity.location(ctx.identity)
        else:
            directory, name = identity.split(import_id)
        return _load(directory, name)


def _holds_the_fault(directory: str, name: str) -> bool:
    """Whether the item's file exists and holds exactly `UNKNOWN_IDENTITY`."""
    try:
        return Path(item_path(directory, name)).read_text(encoding="utf-8") == UNKNOWN_IDENTITY
    except OSError:
        return False


def _load(directory: str, name: str) -> ItemState | None:
    """The item as it is on disk, or None if its file does not exist."""
    item_id = item_path(directory, name)
    path = Path(item_id)
    if not path.is_file():
        return None
    return ItemState(
        id=item_id, directory=directory, name=name, content=path.read_text(encoding="utf-8")
    )
