# hashicorp/aws 3.39.0 against moto: import of an S3 bucket made outside either host, by its name,
# then destroy. The provider is configured as in `aws_s3/`.

terraform {
  required_providers {
    aws = { source = "registry.opentofu.org/hashicorp/aws" }
  }
}

variable "endpoint" {
  type = string
}

variable "secret_key" {
  type      = string
  sensitive = true
}

variable "bucket" {
  type = string
}

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "test"
  secret_key                  = var.secret_key
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
  skip_get_ec2_platforms      = true
  s3_force_path_style         = true
  endpoints {
    s3  = var.endpoint
    sts = var.endpoint
    iam = var.endpoint
  }
}

import {
  to = aws_s3_bucket.imported
  id = var.bucket
}

resource "aws_s3_bucket" "imported" {
  bucket = var.bucket
}
