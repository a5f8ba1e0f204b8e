# Import by ID: the file items/adopted must exist before the plan. OpenTofu 1.11 has no import by
# identity (an `identity` argument here is "An argument named "identity" is not expected here").

terraform {
  required_providers {
    tfptest = { source = "registry.opentofu.org/test/tfptest" }
  }
}

import {
  to = tfptest_item.adopted
  id = "items/adopted"
}

resource "tfptest_item" "adopted" {
  directory = "items"
  name      = "adopted"
  content   = "made outside"
}
