terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
    helm = {
      source  = "hashicorp/helm"
      version = ">= 2.12"
    }
    tls = {
      source = "hashicorp/tls"
    }
  }
  backend "kubernetes" {
  }
}

provider "aws" {
  region = "eu-north-1"
  default_tags {
    tags = {
      "kubeopera.io/cluster-id" = "c-123"
    }
  }
  assume_role {
    role_arn = "arn:aws:iam::123456789012:role/kubeopera"
  }
}

module "vpc" {
  source     = "./modules/vpc"
  az_count   = 3
  cidr_block = "10.0.0.0/16"
  name       = "prod-eu"
  tags = {
    env  = "prod"
    team = "platform"
  }
  zones = ["eu-north-1a", "eu-north-1b"]
}

module "eks" {
  source             = "./modules/eks"
  kubernetes_version = "1.31"
  node_count         = 2
  first_zone         = module.vpc.zones[0]
  subnet_ids         = module.vpc.private_subnet_ids
  vpc_id             = module.vpc.vpc_id
}

output "endpoint" {
  value = module.eks.endpoint
}

output "kubeconfig" {
  value     = module.eks.kubeconfig
  sensitive = true
}
