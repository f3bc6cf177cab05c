"""Reports: one record model, built a case at a time, written once (never overwritten), read
back strictly and verified, migrated from older formats, merged from shards."""
