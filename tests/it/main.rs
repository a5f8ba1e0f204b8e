//! Integration tests of the root package against real Terraform providers.
