"""`tfptest_token`: an ephemeral resource that issues a random secret and keeps a journal.

Open issues a token whose `value` is a fresh random secret; renew extends it; close revokes it.
Each step appends one line to the file `journal`, so a test can count them:

    open <token_id> sha256=<hex digest of value>
    renew <token_id>
    close <token_id>

The journal holds the value's SHA-256, never the value, so a test can check that the value reached
another resource (say `tfptest_secret_file`) without the secret being written anywhere else.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from attrs import define
from pyvider.ephemerals import (
    BaseEphemeralResource,
    EphemeralResourceContext,
    register_ephemeral_resource,
)
from pyvider.resources.private_state import PrivateState
from pyvider.schema import PvsSchema, a_num, a_str, s_resource

#: How long a token lives before the host must renew it, unless `ttl_seconds` says otherwise.
DEFAULT_TTL_SECONDS = 60


@define(frozen=True)
class TokenConfig:
    journal: str | None = None
    ttl_seconds: int | None = None


@define(frozen=True)
class TokenResult:
    journal: str | None = None
    ttl_seconds: int | None = None
    token_id: str | None = None
    value: str | None = None


@define(frozen=True)
class TokenPrivateState(PrivateState):
    token_id: str = ""
    journal: str = ""
    ttl_seconds: int = DEFAULT_TTL_SECONDS


@register_ephemeral_resource("tfptest_token")
class TokenEphemeralResource(BaseEphemeralResource[TokenResult, TokenPrivateState, TokenConfig]):
    config_class = TokenConfig
    result_class = TokenResult
    private_state_class = TokenPrivateState

    @classmethod
    def get_schema(cls) -> PvsSchema:
        return s_resource(
            {
                "journal": a_str(required=True, description="The file each step appends a line to."),
                "ttl_seconds": a_num(
                    description=f"Seconds until the host must renew the token ({DEFAULT_TTL_SECONDS} if unset)."
                ),
                "token_id": a_str(computed=True, description="Names this token in the journal."),
                "value": a_str(computed=True, sensitive=True, description="The secret."),
            }
        )

    async def validate(self, config: TokenConfig | None) -> list[str]:
        if config is not None and config.ttl_seconds is not None and config.ttl_seconds < 1:
            return ["ttl_seconds must be at least 1"]
        return []

    async def open(
        self,
        ctx: EphemeralResourceContext[TokenConfig, None],  # type: ignore[type-var]
    ) -> tuple[TokenResult, TokenPrivateState, datetime]:
        assert ctx.config is not None and ctx.config.journal is not None
        ttl = int(ctx.config.ttl_seconds) if ctx.config.ttl_seconds else DEFAULT_TTL_SECONDS
        token_id = str(uuid.uuid4())
        value = secrets.token_urlsafe(24)
        digest = hashlib.sha256(value.encode("utf-8")).hexdigest()
        _append(ctx.config.journal, f"open {token_id} sha256={digest}")
        result = TokenResult(
            # Configured values come back verbatim, or the host rejects the result.
            journal=ctx.config.journal,
            ttl_seconds=ctx.config.ttl_seconds,
            token_id=token_id,
            value=value,
        )
        private = TokenPrivateState(token_id=token_id, journal=ctx.config.journal, ttl_seconds=ttl)
        return result, private, _renew_at(ttl)

    async def renew(
        self, ctx: EphemeralResourceContext[None, TokenPrivateState]
    ) -> tuple[TokenPrivateState, datetime]:
        private = ctx.private_state
        assert private is not None
        _append(private.journal, f"renew {private.token_id}")
        return private, _renew_at(private.ttl_seconds)

    async def close(self, ctx: EphemeralResourceContext[None, TokenPrivateState]) -> None:
        private = ctx.private_state
        assert private is not None
        _append(private.journal, f"close {private.token_id}")


def _renew_at(ttl_seconds: int) -> datetime:
    return datetime.now(UTC) + timedelta(seconds=ttl_seconds)


def _append(journal: str, line: str) -> None:
    """Appends one line in a single write, so concurrent writers never interleave within a line."""
    path = Path(journal)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as file:
        file.write(line + "\n")
