// Command mailer consumes the mail queue and sends each message once with
// SES (a render's "your video is ready" email, interface.md §6).
package main

import "musiccatalog/pkg/app/mailapp"

func main() { mailapp.RunLambda() }
