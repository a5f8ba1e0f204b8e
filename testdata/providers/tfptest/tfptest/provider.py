"""The provider itself. It has no configuration."""

from pyvider.providers import BaseProvider, ProviderMetadata, register_provider


@register_provider("tfptest")
class TfptestProvider(BaseProvider):
    """A provider whose resources are files under directories the configuration names."""

    def __init__(self) -> None:
        super().__init__(metadata=ProviderMetadata(name="tfptest", version="0.1.0"))
