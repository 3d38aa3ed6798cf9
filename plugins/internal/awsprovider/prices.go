package awsprovider

// priceTable is what the AWS plugins estimate a cluster's cost from: AWS's
// on-demand Linux list prices by the hour, per region, as read on Date.
// A region or an instance type the table lacks is refused by Estimate,
// never priced by guess. docs/aws.md's cost table is this table's figures
// (TestTheDocsCostTableIsTheEstimate).
type priceTable struct {
	Date, Source string
	// Regions holds each region's prices; a region joins once its own
	// prices were read.
	Regions map[string]regionPrices
}

// regionPrices are one region's hourly prices in USD.
type regionPrices struct {
	// Instances by EC2 instance type.
	Instances map[string]float64
	// EKSControlPlane is one EKS cluster in standard support.
	EKSControlPlane float64
	NATGateway      float64
	// LoadBalancer is one Network Load Balancer (capacity units aside).
	LoadBalancer float64
	// PublicIPv4 is one public IPv4 address.
	PublicIPv4 float64
	// GP3PerGiB is a GiB of gp3 volume ($0.08 a GiB-month over 730 hours).
	GP3PerGiB float64
	// KMSKey is one customer-managed key ($1 a month over 730 hours).
	KMSKey float64
}

// hoursPerMonth is the month AWS's price pages use.
const hoursPerMonth = 730

var prices = priceTable{
	Date:   "2026-12-01",
	Source: "AWS on-demand list prices (aws.amazon.com/ec2/pricing/on-demand, /eks/pricing, /vpc/pricing, /elasticloadbalancing/pricing, /ebs/pricing, /kms/pricing)",
	Regions: map[string]regionPrices{
		"us-east-1": {
			// Only t3.medium's is one of docs/aws.md's figures; the
			// other sizes cannot be proven here (its checklist, row 15).
			Instances: map[string]float64{
				"t3.small": 0.0208, "t3.medium": 0.0416, "t3.large": 0.0832, "t3.xlarge": 0.1664, "t3.2xlarge": 0.3328,
			},
			EKSControlPlane: 0.10,
			NATGateway:      0.045,
			LoadBalancer:    0.0225,
			PublicIPv4:      0.005,
			GP3PerGiB:       0.08 / hoursPerMonth,
			KMSKey:          1.0 / hoursPerMonth,
		},
	},
}

// Root volumes: the compute module's root_volume_size for vanilla nodes,
// EKS's default disk of a managed node group.
const (
	vanillaRootGiB = 30
	eksRootGiB     = 20
)
