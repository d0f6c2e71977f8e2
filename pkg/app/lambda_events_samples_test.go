package app

import "bytes"

// sampleValues are the example values the sample events in events/ carry
// where a deployment has its own — a key from `admin clients create`, a
// track or job id, an upload's ETag — so `sam local invoke -e` runs the
// files as they are. The tests swap in the values of their own data.
var sampleValues = map[string]string{
	"PARTNER_KEY":      "mcat_SamplePartnerKeyFromAdminClientsCreate00000",
	"USER_TOKEN":       "mcat_SampleUserTokenFromAdminTokensCreate0000000",
	"TRACK_ID":         "5e0c8a2e-4f61-5d0b-9c3a-7b2d1e6f4a90",
	"TRACK_ENTERPRISE": "8b1d4f6a-2c3e-5a7b-8d9e-0f1a2b3c4d5e",
	"TRACK_0":          "1a2b3c4d-5e6f-5a7b-8c9d-0e1f2a3b4c5d",
	"TRACK_2":          "9f8e7d6c-5b4a-5c3d-8e2f-1a0b9c8d7e6f",
	"LICENSE_ID":       "4c1f9e8d7b6a5e4d3c2b1a0f9e8d7c6b",
	"JOB_ID":           "0d6f3c1e-8a4b-4c2d-9e1f-5a6b7c8d9e0f",
	"ETAG":             "9b2cf535f27731c974343645a3985328",
	"BUILD_ID":         "3f9a0c2b7d1e4a5b8c6d9e0f1a2b3c4d",
}

// withSample replaces the sample value of name in a sample event by value.
func withSample(event []byte, name, value string) []byte {
	sample, ok := sampleValues[name]
	if !ok {
		panic("no sample value named " + name)
	}
	return bytes.ReplaceAll(event, []byte(sample), []byte(value))
}
