"""AWS Lambda entry points (thin): SQS records in, the lcabot core does the work, per-record failures out."""
