# Ephemeral values into write-only arguments, within one provider and across two.
# Paths are relative to the working directory (providers run there) and literal, because Pyvider's
# pyvider_lease rejects a configuration that is not wholly known when it is validated.

terraform {
  required_providers {
    tfptest = { source = "registry.opentofu.org/test/tfptest" }
    pyvider = { source = "registry.opentofu.org/test/pyvider" }
  }
}

# Change it to send the write-only values again (an in-place update of both files).
variable "wo_version" {
  type    = number
  default = 1
}

# A TTL of an hour: no renewal in a run, as when a host renews depends on the clock.
ephemeral "tfptest_token" "token" {
  journal     = "out/token.journal"
  ttl_seconds = 3600
}

ephemeral "pyvider_lease" "lease" {
  name        = "oracle"
  path        = "out/held.lease"
  ttl_seconds = 3600
}

resource "tfptest_secret_file" "from_token" {
  path               = "out/token.txt"
  content_wo         = ephemeral.tfptest_token.token.value
  content_wo_version = var.wo_version
}

# After the other file: two independent resources are worked on concurrently, in an order that
# changes from run to run, by OpenTofu and by the Pulumi engine alike.
resource "tfptest_secret_file" "from_lease" {
  path               = "out/lease-id.txt"
  content_wo         = ephemeral.pyvider_lease.lease.lease_id
  content_wo_version = var.wo_version
  depends_on         = [tfptest_secret_file.from_token]
}
