// Package admin is the operator CLI (functions/admin): create and revoke
// partner clients and their keys, create users and tokens. It works on the
// local data dir or, with --aws, on the AWS tables named by the environment.
package admin
