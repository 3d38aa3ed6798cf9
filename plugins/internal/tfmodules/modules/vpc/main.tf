# A VPC with one public and one private subnet per availability zone. Nodes
# live in the private subnets and reach the internet (packages, SSM) through
# a single NAT gateway: one gateway keeps the cost down, at the price of
# egress depending on one zone.

data "aws_availability_zones" "available" {
  state            = "available"
  exclude_zone_ids = var.exclude_zone_ids
  filter {
    name   = "opt-in-status"
    values = ["opt-in-not-required"]
  }
}

locals {
  # Zone IDs name the same physical zone in every account, unlike zone
  # names. The plugin passes the ones its preflight found offering the
  # instance type (a type is not offered everywhere: t3 not in use1-az3);
  # without them, the region's first available zones.
  zone_ids = length(var.zone_ids) > 0 ? var.zone_ids : data.aws_availability_zones.available.zone_ids
  # Lets EKS and load balancer controllers find the cluster's subnets.
  cluster_tag = { "kubernetes.io/cluster/${var.cluster_name}" = "shared" }
}

resource "aws_vpc" "this" {
  cidr_block           = var.cidr
  enable_dns_support   = true
  enable_dns_hostnames = true
  tags                 = { Name = var.name }

  lifecycle {
    precondition {
      condition     = length(local.zone_ids) >= var.az_count
      error_message = "This region has fewer available zones (or zone_ids) than az_count; lower az_count."
    }
  }
}

resource "aws_internet_gateway" "this" {
  vpc_id = aws_vpc.this.id
  tags   = { Name = var.name }
}

resource "aws_subnet" "public" {
  count                   = var.az_count
  vpc_id                  = aws_vpc.this.id
  cidr_block              = cidrsubnet(var.cidr, 4, count.index)
  availability_zone_id    = local.zone_ids[count.index]
  map_public_ip_on_launch = true
  tags = merge(local.cluster_tag, {
    Name                     = "${var.name}-public-${local.zone_ids[count.index]}"
    "kubernetes.io/role/elb" = "1"
  })
}

resource "aws_subnet" "private" {
  count                = var.az_count
  vpc_id               = aws_vpc.this.id
  cidr_block           = cidrsubnet(var.cidr, 4, count.index + 8)
  availability_zone_id = local.zone_ids[count.index]
  tags = merge(local.cluster_tag, {
    Name                              = "${var.name}-private-${local.zone_ids[count.index]}"
    "kubernetes.io/role/internal-elb" = "1"
  })
}

resource "aws_eip" "nat" {
  domain = "vpc"
  tags   = { Name = "${var.name}-nat" }
}

resource "aws_nat_gateway" "this" {
  allocation_id = aws_eip.nat.id
  subnet_id     = aws_subnet.public[0].id
  tags          = { Name = var.name }
  depends_on    = [aws_internet_gateway.this]
}

resource "aws_route_table" "public" {
  vpc_id = aws_vpc.this.id
  route {
    cidr_block = "0.0.0.0/0"
    gateway_id = aws_internet_gateway.this.id
  }
  tags = { Name = "${var.name}-public" }
}

resource "aws_route_table" "private" {
  vpc_id = aws_vpc.this.id
  route {
    cidr_block     = "0.0.0.0/0"
    nat_gateway_id = aws_nat_gateway.this.id
  }
  tags = { Name = "${var.name}-private" }
}

resource "aws_route_table_association" "public" {
  count          = var.az_count
  subnet_id      = aws_subnet.public[count.index].id
  route_table_id = aws_route_table.public.id
}

resource "aws_route_table_association" "private" {
  count          = var.az_count
  subnet_id      = aws_subnet.private[count.index].id
  route_table_id = aws_route_table.private.id
}
