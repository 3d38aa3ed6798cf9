output "vpc_id" {
  description = "ID of the VPC."
  value       = aws_vpc.this.id
}

output "vpc_cidr" {
  description = "IPv4 CIDR of the VPC."
  value       = aws_vpc.this.cidr_block
}

# The subnet outputs wait for the subnets' routes and gateways, so every
# consumer does too: a load balancer in a public subnet without the
# internet gateway fails to create ("VPC has no internet gateway"), and a
# node in a private subnet without its NAT route boots with no internet.
output "public_subnet_ids" {
  description = "Public subnets, one per availability zone, in zone order; ready once their route to the internet gateway is."
  value       = aws_subnet.public[*].id
  depends_on  = [aws_internet_gateway.this, aws_route_table.public, aws_route_table_association.public]
}

output "private_subnet_ids" {
  description = "Private subnets (egress through the NAT gateway), one per availability zone, in zone order; ready once their route through the NAT gateway is."
  value       = aws_subnet.private[*].id
  depends_on  = [aws_nat_gateway.this, aws_route_table.private, aws_route_table_association.private]
}

output "zone_ids" {
  description = "Availability zone IDs of the subnets, in zone order: a later apply passes them again, so the subnets stay where they are."
  value       = slice(local.zone_ids, 0, var.az_count)
}
