# Pyvider's pyvider_file_content: create, update (content), a filename change (an update: Pyvider
# declares no attribute that forces replacement), refresh after an edit on disk, destroy.

terraform {
  required_providers {
    pyvider = { source = "registry.opentofu.org/test/pyvider" }
  }
}

variable "filename" {
  type    = string
  default = "files/first.txt"
}

variable "content" {
  type    = string
  default = "hello"
}

resource "pyvider_file_content" "file" {
  filename = var.filename
  content  = var.content
}
