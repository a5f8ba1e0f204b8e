# The classic lifecycle of one resource: create, update (content), replace (name), refresh after an
# edit on disk, destroy.

terraform {
  required_providers {
    tfptest = { source = "registry.opentofu.org/test/tfptest" }
  }
}

variable "name" {
  type    = string
  default = "item"
}

variable "content" {
  type    = string
  default = "first"
}

resource "tfptest_item" "item" {
  directory = "items"
  name      = var.name
  content   = var.content
}
