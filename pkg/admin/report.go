package admin

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"strconv"

	"musiccatalog/pkg/downloads"
)

// reportHeader is the first line of `report downloads`.
var reportHeader = []string{"month", "client_id", "asset_type", "asset_id", "name", "downloads", "mp3", "wav", "personal_use_confirmed", "zip"}

// reportDownloads prints a client's download counts of one month as CSV,
// one line per asset (the partner's usage reporting).
func (c *cmd) reportDownloads(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("report downloads", flag.ContinueOnError)
	client := fs.String("client", "", "")
	month := fs.String("month", "", "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *client == "" || *month == "" {
		return usageError("report downloads needs --client and --month")
	}
	if _, err := downloads.ParseMonth(*month); err != nil {
		return usageError(err.Error())
	}
	if c.deps.Downloads == nil {
		return errors.New("downloads are not configured (no object store)")
	}
	if _, err := c.deps.Identity.GetClient(ctx, *client); err != nil {
		return err
	}
	rows, err := c.deps.Downloads.Report(ctx, *client, *month)
	if err != nil {
		return err
	}
	w := csv.NewWriter(c.out)
	_ = w.Write(reportHeader)
	for _, r := range rows {
		_ = w.Write([]string{r.Month, r.ClientID, r.AssetType, r.AssetID, r.Name, strconv.FormatInt(r.Downloads, 10),
			strconv.FormatInt(r.MP3, 10), strconv.FormatInt(r.WAV, 10), strconv.FormatInt(r.PersonalUseConfirmed, 10),
			strconv.FormatInt(r.ZIP, 10)})
	}
	w.Flush()
	return w.Error()
}
