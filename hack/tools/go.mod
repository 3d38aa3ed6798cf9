module github.com/ochestra-tech/kubeopera/hack/tools

go 1.26.8

require (
	google.golang.org/grpc/cmd/protoc-gen-go-grpc v1.6.2 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
