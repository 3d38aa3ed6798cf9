# Fails at plan: a reference to a resource that is not declared.

resource "terraform_data" "cluster" {
  input = terraform_data.missing.output
}
