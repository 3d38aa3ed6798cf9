# A network stand-in built only from terraform_data (built into terraform,
# so no provider download): one resource per subnet, so progress is visible.

variable "name" {
  type = string
}

variable "subnet_count" {
  type = number
}

variable "zones" {
  type = list(string)
}

variable "tags" {
  type = map(string)
}

resource "terraform_data" "vpc" {
  input = {
    name = var.name
    tags = var.tags
  }
}

resource "terraform_data" "subnet" {
  count = var.subnet_count
  input = "${var.name}-${var.zones[count.index % length(var.zones)]}-${count.index}"
}

output "vpc_name" {
  value = terraform_data.vpc.output.name
}

output "subnet_names" {
  value = terraform_data.subnet[*].output
}

output "tags" {
  value = terraform_data.vpc.output.tags
}
