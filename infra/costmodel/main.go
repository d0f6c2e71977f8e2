// Command costmodel prints the README's cost table: US dollars per 1,000
// requests of each kind, from measured durations and the memory each
// function is deployed with (template.yaml defaults), at AWS list prices
// (us-east-1, arm64, on-demand; see prices below).
//
//	go run ./infra/costmodel                      # the table with the README's figures
//	go run ./infra/costmodel -search-ms 2.1 ...   # with your own measurements
//
// Durations are CPU time per request measured locally (README "Cost
// model" names the benchmarks and the machine); a Lambda of 1769 MB has one
// vCPU, so a request that keeps one core busy for d ms bills about d ms
// there (billing rounds up to 1 ms). Smaller functions get a share of a
// vCPU; the model scales their duration by 1769/memory.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
)

// List prices, us-east-1, as published by AWS in 2025.
const (
	lambdaGBSecond    = 0.0000133334 // arm64, per GB-second
	lambdaRequest     = 0.20 / 1e6
	httpAPIRequest    = 1.00 / 1e6  // first 300 M per month, per 512 KB
	dynamoRead        = 0.125 / 1e6 // on-demand read request unit
	dynamoWrite       = 0.625 / 1e6 // on-demand write request unit
	s3Put             = 0.005 / 1e3 // PUT, COPY, POST, LIST
	s3Get             = 0.0004 / 1e3
	s3GBMonth         = 0.023
	sfnTransition     = 0.025 / 1e3 // standard workflows
	sqsRequest        = 0.40 / 1e6  // standard queue, per 64 KB request
	sesEmail          = 0.10 / 1e3  // outbound email
	oneVCPUMemoryMB   = 1769.0
	lambdaBillingMinS = 0.001
)

// invocation is one Lambda call: memory and billed duration.
type invocation struct {
	memoryMB float64
	seconds  float64
}

// kind is one request kind and what serving one costs.
type kind struct {
	name       string
	note       string
	lambdas    []invocation
	apiCalls   float64 // HTTP API requests
	reads      float64 // DynamoDB RRU (strongly consistent, ≤ 4 KB)
	writes     float64 // DynamoDB WRU (transactions count twice)
	s3Puts     float64
	s3Gets     float64
	s3GBMonths float64 // storage held for the request (uploads expire after 2 days)
	sfnSteps   float64
	other      float64 // USD of services without a column (SQS, SES), named in the note
	unmeasured bool
}

func (k kind) perRequest() (lambda, requests, api, dynamo, s3, sfn float64) {
	for _, in := range k.lambdas {
		s := math.Max(math.Ceil(in.seconds*1000)/1000, lambdaBillingMinS)
		lambda += in.memoryMB / 1024 * s * lambdaGBSecond
		requests += lambdaRequest
	}
	api = k.apiCalls * httpAPIRequest
	dynamo = k.reads*dynamoRead + k.writes*dynamoWrite
	s3 = k.s3Puts*s3Put + k.s3Gets*s3Get + k.s3GBMonths*s3GBMonth
	sfn = k.sfnSteps * sfnTransition
	return
}

// scaled is the billed duration of cpu seconds of work on a function of
// memoryMB: below one vCPU the function gets that share of a core.
func scaled(cpuSeconds, memoryMB float64) float64 {
	return cpuSeconds * math.Max(1, oneVCPUMemoryMB/memoryMB)
}

func main() {
	searchMS := flag.Float64("search-ms", 1.21, "CPU ms per by-text search at 10k tracks (BenchmarkSearchByText10k cpu_ms/req)")
	detailMS := flag.Float64("detail-ms", 0.16, "CPU ms per authenticated GET of in-memory data (BenchmarkDevserverAuthenticatedGET cpu_ms/req)")
	recognitionCPU := flag.Float64("recognition-cpu-s", 1.48, "CPU s of a 3-minute video through the pipeline, ffmpeg included (BenchmarkRecognitionEndToEnd cpu_s)")
	taskIO := flag.Float64("task-io-s", 0.10, "S3/DynamoDB waiting per recognition task invocation (assumed)")
	apiIO := flag.Float64("api-io-ms", 15, "DynamoDB/Step Functions waiting per recognition API call (assumed)")
	tracksMB := flag.Float64("tracks-mb", 1024, "api-tracks memory")
	recognitionMB := flag.Float64("recognition-api-mb", 1024, "api-recognition memory")
	searchMB := flag.Float64("search-mb", 1769, "SearchMemorySize")
	decoderMB := flag.Float64("decoder-mb", 3008, "DecoderMemorySize")
	polls := flag.Float64("polls", 10, "polls of a recognition job until it completes")
	videoMB := flag.Float64("video-mb", 30, "size of the uploaded video, kept 2 days by the lifecycle rule")
	zipMB := flag.Float64("zip-mb", 324.6, "archive size: a 3-minute track and 8 stems in mp3 and wav (BenchmarkZIPBuild archive_MB)")
	zipMBps := flag.Float64("zip-mbps", 22.9, "build-zip throughput, MB of archive per second of wall time, S3 multipart (BenchmarkZIPBuild/8stems-3min/s3 MB/s)")
	buildZipMB := flag.Float64("build-zip-mb", 1024, "build-zip memory")
	downloadsMB := flag.Float64("downloads-mb", 1024, "api-downloads memory")
	zipPolls := flag.Float64("zip-polls", 3, "202 answers before the archive is built (a client polling every 5-10 s)")
	renderCPU := flag.Float64("render-cpu-s", 2.62, "ffmpeg CPU s of a 60-s 720p render with stream copy (BenchmarkRender60s720p, 60/x_realtime_cpu)")
	renderIO := flag.Float64("render-io-s", 0.6, "S3 transfer per render: the video and the track's wav in, the render out (assumed)")
	renderPolls := flag.Float64("render-polls", 3, "repeats of the render POST until it answers 200")
	soundtrackMB := flag.Float64("soundtrack-mb", 3008, "api-soundtrack memory (DecoderMemorySize)")
	flag.Parse()

	recognitionAPI := invocation{*recognitionMB, scaled(*detailMS/1000, *recognitionMB) + *apiIO/1000}
	kinds := []kind{
		{name: "search (by-text, 10k tracks)", lambdas: []invocation{{*searchMB, scaled(*searchMS/1000, *searchMB)}},
			apiCalls: 1, reads: 3, note: "index in memory; 3 reads when the 10 s token cache misses"},
		{name: "track detail", lambdas: []invocation{{*tracksMB, scaled(*detailMS/1000, *tracksMB)}},
			apiCalls: 1, reads: 3, note: "catalog in memory; same auth reads"},
		{name: "recognition, 3-min video", lambdas: append([]invocation{
			recognitionAPI, recognitionAPI, // upload-url, submit by storage_key
			// The pipeline's CPU billed at the decoder's memory (single
			// threaded: an upper bound), plus each task's waiting.
			{*decoderMB, *recognitionCPU + *taskIO},
			{*searchMB, *taskIO}, {1024, *taskIO}, {*searchMB, *taskIO},
		}, repeat(recognitionAPI, int(*polls))...),
			apiCalls: 2 + *polls, reads: 3*(2+*polls) + 4 + *polls, writes: 2*2 + 4,
			s3Puts: 3, s3Gets: 3, s3GBMonths: *videoMB / 1024 * 2 / 30, sfnSteps: 4,
			note: fmt.Sprintf("presigned PUT of %g MB kept 2 days; 4 tasks; %g polls; no outside recognizer", *videoMB, *polls)},
		zipBuild(*zipMB, *zipMBps, *buildZipMB, invocation{*downloadsMB, scaled(*detailMS/1000, *downloadsMB) + *apiIO/1000}, *zipPolls),
		zipServed(*zipMB, invocation{*downloadsMB, scaled(*detailMS/1000, *downloadsMB) + *apiIO/1000}),
		{name: "render, 60-s 720p video", lambdas: append([]invocation{
			// build-render: ffmpeg's CPU (audio mix, stream-copied video) and the transfers.
			{*decoderMB, *renderCPU + *renderIO},
			{128, 0.05}, // mailer: claim, SES, mark sent
		}, repeat(invocation{*soundtrackMB, scaled(*detailMS/1000, *soundtrackMB) + *apiIO/1000}, 1+int(*renderPolls))...),
			apiCalls: 1 + *renderPolls, reads: 5*(1+*renderPolls) + 4, writes: 1 + 2 + 2,
			s3Puts: 1, s3Gets: 2 + 2**renderPolls, s3GBMonths: *videoMB / 1024 * 5 / 30, sfnSteps: 2,
			other: 3*sqsRequest + sesEmail,
			note:  fmt.Sprintf("POST + %g repeats; render (~%g MB) kept ≤ 5 days; email: SQS send/receive/delete + SES, %s per 1,000 in the total", *renderPolls, *videoMB, usd((3*sqsRequest+sesEmail)*1000))},
	}
	fmt.Println("| Request kind | Lambda GB-s | Lambda requests | HTTP API | DynamoDB | S3 | Step Functions | **total** | Notes |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, k := range kinds {
		if k.unmeasured {
			fmt.Printf("| %s | — | — | — | — | — | — | not measured | %s |\n", k.name, k.note)
			continue
		}
		l, r, a, d, s, f := k.perRequest()
		total := l + r + a + d + s + f + k.other
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | **%s** | %s |\n", k.name,
			usd(l*1000), usd(r*1000), usd(a*1000), usd(d*1000), usd(s*1000), usd(f*1000), usd(total*1000), k.note)
	}
	fmt.Fprintf(os.Stderr, "inputs: search %.2f ms, detail %.2f ms, recognition %.2f s CPU + %.2f s per task, %g polls; render %.2f s CPU + %.2f s transfers\n",
		*searchMS, *detailMS, *recognitionCPU, *taskIO, *polls, *renderCPU, *renderIO)
}

// Renditions in an archive of a track with 8 stems in both formats.
const zipRenditions = 18

// zipBuild is a ZIP download whose archive is built for it: the first
// request (record put, execution start), polls, the build-zip task (its
// wall time: it waits on S3), and the 200 (record read, HEAD, count).
func zipBuild(mb, mbps, buildMB float64, api invocation, polls float64) kind {
	parts := math.Ceil(mb * 1e6 / (8 << 20))
	return kind{name: fmt.Sprintf("ZIP build, track + 8 stems, mp3+wav (%.0f MB)", mb),
		lambdas:  append(repeat(api, int(polls)+2), invocation{buildMB, mb / mbps}),
		apiCalls: polls + 2, reads: 3*(polls+2) + polls + 2 + 1, writes: 1 + 1 + 1,
		s3Puts: parts + 2, s3Gets: zipRenditions + 1, s3GBMonths: mb / 1024 * 7 / 30, sfnSteps: 2,
		note: fmt.Sprintf("%.0f s of build-zip at %.1f MB/s; %.0f multipart parts; kept 7 days; %.0f polls; S3 egress not included ($0.09/GB: $%.3f per download)",
			mb/mbps, mbps, parts, polls, mb/1024*0.09)}
}

// zipServed is a ZIP download of an archive built earlier (identical
// request within 7 days): record read, HEAD, presign, count.
func zipServed(mb float64, api invocation) kind {
	return kind{name: "ZIP download, archive already built", lambdas: []invocation{api},
		apiCalls: 1, reads: 3 + 1, writes: 1, s3Gets: 1,
		note: fmt.Sprintf("one archive serves every identical request for 7 days; egress of %.0f MB not included", mb)}
}

func repeat(in invocation, n int) []invocation {
	out := make([]invocation, n)
	for i := range out {
		out[i] = in
	}
	return out
}

func usd(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v < 0.0001:
		return fmt.Sprintf("%.6f", v)
	case v < 0.01:
		return fmt.Sprintf("%.4f", v)
	}
	return fmt.Sprintf("%.3f", v)
}
