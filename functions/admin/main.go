// Command admin is the operator CLI; see pkg/admin.
package main

import (
	"context"
	"os"

	"musiccatalog/pkg/admin"
)

func main() { os.Exit(admin.Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)) }
