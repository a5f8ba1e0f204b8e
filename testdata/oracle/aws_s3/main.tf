# hashicorp/aws 3.39.0 against moto: an S3 bucket through create, update (tags), replace (its
# name), refresh and destroy. The provider is configured as the e2e `aws` scenarios configure it
# through Pulumi, with moto's endpoint and the secret key given as variables.

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

variable "stage" {
  type    = string
  default = "one"
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

resource "aws_s3_bucket" "bucket" {
  bucket        = var.bucket
  force_destroy = true
  tags = {
    stage = var.stage
  }
}
