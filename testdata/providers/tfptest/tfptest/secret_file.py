"""`tfptest_secret_file`: writes a write-only argument to a file, so a test can see it arrived.

`content_wo` is write-only: the host sends it in the configuration of ApplyResourceChange and it is
never part of any state, planned or applied. Since the host cannot compare it with a prior value, a
new value alone plans no change; `content_wo_version` is the Terraform convention for saying it
changed: a new version plans an in-place update, whose apply receives the value again. Create and
every update write the value received to `path`, replacing the file; destroy removes it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from attrs import define, evolve
from pyvider.hub import register_resource
from pyvider.resources.base import BaseResource
from pyvider.resources.context import ResourceContext
from pyvider.schema import PvsSchema, a_num, a_str, s_resource


@define(frozen=True)
class SecretFileConfig:
    path: str | None = None
    content_wo: str | None = None
    content_wo_version: int | None = None


@define(frozen=True)
class SecretFileState:
    id: str | None = None
    path: str | None = None
    content_wo: str | None = None
    content_wo_version: int | None = None


@register_resource("tfptest_secret_file")
class SecretFileResource(BaseResource["tfptest_secret_file", SecretFileState, SecretFileConfig]):
    config_class = SecretFileConfig
    state_class = SecretFileState

    @classmethod
    def get_schema(cls) -> PvsSchema:
        return s_resource(
            {
                "id": a_str(computed=True, description="The same as `path`."),
                "path": a_str(
                    required=True,
                    requires_replace=True,
                    description="The file that receives `content_wo`.",
                ),
                "content_wo": a_str(
                    required=True,
                    write_only=True,
                    sensitive=True,
                    description="Written to `path` on create and update; never stored in state.",
                ),
                "content_wo_version": a_num(
                    description="Change it to send `content_wo` again (an in-place update).",
                ),
            }
        )

    async def _validate_config(self, config: SecretFileConfig) -> list[str]:
        return []

    async def _create(
        self, ctx: ResourceContext[SecretFileConfig, SecretFileState, None], base_plan: dict[str, Any]
    ) -> tuple[dict[str, Any] | None, None]:
        if ctx.config is not None and ctx.config.path is not None:
            base_plan["id"] = ctx.config.path
        return base_plan, None

    async def _create_apply(
        self, ctx: ResourceContext[SecretFileConfig, SecretFileState, None]
    ) -> tuple[SecretFileState | None, None]:
        return self._write(ctx), None

    async def _update_apply(
        self, ctx: ResourceContext[SecretFileConfig, SecretFileState, None]
    ) -> tuple[SecretFileState | None, None]:
        return self._write(ctx), None

    def _write(self, ctx: ResourceContext[SecretFileConfig, SecretFileState, None]) -> SecretFileState:
        planned = ctx.planned_state
        assert planned is not None and planned.path is not None
        value = ctx.config.content_wo if ctx.config is not None else None
        if value is None:
            # The attribute is required, so a null here means the host dropped the write-only value
            # on its way to the provider: exactly what a test of write-only arguments must catch.
            raise ValueError("content_wo did not reach the provider in ApplyResourceChange's config")
        _write_atomically(Path(planned.path), value)
        return evolve(planned, id=planned.path, content_wo=None)

    async def _delete_apply(self, ctx: ResourceContext[SecretFileConfig, SecretFileState, None]) -> None:
        if ctx.state is not None and ctx.state.path:
            Path(ctx.state.path).unlink(missing_ok=True)

    async def read(
        self, ctx: ResourceContext[SecretFileConfig, SecretFileState, None]
    ) -> SecretFileState | None:
        state = ctx.state
        if state is None or not state.path or not Path(state.path).is_file():
            return None
        return evolve(state, content_wo=None)

    async def import_state(self, ctx: ResourceContext, import_id: str) -> SecretFileState | None:  # type: ignore[type-arg]
        """Adopts an existing file by its path; the write-only value cannot be read back."""
        if not Path(import_id).is_file():
            return None
        return SecretFileState(id=import_id, path=import_id)


def _write_atomically(path: Path, text: str) -> None:
    """Replaces `path` with `text`, so a reader never sees a partly written value."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
