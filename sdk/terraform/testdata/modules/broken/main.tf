# Fails at apply: a precondition on user input that does not hold.

resource "terraform_data" "name" {
  input = "x"
}

resource "terraform_data" "cluster" {
  input = terraform_data.name.output

  lifecycle {
    precondition {
      condition     = length(terraform_data.name.output) > 3
      error_message = "The cluster name must be longer than 3 characters; set inputs.name."
    }
  }
}
