"""`tfptest_item` as a list resource: every regular file in a directory, as items.

A file holding exactly `WITHOUT_ID` is listed with an object whose `id` is null, as a list API that
returns less than a read is listed; the result still has its identity.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

from attrs import define
from pyvider.list_resources import (
    BaseListResource,
    ListResourceContext,
    ListResult,
    register_list_resource,
)
from pyvider.schema import PvsSchema, a_str, s_resource

from tfptest import identity
from tfptest.item import ItemState, item_path

#: The content that makes a file's listed object lack its `id`.
WITHOUT_ID = "tfptest: list me without an id"


@define(frozen=True)
class ItemListConfig:
    directory: str | None = None


# The list resource shares the managed resource's name: hosts resolve a list result's identity and
# object against the managed resource of the same type name.
@register_list_resource("tfptest_item", resource_type="tfptest_item")
class ItemList(BaseListResource[ItemListConfig]):
    config_class = ItemListConfig

    @classmethod
    def get_schema(cls) -> PvsSchema:
        return s_resource(
            attributes={"directory": a_str(required=True, description="The directory to list.")}
        )

    async def list(self, ctx: ListResourceContext[ItemListConfig]) -> AsyncIterator[ListResult]:
        assert ctx.config is not None and ctx.config.directory is not None
        directory = ctx.config.directory
        root = Path(directory)
        if not root.is_dir():
            return
        for entry in sorted(root.iterdir()):
            if not entry.is_file():
                continue
            item_identity = identity.of(directory, entry.name)
            assert item_identity is not None
            resource_object = None
            if ctx.include_resource_object:
                content = entry.read_text(encoding="utf-8")
                resource_object = ItemState(
                    id=None if content == WITHOUT_ID else item_path(directory, entry.name),
                    directory=directory,
                    name=entry.name,
                    content=content,
                )
            yield ListResult(
                identity=item_identity, display_name=entry.name, resource_object=resource_object
            )
