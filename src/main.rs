//! `pulumi-resource-terraform-provider`: the binary the Pulumi engine starts.

fn main() {}
