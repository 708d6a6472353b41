"""Chat-platform adapters (Slack, Teams): thin translators between platform events and the lcabot core."""
