package core

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"musiccatalog/pkg/identity"
	"musiccatalog/pkg/store"
)

// Config is every setting of the service. Each field names its variable;
// the README's configuration table lists them with these defaults.
type Config struct {
	Addr                string                 // ADDR: devserver listen address
	DataDir             string                 // DATA_DIR: local store, blobs, demo credentials
	PublicBaseURL       string                 // PUBLIC_BASE_URL: base of signed local URLs (default http://ADDR)
	SiteURL             string                 // SITE_URL: public website that track short links point to (default PUBLIC_BASE_URL)
	Tables              map[store.Table]string // TABLE_ACCOUNTS, TABLE_PLAYLISTS, ... (AWS)
	Bucket              string                 // BUCKET: S3 bucket for media and catalog snapshots (AWS)
	FFmpegPath          string                 // FFMPEG_PATH
	LogLevel            string                 // LOG_LEVEL: debug, info, warn, error
	RateAnonymous       int                    // RATE_LIMIT_ANONYMOUS_PER_MINUTE
	RateAuth            int                    // RATE_LIMIT_AUTHENTICATED_PER_MINUTE
	RateAnalyses        int                    // RATE_LIMIT_ANALYSES_PER_MINUTE
	TokenCacheTTL       time.Duration          // TOKEN_CACHE_TTL: how long a resolved token is trusted
	RecognitionDailyCap int                    // RECOGNITION_DAILY_CAP: default daily submits per client without its own cap
	BlobSecret          string                 // BLOB_SIGNING_SECRET: HMAC key of local signed URLs (default: generated in DATA_DIR)
	LicensePageBase     string                 // LICENSE_PAGE_BASE: base URL of public license pages, {base}/v/{id} (default: the API's public base: PUBLIC_BASE_URL locally, API Gateway's domain on AWS)

	// Soundtrack videos and link fetching.
	YTDLPPath                 string        // YTDLP_PATH: yt-dlp binary that fetches links (default "yt-dlp"; absent = links cannot be fetched)
	SoundtrackDirectUploadMax int64         // SOUNDTRACK_DIRECT_UPLOAD_MAX: largest multipart create body in bytes (default 0 = the 60 MB limit)
	YTDLPTimeout              time.Duration // YTDLP_TIMEOUT: bound of one link fetch (default 60s; on AWS below the API's 29 s)

	// Outside recognizer (ACRCloud protocol); empty host turns it off.
	ACRCloudHost                 string // ACRCLOUD_HOST
	ACRCloudAccessKey            string // ACRCLOUD_ACCESS_KEY (local; on AWS from the parameter below)
	ACRCloudAccessSecret         string // ACRCLOUD_ACCESS_SECRET (local; on AWS from the parameter below)
	ACRCloudCredentialsParameter string // ACRCLOUD_CREDENTIALS_PARAMETER: SSM SecureString with both, read at init (AWS)
	RecognitionOutsideSamples    int    // RECOGNITION_OUTSIDE_SAMPLES: outside requests per recognition job at most (default 20)
}

// FromEnv reads the configuration, applying the documented defaults.
func FromEnv() (Config, error) {
	c := Config{
		Addr:       env("ADDR", "127.0.0.1:8080"),
		DataDir:    env("DATA_DIR", ".data"),
		Bucket:     os.Getenv("BUCKET"),
		FFmpegPath: env("FFMPEG_PATH", "ffmpeg"),
		LogLevel:   env("LOG_LEVEL", "info"),
		BlobSecret: os.Getenv("BLOB_SIGNING_SECRET"),
		Tables:     map[store.Table]string{},
	}
	c.PublicBaseURL = strings.TrimRight(env("PUBLIC_BASE_URL", "http://"+c.Addr), "/")
	c.SiteURL = strings.TrimRight(env("SITE_URL", c.PublicBaseURL), "/")
	c.YTDLPPath = env("YTDLP_PATH", "yt-dlp")
	c.ACRCloudHost = os.Getenv("ACRCLOUD_HOST")
	c.ACRCloudAccessKey = os.Getenv("ACRCLOUD_ACCESS_KEY")
	c.ACRCloudAccessSecret = os.Getenv("ACRCLOUD_ACCESS_SECRET")
	c.ACRCloudCredentialsParameter = os.Getenv("ACRCLOUD_CREDENTIALS_PARAMETER")
	c.LicensePageBase = strings.TrimRight(os.Getenv("LICENSE_PAGE_BASE"), "/")
	for _, t := range store.AllTables {
		c.Tables[t] = env("TABLE_"+strings.ToUpper(string(t)), string(t))
	}
	var err error
	if c.RateAnonymous, err = envInt("RATE_LIMIT_ANONYMOUS_PER_MINUTE", 60); err != nil {
		return c, err
	}
	if c.RateAuth, err = envInt("RATE_LIMIT_AUTHENTICATED_PER_MINUTE", 600); err != nil {
		return c, err
	}
	if c.RateAnalyses, err = envInt("RATE_LIMIT_ANALYSES_PER_MINUTE", 30); err != nil {
		return c, err
	}
	if c.RecognitionDailyCap, err = envInt("RECOGNITION_DAILY_CAP", 100); err != nil {
		return c, err
	}
	if c.RecognitionOutsideSamples, err = envInt("RECOGNITION_OUTSIDE_SAMPLES", 20); err != nil {
		return c, err
	}
	directMax, err := envInt("SOUNDTRACK_DIRECT_UPLOAD_MAX", 0)
	if err != nil {
		return c, err
	}
	c.SoundtrackDirectUploadMax = int64(directMax)
	if c.TokenCacheTTL, err = envDuration("TOKEN_CACHE_TTL", 10*time.Second); err != nil {
		return c, err
	}
	if c.TokenCacheTTL > identity.MaxTokenCacheTTL { // the documented bound on revocation delay
		return c, fmt.Errorf("TOKEN_CACHE_TTL=%s: at most %s", c.TokenCacheTTL, identity.MaxTokenCacheTTL)
	}
	if c.YTDLPTimeout, err = envDuration("YTDLP_TIMEOUT", 60*time.Second); err != nil {
		return c, err
	}
	if abs, err := filepath.Abs(c.DataDir); err == nil {
		c.DataDir = abs
	}
	return c, nil
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

func envInt(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q: want a non-negative integer", name, v)
	}
	return n, nil
}

func envDuration(name string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s=%q: want a duration such as 10s", name, v)
	}
	return d, nil
}
