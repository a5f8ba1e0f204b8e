"""The provider's executables: one per identity version, each a release of the same provider.

`terraform-provider-tfptest` is the current release (identity version 1).
`terraform-provider-tfptest-identity-v0` is the release before it (identity version 0). Starting
the current release on a state written by the old one makes the host call UpgradeResourceIdentity,
as upgrading a real provider does.
"""

import os

from tfptest import identity

#: The name Pyvider serves under; it is also the prefix of every type name.
PROVIDER_NAME = "tfptest"


def main() -> None:
    """Serves the current release."""
    _serve(identity.CURRENT_VERSION)


def main_identity_v0() -> None:
    """Serves the previous release, whose identity schema is version 0."""
    _serve(0)


def _serve(version: int) -> None:
    identity.select_version(version)
    # Pyvider reads the provider's name from the environment before anything else.
    os.environ["PYVIDER_PROVIDER_NAME"] = PROVIDER_NAME
    # Imported late: Pyvider configures logging on import.
    from pyvider.cli.__main__ import main as pyvider_main

    pyvider_main()
