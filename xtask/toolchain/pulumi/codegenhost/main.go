// Command codegenhost is a stand-in for Pulumi's Node.js and Python language hosts that only generates
// SDKs, for `pulumi package gen-sdk --language nodejs|python` in this repository's end-to-end tests.
//
// The real hosts live in Go modules that Pulumi never tags, and the module proxy reachable here serves
// none of their pseudo-versions, so they cannot be built (see xtask/src/fixtures/pulumi.rs). SDK
// generation itself is not in the hosts but in pkg/v3's codegen packages, which this program calls the
// way the hosts' GeneratePackage does: bind the schema with the engine's loader, generate, write the files.
// So the SDKs are the ones Pulumi's hosts of the same pkg/v3 version would write.
//
// The language is chosen by the executable's name: install it as `pulumi-language-nodejs` and as
// `pulumi-language-python`. Every other RPC (Run, InstallDependencies, Pack, ...) answers Unimplemented,
// so programs in these languages cannot run with it.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// host serves GeneratePackage for one language.
type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	// language is "nodejs" or "python".
	language string
}

func main() {
	// The engine passes flags and its own address; SDK generation needs neither, so they are ignored.
	name := filepath.Base(os.Args[0])
	language := strings.TrimPrefix(name, "pulumi-language-")
	if language != "nodejs" && language != "python" {
		fmt.Fprintf(os.Stderr, "%s: install this program as pulumi-language-nodejs or pulumi-language-python\n", name)
		os.Exit(2)
	}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, &host{language: language})
			return nil
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: could not serve: %v\n", name, err)
		os.Exit(1)
	}
	// The engine reads the port from the first line of stdout.
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
}

func (h *host) GeneratePackage(
	ctx context.Context, req *pulumirpc.GeneratePackageRequest,
) (*pulumirpc.GeneratePackageResponse, error) {
	client, err := schema.NewLoaderClient(req.LoaderTarget)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	loader := schema.NewCachedLoader(client)

	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(req.Schema), &spec); err != nil {
		return nil, fmt.Errorf("the schema is not valid JSON: %w", err)
	}
	// Dangling references are allowed, as the real hosts allow them.
	pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{AllowDanglingReferences: true})
	if err != nil {
		return nil, err
	}
	response := &pulumirpc.GeneratePackageResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}
	if diags.HasErrors() {
		return response, nil
	}

	tool := "pulumi-language-" + h.language
	var files map[string][]byte
	switch h.language {
	case "nodejs":
		files, err = nodejs.GeneratePackage(tool, pkg, req.ExtraFiles, req.LocalDependencies, req.Local, loader)
	default:
		files, err = python.GeneratePackage(tool, pkg, req.ExtraFiles, loader)
	}
	if err != nil {
		return nil, err
	}
	for name, data := range files {
		path := filepath.Join(req.Directory, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("could not create the directory of %s: %w", name, err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, fmt.Errorf("could not write %s: %w", name, err)
		}
	}
	return response, nil
}
