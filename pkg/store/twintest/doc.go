// Package twintest gives tests every store adapter that must behave the
// same: the bbolt twin always, and DynamoDB (dynamostore) against DynamoDB
// Local when the integration tier set TEST_DYNAMODB_ENDPOINT (run the test
// under `bash infra/local/with-stack.sh`). Under CI=true a missing
// endpoint fails the test instead of skipping the DynamoDB half.
package twintest
