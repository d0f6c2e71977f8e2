package lambdarun

import (
	"context"
	"net/http"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
)

// HTTPHandler is the Lambda handler for an API Gateway HTTP API route.
type HTTPHandler func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// NewHTTPHandler wraps h so that it serves API Gateway v2 events.
func NewHTTPHandler(h http.Handler) HTTPHandler {
	return httpadapter.NewV2(h).ProxyWithContext
}

// StartHTTP serves h as the Lambda function's handler; it never returns.
func StartHTTP(h http.Handler) { lambda.Start(NewHTTPHandler(h)) }
