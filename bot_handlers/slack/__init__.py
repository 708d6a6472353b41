"""Slack adapter: the Bolt app, the Web API client and Block Kit rendering of the core's answers."""
